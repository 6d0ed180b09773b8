import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { int, rec, str } from './schema.js';

export const mlModelGroupKey = keyAspect('mlModelGroupKey', 'com.linkedin.metadata.key.MLModelGroupKey', [['platform', 'urn'], ['name', 'string'], ['origin', 'fabric']]);

export const mlModelGroupProperties = aspect('mlModelGroupProperties', 'com.linkedin.ml.metadata.MLModelGroupProperties', rec({
  ...shared.customPropertiesField, 'description?': str, 'createdAt?': int, 'version?': shared.versionTag,
}), { searchText: shared.propertiesText });

export const editableMlModelGroupProperties = aspect('editableMlModelGroupProperties',
  'com.linkedin.ml.metadata.EditableMLModelGroupProperties', shared.editableDescription, { searchText: shared.editableText });

/** Groups of ML models (the versions of one model). */
export const mlModelGroup = defineEntity({
  name: 'mlModelGroup',
  category: 'core',
  key: mlModelGroupKey,
  aspects: [shared.glossaryTerms, editableMlModelGroupProperties, shared.domains, mlModelGroupProperties, shared.ownership, shared.status,
    shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance, shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.institutionalMemory, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLModelGroupSnapshot',
  graphql: { entityType: 'MLMODEL_GROUP' },
  search: {},
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlModelGroupProperties, field: 'description' } },
});
