import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { COMMON_FIELDS } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str, urn } from './schema.js';

export const domainKey = keyAspect('domainKey', 'com.linkedin.metadata.key.DomainKey', [['id', 'string']]);

export const domainProperties = aspect('domainProperties', 'com.linkedin.domain.DomainProperties',
  rec({ name: str, 'description?': str, 'created?': shared.auditStamp, 'parentDomain?': urn }),
  { edges: (v, add) => add('IsPartOf', v.parentDomain), searchText: shared.propertiesText,
    // DataHub's index fields: listDomains filters on the parent, and sorts by when the domain was made.
    facets: { parentDomain: (v) => (v.parentDomain ? [v.parentDomain] : []), createdTime: (v) => (v.created ? [String(v.created.time)] : []) } });

const SDL = gql`
type Domain implements Entity {
  urn: String!
  type: EntityType!
  id: String!
  properties: DomainProperties
  ownership: Ownership
  institutionalMemory: InstitutionalMemory
  parentDomains: ParentDomainsResult
  "A search over the entities in the domain (its query, filters and paging applied, with facets); child domains are not among them."
  entities(input: DomainEntitiesInput): SearchResults
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

input DomainEntitiesInput {
  query: String
  start: Int
  count: Int
  filters: [FacetFilterInput!]
}

"The domains above a domain, nearest first."
type ParentDomainsResult {
  count: Int!
  domains: [Entity!]!
}

type DomainProperties {
  name: String!
  description: String
}
`;

/** Areas of the business that assets belong to. */
export const domain = defineEntity({
  name: 'domain',
  category: 'core',
  display: { label: 'Domain', rank: 70 },
  key: domainKey,
  aspects: [domainProperties, shared.institutionalMemory, shared.ownership],
  graphql: {
    entityType: 'DOMAIN',
    objectType: 'Domain',
    rootField: 'domain',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      id: (f) => f.key.id,
      parentDomains: async (f) => {
        const domains = [];
        const seen = new Set<string>([f.urn]);
        let parent = (await f.aspect(domainProperties))?.parentDomain;
        while (parent && !seen.has(parent) && domains.length < 50) {
          seen.add(parent);
          domains.push(ref(parent));
          parent = (await f.aspect(domainProperties, parent))?.parentDomain;
        }
        return { count: domains.length, domains };
      },
      properties: async (f) => {
        const p = await f.aspect(domainProperties);
        return p ? { name: p.name ?? f.key.id, description: p.description ?? null } : null;
      },
    },
  },
  search: {},
  edits: { description: { aspect: domainProperties, field: 'description', requiresExisting: 'Domain' } },
});
