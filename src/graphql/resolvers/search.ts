import type { GraphQLResolveInfo } from 'graphql';
import { badRequest } from '../../errors.js';
import { decodeUrnPart, tryParseUrn } from '../../model/urn.js';
import type { Facet, FilterClause, MatchedField, SearchRequest } from '../../services/search.js';
import type { GraphQLContext } from '../context.js';
import { entityTypeOfEnum, graphqlEntityType } from '../entity-types.js';
import { selects } from '../selection.js';
import { ref } from './common.js';

/**
 * search, searchAcrossEntities, scrollAcrossEntities, aggregateAcrossEntities, getEntityCounts, getQuickFilters and
 * the two autocompletes, over the search service: inputs in DataHub's shapes in, results in DataHub's shapes out.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

/** GraphQL EntityType values → entity names; every searchable type when none are given. */
export function entityTypesOf(list: readonly string[] | null | undefined): string[] | undefined {
  if (!list?.length) return undefined;
  return list.map((t) => {
    const et = entityTypeOfEnum(t);
    if (!et) throw badRequest(`Entity type ${t} is not searchable`);
    return et;
  });
}

/** DataHub's `orFilters` (any group, all clauses) and legacy `filters` (all clauses) as clause groups. */
export function filtersOf(input: Obj): FilterClause[][] {
  const clause = (f: Obj): FilterClause => ({ field: f.field, values: f.values ?? (f.value != null ? [f.value] : []),
    condition: f.condition, negated: f.negated });
  const groups: FilterClause[][] = (input.orFilters ?? []).map((g: Obj) => (g?.and ?? []).map(clause));
  if (input.filters?.length) {
    const all = input.filters.map(clause);
    return groups.length ? groups.map((g) => [...g, ...all]) : [all];
  }
  return groups;
}

/** Service facets as GraphQL FacetMetadata (a urn value's entity resolved by its type's resolvers). */
export const facetsOut = (facets: readonly Facet[]) => facets.map((f) => ({
  field: f.field, displayName: f.displayName,
  aggregations: f.aggregations.map((a) => ({ value: a.value, count: a.count, entity: a.entity ? ref(a.entity) : null })),
}));

/** Matched fields as GraphQL MatchedField (a urn value's entity resolved). */
export const matchedFieldsOut = (fields: readonly MatchedField[] | undefined) =>
  (fields ?? []).map((m) => ({ name: m.name, value: m.value, entity: m.value.startsWith('urn:li:') ? ref(m.value) : null }));

/**
 * A request from a GraphQL input, its view applied. Facets are not counted when the flags say to skip them or, given
 * `info`, when the query does not select them.
 */
async function request(ctx: Ctx, input: Obj, types: string[] | undefined, extra: Partial<SearchRequest>, info?: GraphQLResolveInfo): Promise<SearchRequest> {
  const req: SearchRequest = { query: String(input.query ?? '*'), entityTypes: types, filters: filtersOf(input), ...extra };
  if (input.searchFlags?.skipAggregates || (info && !selects(info, 'facets'))) req.facets = [];
  return input.viewUrn ? ctx.catalog.search.withView(req, String(input.viewUrn)) : req;
}

async function run(ctx: Ctx, req: SearchRequest) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const res = await ctx.catalog.search.search(req);
  return { start: res.start, count: res.count, total: res.total, facets: facetsOut(res.facets), suggestions: [],
    searchResults: res.urns.map((u) => ({ entity: ref(u), matchedFields: matchedFieldsOut(res.matchedFields.get(u)), insights: [] })) };
}

const paging = (input: Obj, dflt: number) => ({ start: Number(input.start ?? 0), count: Number(input.count ?? dflt) });

function displayName(urn: string): string {
  const u = tryParseUrn(urn);
  if (typeof u === 'string') return urn;
  return u.entityType === 'dataset' && u.parts.length === 3 ? decodeUrnPart(u.parts[1]!) : decodeUrnPart(u.parts[u.parts.length - 1]!);
}

async function autocomplete(ctx: Ctx, input: Obj, types: string[] | undefined) {
  const limit = Math.min(Math.max(Number(input.limit ?? 10), 0), 100);
  const res = await run(ctx, await request(ctx, input, types, { start: 0, count: limit, facets: [] }));
  const urns = res.searchResults.map((r) => r.entity.urn);
  return { suggestions: [...new Set(urns.map(displayName))], urns };
}

