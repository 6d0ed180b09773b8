import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { COMMON_FIELDS, customProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str } from './schema.js';

export const dataProductKey = keyAspect('dataProductKey', 'com.linkedin.dataproduct.DataProductKey', [['id', 'string']]);

export const dataProductProperties = aspect('dataProductProperties', 'com.linkedin.dataproduct.DataProductProperties', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, 'name?': str, 'description?': str, 'assets?': arr(shared.edge),
}), {
  edges: (v, add) => { for (const a of v.assets ?? []) add('DataProductContains', a.destinationUrn); },
  searchText: shared.propertiesText,
});

const SDL = gql`
type DataProduct implements Entity {
  urn: String!
  type: EntityType!
  properties: DataProductProperties
  ownership: Ownership
  institutionalMemory: InstitutionalMemory
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "A search over the product's assets (its query, filters and paging applied, with facets), as listDataProductAssets."
  entities(input: SearchAcrossEntitiesInput): SearchResults
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  tags: GlobalTags
  status: Status
  exists: Boolean
  privileges: EntityPrivileges
}

type DataProductProperties {
  "The name given, else the urn's id."
  name: String!
  description: String
  externalUrl: String
  "How many assets the product lists (0 when it lists none)."
  numAssets: Int
  customProperties: [CustomPropertiesEntry!]
}
`;

/** A set of assets published together for a purpose, within a domain. */
export const dataProduct = defineEntity({
  name: 'dataProduct',
  category: 'core',
  display: { label: 'Data product', rank: 80 },
  key: dataProductKey,
  aspects: [shared.ownership, shared.glossaryTerms, shared.globalTags, shared.domains, dataProductProperties, shared.institutionalMemory,
    shared.status],
  graphql: {
    entityType: 'DATA_PRODUCT',
    objectType: 'DataProduct',
    sdl: SDL,
    rootField: 'dataProduct',
    fields: {
      ...COMMON_FIELDS,
      properties: async (f) => {
        const p = await f.aspect(dataProductProperties);
        return p ? { name: p.name ?? f.key.id, description: p.description ?? null, externalUrl: p.externalUrl ?? null,
          numAssets: p.assets?.length ?? 0, customProperties: customProperties(p.customProperties, f.urn) } : null;
      },
    },
  },
  search: {},
  edits: { description: { aspect: dataProductProperties, field: 'description' } },
});
