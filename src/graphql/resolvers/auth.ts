import { badRequest } from '../../errors.js';
import { parseUrn, tryParseUrn } from '../../model/urn.js';
import type { PolicyInfo } from '../../services/policies.js';
import type { TokenMetadata } from '../../services/tokens.js';
import type { GraphQLContext } from '../context.js';

/** Tokens and policies. Who may do what is decided in services/authorized-admin.ts. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const tokenOut = (t: TokenMetadata) => ({ ...t, type: 'ACCESS_TOKEN', description: t.description ?? null, expiresAt: t.expiresAt ?? null });

function policyOut(urn: string, info: PolicyInfo) {
  const r = info.resources;
  return {
    urn, type: info.type, name: info.displayName, state: info.state, description: info.description ?? null,
    editable: info.editable !== false, privileges: info.privileges,
    resources: r ? {
      type: r.type ?? null, resources: r.resources ?? null, allResources: r.allResources ?? false,
      filter: r.filter ? { criteria: r.filter.criteria.map((c) => ({ field: c.field, condition: c.condition ?? 'EQUALS',
        values: c.values.map((value) => ({ value })) })) } : null,
    } : null,
    actors: { users: info.actors.users ?? [], groups: info.actors.groups ?? [], roles: info.actors.roles ?? [], allUsers: !!info.actors.allUsers,
      allGroups: !!info.actors.allGroups, resourceOwners: !!info.actors.resourceOwners,
      resourceOwnersTypes: info.actors.resourceOwnersTypes ?? null },
  };
}

function policyIn(input: Obj): PolicyInfo {
  if (input.state === 'DRAFT') throw badRequest('Policy state DRAFT is not supported; use ACTIVE or INACTIVE');
  const r = input.resources;
  return {
    displayName: input.name, description: input.description ?? undefined, type: input.type, state: input.state,
    privileges: input.privileges, editable: true,
    actors: { users: input.actors.users ?? [], groups: input.actors.groups ?? [], roles: input.actors.roles ?? [],
      allUsers: input.actors.allUsers,
      allGroups: input.actors.allGroups, resourceOwners: input.actors.resourceOwners,
      ...(input.actors.resourceOwnersTypes ? { resourceOwnersTypes: input.actors.resourceOwnersTypes } : {}) },
    ...(r ? { resources: {
      ...(r.type ? { type: r.type } : {}), ...(r.resources ? { resources: r.resources } : {}),
      allResources: r.allResources ?? false,
      ...(r.filter ? { filter: { criteria: (r.filter.criteria ?? []).map((c: Obj) => ({ field: c.field, values: c.values, condition: c.condition })) } } : {}),
    } } : {}),
  };
}

const page = (input: Obj) => ({ start: Math.max(0, Number(input.start ?? 0)), count: Math.min(1000, Math.max(0, Number(input.count ?? 20))) });

const refs = (urns: string[] | null | undefined) => (urns ?? []).map((urn) => ({ urn }));

export const authResolvers = {
  AccessTokenMetadata: { type: () => 'ACCESS_TOKEN' },
  // A policy's actors and criterion values as entities (listPolicies, getPolicy and DataHubPolicy alike).
  ActorFilter: {
    resolvedUsers: (a: Obj) => refs(a.users),
    resolvedGroups: (a: Obj) => refs(a.groups),
    resolvedRoles: (a: Obj) => refs(a.roles),
    resolvedOwnershipTypes: (a: Obj) => refs(a.resourceOwnersTypes),
  },
  PolicyMatchCriterionValue: {
    entity: (v: Obj) => (typeof tryParseUrn(v.value) === 'string' ? null : { urn: v.value }),
  },
  Query: {
    listAccessTokens: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const ownerFilter = (input.filters ?? []).find((f: Obj) => f.field === 'ownerUrn' || f.field === 'actorUrn');
      const ownerValues: string[] = ownerFilter ? (ownerFilter.values ?? (ownerFilter.value ? [ownerFilter.value] : [])) : [];
      const { start, count } = page(input);
      const r = await ctx.catalog.authorized.tokens.list(ctx.actor, ownerValues, { start, count });
      return { start, count: r.tokens.length, total: r.total, tokens: r.tokens.map(tokenOut) };
    },
    // DataHub 0.12.1 still serves this older query: a personal token for oneself only. Almanac stores it like any
    // personal token (named after the query), so it can be listed and revoked, and stops when its user is removed.
    getAccessToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { accessToken, metadata } = await ctx.catalog.authorized.tokens.createOwn(ctx.actor, parseUrn(input.actorUrn).raw, input.duration);
      return { accessToken, metadata: tokenOut(metadata) };
    },
    getAccessTokenMetadata: async (_: unknown, { token }: { token: string }, ctx: Ctx) =>
      tokenOut(await ctx.catalog.authorized.tokens.metadataOf(ctx.actor, token)),
    listPolicies: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = page(input);
      const res = await ctx.catalog.authorized.policies.list(ctx.actor, { start, count, query: input.query ?? undefined });
      return { start, count: res.policies.length, total: res.total, policies: res.policies.map((p) => policyOut(p.urn, p.info)) };
    },
    getPolicy: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const p = await ctx.catalog.authorized.policies.get(ctx.actor, urn);
      return policyOut(p.urn, p.info);
    },
  },
  Mutation: {
    createAccessToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { accessToken, metadata } = await ctx.catalog.authorized.tokens.create(ctx.actor, { actorUrn: parseUrn(input.actorUrn).raw,
        name: input.name, description: input.description ?? undefined, duration: input.duration });
      return { accessToken, metadata: tokenOut(metadata) };
    },
    revokeAccessToken: async (_: unknown, { tokenId }: { tokenId: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.tokens.revoke(ctx.actor, tokenId);
      return true;
    },
    createPolicy: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      ctx.catalog.authorized.policies.create(ctx.actor, () => policyIn(input)),
    updatePolicy: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) =>
      ctx.catalog.authorized.policies.update(ctx.actor, urn, () => policyIn(input)),
    deletePolicy: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.policies.delete(ctx.actor, urn);
      return urn;
    },
  },
};
