import { ownValue } from '../model/safe-keys.js';
import { tryParseUrn } from '../model/urn.js';
import type { Actor } from '../model/actor.js';

/**
 * A policy as matching reads it, built from the stored value's own properties only: nothing inherited (say from a
 * polluted `Object.prototype`) can add an actor, a privilege or a resource, and a malformed field grants nothing.
 */
export interface PolicyRule {
  active: boolean;
  type: string | undefined;
  privileges: readonly string[];
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  roles: ReadonlySet<string>;
  allUsers: boolean;
  allGroups: boolean;
  resourceOwners: boolean;
  /** Undefined: the policy names no resources (it applies to all). */
  resources?: { allResources: boolean; type?: string; urns: readonly string[];
    criteria: readonly { field: string; values: readonly string[]; condition: string }[] };
}

const ownObject = (o: unknown, key: string): object | undefined => {
  const v = ownValue(o, key);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
};
export const ownStrings = (o: unknown, key: string): string[] => {
  const v = ownValue(o, key);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};
export const ownString = (o: unknown, key: string): string | undefined => {
  const v = ownValue(o, key);
  return typeof v === 'string' ? v : undefined;
};

export function policyRule(info: unknown): PolicyRule {
  const actors = ownObject(info, 'actors');
  const res = ownObject(info, 'resources');
  const filter = ownObject(res, 'filter');
  const criteria = ownValue(filter, 'criteria');
  return {
    active: ownValue(info, 'state') === 'ACTIVE',
    type: ownString(info, 'type'),
    privileges: ownStrings(info, 'privileges'),
    users: new Set(ownStrings(actors, 'users')),
    groups: new Set(ownStrings(actors, 'groups')),
    roles: new Set(ownStrings(actors, 'roles')),
    allUsers: ownValue(actors, 'allUsers') === true,
    allGroups: ownValue(actors, 'allGroups') === true,
    resourceOwners: ownValue(actors, 'resourceOwners') === true,
    resources: res && {
      allResources: ownValue(res, 'allResources') === true,
      type: ownString(res, 'type'),
      urns: ownStrings(res, 'resources'),
      criteria: (Array.isArray(criteria) ? criteria : []).map((c: unknown) => ({
        field: ownString(c, 'field') ?? '', values: ownStrings(c, 'values'), condition: ownString(c, 'condition') ?? 'EQUALS',
      })),
    },
  };
}

/** Whether the rule names the actor: as a user, through a group or role, or as an owner of the resource. */
export async function ruleMatchesActor(rule: PolicyRule, actor: Actor, groups: Set<string>, roles: Set<string>,
  loadResource: () => Promise<{ owners?: Set<string> } | undefined>): Promise<boolean> {
  if (ruleNamesActor(rule, actor, groups, roles)) return true;
  if (rule.resourceOwners && rule.type === 'METADATA') {
    const r = await loadResource();
    if (r?.owners && (r.owners.has(actor.urn) || [...groups].some((g) => r.owners!.has(g)))) return true;
  }
  return false;
}

/** ruleMatchesActor's part that needs no resource: the actor as a user, or through a group or role. */
export function ruleNamesActor(rule: PolicyRule, actor: Actor, groups: Set<string>, roles: Set<string>): boolean {
  if (rule.allUsers) return true;
  if (rule.users.has(actor.urn)) return true;
  if (rule.allGroups && groups.size > 0) return true;
  for (const g of groups) if (rule.groups.has(g)) return true;
  for (const r of roles) if (rule.roles.has(r)) return true;
  return false;
}

/** Whether a METADATA rule covers the resource (by type, urn, or the criteria on type, urn and domain). */
export function ruleMatchesResource(rule: PolicyRule, r: { urn: string; entityType: string; domains?: string[] }): boolean {
  const res = rule.resources;
  if (!res || res.allResources) return true;
  if (res.type && res.type.toLowerCase() !== r.entityType.toLowerCase()) return false;
  if (res.urns.length && !res.urns.includes(r.urn)) return false;
  for (const c of res.criteria) {
    const values = c.values;
    const field = c.field.toUpperCase();
    const cond = c.condition.toUpperCase();
    const test = (candidate: string) => cond === 'STARTS_WITH' ? values.some((v) => candidate.startsWith(v)) : values.includes(candidate);
    if (field === 'TYPE' || field === 'RESOURCE_TYPE') {
      if (!values.some((v) => v.toLowerCase() === r.entityType.toLowerCase())) return false;
    } else if (field === 'URN' || field === 'RESOURCE_URN') {
      if (!test(r.urn)) return false;
    } else if (field === 'DOMAIN') {
      if (!(r.domains ?? []).some(test)) return false;
    } else {
      return false;
    }
  }
  return !!(res.type || res.urns.length || res.criteria.length);
}

/** The entity type a urn names ('' for a urn that does not parse: no typed rule matches it). */
export function entityTypeOf(urn: string): string {
  const u = tryParseUrn(urn);
  return typeof u === 'string' ? '' : u.entityType;
}

/** Whether deciding a metadata rule for a resource may read the resource's stored aspects (its owners or domains). */
export function readsResource(rule: PolicyRule): boolean {
  return rule.resourceOwners || (rule.resources?.criteria ?? []).some((c) => c.field.toUpperCase() === 'DOMAIN');
}
