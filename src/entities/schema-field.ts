import { defineEntity, gql, keyAspect, ref } from './descriptor.js';

export const schemaFieldKey = keyAspect('schemaFieldKey', 'com.linkedin.metadata.key.SchemaFieldKey',
  [['parent', 'urn'], ['fieldPath', 'string']]);

const SDL = gql`
type SchemaFieldEntity implements Entity {
  urn: String!
  type: EntityType!
  fieldPath: String!
  parent: Entity!
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}
`;

/** A column of a dataset as an entity of its own (what column-level lineage and input fields point to). */
export const schemaField = defineEntity({
  name: 'schemaField',
  category: 'core',
  key: schemaFieldKey,
  aspects: [],
  snapshotClass: 'com.linkedin.metadata.snapshot.SchemaFieldSnapshot',
  graphql: {
    entityType: 'SCHEMA_FIELD',
    objectType: 'SchemaFieldEntity',
    sdl: SDL,
    fields: {
      fieldPath: (f) => f.key.fieldPath,
      parent: (f) => ref(f.key.parent!),
    },
  },
});
