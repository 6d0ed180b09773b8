import { forbidden } from '../errors.js';
import { ROOT_USER_URN, type Actor } from './actor.js';

/**
 * Privilege checks, wrapped around the services by the HTTP surface (never inside storage).
 * A requirement is DataHub's "either-of" form: a list of groups, any one of which, held in full, suffices.
 *
 * This is the Foundation's authorizer: the root user and the system client may do everything, every other
 * authenticated user may read. Policies (dataHubPolicy entities) replace it in the Authorization work.
 */
export type Privilege = string;
export type Requirement = readonly (readonly Privilege[])[];

/** Privileges every authenticated user holds before any policy says otherwise. */
const READ_PRIVILEGES = new Set<Privilege>([
  'VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'SEARCH_PRIVILEGE',
  'GET_COUNTS_PRIVILEGE', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
]);

export interface Authorizer {
  /** Whether the actor holds one of the groups, on the resource when given. */
  allowed(actor: Actor, requirement: Requirement, resourceUrn?: string): Promise<boolean>;
}

export class FoundationAuthorizer implements Authorizer {
  async allowed(actor: Actor, requirement: Requirement): Promise<boolean> {
    if (actor.kind === 'system' || actor.urn === ROOT_USER_URN) return true;
    return requirement.some((group) => group.every((p) => READ_PRIVILEGES.has(p)));
  }
}

export async function requirePrivilege(authz: Authorizer, actor: Actor, requirement: Requirement, resourceUrn?: string) {
  if (!(await authz.allowed(actor, requirement, resourceUrn))) throw forbidden();
}
