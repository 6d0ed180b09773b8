import { badRequest } from '../../errors.js';
import { dataProductProperties } from '../../entities/data-product.js';
import { parseUrn, tryParseUrn } from '../../model/urn.js';
import { parentFilter } from '../../services/domains-glossary.js';
import type { FilterClause, SearchRequest } from '../../services/search.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from './common.js';
import { entityPrivileges } from './privileges.js';
import { entityTypesOf, facetsOut, filtersOf, matchedFieldsOut } from './search.js';

/**
 * Domains, the business glossary and data products: listDomains, the root glossary lists, listDataProductAssets,
 * Domain.entities and DataProduct.entities (searches over the search service), glossary privileges, and the
 * mutations that create, move and delete them (the domains-glossary service decides who may).
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

/** Up to this many members, a domain's search is bounded by them (see Domain.entities). */
const MEMBER_CAP = 50_000;

const num = (v: unknown, dflt: number) => (v === null || v === undefined ? dflt : Number(v));

/** A search in DataHub's SearchResults shape. */
async function searchResults(ctx: Ctx, req: SearchRequest) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const res = await ctx.catalog.search.search(req);
  return { start: res.start, count: res.count, total: res.total, facets: facetsOut(res.facets), suggestions: [],
    searchResults: res.urns.map((u) => ({ entity: ref(u), matchedFields: matchedFieldsOut(res.matchedFields.get(u)), insights: [] })) };
}

/** A list of one type's entities from a filtered search (every match, paged; no facets). */
async function listed(ctx: Ctx, entityType: string, filters: FilterClause[][], input: Obj, sort: SearchRequest['sort'], dfltCount: number) {
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const start = num(input.start, 0);
  const count = num(input.count, dfltCount);
  const res = await ctx.catalog.search.search({ query: String(input.query ?? ''), entityTypes: [entityType], filters, start, count, facets: [], sort });
  return { start: res.start, count: res.count, total: res.total, urns: res.urns };
}

/** What the caller may do on a glossary term or node: DataHub's canManageEntity (and canManageChildren on a node). */
async function glossaryPrivileges(r: EntityRef, _a: unknown, ctx: Ctx) {
  const base = await entityPrivileges(r.urn, ctx);
  const parent = await ctx.catalog.domainsGlossary.glossaryParent(r.urn);
  const isNode = parseUrn(r.urn).entityType === 'glossaryNode';
  return { ...base, canManageEntity: await ctx.catalog.domainsGlossary.mayManageChildren(ctx.actor, parent),
    canManageChildren: isNode ? await ctx.catalog.domainsGlossary.mayManageChildren(ctx.actor, r.urn) : null };
}

/** The assets of a data product, searched: the input's query, types, filters, paging and facets, over those assets only. */
async function productAssets(ctx: Ctx, urn: string, input: Obj | null | undefined) {
  const i = input ?? {};
  const start = num(i.start, 0);
  const count = num(i.count, 10);
  const props = await ctx.loader.aspect<{ assets?: { destinationUrn: string }[] }>(urn, dataProductProperties.name);
  const assets = [...new Set((props?.assets ?? []).map((a) => a.destinationUrn))];
  if (assets.length === 0) {
    await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
    return { start, count, total: 0, facets: [], suggestions: [], searchResults: [] };
  }
  return searchResults(ctx, { query: String(i.query ?? '*'), entityTypes: entityTypesOf(i.types), filters: filtersOf(i), urns: assets,
    start, count, ...(i.searchFlags?.skipAggregates ? { facets: [] } : {}) });
}

const mutate = async <T>(ctx: Ctx, work: () => Promise<T>): Promise<T> => {
  const out = await work();
  ctx.loader.clear();
  return out;
};

