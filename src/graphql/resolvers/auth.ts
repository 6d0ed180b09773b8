import { badRequest, forbidden, notFound } from '../../errors.js';
import { parseUrn, tryParseUrn } from '../../model/urn.js';
import type { PolicyInfo } from '../../services/policies.js';
import { DURATIONS, TokenService, type TokenMetadata } from '../../services/tokens.js';
import type { GraphQLContext } from '../context.js';
import { authorize } from './privileges.js';

/** Tokens and policies. Who may do what is in model/privileges.ts; the either-of rules for tokens are here. */
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
      const ownOnly = ownerValues.length === 1 && ownerValues[0] === ctx.actor.urn;
      // Anyone may list their own tokens; listing others' needs MANAGE_ACCESS_TOKENS.
      await authorize(ctx, ownOnly ? 'graphql.listOwnAccessTokens' : 'graphql.manageAccessTokens');
      const start = Math.max(0, Number(input.start ?? 0));
      const count = Math.min(1000, Math.max(0, Number(input.count ?? 20)));
      const { total, tokens } = await ctx.catalog.tokens.list({ ownerUrn: ownerValues[0], start, count });
      return { start, count: tokens.length, total, tokens: tokens.map(tokenOut) };
    },
    // DataHub 0.12.1 still serves this older query: a personal token for oneself only. Almanac stores it like any
    // personal token (named after the query), so it can be listed and revoked, and stops when its user is removed.
    getAccessToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const actorUrn = parseUrn(input.actorUrn).raw;
      if (actorUrn !== ctx.actor.urn) {
        if (!(await ctx.catalog.entities.exists(actorUrn))) throw notFound(`User ${actorUrn} does not exist`, { urn: actorUrn });
        throw forbidden();
      }
      await authorize(ctx, 'graphql.createOwnAccessToken');
      const durationMs = DURATIONS[input.duration];
      if (durationMs === undefined) throw badRequest(`Unknown duration ${input.duration}`);
      const { accessToken, metadata } = await ctx.catalog.tokens.create({ actorUrn, ownerUrn: actorUrn, name: 'getAccessToken',
        description: 'Issued through the getAccessToken query', durationMs }, ctx.actor);
      return { accessToken, metadata: tokenOut(metadata) };
    },
    getAccessTokenMetadata: async (_: unknown, { token }: { token: string }, ctx: Ctx) => {
      const meta = await ctx.catalog.tokens.metadata(TokenService.hash(token));
      if (meta.ownerUrn !== ctx.actor.urn && meta.actorUrn !== ctx.actor.urn) await authorize(ctx, 'graphql.manageAccessTokens');
      return tokenOut(meta);
    },
    listPolicies: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      const start = Math.max(0, Number(input.start ?? 0));
      const count = Math.min(1000, Math.max(0, Number(input.count ?? 20)));
      const res = await ctx.catalog.policies.list({ start, count, query: input.query ?? undefined });
      return { start, count: res.policies.length, total: res.total, policies: res.policies.map((p) => policyOut(p.urn, p.info)) };
    },
    getPolicy: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      const p = await ctx.catalog.policies.get(urn);
      return policyOut(p.urn, p.info);
    },
  },
  Mutation: {
    createAccessToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const actorUrn = parseUrn(input.actorUrn).raw;
      // Your own token needs GENERATE_PERSONAL_ACCESS_TOKENS; anyone else's needs MANAGE_ACCESS_TOKENS.
      await authorize(ctx, actorUrn === ctx.actor.urn ? 'graphql.createOwnAccessToken' : 'graphql.manageAccessTokens');
      const durationMs = DURATIONS[input.duration];
      if (durationMs === undefined) throw badRequest(`Unknown duration ${input.duration}`);
      const { accessToken, metadata } = await ctx.catalog.tokens.create({ actorUrn, ownerUrn: ctx.actor.urn, name: input.name,
        description: input.description ?? undefined, durationMs }, ctx.actor);
      return { accessToken, metadata: tokenOut(metadata) };
    },
    revokeAccessToken: async (_: unknown, { tokenId }: { tokenId: string }, ctx: Ctx) => {
      const meta = await ctx.catalog.tokens.metadata(tokenId);
      if (meta.ownerUrn !== ctx.actor.urn && meta.actorUrn !== ctx.actor.urn) await authorize(ctx, 'graphql.manageAccessTokens');
      await ctx.catalog.tokens.revoke(tokenId);
      return true;
    },
    createPolicy: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      return ctx.catalog.policies.create(policyIn(input), ctx.actor);
    },
    updatePolicy: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      return ctx.catalog.policies.update(urn, policyIn(input), ctx.actor);
    },
    deletePolicy: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      await ctx.catalog.policies.delete(urn);
      return urn;
    },
  },
};
