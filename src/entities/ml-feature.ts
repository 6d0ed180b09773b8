import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const mlFeatureKey = keyAspect('mlFeatureKey', 'com.linkedin.metadata.key.MLFeatureKey', [['featureNamespace', 'string'], ['name', 'string']]);

export const mlFeatureProperties = aspect('mlFeatureProperties', 'com.linkedin.ml.metadata.MLFeatureProperties', rec({
  'description?': str, 'dataType?': shared.mlFeatureDataType, 'version?': shared.versionTag, 'sources?': arr(urn),
}), { edges: (v, add) => { for (const s of v.sources ?? []) add('DerivedFrom', s); }, searchText: shared.propertiesText });

export const editableMlFeatureProperties = aspect('editableMlFeatureProperties', 'com.linkedin.ml.metadata.EditableMLFeatureProperties',
  shared.editableDescription, { searchText: shared.editableText });

/** Features: model inputs, derived from datasets. */
export const mlFeature = defineEntity({
  name: 'mlFeature',
  category: 'core',
  key: mlFeatureKey,
  aspects: [shared.glossaryTerms, editableMlFeatureProperties, shared.domains, mlFeatureProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLFeatureSnapshot',
  graphql: { entityType: 'MLFEATURE' },
  search: {},
  edits: { description: { aspect: editableMlFeatureProperties, field: 'description' } },
});
