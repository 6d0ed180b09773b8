import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { customProperties, descriptionFor, hasProperties } from './graphql-fields.js';
import { keyPart, ML_COMMON_FIELDS } from './ml-model.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const mlFeatureTableKey = keyAspect('mlFeatureTableKey', 'com.linkedin.metadata.key.MLFeatureTableKey', [['platform', 'urn'], ['name', 'string']], {
  edges: (v, add) => add('SourcePlatform', v.platform),
});

export const mlFeatureTableProperties = aspect('mlFeatureTableProperties', 'com.linkedin.ml.metadata.MLFeatureTableProperties', rec({
  ...shared.customPropertiesField, 'description?': str, 'mlFeatures?': arr(urn), 'mlPrimaryKeys?': arr(urn),
}), {
  edges: (v, add) => {
    for (const f of v.mlFeatures ?? []) add('Contains', f);
    for (const k of v.mlPrimaryKeys ?? []) add('KeyedBy', k);
  },
  searchText: shared.propertiesText,
});

export const editableMlFeatureTableProperties = aspect('editableMlFeatureTableProperties',
  'com.linkedin.ml.metadata.EditableMLFeatureTableProperties', shared.editableDescription, { searchText: shared.editableText });

const SDL = gql`
type MLFeatureTable implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  "When metadata of this table was last ingested (from system metadata)."
  lastIngested: Long
  name: String!
  platform: DataPlatform!
  "The ingested description (mlFeatureTableProperties); the edited one is under editableProperties."
  description: String
  ownership: Ownership
  properties: MLFeatureTableProperties
  featureTableProperties: MLFeatureTableProperties @deprecated(reason: "Use properties")
  institutionalMemory: InstitutionalMemory
  status: Status
  deprecation: Deprecation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  editableProperties: MLFeatureTableEditableProperties
  exists: Boolean
}

type MLFeatureTableProperties {
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  mlFeatures: [MLFeature]
  mlPrimaryKeys: [MLPrimaryKey]
  customProperties: [CustomPropertiesEntry!]
}

type MLFeatureTableEditableProperties {
  description: String
}
`;

async function properties(f: FieldContext) {
  const [p, e] = await Promise.all([f.aspect(mlFeatureTableProperties), f.aspect(editableMlFeatureTableProperties)]);
  if (!hasProperties(f, p, e)) return null;
  return { description: descriptionFor(f, e?.description, p?.description), mlFeatures: p?.mlFeatures?.map(ref) ?? null,
    mlPrimaryKeys: p?.mlPrimaryKeys?.map(ref) ?? null, customProperties: customProperties(p?.customProperties ?? {}, f.urn) };
}

/** Tables of features sharing a primary key (a feature store's feature views). */
export const mlFeatureTable = defineEntity({
  name: 'mlFeatureTable',
  category: 'core',
  display: { label: 'Feature table', rank: 160 },
  key: mlFeatureTableKey,
  aspects: [shared.glossaryTerms, editableMlFeatureTableProperties, shared.domains, mlFeatureTableProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLFeatureTableSnapshot',
  graphql: {
    entityType: 'MLFEATURE_TABLE',
    objectType: 'MLFeatureTable',
    rootField: 'mlFeatureTable',
    sdl: SDL,
    fields: {
      ...ML_COMMON_FIELDS,
      name: (f) => keyPart(f, 'name'),
      platform: (f) => ref(f.key.platform!),
      description: async (f) => (await f.aspect(mlFeatureTableProperties))?.description ?? null,
      properties,
      featureTableProperties: properties,
      editableProperties: async (f) => {
        const e = await f.aspect(editableMlFeatureTableProperties);
        return e ? { description: e.description ?? null } : null;
      },
    },
  },
  search: {},
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlFeatureTableProperties, field: 'description' } },
});
