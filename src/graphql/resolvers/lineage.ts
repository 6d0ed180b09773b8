import { badRequest } from '../../errors.js';
import { DEFAULT_MAX_HOPS, type LineageDirection, type LineageEdit, type LineageHit, type TimeWindow } from '../../services/lineage.js';
import { parseUrn } from '../../model/urn.js';
import { queryTerms, type Facet, type FilterClause, type MatchedField, type SearchRequest } from '../../services/search.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from './common.js';
import { entityTypesOf, facetsOut, filtersOf, matchedFieldsOut } from './search.js';

/**
 * `lineage(input:)` on every entity type that declares it, and searchAcrossLineage / scrollAcrossLineage: the
 * lineage service walks the graph; the search service then narrows the entities reached by types, query and filters,
 * and counts the facets; results are ordered by degree, then in the search's order.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const DIRECTIONS: ReadonlySet<string> = new Set(['UPSTREAM', 'DOWNSTREAM']);

function direction(d: unknown): LineageDirection {
  if (typeof d !== 'string' || !DIRECTIONS.has(d)) throw badRequest(`direction must be UPSTREAM or DOWNSTREAM, got ${String(d)}`);
  return d as LineageDirection;
}

function paging(start: unknown, count: unknown, dfltCount: number) {
  const s = start == null ? 0 : Number(start);
  const c = count == null ? dfltCount : Number(count);
  if (!Number.isInteger(s) || s < 0) throw badRequest(`start must be a whole number ≥ 0, got ${String(start)}`);
  if (!Number.isInteger(c) || c < 0 || c > 10_000) throw badRequest(`count must be between 0 and 10000, got ${String(count)}`);
  return { start: s, count: c };
}

const window = (input: Obj): TimeWindow => ({ startTimeMillis: input.startTimeMillis ?? null, endTimeMillis: input.endTimeMillis ?? null });

/** A hit as DataHub's LineageRelationship: the stamps of the edge it was reached by. */
function relationshipOut(h: LineageHit) {
  const e = h.edge;
  return {
    type: h.type, entity: ref(h.urn), degree: h.degree,
    createdOn: e.createdOn ?? null, createdActor: e.createdActor ? ref(e.createdActor) : null,
    updatedOn: e.updatedOn ?? null, updatedActor: e.updatedActor ? ref(e.updatedActor) : null,
    isManual: !!e.manual,
  };
}

/** One hop of lineage, one way, paged (DataHub's defaults: start 0, count 100). */
export async function lineageField(r: EntityRef, { input }: { input: Obj }, ctx: Ctx) {
  const dir = direction(input.direction);
  const { start, count } = paging(input.start, input.count, 100);
  const hits = await ctx.catalog.lineage.neighbours(r.urn, dir, window(input));
  const page = hits.slice(start, start + count);
  return { start, count: page.length, total: hits.length, filtered: 0, relationships: page.map(relationshipOut) };
}

// ---------------------------------------------------------------------------------------------------------------
// Search across lineage

const DEGREE_FIELDS: ReadonlySet<string> = new Set(['degree', 'degree.keyword']);
const DEGREE_VALUES = ['1', '2', '3+'] as const;

function degreeBucket(degree: number): string {
  return degree === 1 ? '1' : degree === 2 ? '2' : '3+';
}

/**
 * The degree clauses taken out of the filters (the search service knows nothing of degrees): a predicate on the
 * degree, or null when no group has one. A group without a degree clause admits every degree. When groups differ in
 * their degree clauses, an entity is kept when some group's degree clause admits it and some group's other clauses
 * match it (the two groups may differ: a superset of the exact answer, in that rare case only).
 */
function splitDegree(groups: FilterClause[][]) {
  let any = false;
  const predicates: ((bucket: string) => boolean)[] = [];
  const rest: FilterClause[][] = [];
  for (const g of groups) {
    const degree = g.filter((c) => DEGREE_FIELDS.has(c.field));
    rest.push(g.filter((c) => !DEGREE_FIELDS.has(c.field)));
    if (degree.length === 0) { predicates.push(() => true); continue; }
    any = true;
    for (const c of degree) {
      for (const v of c.values) if (!(DEGREE_VALUES as readonly string[]).includes(v)) throw badRequest(`${v} is not a valid filter value for degree filters`);
    }
    predicates.push((bucket) => degree.every((c) => c.values.includes(bucket) !== !!c.negated));
  }
  // An empty group matches everything, so the whole OR does.
  const filters = rest.some((g) => g.length === 0) ? [] : rest;
  return { degree: any ? (bucket: string) => predicates.some((p) => p(bucket)) : null, filters };
}

