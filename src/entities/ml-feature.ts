import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { descriptionFor, hasProperties } from './graphql-fields.js';
import { keyPart, ML_COMMON_FIELDS, versionTag } from './ml-model.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const mlFeatureKey = keyAspect('mlFeatureKey', 'com.linkedin.metadata.key.MLFeatureKey', [['featureNamespace', 'string'], ['name', 'string']]);

export const mlFeatureProperties = aspect('mlFeatureProperties', 'com.linkedin.ml.metadata.MLFeatureProperties', rec({
  'description?': str, 'dataType?': shared.mlFeatureDataType, 'version?': shared.versionTag, 'sources?': arr(urn),
}), { edges: (v, add) => { for (const s of v.sources ?? []) add('DerivedFrom', s); }, searchText: shared.propertiesText });

export const editableMlFeatureProperties = aspect('editableMlFeatureProperties', 'com.linkedin.ml.metadata.EditableMLFeatureProperties',
  shared.editableDescription, { searchText: shared.editableText });

const SDL = gql`
type MLFeature implements EntityWithRelationships & Entity {
  urn: String!
  type: EntityType!
  "When metadata of this feature was last ingested (from system metadata)."
  lastIngested: Long
  name: String!
  featureNamespace: String!
  "The ingested description (mlFeatureProperties); the edited one is under editableProperties."
  description: String
  dataType: MLFeatureDataType
  ownership: Ownership
  featureProperties: MLFeatureProperties @deprecated(reason: "Use properties")
  properties: MLFeatureProperties
  institutionalMemory: InstitutionalMemory
  status: Status
  deprecation: Deprecation
  browsePathV2: BrowsePathV2
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "One hop: the datasets the feature derives from upstream; models consuming it downstream."
  lineage(input: LineageInput!): EntityLineageResult
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  editableProperties: MLFeatureEditableProperties
  exists: Boolean
}

type MLFeatureProperties {
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  dataType: MLFeatureDataType
  version: VersionTag
  sources: [Dataset]
}

type MLFeatureEditableProperties {
  description: String
}
`;

async function properties(f: FieldContext) {
  const [p, e] = await Promise.all([f.aspect(mlFeatureProperties), f.aspect(editableMlFeatureProperties)]);
  if (!hasProperties(f, p, e)) return null;
  return { description: descriptionFor(f, e?.description, p?.description), dataType: p?.dataType ?? null,
    version: versionTag(p?.version), sources: p?.sources?.map(ref) ?? null };
}

/** Features: model inputs, derived from datasets. */
export const mlFeature = defineEntity({
  name: 'mlFeature',
  category: 'core',
  display: { label: 'ML feature', rank: 170 },
  // mlFeatureProperties.sources: DerivedFrom a dataset.
  lineage: { upstream: [{ type: 'DerivedFrom', entityTypes: ['dataset'] }] },
  key: mlFeatureKey,
  aspects: [shared.glossaryTerms, editableMlFeatureProperties, shared.domains, mlFeatureProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLFeatureSnapshot',
  graphql: {
    entityType: 'MLFEATURE',
    objectType: 'MLFeature',
    rootField: 'mlFeature',
    sdl: SDL,
    fields: {
      ...ML_COMMON_FIELDS,
      name: (f) => keyPart(f, 'name'),
      featureNamespace: (f) => keyPart(f, 'featureNamespace'),
      description: async (f) => (await f.aspect(mlFeatureProperties))?.description ?? null,
      dataType: async (f) => (await f.aspect(mlFeatureProperties))?.dataType ?? null,
      properties,
      featureProperties: properties,
      editableProperties: async (f) => {
        const e = await f.aspect(editableMlFeatureProperties);
        return e ? { description: e.description ?? null } : null;
      },
    },
  },
  search: {},
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  edits: { description: { aspect: editableMlFeatureProperties, field: 'description' } },
});
