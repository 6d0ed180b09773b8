import type { GraphQLContext } from '../context.js';

/** Dataset.privileges (and every entity's EntityPrivileges): what the caller may do on this entity. */
export function entityPrivileges(urn: string, ctx: GraphQLContext) {
  return ctx.catalog.authorized.reads.entityPrivileges(ctx.actor, urn);
}
