import { badRequest, forbidden, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { Guarded, type Authorizer } from './authz.js';
import type { EntityService } from './entities.js';
import type { IdentityService } from './identities.js';
import type { NativeUserService } from './native-users.js';
import type { PolicyInfo, PolicyService } from './policies.js';
import { DURATIONS, TokenService } from './tokens.js';

/**
 * The administration the transports offer — access tokens, policies, users and groups, native users' credentials —
 * each operation deciding who may before it runs, as Backstage wraps its catalog in an authorized one. Where the
 * transport's reading of its input can fail, the input comes as a function, called once the caller is admitted: a
 * caller without the privilege hears 403 whatever else is wrong, as before.
 */

/** The token's duration by its GraphQL name (AccessTokenDuration). */
function durationOf(name: string): number | null {
  const durationMs = DURATIONS[name];
  if (durationMs === undefined) throw badRequest(`Unknown duration ${name}`);
  return durationMs;
}

/** Access tokens: anyone lists, makes and revokes their own; anyone else's need MANAGE_ACCESS_TOKENS. */
export class AuthorizedTokens extends Guarded {
  constructor(private readonly tokens: TokenService, private readonly entities: Pick<EntityService, 'exists'>, authz: Authorizer) {
    super(authz);
  }

  /** Tokens owned by (or acting as) the one urn filtered on: the caller's own need only the personal-token privilege. */
  async list(actor: Actor, ownerUrns: readonly string[], page: { start: number; count: number }) {
    const ownOnly = ownerUrns.length === 1 && ownerUrns[0] === actor.urn;
    await this.require(actor, ownOnly ? 'graphql.listOwnAccessTokens' : 'graphql.manageAccessTokens');
    return this.tokens.list({ ownerUrn: ownerUrns[0], ...page });
  }

  /** DataHub's older getAccessToken: a personal token for oneself only (404 for a user who does not exist). */
  async createOwn(actor: Actor, actorUrn: string, duration: string) {
    if (actorUrn !== actor.urn) {
      if (!(await this.entities.exists(actorUrn))) throw notFound(`User ${actorUrn} does not exist`, { urn: actorUrn });
      throw forbidden();
    }
    await this.require(actor, 'graphql.createOwnAccessToken');
    return this.tokens.create({ actorUrn, ownerUrn: actorUrn, name: 'getAccessToken',
      description: 'Issued through the getAccessToken query', durationMs: durationOf(duration) }, actor);
  }

  /** Your own token needs GENERATE_PERSONAL_ACCESS_TOKENS; anyone else's needs MANAGE_ACCESS_TOKENS. */
  async create(actor: Actor, input: { actorUrn: string; name: string; description?: string; duration: string }) {
    await this.require(actor, input.actorUrn === actor.urn ? 'graphql.createOwnAccessToken' : 'graphql.manageAccessTokens');
    return this.tokens.create({ actorUrn: input.actorUrn, ownerUrn: actor.urn, name: input.name, description: input.description,
      durationMs: durationOf(input.duration) }, actor);
  }

  /** A token's metadata, from the token itself: its owner or actor, or an administrator of tokens. */
  async metadataOf(actor: Actor, token: string) {
    const meta = await this.tokens.metadata(TokenService.hash(token));
    await this.requireOwnOrManager(actor, meta);
    return meta;
  }

  async revoke(actor: Actor, tokenId: string): Promise<void> {
    await this.requireOwnOrManager(actor, await this.tokens.metadata(tokenId));
    await this.tokens.revoke(tokenId);
  }

  private async requireOwnOrManager(actor: Actor, meta: { ownerUrn: string; actorUrn: string }) {
    if (meta.ownerUrn !== actor.urn && meta.actorUrn !== actor.urn) await this.require(actor, 'graphql.manageAccessTokens');
  }
}

/** Policies: MANAGE_POLICIES for all of it; a user's granted privileges, asked by that user only. */
export class AuthorizedPolicies extends Guarded {
  constructor(private readonly policies: PolicyService, authz: Authorizer) {
    super(authz);
  }

  async list(actor: Actor, q: { start: number; count: number; query?: string }) {
    await this.require(actor, 'graphql.managePolicies');
    return this.policies.list(q);
  }

  async get(actor: Actor, urn: string) {
    await this.require(actor, 'graphql.managePolicies');
    return this.policies.get(urn);
  }

  async create(actor: Actor, info: () => PolicyInfo): Promise<string> {
    await this.require(actor, 'graphql.managePolicies');
    return this.policies.create(info(), actor);
  }

  async update(actor: Actor, urn: string, info: () => PolicyInfo): Promise<string> {
    await this.require(actor, 'graphql.managePolicies');
    return this.policies.update(urn, info(), actor);
  }

  async delete(actor: Actor, urn: string): Promise<void> {
    await this.require(actor, 'graphql.managePolicies');
    await this.policies.delete(urn);
  }

  /** As in DataHub: a user may ask only about themselves. */
  async grantedPrivileges(actor: Actor, actorUrn: string, resource: () => string | undefined): Promise<string[]> {
    if (actorUrn !== actor.urn) throw forbidden('Unauthorized to get privileges for the given author.');
    return [...(await this.policies.privilegesOf(actor, resource()))].sort();
  }
}

/** Users and groups: listing them is a read; changing them MANAGE_USERS_AND_GROUPS, or a narrower privilege on the group. */
export class AuthorizedIdentities extends Guarded {
  constructor(private readonly identities: IdentityService, private readonly nativeUsers: NativeUserService, authz: Authorizer) {
    super(authz);
  }

  async list(actor: Actor, entityType: 'corpuser' | 'corpGroup', q: { start: number; count: number; query?: string }) {
    await this.require(actor, 'graphql.read');
    return this.identities.list(entityType, q);
  }

  async createGroup(actor: Actor, input: Parameters<IdentityService['createGroup']>[0]): Promise<string> {
    await this.require(actor, 'graphql.manageUsersAndGroups');
    return this.identities.createGroup(input, actor);
  }

  async removeGroup(actor: Actor, urn: string): Promise<void> {
    await this.require(actor, 'graphql.manageUsersAndGroups');
    await this.identities.removeGroup(urn, actor);
  }

  async removeUser(actor: Actor, urn: string): Promise<void> {
    await this.require(actor, 'graphql.manageUsersAndGroups');
    await this.identities.removeUser(urn, actor);
  }

  async setUserStatus(actor: Actor, urn: string, status: 'ACTIVE' | 'SUSPENDED'): Promise<void> {
    await this.require(actor, 'graphql.manageUsersAndGroups');
    await this.identities.setUserStatus(urn, status, actor);
  }

  async changeMembers(actor: Actor, groupUrn: string, userUrns: string[], op: 'add' | 'remove'): Promise<void> {
    await this.require(actor, 'graphql.groupMembers', groupUrn);
    await this.identities.changeMembers(groupUrn, userUrns, op, actor);
  }

  async updateGroup(actor: Actor, urn: string, input: Parameters<IdentityService['updateGroup']>[1]): Promise<void> {
    await this.require(actor, 'graphql.groupProperties', urn);
    await this.identities.updateGroup(urn, input, actor);
  }

  /** A native user's password reset token (MANAGE_USER_CREDENTIALS, as in DataHub). */
  async createResetToken(actor: Actor, userUrn: unknown): Promise<string> {
    await this.require(actor, 'graphql.manageUserCredentials');
    return this.nativeUsers.createResetToken(userUrn, actor);
  }
}