type Matched = readonly MatchedField[];

/**
 * How far a lineage search walks, as DataHub 0.12.1 decides it: from the degree values of one list of filters — the
 * flat `filters` of searchAcrossLineage, the `orFilters` of scrollAcrossLineage, flattened — two hops when "2" is
 * among them and "3+" is not, one hop when only "1" is, else the whole graph (its 1000 hops). The degree facet then
 * counts what that walk reached.
 */
function maxHopsOf(clauses: readonly Obj[]): number {
  const values = new Set(clauses.filter((c) => c?.field === 'degree').flatMap((c) => (c.values ?? (c.value != null ? [c.value] : [])) as string[]));
  if (values.has('3+')) return DEFAULT_MAX_HOPS;
  return values.has('2') ? 2 : values.has('1') ? 1 : DEFAULT_MAX_HOPS;
}

/**
 * One page of a lineage search's results, nearest first (within a degree, in the search's order), its total and its
 * facets; `hopsFrom`: the filters that bound its walk (maxHopsOf).
 */
async function lineageSearch(ctx: Ctx, input: Obj, hopsFrom: readonly Obj[], start: number, count: number) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  if (typeof input.urn !== 'string' || input.urn === '') throw badRequest('urn is required: the entity the lineage search starts from');
  const dir = direction(input.direction);
  const types = entityTypesOf(input.types);
  const { degree, filters } = splitDegree(filtersOf(input));
  const skipFacets = !!input.searchFlags?.skipAggregates;
  // (Its results show no edge stamps: the walk reads none unless the time window needs them.)
  const walk = await ctx.catalog.lineage.walk(input.urn, dir, { maxHops: maxHopsOf(hopsFrom), window: window(input), stamps: false });
  const byUrn = new Map(walk.hits.map((h) => [h.urn, h]));
  const query = typeof input.query === 'string' ? input.query : '*';
  const search = { query, entityTypes: types, filters };
  // With a degree filter, the facets of sortedWhole count its matches of every other filter, each facet without its own
  // clauses: with other filters, only listing the matches tells which those are.
  const found = queryTerms(query).length === 0 && (!degree || filters.length === 0) && walk.hits.length >= lineagePaging.byDegreeFrom
    ? await pageByDegree(ctx, search, walk.hits, degree, skipFacets, start, count)
    : await sortedWhole(ctx, search, walk.hits, degree, skipFacets, start, count);
  const degreeFacet = { field: 'degree', displayName: 'Degree of Dependencies',
    aggregations: DEGREE_VALUES.map((v) => ({ value: v, count: found.counts.get(v)!, entity: null })) };
  return { ...found, byUrn, facets: skipFacets ? [] : [degreeFacet, ...facetsOut(found.facets)] };
}

/**
 * From how many entities reached a lineage search without words pages by degree (pageByDegree): below, its few more
 * searches cost more than listing them all (at 100,000 datasets, 61 reached, in one run: 15 ms of CPU against 6). Tests set it
 * to run both ways.
 */
export const lineagePaging = { byDegreeFrom: 500 };

type Search = Pick<SearchRequest, 'query' | 'entityTypes' | 'filters'>;
type Found = { page: string[]; total: number; counts: Map<string, number>; facets: Facet[]; matched: Map<string, Matched> };

/**
 * A query with words: its order within a degree depends on how many match (relevance below RANK_LIMIT, a static
 * order above it), so every match is listed in the search's order and sorted by degree here.
 */
