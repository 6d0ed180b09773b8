import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { arr, bool, enumOf, int, rec, str, urn } from './schema.js';

export const dataHubPolicyKey = keyAspect('dataHubPolicyKey', 'com.linkedin.metadata.key.DataHubPolicyKey', [['id', 'string']]);

/**
 * An access policy. DataHub requires the description and knows EQUALS only; Almanac's own policies omit an empty
 * description and it matches STARTS_WITH too, as later DataHub versions do.
 */
export const dataHubPolicyInfo = aspect('dataHubPolicyInfo', 'com.linkedin.policy.DataHubPolicyInfo', rec({
  displayName: str, 'description?': str, type: enumOf(['PLATFORM', 'METADATA']), state: enumOf(['ACTIVE', 'INACTIVE', 'DRAFT']),
  'resources?': rec({ 'type?': str, 'resources?': arr(urn), 'allResources?': bool,
    'filter?': rec({ criteria: arr(rec({ field: str, values: arr(str), 'condition?': enumOf(['EQUALS', 'STARTS_WITH']) })) }) }),
  privileges: arr(str),
  actors: rec({ 'users?': arr(urn), 'groups?': arr(urn), 'roles?': arr(urn), 'allUsers?': bool, 'allGroups?': bool,
    'resourceOwners?': bool, 'resourceOwnersTypes?': arr(urn) }),
  'editable?': bool, 'lastUpdatedTimestamp?': int,
}), {
  edges: (v, add) => { for (const r of v.actors.roles ?? []) add('IsAssociatedWithRole', r); },
});

/** Access policies: who may do what on which resources. */
export const dataHubPolicy = defineEntity({
  name: 'dataHubPolicy',
  category: 'internal',
  key: dataHubPolicyKey,
  aspects: [dataHubPolicyInfo],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataHubPolicySnapshot',
  graphql: { entityType: 'DATAHUB_POLICY' },
  privileges: { read: 'read.dataHubPolicy' },
});
