import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { enumOf, rec, str } from './schema.js';
import * as shared from './shared-aspects.js';

export const testKey = keyAspect('testKey', 'com.linkedin.metadata.key.TestKey', [['id', 'string']]);

/** A metadata test. DataHub 0.12.1 knows JSON definitions only; Almanac takes YAML too. */
export const testInfo = aspect('testInfo', 'com.linkedin.test.TestInfo', rec({
  name: str, category: str, 'description?': str, definition: rec({ type: enumOf(['JSON', 'YAML']), 'json?': str }),
}), { searchText: shared.propertiesText });

const SDL = gql`
type Test implements Entity {
  urn: String!
  type: EntityType!
  name: String!
  category: String!
  description: String
  "The definition exactly as stored."
  definition: TestDefinition!
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type TestDefinition {
  json: String
}
`;

/** Metadata tests: rules evaluated against entities (their queries and mutations are in the metadata-tests area). */
export const test = defineEntity({
  name: 'test',
  category: 'core',
  key: testKey,
  aspects: [testInfo],
  graphql: {
    entityType: 'TEST',
    objectType: 'Test',
    sdl: SDL,
    fields: {
      name: async (f) => (await f.aspect(testInfo))?.name ?? f.key.id,
      category: async (f) => (await f.aspect(testInfo))?.category ?? '',
      description: async (f) => (await f.aspect(testInfo))?.description ?? null,
      definition: async (f) => ({ json: (await f.aspect(testInfo))?.definition?.json ?? null }),
    },
  },
  search: { onlyWhenNamed: true },
});