async function sortedWhole(ctx: Ctx, search: Search, hits: readonly LineageHit[], degree: ((bucket: string) => boolean) | null,
  skipFacets: boolean, start: number, count: number): Promise<Found> {
  const byUrn = new Map(hits.map((h) => [h.urn, h]));
  const counts = new Map<string, number>(DEGREE_VALUES.map((v) => [v, 0]));
  let ordered: string[] = [];
  let facets: Facet[] = [];
  let matched = new Map<string, Matched>();
  if (hits.length > 0) {
    // Everything reached that matches types, query and the other filters: the degree facet counts these.
    const all = await ctx.catalog.search.search({ ...search, urns: hits.map((h) => h.urn), start: 0,
      count: hits.length, facets: degree || skipFacets ? [] : undefined });
    const matching = all.urns.filter((u) => byUrn.has(u));
    for (const u of matching) { const b = degreeBucket(byUrn.get(u)!.degree); counts.set(b, counts.get(b)! + 1); }
    ordered = matching;
    facets = all.facets;
    matched = all.matchedFields;
    if (degree) {
      const kept = matching.filter((u) => degree(degreeBucket(byUrn.get(u)!.degree)));
      if (kept.length > 0) {
        const narrowed = await ctx.catalog.search.search({ ...search, urns: kept, start: 0, count: kept.length,
          facets: skipFacets ? [] : undefined });
        ordered = narrowed.urns.filter((u) => byUrn.has(u));
        facets = narrowed.facets;
        matched = narrowed.matchedFields;
      } else {
        ordered = [];
        facets = [];
      }
    }
  }
  // Nearest first; within a degree, the search's order (the sort is stable).
  const rank = new Map(ordered.map((u, i) => [u, i]));
  ordered.sort((a, b) => byUrn.get(a)!.degree - byUrn.get(b)!.degree || rank.get(a)! - rank.get(b)!);
  return { page: ordered.slice(start, start + count), total: ordered.length, counts, facets, matched };
}

/**
 * A query without words: the search's order is a static one (by name) whatever the set searched, so each degree's
 * matches can be paged on their own. The entities reached are counted (by degree as far as the page and the degree
 * facet need, all of them at once otherwise) and only the page's urns are listed, where sortedWhole lists every one
 * in order (twice with a degree filter; at 100,000 datasets, 4,733 reached). The results are those of
 * sortedWhole where the facets of the entities admitted by the degree filter are those of its matches (no other
 * filter: lineageSearch).
 */
async function pageByDegree(ctx: Ctx, search: Search, hits: readonly LineageHit[], degree: ((bucket: string) => boolean) | null,
  skipFacets: boolean, start: number, count: number): Promise<Found> {
  const counts = new Map<string, number>(DEGREE_VALUES.map((v) => [v, 0]));
  const none: Found = { page: [], total: 0, counts, facets: [], matched: new Map() };
  if (hits.length === 0) return none;
  // The reached urns by degree (the walk lists them nearest first).
  const byDegree: string[][] = [];
  for (const h of hits) (byDegree[h.degree] ??= []).push(h.urn);
  const admits = (d: number) => !degree || degree(degreeBucket(d));
  const matchCount = new Map<number, number>();
  const countOf = async (d: number) => {
    let n = matchCount.get(d);
    if (n === undefined) {
      n = (await ctx.catalog.search.search({ ...search, urns: byDegree[d] ?? [], start: 0, count: 0, facets: [] })).total;
      matchCount.set(d, n);
    }
    return n;
  };
  // Degrees 1 and 2 one by one; degree 3 and beyond together, as the admitted entities' total less the others.
  const far = byDegree.flatMap((urns, d) => (d >= 3 && urns ? urns : []));
  const admitted = hits.filter((h) => admits(h.degree)).map((h) => h.urn);
  for (const d of [1, 2]) counts.set(String(d), await countOf(d));
  if (admits(3)) {
    // With facets and a degree filter that admits nothing matching, DataHub's answer has no facets but the degree.
    const all = await ctx.catalog.search.search({ ...search, urns: admitted, start: 0, count: 0, facets: skipFacets ? [] : undefined });
    const near = [1, 2].filter(admits).reduce((n, d) => n + matchCount.get(d)!, 0);
    counts.set('3+', all.total - near);
    if (degree && all.total === 0) return { ...none, counts };
    return { ...await pageOf(ctx, search, byDegree, admits, countOf, start, count), total: all.total, counts, facets: all.facets };
  }
  counts.set('3+', far.length ? (await ctx.catalog.search.search({ ...search, urns: far, start: 0, count: 0, facets: [] })).total : 0);
  const total = [1, 2].filter(admits).reduce((n, d) => n + matchCount.get(d)!, 0);
  if (degree && total === 0) return { ...none, counts };
  const facets = skipFacets ? [] : (await ctx.catalog.search.search({ ...search, urns: admitted, start: 0, count: 0 })).facets;
  return { ...await pageOf(ctx, search, byDegree, admits, countOf, start, count), total, counts, facets };
}

