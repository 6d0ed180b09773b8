import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { parentNodes } from './glossary-node.js';
import { COMMON_FIELDS, customProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const glossaryTermKey = keyAspect('glossaryTermKey', 'com.linkedin.metadata.key.GlossaryTermKey', [['name', 'string']]);

export const glossaryTermInfo = aspect('glossaryTermInfo', 'com.linkedin.glossary.GlossaryTermInfo', rec({
  ...shared.customPropertiesField, 'id?': str, 'name?': str, definition: str, 'parentNode?': urn, termSource: str, 'sourceRef?': str,
  'sourceUrl?': str, 'rawSchema?': str,
}), { edges: (v, add) => add('IsPartOf', v.parentNode), searchText: shared.propertiesText,
    facets: { parentNode: (v) => (v.parentNode ? [v.parentNode] : []) } });

export const glossaryRelatedTerms = aspect('glossaryRelatedTerms', 'com.linkedin.glossary.GlossaryRelatedTerms', rec({
  'isRelatedTerms?': arr(urn), 'hasRelatedTerms?': arr(urn), 'values?': arr(urn), 'relatedTerms?': arr(urn),
}), {
  edges: (v, add) => {
    for (const t of v.isRelatedTerms ?? []) add('IsA', t);
    for (const t of v.hasRelatedTerms ?? []) add('HasA', t);
    for (const t of v.values ?? []) add('HasValue', t);
    for (const t of v.relatedTerms ?? []) add('IsRelatedTo', t);
  },
});

const SDL = gql`
type GlossaryTerm implements Entity {
  urn: String!
  type: EntityType!
  name: String!
  hierarchicalName: String!
  properties: GlossaryTermProperties
  glossaryTermInfo: GlossaryTermInfo
  ownership: Ownership
  domain: DomainAssociation
  institutionalMemory: InstitutionalMemory
  deprecation: Deprecation
  parentNodes: ParentNodesResult
  privileges: EntityPrivileges
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type GlossaryTermProperties {
  name: String!
  description: String
  definition: String!
  termSource: String!
  sourceRef: String
  sourceUrl: String
  "The term's schema as its source wrote it."
  rawSchema: String
  customProperties: [CustomPropertiesEntry!]
}

type GlossaryTermInfo {
  name: String
  description: String
  definition: String!
  termSource: String!
}
`;

/** Business terms, labels with a definition. */
export const glossaryTerm = defineEntity({
  name: 'glossaryTerm',
  category: 'core',
  display: { label: 'Glossary term', rank: 100 },
  key: glossaryTermKey,
  aspects: [glossaryTermInfo, glossaryRelatedTerms, shared.institutionalMemory, shared.schemaMetadata, shared.ownership,
    shared.deprecation, shared.domains, shared.status, shared.browsePaths],
  // Metadata tests push their results to terms too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.GlossaryTermSnapshot',
  graphql: {
    entityType: 'GLOSSARY_TERM',
    objectType: 'GlossaryTerm',
    rootField: 'glossaryTerm',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      name: async (f) => (await f.aspect(glossaryTermInfo))?.name ?? f.key.name,
      hierarchicalName: (f) => f.key.name,
      parentNodes: async (f) => parentNodes(f, (await f.aspect(glossaryTermInfo))?.parentNode),
      properties: async (f) => {
        const i = await f.aspect(glossaryTermInfo);
        return i ? { name: i.name ?? f.key.name, description: i.definition ?? null, definition: i.definition ?? '',
          termSource: i.termSource ?? 'INTERNAL', sourceRef: i.sourceRef ?? null, sourceUrl: i.sourceUrl ?? null,
          rawSchema: i.rawSchema ?? null, customProperties: customProperties(i.customProperties, f.urn) } : null;
      },
      glossaryTermInfo: async (f) => {
        const i = await f.aspect(glossaryTermInfo);
        return i ? { name: i.name ?? null, description: i.definition ?? null, definition: i.definition ?? '', termSource: i.termSource ?? 'INTERNAL' } : null;
      },
    },
  },
  search: {},
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  edits: { description: { aspect: glossaryTermInfo, field: 'definition', requiresExisting: 'Glossary Term' } },
});
