import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { bool, rec, str } from './schema.js';

export const dataHubRoleKey = keyAspect('dataHubRoleKey', 'com.linkedin.metadata.key.DataHubRoleKey', [['id', 'string']]);

export const dataHubRoleInfo = aspect('dataHubRoleInfo', 'com.linkedin.policy.DataHubRoleInfo',
  rec({ name: str, description: str, 'editable?': bool }));

const SDL = gql`
type DataHubRole implements Entity {
  urn: String!
  type: EntityType!
  name: String!
  description: String!
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}
`;

/** DataHub's roles (Admin, Editor, Reader): sets of policies users are given. */
export const dataHubRole = defineEntity({
  name: 'dataHubRole',
  category: 'core',
  key: dataHubRoleKey,
  aspects: [dataHubRoleInfo],
  graphql: {
    entityType: 'DATAHUB_ROLE',
    objectType: 'DataHubRole',
    sdl: SDL,
    fields: {
      // A role known by its urn only (as policies name them) answers with its id.
      name: async (f) => (await f.aspect(dataHubRoleInfo))?.name ?? f.key.id,
      description: async (f) => (await f.aspect(dataHubRoleInfo))?.description ?? '',
    },
  },
});
