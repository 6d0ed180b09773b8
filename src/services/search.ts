import { badRequest, notFound } from '../errors.js';
import { entityDescriptor, urnKeyProblem } from '../entities/index.js';
import { tryParseUrn } from '../model/urn.js';
import type { FacetCount, IndexUpdate, LatestAspects, SearchCondition, SearchSort, Store } from '../storage/types.js';
import { byCountThenValue, DEFAULT_FACETS, displayNameOfField, formatFacet, selectedValues, type Facet } from './search-facets.js';
import { matchedFields as matchedFieldsOf, nameKey, queryTerms, SEARCHABLE, searchDocuments, type MatchedField } from './search-documents.js';
import {
  ENTITY_TYPE_FIELDS, entityNameOf, facetSpec, requestCondition, sortOf, viewClause, type SearchRequest, type ViewCriterion,
} from './search-filters.js';

export { documentText, FOUND_ONLY_WHEN_NAMED, nameKey, queryTerms, SEARCHABLE, words, type MatchedField } from './search-documents.js';
export { FACET_SEPARATOR, type FilterClause, type SearchRequest } from './search-filters.js';
export { DEFAULT_FACETS, displayNameOfField, FACET_BUCKETS, type Aggregation, type Facet } from './search-facets.js';

export interface SearchResponse {
  start: number;
  count: number;
  total: number;
  urns: string[];
  facets: Facet[];
  /** Per result, the fields the query's words were found in (empty without a query). */
  matchedFields: Map<string, MatchedField[]>;
}

/**
 * Search over names, descriptions, column paths, tags and terms, with DataHub's filters and facets. Names are split
 * into words at camelCase and snake_case boundaries and at dots, so `sample` finds `SampleKafkaDataset` and `users`
 * finds `fct_users_created`; every query word must match the start of a word. Each entity's document (name, text,
 * filter values) comes from its descriptor: the urn's key, and each aspect's `searchText` and `facets`. The engine
 * keeps the index, counts facets exactly in the database, and pages. Soft-deleted entities are left out unless a
 * filter asks about `removed`, as in DataHub.
 */
export class SearchService {
  /** Where warnings go: stderr, or the server's log (src/app.ts). */
  warn: (message: string, fields: Record<string, unknown>) => void = (m) => process.stderr.write(`almanac: warning: ${m}\n`);
  /** Stored urns already warned about, each once per process. */
  private readonly warned = new Set<string>();
  /** Hear how long each search took, in seconds (the metrics' latency histogram). */
  private readonly timed: ((seconds: number) => void)[] = [];

  constructor(private readonly store: Store) {}

  /**
   * Whether a stored entity's urn cannot name an entity of its type (stored before writes checked urns, or by an older
   * build): such an entity is left out of the index and of every answer, with one warning; `almanac doctor` lists them.
   */
  private unmappable(urn: string): boolean {
    const u = tryParseUrn(urn);
    const d = typeof u === 'string' ? undefined : entityDescriptor(u.entityType);
    const problem = typeof u === 'string' ? u : d ? urnKeyProblem(d, u) : null;
    if (problem === null) return false;
    if (!this.warned.has(urn)) {
      this.warned.add(urn);
      this.warn(`left out of search: the stored entity ${urn} has an invalid urn (${problem}); \`almanac doctor\` lists such entities `
        + 'and how to delete them', { urn, problem });
    }
    return true;
  }

  /**
   * The documents of these entities as the store holds them now, and the urns among them that no longer exist (whose
   * documents go): the search index's update, applied by its change-log consumer (src/changelog). `latest`: their
   * aspects, already read.
   */
  documents(urns: readonly string[], latest?: LatestAspects): Promise<IndexUpdate> {
    return searchDocuments(this.store, urns, latest, (u) => this.unmappable(u));
  }

  /** Calls `listener` with each search's duration in seconds, until the returned function is called. */
  onSearched(listener: (seconds: number) => void): () => void {
    this.timed.push(listener);
    return () => {
      const i = this.timed.indexOf(listener);
      if (i >= 0) this.timed.splice(i, 1);
    };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    if (this.timed.length === 0) return this.searchPage(req);
    const t0 = performance.now();
    try {
      return await this.searchPage(req);
    } finally {
      const seconds = (performance.now() - t0) / 1000;
      for (const l of this.timed) l(seconds);
    }
  }

  private async searchPage(req: SearchRequest): Promise<SearchResponse> {
    const start = req.start ?? 0;
    const count = req.count ?? 10;
    if (!Number.isSafeInteger(start) || start < 0) throw badRequest(`start must be a whole number ≥ 0, got ${start}`);
    if (!Number.isSafeInteger(count) || count < 0) throw badRequest(`count must be a whole number ≥ 0, got ${count}`);
    if (count > 10_000 && !req.urns) throw badRequest(`count must be between 0 and 10000, got ${count}`);
    for (const t of req.entityTypes ?? []) if (!SEARCHABLE.has(t)) throw badRequest(`Entity type ${t} is not searchable`);
    const terms = queryTerms(req.query);
    const sort = sortOf(req.sort);
    const where = requestCondition(req);
    const key = nameKey(req.query);
    const facetFields = req.facets ?? DEFAULT_FACETS;
    const found = await this.store.searchDocs({ terms, ...(key !== terms.join(' ') ? { nameKey: key } : {}), where, sort, start, count,
      facetsFollow: facetFields.some((f) => f !== 'degree') });
    // An index built before writes checked urns may still hold an entity no answer can map: left out.
    const kept = found.urns.filter((u) => !this.unmappable(u));
    const page = { urns: kept, total: found.total - (found.urns.length - kept.length) };
    // The page's total is how many the facets sharing its condition count over: not counted a second time.
    const facets = await this.facets(req, terms, facetFields, { where, total: page.total });
    const matchedFields = terms.length ? await matchedFieldsOf(this.store, page.urns, terms) : new Map<string, MatchedField[]>();
    return { start, count: page.urns.length, total: page.total, urns: page.urns, facets, matchedFields };
  }

