import type { PolicyData } from '../../graphql/admin';

export type { PolicyData } from '../../graphql/admin';

/** updatePolicy's input: everything as it is, but the state. */
export function policyInput(p: PolicyData, state: 'ACTIVE' | 'INACTIVE') {
  const r = p.resources;
  return {
    type: p.type, name: p.name, state, description: p.description, privileges: p.privileges,
    actors: {
      users: p.actors.users ?? [], groups: p.actors.groups ?? [], roles: p.actors.roles ?? [], allUsers: p.actors.allUsers,
      allGroups: p.actors.allGroups, resourceOwners: p.actors.resourceOwners,
      ...(p.actors.resourceOwnersTypes ? { resourceOwnersTypes: p.actors.resourceOwnersTypes } : {}),
    },
    ...(r ? { resources: {
      type: r.type, resources: r.resources, allResources: r.allResources ?? false,
      ...(r.filter ? { filter: { criteria: (r.filter.criteria ?? []).map((c) => ({ field: c.field, condition: c.condition, values: c.values.map((v) => v.value) })) } } : {}),
    } } : {}),
  };
}

/** Who a policy applies to, in a few words. */
export function actorsText(p: PolicyData): string {
  const a = p.actors;
  const parts: string[] = [];
  if (a.allUsers) parts.push('all users');
  if (a.allGroups) parts.push('all groups');
  if (a.resourceOwners) parts.push('owners of the asset');
  const users = (a.resolvedUsers ?? []).map((u) => u.editableProperties?.displayName || u.properties?.displayName || u.username);
  const groups = (a.resolvedGroups ?? []).map((g) => g.properties?.displayName || g.name);
  const roles = (a.resolvedRoles ?? []).map((r) => `role ${r.name}`);
  parts.push(...users, ...groups, ...roles);
  return parts.join(', ') || 'nobody';
}