export const domainGlossaryResolvers = {
  Domain: {
    /** DataHub's default: every entity in the domain, 20 at a time; the input's facet filters all apply. */
    entities: async (r: EntityRef, { input }: { input?: Obj | null }, ctx: Ctx) => {
      const i = input ?? {};
      const own: FilterClause[] = filtersOf({ filters: i.filters })[0] ?? [];
      // The domain clause is a hard limit: the members (from the relationship index) bound the search too, so that the
      // Domain facet, whose own clause does not narrow it, counts this domain's entities only.
      const members = await ctx.catalog.relationships.list({ urn: r.urn, direction: 'INCOMING', types: ['AssociatedWith'], start: 0, count: MEMBER_CAP });
      const urns = members.total <= MEMBER_CAP ? [...new Set(members.edges.map((e) => e.source))] : undefined;
      return searchResults(ctx, { query: String(i.query ?? '*'), filters: [[{ field: 'domains', values: [r.urn] }, ...own]], ...(urns ? { urns } : {}),
        start: num(i.start, 0), count: num(i.count, 20) });
    },
  },
  DataProduct: {
    entities: (r: EntityRef, { input }: { input?: Obj | null }, ctx: Ctx) => productAssets(ctx, r.urn, input),
  },
  GlossaryTerm: { privileges: glossaryPrivileges },
  GlossaryNode: { privileges: glossaryPrivileges },
  Query: {
    /** Top-level domains, or the children of parentDomain; newest first, as DataHub sorts them. */
    listDomains: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const parent = input.parentDomain ? parseUrn(input.parentDomain).raw : null;
      const res = await listed(ctx, 'domain', parentFilter('parentDomain', parent), input, { field: 'createdTime', order: 'DESCENDING' }, 20);
      return { start: res.start, count: res.count, total: res.total, domains: res.urns.map(ref) };
    },
    getRootGlossaryTerms: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const res = await listed(ctx, 'glossaryTerm', parentFilter('parentNode', null), { start: input.start, count: input.count }, null, 20);
      return { start: res.start, count: res.count, total: res.total, terms: res.urns.map(ref) };
    },
    getRootGlossaryNodes: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const res = await listed(ctx, 'glossaryNode', parentFilter('parentNode', null), { start: input.start, count: input.count }, null, 20);
      return { start: res.start, count: res.count, total: res.total, nodes: res.urns.map(ref) };
    },
    listDataProductAssets: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      const u = parseUrn(urn);
      if (u.entityType !== 'dataProduct') throw badRequest(`Invalid urn: '${urn}' is not a dataProduct urn`, { urn });
      return productAssets(ctx, u.raw, input);
    },
  },
  Mutation: {
    createDomain: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      return mutate(ctx, () => ctx.catalog.domainsGlossary.createDomain(input as never, ctx.actor));
    },
    moveDomain: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await mutate(ctx, () => ctx.catalog.domainsGlossary.moveDomain(input as never, ctx.actor));
      return true;
    },
    deleteDomain: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      await mutate(ctx, () => ctx.catalog.domainsGlossary.deleteDomain(u, ctx.actor));
      return true;
    },
    createGlossaryTerm: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      return mutate(ctx, () => ctx.catalog.domainsGlossary.createGlossaryEntity('term', input as never, ctx.actor));
    },
    createGlossaryNode: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      return mutate(ctx, () => ctx.catalog.domainsGlossary.createGlossaryEntity('node', input as never, ctx.actor));
    },
    /** On both the node it leaves and the node it enters, as DataHub checks. */
    updateParentNode: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const u = parseUrn(input.resourceUrn).raw;
      await mutate(ctx, () => ctx.catalog.domainsGlossary.updateParentNode({ ...input, resourceUrn: u } as never, ctx.actor));
      return true;
    },
    deleteGlossaryEntity: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      await mutate(ctx, () => ctx.catalog.domainsGlossary.deleteGlossaryEntity(u, ctx.actor));
      return true;
    },
    addRelatedTerms: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await mutate(ctx, () => ctx.catalog.domainsGlossary.changeRelatedTerms('add', input as never, ctx.actor));
      return true;
    },
    removeRelatedTerms: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await mutate(ctx, () => ctx.catalog.domainsGlossary.changeRelatedTerms('remove', input as never, ctx.actor));
      return true;
    },
    /** MANAGE_DATA_PRODUCTS (or EDIT_ENTITY) on the domain, which must exist. */
    createDataProduct: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const d = tryParseUrn(String(input.domainUrn));
      if (typeof d === 'string' || d.entityType !== 'domain') throw badRequest(`domainUrn '${input.domainUrn}' is not a domain urn`);
      return ref(await mutate(ctx, () => ctx.catalog.domainsGlossary.createDataProduct({ ...input, domainUrn: d.raw } as never, ctx.actor)));
    },
    updateDataProduct: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      await mutate(ctx, () => ctx.catalog.domainsGlossary.updateDataProduct(u, input, ctx.actor));
      return ref(u);
    },
    deleteDataProduct: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      await mutate(ctx, () => ctx.catalog.domainsGlossary.deleteDataProduct(u, ctx.actor));
      return true;
    },
    batchSetDataProduct: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const resources = [...new Set((input.resourceUrns as string[]).map((r) => parseUrn(r).raw))];
      if (resources.length === 0) throw badRequest('No resources given');
      await mutate(ctx, () => ctx.catalog.domainsGlossary.batchSetDataProduct(input.dataProductUrn || null, resources, ctx.actor));
      return true;
    },
  },
};
