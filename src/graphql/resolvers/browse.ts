import { keyValuesOf, descriptorOfUrn, entityDescriptor } from '../../entities/index.js';
import { browsePaths as browsePathsOut, defaultBrowsePath } from '../../entities/graphql-fields.js';
import { browsePaths as browsePathsAspect } from '../../entities/shared-aspects.js';
import type { EntityDescriptor } from '../../entities/descriptor.js';
import { badRequest } from '../../errors.js';
import { tryParseUrn } from '../../model/urn.js';
import { SEARCHABLE, type FilterClause, type SearchRequest } from '../../services/search.js';
import type { GraphQLContext } from '../context.js';
import { entityTypeOfEnum } from '../entity-types.js';
import { ref } from './common.js';
import { filtersOf } from './search.js';

/**
 * Browsing as DataHub 0.12.1 serves it, over the search index's browse path fields:
 * - `browseV2` groups the entities of one type under a browsePathsV2 path (field `browsePathV2`: each step after a
 *   U+241F) by their next step, with counts and whether a group has groups below it; only groups, paged, as
 *   DataHub's returns them (the web app lists a folder's entities with a search on `browsePathV2`).
 * - `browse` (legacy) lists the groups below a `/`-separated browsePaths path, then the entities at exactly that path
 *   in urn order, paged together (groups first).
 * - `browsePaths` gives an entity's legacy paths (stored, else DataHub's default for the type).
 * Soft-deleted entities are left out of counts unless a filter asks about `removed`, as in DataHub.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const V2_DELIMITER = '\u241f';
/** DataHub asks its index for at most this many groups. */
const MAX_GROUPS = 2000;
const DEFAULT_START = 0;
const DEFAULT_COUNT = 10;

/**
 * The types DataHub 0.12.1 serves the legacy browse for, with the filter fields each accepts (its first value only;
 * a field not listed is an error). Notebook browsing ignores filters.
 */
const LEGACY_BROWSE: Readonly<Record<string, readonly string[] | 'ignored'>> = {
  dataset: ['origin', 'platform'], chart: ['access', 'queryType', 'tool', 'type'], dashboard: ['access', 'tool'],
  dataFlow: ['orchestrator', 'cluster'], dataJob: ['flow'], glossaryTerm: [''], mlFeatureTable: ['platform', 'name'],
  mlModelGroup: ['origin', 'platform'], mlModel: ['origin', 'platform'], notebook: 'ignored',
};

/** Keys compared as DataHub's index compares keywords: by code point. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

function paging(input: Obj): { start: number; count: number } {
  const start = input.start ?? DEFAULT_START;
  const count = input.count ?? DEFAULT_COUNT;
  if (!Number.isSafeInteger(start) || start < 0) throw badRequest(`start must be a whole number ≥ 0, got ${start}`);
  if (!Number.isSafeInteger(count) || count < 0) throw badRequest(`count must be a whole number ≥ 0, got ${count}`);
  return { start, count };
}

function searchableType(enumValue: string): string {
  const name = entityTypeOfEnum(enumValue);
  if (!name || !SEARCHABLE.has(name)) throw badRequest(`Entity type ${enumValue} is not browsable`);
  return name;
}

/** A request with `extra` clauses added to each of its filter groups. */
function narrowed(req: SearchRequest, extra: FilterClause[]): SearchRequest {
  const groups = (req.filters ?? []).length ? req.filters! : [[]];
  return { ...req, filters: groups.map((g) => [...g, ...extra]) };
}

interface Group { name: string; count: number; hasSubGroups: boolean }

/** Most entities first, then by name: the order of DataHub's terms aggregation. */
const groupOrder = (a: Group, b: Group) => b.count - a.count || byCodePoint(a.name, b.name);

// ---------------------------------------------------------------------------------------------------------------
// browseV2

