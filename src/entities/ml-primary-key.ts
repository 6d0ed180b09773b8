import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { descriptionFor, hasProperties } from './graphql-fields.js';
import { keyPart, ML_COMMON_FIELDS, versionTag } from './ml-model.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const mlPrimaryKeyKey = keyAspect('mlPrimaryKeyKey', 'com.linkedin.metadata.key.MLPrimaryKeyKey', [['featureNamespace', 'string'], ['name', 'string']]);

/** Sources are required in DataHub's model (an empty list at least). */
export const mlPrimaryKeyProperties = aspect('mlPrimaryKeyProperties', 'com.linkedin.ml.metadata.MLPrimaryKeyProperties', rec({
  'description?': str, 'dataType?': shared.mlFeatureDataType, 'version?': shared.versionTag, sources: arr(urn),
}), { edges: (v, add) => { for (const s of v.sources) add('DerivedFrom', s); }, searchText: shared.propertiesText });

export const editableMlPrimaryKeyProperties = aspect('editableMlPrimaryKeyProperties',
  'com.linkedin.ml.metadata.EditableMLPrimaryKeyProperties', shared.editableDescription, { searchText: shared.editableText });

const SDL = gql`
type MLPrimaryKey implements EntityWithRelationships & Entity {
  urn: String!
  type: EntityType!
  "When metadata of this key was last ingested (from system metadata)."
  lastIngested: Long
  name: String!
  featureNamespace: String!
  "The ingested description (mlPrimaryKeyProperties); the edited one is under editableProperties."
  description: String
  dataType: MLFeatureDataType
  properties: MLPrimaryKeyProperties
  primaryKeyProperties: MLPrimaryKeyProperties @deprecated(reason: "Use properties")
  ownership: Ownership
  institutionalMemory: InstitutionalMemory
  status: Status
  deprecation: Deprecation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "One hop: the datasets the key derives from upstream."
  lineage(input: LineageInput!): EntityLineageResult
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  editableProperties: MLPrimaryKeyEditableProperties
  exists: Boolean
}

type MLPrimaryKeyProperties {
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  dataType: MLFeatureDataType
  version: VersionTag
  sources: [Dataset]
}

type MLPrimaryKeyEditableProperties {
  description: String
}
`;

async function properties(f: FieldContext) {
  const [p, e] = await Promise.all([f.aspect(mlPrimaryKeyProperties), f.aspect(editableMlPrimaryKeyProperties)]);
  if (!hasProperties(f, p, e)) return null;
  return { description: descriptionFor(f, e?.description, p?.description), dataType: p?.dataType ?? null,
    version: versionTag(p?.version), sources: p?.sources.map(ref) ?? null };
}

/** The keys that feature tables are looked up by. */
export const mlPrimaryKey = defineEntity({
  name: 'mlPrimaryKey',
  category: 'core',
  display: { label: 'ML primary key', rank: 180 },
  // mlPrimaryKeyProperties.sources: DerivedFrom a dataset.
  lineage: { upstream: [{ type: 'DerivedFrom', entityTypes: ['dataset'] }] },
  key: mlPrimaryKeyKey,
  aspects: [shared.glossaryTerms, editableMlPrimaryKeyProperties, shared.domains, mlPrimaryKeyProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.globalTags, shared.dataPlatformInstance],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.browsePaths, shared.browsePathsV2, shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLPrimaryKeySnapshot',
  graphql: {
    entityType: 'MLPRIMARY_KEY',
    objectType: 'MLPrimaryKey',
    rootField: 'mlPrimaryKey',
    sdl: SDL,
    fields: {
      ...ML_COMMON_FIELDS,
      name: (f) => keyPart(f, 'name'),
      featureNamespace: (f) => keyPart(f, 'featureNamespace'),
      description: async (f) => (await f.aspect(mlPrimaryKeyProperties))?.description ?? null,
      dataType: async (f) => (await f.aspect(mlPrimaryKeyProperties))?.dataType ?? null,
      properties,
      primaryKeyProperties: properties,
      editableProperties: async (f) => {
        const e = await f.aspect(editableMlPrimaryKeyProperties);
        return e ? { description: e.description ?? null } : null;
      },
    },
  },
  search: {},
  edits: { description: { aspect: editableMlPrimaryKeyProperties, field: 'description' } },
});