/** The urns of one page: each admitted degree's matches in the search's order, the nearest degree first. */
async function pageOf(ctx: Ctx, search: Search, byDegree: readonly (string[] | undefined)[], admits: (d: number) => boolean,
  countOf: (d: number) => Promise<number>, start: number, count: number) {
  const page: string[] = [];
  let at = 0;
  for (let d = 1; d < byDegree.length && page.length < count; d++) {
    const urns = byDegree[d];
    if (!urns || !admits(d)) continue;
    const n = await countOf(d);
    const from = Math.max(start + page.length, at);
    const to = Math.min(start + count, at + n);
    if (to > from) page.push(...(await ctx.catalog.search.search({ ...search, urns, start: from - at, count: to - from, facets: [] })).urns);
    at += n;
  }
  return { page, matched: new Map<string, Matched>() };
}

function resultOut(h: LineageHit, matched: Matched | undefined) {
  return { entity: ref(h.urn), insights: [], matchedFields: matchedFieldsOut(matched), paths: [{ path: h.path.map(ref) }], degree: h.degree };
}

/** The scroll id: the offset of the next page, wrapped so that clients treat it as opaque. */
const SCROLL_PREFIX = 'almanac-lineage:';
const encodeScroll = (offset: number) => Buffer.from(`${SCROLL_PREFIX}${offset}`).toString('base64url');
function decodeScroll(id: string): number {
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const offset = text.startsWith(SCROLL_PREFIX) ? Number(text.slice(SCROLL_PREFIX.length)) : NaN;
  if (!Number.isSafeInteger(offset) || offset < 0 || !/^\d+$/.test(text.slice(SCROLL_PREFIX.length))) {
    throw badRequest(`Invalid scrollId '${id}'`);
  }
  return offset;
}

/** The edges of an UpdateLineageInput list, urns checked and in their canonical form. */
function editsOf(list: unknown): LineageEdit[] {
  if (!Array.isArray(list)) return [];
  return list.filter((e): e is Obj => e != null)
    .map((e) => ({ upstreamUrn: parseUrn(String(e.upstreamUrn)).raw, downstreamUrn: parseUrn(String(e.downstreamUrn)).raw }));
}

export const lineageResolvers = {
  Mutation: {
    /** Who may: services/authorized-writes.ts. */
    updateLineage: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.writes.updateLineage(editsOf(input.edgesToAdd), editsOf(input.edgesToRemove), ctx.actor);
      ctx.loader.clear();
      return true;
    },
  },
  AppConfig: {
    lineageConfig: () => ({ supportsImpactAnalysis: true }),
  },
  Query: {
    searchAcrossLineage: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = paging(input.start, input.count, 10);
      const r = await lineageSearch(ctx, input, input.filters ?? [], start, count);
      return { start, count: r.page.length, total: r.total, facets: r.facets, freshness: null,
        searchResults: r.page.map((u) => resultOut(r.byUrn.get(u)!, r.matched.get(u))) };
    },
    scrollAcrossLineage: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const start = input.scrollId ? decodeScroll(String(input.scrollId)) : 0;
      const { count } = paging(0, input.count, 10);
      const r = await lineageSearch(ctx, input, (input.orFilters ?? []).flatMap((g: Obj) => g?.and ?? []), start, count);
      const next = start + r.page.length;
      return { nextScrollId: r.page.length > 0 && next < r.total ? encodeScroll(next) : null, count: r.page.length,
        total: r.total, facets: r.facets, searchResults: r.page.map((u) => resultOut(r.byUrn.get(u)!, r.matched.get(u))) };
    },
  },
};
