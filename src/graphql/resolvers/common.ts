import { badRequest, notFound } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { graphqlEntityType, graphqlTypeName } from '../entity-types.js';
import { authorizeRead } from './privileges.js';
import { ownershipTypeOf } from '../../entities/ownership-types.js';

/**
 * Mappers from stored aspects to DataHub's GraphQL shapes, shared by every entity type. Nested entities are
 * returned as `{urn}` refs; their own type resolvers load them (batched) when a query selects their fields.
 */
type Obj = Record<string, any>;

export const ref = (urn: string): EntityRef => ({ urn });

export function auditStamp(s: Obj | undefined) {
  return { time: s?.time ?? 0, actor: s?.actor ?? null };
}

export function customProperties(map: Obj | undefined, associatedUrn: string) {
  if (!map) return null;
  return Object.entries(map).map(([key, value]) => ({ key, value: value == null ? null : String(value), associatedUrn }));
}

export function globalTags(aspect: Obj | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return { tags: (aspect.tags ?? []).map((t: Obj) => ({ tag: ref(t.tag), associatedUrn })) };
}

export function glossaryTerms(aspect: Obj | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return { terms: (aspect.terms ?? []).map((t: Obj) => ({ term: ref(t.urn), associatedUrn })) };
}

export function ownership(aspect: Obj | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return {
    owners: (aspect.owners ?? []).map((o: Obj) => ({
      owner: ref(o.owner),
      type: o.type ?? null,
      ownershipType: ref(ownershipTypeOf(o)),
      source: o.source ? { type: o.source.type ?? 'OTHER', url: o.source.url ?? null } : null,
      associatedUrn,
    })),
    lastModified: auditStamp(aspect.lastModified),
  };
}

export function institutionalMemory(aspect: Obj | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return {
    elements: (aspect.elements ?? []).map((e: Obj) => ({
      url: e.url,
      label: e.description ?? '',
      description: e.description ?? '',
      author: ref(e.createStamp?.actor ?? 'urn:li:corpuser:unknown'),
      created: auditStamp(e.createStamp),
      associatedUrn,
    })),
  };
}

export function deprecation(current: Obj | undefined, legacy: Obj | undefined) {
  const d = current ?? legacy;
  if (!d) return null;
  return { deprecated: !!d.deprecated, decommissionTime: d.decommissionTime ?? null, note: d.note ?? null, actor: d.actor ?? null };
}

export const status = (aspect: Obj | undefined) => (aspect ? { removed: !!aspect.removed } : null);
export const subTypes = (aspect: Obj | undefined) => (aspect ? { typeNames: aspect.typeNames ?? [] } : null);
export const browsePaths = (aspect: Obj | undefined) =>
  aspect ? (aspect.paths ?? []).map((p: string) => ({ path: p.split('/').filter(Boolean) })) : null;

export function domain(aspect: Obj | undefined, associatedUrn: string) {
  const first = aspect?.domains?.[0];
  return first ? { domain: ref(first), associatedUrn } : null;
}

export async function parentContainers(urn: string, ctx: GraphQLContext) {
  const containers: EntityRef[] = [];
  const seen = new Set<string>([urn]);
  let parent = (await ctx.loader.aspect(urn, 'container'))?.container as string | undefined;
  while (parent && !seen.has(parent) && containers.length < 50) {
    seen.add(parent);
    containers.push(ref(parent));
    parent = (await ctx.loader.aspect(parent, 'container'))?.container;
  }
  return { count: containers.length, containers };
}

/** The `exists` field of every entity type. */
export const exists = async (r: EntityRef, _a: unknown, ctx: GraphQLContext) => (await ctx.loader.load(r.urn)).exists;

/** A root query's entity: a malformed urn is a 400, an entity never ingested a 404 (Almanac's difference). */
export async function requireEntity(urn: string, ctx: GraphQLContext, entityType?: string): Promise<EntityRef> {
  const u = parseUrn(urn);
  if (entityType && u.entityType !== entityType) {
    throw badRequest(`Invalid urn: '${urn}' is not a ${entityType} urn`, { urn });
  }
  await authorizeRead(ctx, u.raw);
  const loaded = await ctx.loader.load(u.raw);
  if (!loaded.exists) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
  return ref(u.raw);
}

export const entityResolvers = {
  Entity: { resolveType: (r: EntityRef) => graphqlTypeName(r.urn) },
  OwnerType: { resolveType: (r: EntityRef) => (graphqlTypeName(r.urn) === 'CorpGroup' ? 'CorpGroup' : 'CorpUser') },
  GenericEntity: { type: (r: EntityRef) => graphqlEntityType(r.urn) },
  OwnershipTypeEntity: {
    type: () => 'CUSTOM_OWNERSHIP_TYPE',
    info: async (r: EntityRef, _a: unknown, ctx: GraphQLContext) => {
      const info = await ctx.loader.aspect(r.urn, 'ownershipTypeInfo');
      return info ? { name: info.name, description: info.description ?? null } : null;
    },
  },
  Query: {
    entityExists: async (_: unknown, { urn }: { urn: string }, ctx: GraphQLContext) =>
      (await ctx.loader.load(parseUrn(urn).raw)).exists,
    entity: async (_: unknown, { urn }: { urn: string }, ctx: GraphQLContext) => requireEntity(urn, ctx),
    entities: async (_: unknown, { urns }: { urns: string[] }, ctx: GraphQLContext) => {
      const parsed = urns.map((u) => parseUrn(u).raw);
      for (const u of new Set(parsed)) await authorizeRead(ctx, u);
      const loaded = await Promise.all(parsed.map((u) => ctx.loader.load(u)));
      return parsed.filter((_, i) => loaded[i]!.exists).map(ref);
    },
  },
};
