import { tryParseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import { currentReads } from './read-tracking.js';
import { SEARCHABLE, type SearchService } from './search.js';

/**
 * The recommendation modules of DataHub 0.12.1's home page, search page and search bar (its `listRecommendations`),
 * computed from what the catalog holds: the busiest platforms, tags, glossary terms and domains (exact facet counts),
 * the most used datasets (usage statistics of the last 30 days), and per user what they viewed, edited and searched
 * last. Views and searches are recorded here as users make them (the newest KEEP of each kind per user).
 */

export type Scenario = 'HOME' | 'SEARCH_RESULTS' | 'ENTITY_PROFILE' | 'SEARCH_BAR';

export type RenderType = 'ENTITY_NAME_LIST' | 'PLATFORM_SEARCH_LIST' | 'TAG_SEARCH_LIST' | 'SEARCH_QUERY_LIST' | 'GLOSSARY_TERM_SEARCH_LIST'
  | 'DOMAIN_SEARCH_LIST';

export interface RecommendationContent {
  value: string;
  /** The recommended entity's urn, when the content is one. */
  entity?: string;
  params?: {
    /** A search to run: the query, and filters of one value each (field = value). */
    searchParams?: { query: string; filters?: { field: string; values: string[] }[] };
    /** An entity page to open. */
    entityProfileParams?: { urn: string };
    /** How many entities the content stands for. */
    contentParams?: { count: number };
  };
}

export interface RecommendationModule {
  title: string;
  moduleId: string;
  renderType: RenderType;
  content: RecommendationContent[];
}

export interface RecommendationRequest {
  scenario: Scenario;
  /** The search page's query and filters (SEARCH_RESULTS), the entity page's urn (ENTITY_PROFILE): no module reads them yet. */
  search?: { query: string };
  entityUrn?: string;
}

/** Events kept per user and kind. */
export const KEEP = 100;
/** Longest query remembered as a recent search: longer ones are not recorded. */
const MAX_QUERY = 500;
const DAY = 86_400_000;

/** Entity types the entity lists (most popular, recently viewed, recently edited) show, as DataHub's do. */
const LISTED_TYPES: ReadonlySet<string> = new Set(['dataset', 'dataFlow', 'dataJob', 'container', 'dashboard', 'chart', 'mlModel', 'mlFeature',
  'mlModelGroup', 'mlFeatureTable']);
/** Entity types whose platforms are counted for the Platforms module (those of them that Almanac can search). */
const PLATFORM_TYPES = ['dataset', 'dashboard', 'chart', 'mlModel', 'mlModelGroup', 'mlFeatureTable', 'mlFeature', 'mlPrimaryKey', 'dataFlow',
  'dataJob', 'tag', 'container', 'notebook'];

interface Source {
  title: string;
  moduleId: string;
  renderType: RenderType;
  scenarios: readonly Scenario[];
  content(actor: Actor): Promise<RecommendationContent[]>;
}

/**
 * Recent queries, newest first, without those typed on the way to a later one: a search-as-you-type box (Almanac's
 * UI) searches "rev", then "revenue"; only "revenue" was the user's search.
 */
function withoutTyping(queries: readonly string[]): string[] {
  const kept: string[] = [];
  for (const q of queries) {
    const key = q.trim().toLowerCase();
    if (!kept.some((k) => k.trim().toLowerCase().startsWith(key))) kept.push(q);
  }
  return kept;
}

const entityTypeOf = (urn: string): string | undefined => {
  const u = tryParseUrn(urn);
  return typeof u === 'string' ? undefined : u.entityType;
};

export class RecommendationService {
  /** The last time given to an event: events recorded in the same millisecond still keep their order. */
  private last = 0;
  private readonly sources: Source[];

  constructor(private readonly store: Store, private readonly search: SearchService, private readonly opts: { now?: () => number } = {}) {
    // DataHub 0.12.1's order of its candidate sources, which its ranker keeps.
    this.sources = [
      this.facetSource('Platforms', 'Platforms', 'PLATFORM_SEARCH_LIST', ['HOME'], 'platform', 40,
        PLATFORM_TYPES.filter((t) => SEARCHABLE.has(t))),
      this.facetSource('Domains', 'Domains', 'DOMAIN_SEARCH_LIST', ['HOME'], 'domains', 10),
      { title: 'Recently Viewed', moduleId: 'RecentlyViewedEntities', renderType: 'ENTITY_NAME_LIST', scenarios: ['HOME'],
        content: async (actor) => this.entityList(await this.recentValues(actor, 'view')) },
      { title: 'Recently Edited', moduleId: 'RecentlyEditedEntities', renderType: 'ENTITY_NAME_LIST', scenarios: ['HOME'],
        content: async (actor) => this.recentlyEdited(actor) },
      { title: 'Most Popular', moduleId: 'HighUsageEntities', renderType: 'ENTITY_NAME_LIST', scenarios: ['HOME'],
        content: async () => this.entityList((await this.store.datasetUsageLeaders(this.now() - 30 * DAY, 50)).map((r) => r.urn)) },
      this.facetSource('Top Tags', 'TopTags', 'TAG_SEARCH_LIST', ['HOME', 'SEARCH_RESULTS'], 'tags', 10),
      this.facetSource('Top Glossary Terms', 'TopTerms', 'GLOSSARY_TERM_SEARCH_LIST', ['HOME', 'SEARCH_RESULTS'], 'glossaryTerms', 10),
      { title: 'Recent searches', moduleId: 'RecentSearches', renderType: 'SEARCH_QUERY_LIST', scenarios: ['SEARCH_BAR'],
        content: async (actor) => withoutTyping(await this.recentValues(actor, 'search')).slice(0, 5)
          .map((query) => ({ value: query, params: { searchParams: { query } } })) },
    ];
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /** The modules for a page, in DataHub's order, empty ones left out, at most `limit`. */
  async list(actor: Actor, req: RecommendationRequest, limit: number): Promise<RecommendationModule[]> {
    const eligible = this.sources.filter((s) => s.scenarios.includes(req.scenario));
    const modules = await Promise.all(eligible.map(async (s) => {
      const content = await s.content(actor);
      return content.length ? [{ title: s.title, moduleId: s.moduleId, renderType: s.renderType, content }] : [];
    }));
    return modules.flat().slice(0, Math.max(limit, 0));
  }

  /** A user opened an entity's page (read it through a root query). The system actor's reads are not recorded. */
  async viewed(actor: Actor, urn: string): Promise<void> {
    // A reused answer replays the views of the request that produced it.
    currentReads()?.views.push(urn);
    await this.record(actor, 'view', urn);
  }

  /**
   * A user ran a search; recorded when it found something and its query is neither blank nor `*`, as DataHub counts
   * recent searches. Returns the result, so that a resolver can pass its answer through.
   */
  async searched<T extends { total: number }>(actor: Actor, query: unknown, result: T): Promise<T> {
    if (typeof query === 'string' && result.total > 0 && query.trim() !== '' && query.trim() !== '*' && query.length <= MAX_QUERY) {
      await this.record(actor, 'search', query);
    }
    return result;
  }

  /**
   * Each user's latest recorded view: reading the same entity again (a page's many queries, a script polling one
   * urn) changes no order, so it writes nothing — reads do not become writes.
   */
  private readonly lastView = new Map<string, string>();

  private async record(actor: Actor, kind: string, value: string): Promise<void> {
    if (actor.kind === 'system') return;
    if (kind === 'view') {
      if (this.lastView.get(actor.urn) === value) return;
      if (this.lastView.size >= 10_000) this.lastView.clear();
      this.lastView.set(actor.urn, value);
    }
    this.last = Math.max(this.now(), this.last + 1);
    try {
      await this.store.recordActivity({ actor: actor.urn, kind, value, time: this.last }, KEEP);
    } catch (e) {
      // Remembering activity must never fail the read that caused it.
      process.stderr.write(`almanac: warning: could not record ${kind} of ${actor.urn}: ${(e as Error).message}\n`);
    }
  }

  private async recentValues(actor: Actor, kind: string): Promise<string[]> {
    if (actor.kind === 'system') return [];
    return (await this.store.recentActivity(actor.urn, kind, KEEP)).map((e) => e.value);
  }

  /** The first five of these urns that are of a listed type, exist and are not soft-deleted, as entity-page links. */
  private async entityList(urns: readonly string[]): Promise<RecommendationContent[]> {
    const candidates = [...new Set(urns)].filter((u) => LISTED_TYPES.has(entityTypeOf(u) ?? ''));
    const out: string[] = [];
    for (let i = 0; i < candidates.length && out.length < 5; i += 20) {
      const batch = candidates.slice(i, i + 20);
      const [existing, latest] = await Promise.all([this.store.existing(batch), this.store.getLatest(batch, ['status'])]);
      for (const u of batch) {
        const removed = (latest.get(u)?.get('status')?.value as { removed?: boolean } | undefined)?.removed === true;
        if (existing.has(u) && !removed && out.length < 5) out.push(u);
      }
    }
    return out.map((urn) => ({ value: urn, entity: urn, params: { entityProfileParams: { urn } } }));
  }

  /** The entities whose aspects this user wrote last (their own writes, through the API or the UI), newest first. */
  private async recentlyEdited(actor: Actor): Promise<RecommendationContent[]> {
    if (actor.kind === 'system') return [];
    const seen = new Set<string>();
    const ordered: string[] = [];
    const PAGE = 500;
    // Enough distinct entities of the listed types to fill the list after removals, from a bounded number of pages.
    for (let page = 0; page < 10 && ordered.length < 25; page++) {
      const rows = await this.store.aspectWritesBy(actor.urn, page * PAGE, PAGE);
      for (const r of rows) {
        if (seen.has(r.urn)) continue;
        seen.add(r.urn);
        if (LISTED_TYPES.has(entityTypeOf(r.urn) ?? '')) ordered.push(r.urn);
      }
      if (rows.length < PAGE) break;
    }
    return this.entityList(ordered);
  }

  /** A module of the most frequent values of one search field, with their counts and a search for each. */
  private facetSource(title: string, moduleId: string, renderType: RenderType, scenarios: Scenario[], field: string, max: number,
    entityTypes?: string[]): Source {
    return {
      title, moduleId, renderType, scenarios,
      content: async () => {
        const res = await this.search.search({ query: '*', entityTypes, count: 0, facets: [field] });
        const aggs = (res.facets.find((f) => f.field === field)?.aggregations ?? []).filter((a) => a.count > 0)
          .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
          .slice(0, max);
        return aggs.map((a) => ({
          value: a.value, ...(a.value.startsWith('urn:li:') ? { entity: a.value } : {}),
          params: { searchParams: { query: '', filters: [{ field, values: [a.value] }] }, contentParams: { count: a.count } },
        }));
      },
    };
  }
}
