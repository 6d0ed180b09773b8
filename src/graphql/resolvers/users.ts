import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';

/** Users and groups administration. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const page = (input: Obj) => ({ start: Math.max(0, Number(input.start ?? 0)), count: Math.min(1000, Math.max(0, Number(input.count ?? 20))) });

export const userResolvers = {
  Query: {
    listUsers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = page(input);
      const r = await ctx.catalog.authorized.identities.list(ctx.actor, 'corpuser', { start, count, query: input.query ?? undefined });
      return { start, count: r.urns.length, total: r.total, users: r.urns.map(ref) };
    },
    listGroups: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = page(input);
      const r = await ctx.catalog.authorized.identities.list(ctx.actor, 'corpGroup', { start, count, query: input.query ?? undefined });
      return { start, count: r.urns.length, total: r.total, groups: r.urns.map(ref) };
    },
  },
  Mutation: {
    createGroup: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => ctx.catalog.authorized.identities.createGroup(ctx.actor, input as never),
    removeGroup: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.removeGroup(ctx.actor, urn);
      ctx.loader.clear();
      return true;
    },
    removeUser: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.removeUser(ctx.actor, urn);
      ctx.loader.clear();
      return true;
    },
    updateUserStatus: async (_: unknown, { urn, status }: { urn: string; status: 'ACTIVE' | 'SUSPENDED' }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.setUserStatus(ctx.actor, urn, status);
      ctx.loader.clear();
      return urn;
    },
    addGroupMembers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.changeMembers(ctx.actor, input.groupUrn, input.userUrns, 'add');
      ctx.loader.clear();
      return true;
    },
    removeGroupMembers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.changeMembers(ctx.actor, input.groupUrn, input.userUrns, 'remove');
      ctx.loader.clear();
      return true;
    },
    updateCorpGroupProperties: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      await ctx.catalog.authorized.identities.updateGroup(ctx.actor, urn, input);
      ctx.loader.clear(urn);
      return ref(urn);
    },
  },
};
