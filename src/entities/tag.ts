import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { COMMON_FIELDS } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const tagKey = keyAspect('tagKey', 'com.linkedin.metadata.key.TagKey', [['name', 'string']]);

export const tagProperties = aspect('tagProperties', 'com.linkedin.tag.TagProperties',
  rec({ name: str, 'description?': str, 'colorHex?': str }), { searchText: shared.propertiesText });

const SDL = gql`
type Tag implements Entity {
  urn: String!
  type: EntityType!
  "The id part of the urn (DataHub's meaning), not the display name."
  name: String!
  properties: TagProperties
  ownership: Ownership
  "Deprecated: properties.description."
  description: String
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type TagProperties {
  name: String!
  description: String
  colorHex: String
}
`;

/** Labels for assets and columns. */
export const tag = defineEntity({
  name: 'tag',
  category: 'core',
  display: { label: 'Tag', rank: 90 },
  key: tagKey,
  aspects: [tagProperties, shared.ownership, shared.deprecation, shared.status],
  // Metadata tests push their results to tags too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.TagSnapshot',
  graphql: {
    entityType: 'TAG',
    objectType: 'Tag',
    rootField: 'tag',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      name: (f) => f.key.name,
      properties: async (f) => {
        const p = await f.aspect(tagProperties);
        return p ? { name: p.name ?? f.key.name, description: p.description ?? null, colorHex: p.colorHex ?? null } : null;
      },
      description: async (f) => (await f.aspect(tagProperties))?.description ?? null,
    },
  },
  search: {},
  // tagProperties needs a name: a first description takes the tag's id.
  edits: { description: { aspect: tagProperties, field: 'description', defaults: (k) => ({ name: k.name }) } },
});