/** DataHub 0.12.1's quick filters: its five busiest platforms (by name), then entity types from two ranked lists. */
const QUICK_SOURCE_TYPES = ['DATASET', 'DASHBOARD', 'DATA_FLOW', 'DATA_JOB', 'CHART', 'CONTAINER', 'MLMODEL', 'MLMODEL_GROUP', 'MLFEATURE',
  'MLFEATURE_TABLE', 'MLPRIMARY_KEY'];
const QUICK_DATAHUB_TYPES = ['DOMAIN', 'GLOSSARY_TERM', 'CORP_GROUP', 'CORP_USER'];

export const searchResolvers = {
  Query: {
    search: async (_: unknown, { input }: { input: Obj }, ctx: Ctx, info: GraphQLResolveInfo) => ctx.catalog.recommendations.searched(ctx.actor,
      input.query, await run(ctx, await request(ctx, input, entityTypesOf([input.type]), paging(input, 10), info))),
    searchAcrossEntities: async (_: unknown, { input }: { input: Obj }, ctx: Ctx, info: GraphQLResolveInfo) => {
      const c = input.sortInput?.sortCriterion;
      return ctx.catalog.recommendations.searched(ctx.actor, input.query, await run(ctx, await request(ctx, input, entityTypesOf(input.types), { ...paging(input, 10),
        sort: c ? { field: c.field, order: c.sortOrder } : null }, info)));
    },
    scrollAcrossEntities: async (_: unknown, { input }: { input: Obj }, ctx: Ctx, info: GraphQLResolveInfo) => {
      // The scroll id is the offset of the next page.
      const start = input.scrollId ? (/^\d+$/.test(input.scrollId) ? Number(input.scrollId) : NaN) : 0;
      if (!Number.isSafeInteger(start)) throw badRequest(`Invalid scrollId '${input.scrollId}'`);
      const res = await run(ctx, await request(ctx, input, entityTypesOf(input.types), { start, count: Number(input.count ?? 10) }, info));
      const next = start + res.count;
      return { nextScrollId: res.count > 0 && next < res.total ? String(next) : null, count: res.count, total: res.total,
        searchResults: res.searchResults, facets: res.facets };
    },
    aggregateAcrossEntities: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const facets = (input.facets ?? []).filter((f: unknown): f is string => typeof f === 'string' && f !== '');
      const req = await request(ctx, input, entityTypesOf(input.types), { start: 0, count: 0, facets: facets.length ? facets : undefined });
      return { facets: (await run(ctx, req)).facets };
    },
    getEntityCounts: async (_: unknown, { input }: { input?: Obj | null }, ctx: Ctx) => {
      await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
      const types = entityTypesOf(input?.types);
      const res = await ctx.catalog.search.search({ query: '*', entityTypes: types, count: 0, facets: ['_entityType'] });
      const counts = new Map((res.facets[0]?.aggregations ?? []).map((a) => [a.value, a.count]));
      const wanted = input?.types?.length ? (input.types as string[]) : [...counts.keys()];
      return { counts: wanted.map((t) => ({ entityType: t, count: counts.get(t) ?? 0 })) };
    },
    getQuickFilters: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const req = await request(ctx, { query: '*', viewUrn: input?.viewUrn }, undefined, { count: 0, facets: ['platform', '_entityType'] });
      const res = await run(ctx, req);
      const aggs = (field: string) => res.facets.find((f) => f.field === field)?.aggregations.filter((a) => a.count > 0) ?? [];
      const platforms = aggs('platform').slice(0, 5).sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
        .map((a) => ({ field: 'platform', value: a.value, entity: a.entity }));
      const types = aggs('_entityType');
      const ranked = (order: string[], n: number) => order.filter((t) => types.some((a) => a.value === t)).slice(0, n)
        .map((t) => ({ field: '_entityType', value: t, entity: null }));
      return { quickFilters: [...platforms, ...ranked(QUICK_SOURCE_TYPES, 3), ...ranked(QUICK_DATAHUB_TYPES, 2)] };
    },
    autoComplete: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const r = await autocomplete(ctx, input, entityTypesOf(input.type ? [input.type] : []));
      return { query: input.query, suggestions: r.suggestions, entities: r.urns.map(ref) };
    },
    autoCompleteForMultiple: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const r = await autocomplete(ctx, input, entityTypesOf(input.types));
      const byType = new Map<string, string[]>();
      for (const u of r.urns) byType.set(graphqlEntityType(u), [...(byType.get(graphqlEntityType(u)) ?? []), u]);
      return { query: input.query, suggestions: [...byType].map(([type, urns]) => ({ type,
        suggestions: [...new Set(urns.map(displayName))], entities: urns.map(ref) })) };
    },
  },
};
