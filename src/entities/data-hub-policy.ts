import { aspect, defineEntity, gql, keyAspect, type FieldContext } from './descriptor.js';
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

const SDL = gql`
type DataHubPolicy implements Entity {
  urn: String!
  type: EntityType!
  policyType: PolicyType!
  name: String!
  state: PolicyState!
  description: String
  resources: ResourceFilter
  privileges: [String!]!
  actors: ActorFilter!
  editable: Boolean!
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}
`;

type PolicyInfo = NonNullable<Awaited<ReturnType<typeof infoOf>>>;
const infoOf = (f: FieldContext) => f.aspect(dataHubPolicyInfo);

/** Reads one part of the policy's info (every field of DataHubPolicy is a part of that aspect). */
const part = (map: (i: PolicyInfo) => unknown) => async (f: FieldContext) => {
  const i = await infoOf(f);
  return i ? map(i) : null;
};

/** Access policies: who may do what on which resources. */
export const dataHubPolicy = defineEntity({
  name: 'dataHubPolicy',
  category: 'internal',
  key: dataHubPolicyKey,
  aspects: [dataHubPolicyInfo],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataHubPolicySnapshot',
  graphql: {
    entityType: 'DATAHUB_POLICY',
    objectType: 'DataHubPolicy',
    sdl: SDL,
    fields: {
      policyType: part((i) => i.type),
      name: part((i) => i.displayName),
      state: part((i) => i.state),
      description: part((i) => i.description ?? null),
      privileges: part((i) => i.privileges),
      editable: part((i) => i.editable !== false),
      resources: part(({ resources: r }) => (r ? {
        type: r.type ?? null, resources: r.resources ?? null, allResources: r.allResources ?? false,
        filter: r.filter ? { criteria: r.filter.criteria.map((c) => ({ field: c.field, condition: c.condition ?? 'EQUALS',
          values: c.values.map((value) => ({ value })) })) } : null,
      } : null)),
      actors: part(({ actors: a }) => ({
        users: a.users ?? [], groups: a.groups ?? [], roles: a.roles ?? [], allUsers: !!a.allUsers, allGroups: !!a.allGroups,
        resourceOwners: !!a.resourceOwners, resourceOwnersTypes: a.resourceOwnersTypes ?? null,
      })),
    },
  },
  privileges: { read: 'read.dataHubPolicy' },
});
