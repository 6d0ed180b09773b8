import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';
import { authorize } from './privileges.js';

/** Users and groups administration. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const page = (input: Obj) => ({ start: Math.max(0, Number(input.start ?? 0)), count: Math.min(1000, Math.max(0, Number(input.count ?? 20))) });

export const userResolvers = {
  Query: {
    listUsers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.read');
      const { start, count } = page(input);
      const r = await ctx.catalog.identities.list('corpuser', { start, count, query: input.query ?? undefined });
      return { start, count: r.urns.length, total: r.total, users: r.urns.map(ref) };
    },
    listGroups: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.read');
      const { start, count } = page(input);
      const r = await ctx.catalog.identities.list('corpGroup', { start, count, query: input.query ?? undefined });
      return { start, count: r.urns.length, total: r.total, groups: r.urns.map(ref) };
    },
  },
  Mutation: {
    createGroup: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.manageUsersAndGroups');
      return ctx.catalog.identities.createGroup(input as never, ctx.actor);
    },
    removeGroup: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.manageUsersAndGroups');
      await ctx.catalog.identities.removeGroup(urn, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    removeUser: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.manageUsersAndGroups');
      await ctx.catalog.identities.removeUser(urn, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    updateUserStatus: async (_: unknown, { urn, status }: { urn: string; status: 'ACTIVE' | 'SUSPENDED' }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.manageUsersAndGroups');
      await ctx.catalog.identities.setUserStatus(urn, status, ctx.actor);
      ctx.loader.clear();
      return urn;
    },
    addGroupMembers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.groupMembers', input.groupUrn);
      await ctx.catalog.identities.changeMembers(input.groupUrn, input.userUrns, 'add', ctx.actor);
      ctx.loader.clear();
      return true;
    },
    removeGroupMembers: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.groupMembers', input.groupUrn);
      await ctx.catalog.identities.changeMembers(input.groupUrn, input.userUrns, 'remove', ctx.actor);
      ctx.loader.clear();
      return true;
    },
    updateCorpGroupProperties: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.groupProperties', urn);
      await ctx.catalog.identities.updateGroup(urn, input, ctx.actor);
      ctx.loader.clear(urn);
      return ref(urn);
    },
  },
};