  /**
   * A request narrowed by a view (DataHub's DataHubView): its entity types intersected with the request's, its
   * filter combined with the request's in conjunction. A view that does not exist is a 404.
   */
  async withView(req: SearchRequest, viewUrn: string): Promise<SearchRequest> {
    const info = (await this.store.getLatest([viewUrn], ['dataHubViewInfo'])).get(viewUrn)?.get('dataHubViewInfo')?.value as
      | { definition?: { entityTypes?: string[]; filter?: { or?: { and: ViewCriterion[] }[]; criteria?: ViewCriterion[] } } }
      | undefined;
    if (!info) throw notFound(`View ${viewUrn} does not exist`, { urn: viewUrn });
    const viewTypes = (info.definition?.entityTypes ?? []).map(entityNameOf);
    const filter = info.definition?.filter ?? {};
    const viewGroups = (filter.or ?? (filter.criteria ? [{ and: filter.criteria }] : [])).map((g) => g.and.map(viewClause));
    let entityTypes = req.entityTypes?.length ? [...req.entityTypes] : undefined;
    let groups = (req.filters ?? []).filter((g) => g.length);
    if (viewTypes.length) entityTypes = entityTypes ? entityTypes.filter((t) => viewTypes.includes(t)) : viewTypes;
    if (viewGroups.length) {
      const base = groups.length ? groups : [[]];
      groups = base.flatMap((g) => viewGroups.map((v) => [...g, ...v]));
    }
    // No type in both: nothing can match (an empty list would mean every type).
    if (entityTypes && entityTypes.length === 0) return { ...req, entityTypes: undefined, filters: [[{ field: 'urn', values: [] }]] };
    return { ...req, entityTypes, filters: groups };
  }

  /**
   * Every value of one field among the matching entities with how many have it (no bucket limit), optionally only
   * values that start with `prefix`: what browsing groups by (browsePathV2, browsePaths).
   */
  async valueCounts(req: SearchRequest, field: string, prefix?: string): Promise<{ value: string; count: number }[]> {
    const withPrefix: SearchRequest = prefix === undefined ? req
      : { ...req, filters: [...((req.filters ?? []).length ? req.filters! : [[]])].map((g) => [...g, { field, values: [prefix], condition: 'START_WITH' }]) };
    const [rows] = await this.store.searchFacets({ terms: queryTerms(req.query), where: requestCondition(withPrefix) }, [{ kind: 'field', field }]);
    return rows!.filter((r) => r.count > 0 && (prefix === undefined || r.value.startsWith(prefix)))
      .map((r) => ({ value: r.value, count: r.count })).sort(byCountThenValue);
  }

  /** Counts of each facet: the facets whose own clauses are alike are counted together, in one read each. */
  async facets(req: SearchRequest, terms: readonly string[], fields: readonly string[],
    counted?: { where: SearchCondition; total: number }): Promise<Facet[]> {
    const wanted = [...new Set(fields)].filter((f) => f !== 'degree');
    const specs = wanted.map(facetSpec);
    // Facets counted alike under one condition are counted once (`_entityType` and the legacy `entity` are one count).
    const byCondition = new Map<string, { where: SearchCondition; specs: Map<string, number[]> }>();
    // The request's urns (a lineage search's thousands of entities reached) are in every condition: keyed by a mark.
    const key = (where: SearchCondition) => JSON.stringify(where, (_k, v: unknown) => (req.urns && v === req.urns ? '\u0000urns' : v));
    wanted.forEach((f, i) => {
      const where = requestCondition(req, f);
      const k = key(where);
      const entry = byCondition.get(k) ?? { where, specs: new Map<string, number[]>() };
      const spec = JSON.stringify(specs[i]);
      entry.specs.set(spec, [...(entry.specs.get(spec) ?? []), i]);
      byCondition.set(k, entry);
    });
    const counts: FacetCount[][] = new Array(wanted.length);
    const countedKey = counted && key(counted.where);
    await Promise.all([...byCondition].map(async ([k, { where, specs: same }]) => {
      const groups = [...same.values()];
      const res = await this.store.searchFacets({ terms, where }, groups.map((idx) => specs[idx[0]!]!), k === countedKey ? counted!.total : undefined);
      groups.forEach((idx, j) => { for (const i of idx) counts[i] = res[j]!; });
    }));
    const selected = selectedValues(req.filters ?? []);
    return wanted.flatMap((field, i) => {
      const aggregations = formatFacet(field, specs[i]!, counts[i]!, selected.get(ENTITY_TYPE_FIELDS.has(field) ? '_entityType' : field) ?? []);
      return aggregations.length ? [{ field, displayName: displayNameOfField(field), aggregations }] : [];
    });
  }

  /**
   * Every urn a request matches, no paging limit, in urn order (code point by code point, as DataHub's index sorts
   * keywords): what the legacy browse lists the entities at a path by.
   */
  async matchingUrns(req: SearchRequest): Promise<string[]> {
    for (const t of req.entityTypes ?? []) if (!SEARCHABLE.has(t)) throw badRequest(`Entity type ${t} is not searchable`);
    const q = { terms: queryTerms(req.query), where: requestCondition(req), sort: { by: 'name', descending: false } as SearchSort };
    const { total } = await this.store.searchDocs({ ...q, start: 0, count: 0 });
    if (total === 0) return [];
    const { urns } = await this.store.searchDocs({ ...q, start: 0, count: total });
    return urns.filter((u) => !this.unmappable(u)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }
}
