import { forbidden } from '../errors.js';
import type { Actor } from './actor.js';

/**
 * Privilege checks, wrapped around the services by the HTTP surface (never inside storage).
 * A requirement is DataHub's "either-of" form: a list of groups, any one of which, held in full, suffices.
 * The implementation is the policy service (policies.ts).
 */
export type Privilege = string;
export type Requirement = readonly (readonly Privilege[])[];

export interface Authorizer {
  /** Whether the actor holds one of the groups, on the resource when given. */
  allowed(actor: Actor, requirement: Requirement, resourceUrn?: string): Promise<boolean>;
}

export async function requirePrivilege(authz: Authorizer, actor: Actor, requirement: Requirement, resourceUrn?: string) {
  if (!(await authz.allowed(actor, requirement, resourceUrn))) throw forbidden();
}