async function browseV2(ctx: Ctx, input: Obj) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const entityType = searchableType(input.type);
  const { start, count } = paging(input);
  const path: string[] = input.path ?? [];
  const pathStr = path.length ? V2_DELIMITER + path.join(V2_DELIMITER) : '';
  let req: SearchRequest = { query: String(input.query ?? '*') || '*', filters: filtersOf({ orFilters: input.orFilters }) };
  // DataHub combines the view's filter with the input's; the browsed type stays the input's.
  if (input.viewUrn) req = await ctx.catalog.search.withView(req, String(input.viewUrn));
  req = { ...req, entityTypes: [entityType] };

  const prefix = pathStr + V2_DELIMITER;
  const byName = new Map<string, Group>();
  let totalNumEntities = 0;
  // Every entity has one browsePathV2 value: the counts of the values below the path add up exactly.
  for (const { value, count: n } of await ctx.catalog.search.valueCounts(req, 'browsePathV2', prefix)) {
    const rest = value.slice(prefix.length);
    const cut = rest.indexOf(V2_DELIMITER);
    const name = cut < 0 ? rest : rest.slice(0, cut);
    const g = byName.get(name) ?? { name, count: 0, hasSubGroups: false };
    g.count += n;
    g.hasSubGroups ||= cut >= 0;
    byName.set(name, g);
    totalNumEntities += n;
  }
  const groups = [...byName.values()].sort(groupOrder).slice(0, MAX_GROUPS);
  return {
    groups: groups.slice(start, start + count).map((g) => ({ ...g, entity: g.name.startsWith('urn:li:') ? ref(g.name) : null })),
    start, count, total: groups.length,
    metadata: { path: pathStr.split(V2_DELIMITER).filter((p) => p !== ''), totalNumEntities },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Legacy browse

function legacyFilters(entityType: string, input: Obj): FilterClause[] {
  const allowed = LEGACY_BROWSE[entityType]!;
  if (allowed === 'ignored') return [];
  const out: FilterClause[] = [];
  const byField = new Map<string, string>();
  for (const f of (input.filters ?? []) as Obj[]) {
    if (!allowed.includes(f.field)) throw badRequest(`Unrecognized facet with name ${f.field} provided`, { field: f.field });
    const values: string[] = f.values ?? (f.value != null ? [f.value] : []);
    if (values.length) byField.set(f.field, values[0]!);
  }
  for (const [field, value] of byField) out.push({ field, values: [value] });
  return out;
}

async function browse(ctx: Ctx, input: Obj) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const entityType = entityTypeOfEnum(input.type);
  if (!entityType || !LEGACY_BROWSE[entityType]) throw badRequest(`Entity type ${input.type} has no legacy browse paths; use browseV2`);
  const { start, count } = paging(input);
  const path: string[] = input.path ?? [];
  const pathStr = path.length ? `/${path.join('/')}` : '';
  const search = ctx.catalog.search;
  const base: SearchRequest = { query: '*', entityTypes: [entityType], filters: [legacyFilters(entityType, input)], facets: [] };
  const total = async (req: SearchRequest) => (await search.search({ ...req, start: 0, count: 0, facets: [] })).total;

  // Groups: the next step of every path below this one, each counting the entities with a path through it.
  const prefix = `${pathStr}/`;
  const below = await search.valueCounts(base, 'browsePaths', prefix);
  const byName = new Map<string, Group & { values: number }>();
  let pairs = 0;
  for (const { value, count: n } of below) {
    const rest = value.slice(prefix.length);
    const cut = rest.indexOf('/');
    const name = cut < 0 ? rest : rest.slice(0, cut);
    const g = byName.get(name) ?? { name, count: 0, hasSubGroups: false, values: 0 };
    g.count += n;
    byName.set(name, g);
    pairs += n;
  }
  const totalNumEntities = below.length ? await total(narrowed(base, [{ field: 'browsePaths', values: [prefix], condition: 'START_WITH' }])) : 0;
  if (pairs !== totalNumEntities) {
    // Some entity has several paths below this one: count each group's entities, not its paths.
    await Promise.all([...byName.values()].map(async (g) => {
      const step = `${prefix}${g.name}`;
      const groups = (base.filters!).flatMap((f) => [[...f, { field: 'browsePaths', values: [step] }],
        [...f, { field: 'browsePaths', values: [`${step}/`], condition: 'START_WITH' }]]);
      g.count = await total({ ...base, filters: groups });
    }));
  }
  const groups = [...byName.values()].sort(groupOrder).slice(0, MAX_GROUPS);

  // Entities: those with a path that is exactly this one, after the groups, in urn order.
  const atPath = await search.matchingUrns(narrowed(base, [{ field: 'browsePaths', values: [pathStr] }]));
  const entityFrom = Math.max(start - groups.length, 0);
  const entitySize = Math.min(Math.max(start + count - groups.length, 0), count);
  return {
    groups: groups.slice(start, start + count).map((g) => ({ name: g.name, count: g.count })),
    entities: atPath.slice(entityFrom, entityFrom + entitySize).map(ref),
    start, count, total: groups.length + atPath.length,
    metadata: { path: pathStr.split('/').filter((p) => p !== ''), totalNumEntities },
  };
}

/**
 * An entity's legacy browse paths as GraphQL BrowsePaths: the stored ones, else DataHub's default for its type (split
 * at its platform's dataset name delimiter); null for a type without a default.
 */
export async function legacyBrowsePaths(ctx: Ctx, d: EntityDescriptor, urn: string): Promise<{ path: string[] }[] | null> {
  const stored = await ctx.loader.aspect<{ paths?: string[] }>(urn, browsePathsAspect.name);
  const u = tryParseUrn(urn);
  const key = d.browsePath && stored === undefined && typeof u !== 'string' ? keyValuesOf(d, u) : undefined;
  const fallback = key ? await defaultBrowsePath(d, { key, aspect: (def, of) => ctx.loader.aspect(of ?? urn, def.name) }) : undefined;
  return browsePathsOut(stored, fallback);
}

/** An entity's legacy browse paths: the stored ones, else DataHub's default for its type; none for other types. */
async function browsePaths(ctx: Ctx, input: Obj) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const entityType = entityTypeOfEnum(input.type);
  if (!entityType || !LEGACY_BROWSE[entityType]) return [];
  const u = tryParseUrn(String(input.urn));
  if (typeof u === 'string' || u.entityType !== entityType) throw badRequest(`Invalid urn: '${input.urn}' is not a ${entityType} urn`, { urn: input.urn });
  const loaded = await ctx.loader.load(u.raw);
  if (!loaded.exists) return [];
  return (await legacyBrowsePaths(ctx, descriptorOfUrn(u.raw) ?? entityDescriptor(entityType)!, u.raw)) ?? [];
}

export const browseResolvers = {
  Query: {
    browseV2: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => browseV2(ctx, input),
    browse: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => browse(ctx, input),
    browsePaths: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => browsePaths(ctx, input),
  },
};
