import { badRequest } from '../../errors.js';
import { decodeUrnPart, tryParseUrn } from '../../model/urn.js';
import type { GraphQLContext } from '../context.js';
import { entityTypeOfEnum, graphqlEntityType } from '../entity-types.js';
import { ref } from './common.js';
import { authorize } from './privileges.js';
import type { FilterClause } from '../../services/search.js';

/** search, searchAcrossEntities, scrollAcrossEntities and the two autocompletes, over the search service. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

function types(list: string[] | null | undefined): string[] | undefined {
  if (!list?.length) return undefined;
  return list.map((t) => {
    const et = entityTypeOfEnum(t);
    if (!et) throw badRequest(`Entity type ${t} is not searchable`);
    return et;
  });
}

const paging = (input: Obj, dflt: number) => ({ start: Number(input.start ?? 0), count: Number(input.count ?? dflt) });

/** DataHub's `orFilters` (any group, all clauses) and legacy `filters` (all clauses) as clause groups. */
function filtersOf(input: Obj): FilterClause[][] {
  const clause = (f: Obj): FilterClause => ({ field: f.field, values: f.values ?? (f.value != null ? [f.value] : []),
    condition: f.condition, negated: f.negated });
  const groups: FilterClause[][] = (input.orFilters ?? []).map((g: Obj) => (g?.and ?? []).map(clause));
  if (input.filters?.length) {
    const all = input.filters.map(clause);
    return groups.length ? groups.map((g) => [...g, ...all]) : [all];
  }
  return groups;
}

async function run(ctx: Ctx, query: string, entityTypes: string[] | undefined, start: number, count: number, filters: FilterClause[][] = []) {
  await authorize(ctx, 'graphql.search');
  const res = await ctx.catalog.search.search({ query, entityTypes, start, count, filters });
  return { start: res.start, count: res.count, total: res.total, facets: [],
    searchResults: res.urns.map((u) => ({ entity: ref(u), matchedFields: [] })) };
}

function displayName(urn: string): string {
  const u = tryParseUrn(urn);
  if (typeof u === 'string') return urn;
  return u.entityType === 'dataset' && u.parts.length === 3 ? decodeUrnPart(u.parts[1]!) : decodeUrnPart(u.parts[u.parts.length - 1]!);
}

async function autocomplete(ctx: Ctx, query: string, entityTypes: string[] | undefined, limit: number) {
  const res = await run(ctx, query, entityTypes, 0, Math.min(Math.max(limit, 0), 100));
  const urns = res.searchResults.map((r) => r.entity.urn);
  return { suggestions: [...new Set(urns.map(displayName))], urns };
}

export const searchResolvers = {
  Query: {
    search: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = paging(input, 10);
      return run(ctx, input.query, types([input.type]), start, count, filtersOf(input));
    },
    searchAcrossEntities: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = paging(input, 10);
      return run(ctx, input.query, types(input.types), start, count, filtersOf(input));
    },
    scrollAcrossEntities: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      // The scroll id is the offset of the next page.
      const start = input.scrollId ? (/^\d+$/.test(input.scrollId) ? Number(input.scrollId) : NaN) : 0;
      if (!Number.isSafeInteger(start)) throw badRequest(`Invalid scrollId '${input.scrollId}'`);
      const res = await run(ctx, input.query, types(input.types), start, Number(input.count ?? 10), filtersOf(input));
      const next = start + res.count;
      return { nextScrollId: next < res.total ? String(next) : null, count: res.count, total: res.total,
        searchResults: res.searchResults, facets: [] };
    },
    autoComplete: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const r = await autocomplete(ctx, input.query, types(input.type ? [input.type] : []), Number(input.limit ?? 10));
      return { query: input.query, suggestions: r.suggestions, entities: r.urns.map(ref) };
    },
    autoCompleteForMultiple: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const r = await autocomplete(ctx, input.query, types(input.types), Number(input.limit ?? 10));
      const byType = new Map<string, string[]>();
      for (const u of r.urns) byType.set(graphqlEntityType(u), [...(byType.get(graphqlEntityType(u)) ?? []), u]);
      return { query: input.query, suggestions: [...byType].map(([type, urns]) => ({ type,
        suggestions: [...new Set(urns.map(displayName))], entities: urns.map(ref) })) };
    },
  },
};
