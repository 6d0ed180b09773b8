import { forbidden } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { descriptorOfUrn } from '../entities/index.js';
import { READ_REQUIRES_BY_ASPECT, REQUIRES, type Operation, type Requirement } from '../model/privileges.js';

/**
 * Privilege checks, decided by the service an operation calls (domains-glossary.ts, queries.ts, renames.ts) or by an
 * authorized wrapper around one (authorized-*.ts); never by the transports (test/import-layers.test.ts checks) and
 * never inside storage. Requirements are written in the privilege vocabulary (src/model/privileges.ts). The
 * implementation is the policy service (policies.ts).
 */

export interface Authorizer {
  /** Whether the actor holds one of the groups, on the resource when given. */
  allowed(actor: Actor, requirement: Requirement, resourceUrn?: string): Promise<boolean>;
}

export async function requirePrivilege(authz: Authorizer, actor: Actor, requirement: Requirement, resourceUrn?: string) {
  if (!(await authz.allowed(actor, requirement, resourceUrn))) throw forbidden();
}

/**
 * The one check for reading an entity, used by every read path: the read operation's privilege on the entity,
 * and for administrative entity types (policies, tokens, secrets…) the privilege that administers them.
 */
export async function requireRead(authz: Authorizer, actor: Actor, requirement: Requirement, urn: string) {
  await requirePrivilege(authz, actor, requirement, urn);
  const op = descriptorOfUrn(urn)?.privileges?.read;
  if (op) await requirePrivilege(authz, actor, REQUIRES[op]);
}

/** Refuses a read of one named aspect the actor may not see. */
export async function requireAspectRead(authz: Authorizer, actor: Actor, aspect: string) {
  const extra = READ_REQUIRES_BY_ASPECT[aspect];
  if (extra) await requirePrivilege(authz, actor, extra);
}

/** The aspects (of those given) the actor may see in a whole-entity read; the rest are left out. */
export async function visibleAspects(authz: Authorizer, actor: Actor, aspects: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const a of aspects) {
    const extra = READ_REQUIRES_BY_ASPECT[a];
    if (!extra || (await authz.allowed(actor, extra))) out.add(a);
  }
  return out;
}

/** The base of the Authorized* wrappers: each of their operations requires its privileges by the operation's name. */
export class Guarded {
  constructor(protected readonly authz: Authorizer) {}

  protected require(actor: Actor, op: Operation, resourceUrn?: string) {
    return requirePrivilege(this.authz, actor, REQUIRES[op], resourceUrn);
  }
}
