import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { COMMON_FIELDS } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str, urn } from './schema.js';

export const glossaryNodeKey = keyAspect('glossaryNodeKey', 'com.linkedin.metadata.key.GlossaryNodeKey', [['name', 'string']]);

export const glossaryNodeInfo = aspect('glossaryNodeInfo', 'com.linkedin.glossary.GlossaryNodeInfo',
  rec({ definition: str, 'parentNode?': urn, 'name?': str, 'id?': str }),
  { edges: (v, add) => add('IsPartOf', v.parentNode), searchText: shared.propertiesText,
    facets: { parentNode: (v) => (v.parentNode ? [v.parentNode] : []) } });

const SDL = gql`
type GlossaryNode implements Entity {
  urn: String!
  type: EntityType!
  properties: GlossaryNodeProperties
  ownership: Ownership
  parentNodes: ParentNodesResult
  privileges: EntityPrivileges
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

"The glossary nodes above a term or node, nearest first."
type ParentNodesResult {
  count: Int!
  nodes: [GlossaryNode!]!
}

type GlossaryNodeProperties {
  name: String!
  description: String
}
`;

/** Folders of the business glossary. */
export const glossaryNode = defineEntity({
  name: 'glossaryNode',
  category: 'core',
  display: { label: 'Term group', rank: 110 },
  key: glossaryNodeKey,
  aspects: [glossaryNodeInfo, shared.institutionalMemory, shared.ownership, shared.status],
  snapshotClass: 'com.linkedin.metadata.snapshot.GlossaryNodeSnapshot',
  graphql: {
    entityType: 'GLOSSARY_NODE',
    objectType: 'GlossaryNode',
    rootField: 'glossaryNode',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      parentNodes: async (f) => parentNodes(f, (await f.aspect(glossaryNodeInfo))?.parentNode),
      properties: async (f) => {
        const i = await f.aspect(glossaryNodeInfo);
        return i ? { name: i.name ?? f.key.name, description: i.definition ?? null } : null;
      },
    },
  },
  search: {},
  edits: { description: { aspect: glossaryNodeInfo, field: 'definition', requiresExisting: 'Glossary Node' } },
});

/** The glossary nodes above a term or node, from its parent up (at most 50, never round a cycle). */
export async function parentNodes(f: FieldContext, parent: string | undefined) {
  const nodes = [];
  const seen = new Set<string>([f.urn]);
  while (parent && !seen.has(parent) && nodes.length < 50) {
    seen.add(parent);
    nodes.push(ref(parent));
    parent = (await f.aspect(glossaryNodeInfo, parent))?.parentNode;
  }
  return { count: nodes.length, nodes };
}
