import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';

/** listOwnershipTypes (any reader) and the three edits (MANAGE_GLOBAL_OWNERSHIP_TYPES), over the ownership-type service. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

export const ownershipTypeResolvers = {
  Query: {
    listOwnershipTypes: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const start = Number(input.start ?? 0);
      const count = Number(input.count ?? 20);
      const r = await ctx.catalog.ownershipTypes.list({ start, count, query: input.query ?? undefined }, ctx.actor);
      return { start, count: r.urns.length, total: r.total, ownershipTypes: r.urns.map(ref) };
    },
  },
  Mutation: {
    createOwnershipType: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      return ref(await ctx.catalog.ownershipTypes.create(input, ctx.actor));
    },
    updateOwnershipType: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      await ctx.catalog.ownershipTypes.update(urn, input, ctx.actor);
      ctx.loader.clear(urn);
      return ref(urn);
    },
    deleteOwnershipType: async (_: unknown, { urn, deleteReferences }: { urn: string; deleteReferences?: boolean | null }, ctx: Ctx) => {
      await ctx.catalog.ownershipTypes.delete(urn, deleteReferences ?? true, ctx.actor);
      ctx.loader.clear();
      return true;
    },
  },
};
