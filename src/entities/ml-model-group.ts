import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { customProperties, descriptionFor, hasProperties } from './graphql-fields.js';
import { keyPart, ML_COMMON_FIELDS, versionTag } from './ml-model.js';
import * as shared from './shared-aspects.js';
import { int, rec, str } from './schema.js';

export const mlModelGroupKey = keyAspect('mlModelGroupKey', 'com.linkedin.metadata.key.MLModelGroupKey', [['platform', 'urn'], ['name', 'string'], ['origin', 'fabric']]);

export const mlModelGroupProperties = aspect('mlModelGroupProperties', 'com.linkedin.ml.metadata.MLModelGroupProperties', rec({
  ...shared.customPropertiesField, 'description?': str, 'createdAt?': int, 'version?': shared.versionTag,
}), { searchText: shared.propertiesText });

export const editableMlModelGroupProperties = aspect('editableMlModelGroupProperties',
  'com.linkedin.ml.metadata.EditableMLModelGroupProperties', shared.editableDescription, { searchText: shared.editableText });

const SDL = gql`
type MLModelGroup implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  "When metadata of this group was last ingested (from system metadata)."
  lastIngested: Long
  name: String!
  platform: DataPlatform!
  origin: FabricType!
  "The ingested description (mlModelGroupProperties); the edited one is under editableProperties."
  description: String
  properties: MLModelGroupProperties
  ownership: Ownership
  status: Status
  deprecation: Deprecation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "One hop: the models of the group upstream."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  editableProperties: MLModelGroupEditableProperties
  exists: Boolean
}

type MLModelGroupProperties {
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  createdAt: Long
  version: VersionTag
  "Not in DataHub 0.12.1's GraphQL (its model has them): the group's custom properties."
  customProperties: [CustomPropertiesEntry!]
}

type MLModelGroupEditableProperties {
  description: String
}
`;

/** Groups of ML models (the versions of one model). */
export const mlModelGroup = defineEntity({
  name: 'mlModelGroup',
  category: 'core',
  display: { label: 'ML model group', rank: 150 },
  key: mlModelGroupKey,
  aspects: [shared.glossaryTerms, editableMlModelGroupProperties, shared.domains, mlModelGroupProperties, shared.ownership, shared.status,
    shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance, shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.institutionalMemory, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLModelGroupSnapshot',
  graphql: {
    entityType: 'MLMODEL_GROUP',
    objectType: 'MLModelGroup',
    rootField: 'mlModelGroup',
    sdl: SDL,
    fields: {
      ...ML_COMMON_FIELDS,
      name: (f) => keyPart(f, 'name'),
      platform: (f) => ref(f.key.platform!),
      origin: (f) => f.key.origin,
      description: async (f) => (await f.aspect(mlModelGroupProperties))?.description ?? null,
      properties: async (f) => {
        const [p, e] = await Promise.all([f.aspect(mlModelGroupProperties), f.aspect(editableMlModelGroupProperties)]);
        if (!hasProperties(f, p, e)) return null;
        return { description: descriptionFor(f, e?.description, p?.description), createdAt: p?.createdAt ?? null,
          version: versionTag(p?.version), customProperties: customProperties(p?.customProperties ?? {}, f.urn) };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableMlModelGroupProperties);
        return e ? { description: e.description ?? null } : null;
      },
    },
  },
  search: {},
  // DataHub 0.12.1 gives the types it has no rule for an empty default browse path.
  browsePath: () => '',
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlModelGroupProperties, field: 'description' } },
});
