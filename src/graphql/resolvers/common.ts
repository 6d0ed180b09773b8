import { notFound, badRequest } from '../../errors.js';
import { ref } from '../../entities/descriptor.js';
import { parseUrn } from '../../model/urn.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { graphqlEntityType, graphqlTypeName } from '../entity-types.js';
import { relationships } from './relationships.js';

/**
 * What every entity shares in GraphQL: the Entity interface's type resolution (the concrete type from the entity's
 * descriptor), `exists`, and the generic reads entity(urn) and entities(urns). Nested entities are returned as
 * `{urn}` refs; their own type resolvers load them (batched) when a query selects their fields.
 */
export { ref };

/** The `exists` field of every entity type. */
export const exists = async (r: EntityRef, _a: unknown, ctx: GraphQLContext) => (await ctx.loader.load(r.urn)).exists;

/** A root query's entity: a malformed urn is a 400, an entity never ingested a 404 (Almanac's difference). */
export async function requireEntity(urn: string, ctx: GraphQLContext, entityType?: string): Promise<EntityRef> {
  const u = parseUrn(urn);
  if (entityType && u.entityType !== entityType) {
    throw badRequest(`Invalid urn: '${urn}' is not a ${entityType} urn`, { urn });
  }
  await ctx.catalog.authorized.reads.admitEntity(ctx.actor, u.raw);
  const loaded = await ctx.loader.load(u.raw);
  if (!loaded.exists) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
  await ctx.catalog.recommendations.viewed(ctx.actor, u.raw); // "recently viewed" (not for the system actor)
  return ref(u.raw);
}

export const entityResolvers = {
  Entity: { resolveType: (r: EntityRef) => graphqlTypeName(r.urn) },
  OwnerType: { resolveType: (r: EntityRef) => (graphqlTypeName(r.urn) === 'CorpGroup' ? 'CorpGroup' : 'CorpUser') },
  GenericEntity: { type: (r: EntityRef) => graphqlEntityType(r.urn), relationships },
  Query: {
    entityExists: async (_: unknown, { urn }: { urn: string }, ctx: GraphQLContext) =>
      (await ctx.loader.load(parseUrn(urn).raw)).exists,
    entity: async (_: unknown, { urn }: { urn: string }, ctx: GraphQLContext) => requireEntity(urn, ctx),
    entities: async (_: unknown, { urns }: { urns: string[] }, ctx: GraphQLContext) => {
      const parsed = urns.map((u) => parseUrn(u).raw);
      for (const u of new Set(parsed)) await ctx.catalog.authorized.reads.admitEntity(ctx.actor, u);
      const loaded = await Promise.all(parsed.map((u) => ctx.loader.load(u)));
      return parsed.filter((_, i) => loaded[i]!.exists).map(ref);
    },
  },
};
