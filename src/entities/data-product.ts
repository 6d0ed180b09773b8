import { badRequest } from '../errors.js';
import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
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

const safeDecode = (u: string) => {
  try {
    return decodeURIComponent(u);
  } catch {
    return u;
  }
};

type AssetsInput = { types?: string[] | null; query?: string | null; start?: number | null; count?: number | null;
  filters?: unknown[] | null; orFilters?: unknown[] | null };

/**
 * The product's assets as DataHub's `entities` search answers them: those stored and not soft-deleted, of the
 * types asked, matching the query (`*` or empty: all; otherwise words found in the asset's urn, case-insensitive).
 * Facet filters are refused rather than ignored; facets and matched fields are empty.
 */
async function assets(f: FieldContext) {
  const input = (f.args.input ?? {}) as AssetsInput;
  if (input.filters?.length || input.orFilters?.length) throw badRequest('Filters on a data product\'s entities are not supported');
  const start = Math.max(0, Number(input.start ?? 0));
  const count = Math.min(10_000, Math.max(0, Number(input.count ?? 10)));
  // Loaded lazily: the registry lists this descriptor.
  const { descriptorOfUrn } = await import('./index.js');
  const listed = [...new Set(((await f.aspect(dataProductProperties))?.assets ?? []).map((a) => a.destinationUrn))];
  const words = (input.query ?? '').trim() === '*' ? [] : (input.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const found: string[] = [];
  for (const u of listed) {
    const d = descriptorOfUrn(u);
    if (!d || (input.types?.length && !input.types.includes(d.graphql.entityType))) continue;
    const text = safeDecode(u).toLowerCase();
    if (!words.every((w) => text.includes(w))) continue;
    if ((await f.aspect(d.key, u)) === undefined || (await f.aspect(shared.status, u))?.removed) continue;
    found.push(u);
  }
  const page = found.slice(start, start + count);
  return { start, count: page.length, total: found.length, facets: [], searchResults: page.map((u) => ({ entity: ref(u), matchedFields: [] })) };
}

const SDL = gql`
type DataProduct implements Entity {
  urn: String!
  type: EntityType!
  properties: DataProductProperties
  ownership: Ownership
  institutionalMemory: InstitutionalMemory
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "The product's assets that exist (see the descriptor for how the query matches; filters are refused)."
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
      entities: assets,
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
