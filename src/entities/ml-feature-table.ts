import { aspect, defineEntity, keyAspect } from './descriptor.js';
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

/** Tables of features sharing a primary key (a feature store's feature views). */
export const mlFeatureTable = defineEntity({
  name: 'mlFeatureTable',
  category: 'core',
  key: mlFeatureTableKey,
  aspects: [shared.glossaryTerms, editableMlFeatureTableProperties, shared.domains, mlFeatureTableProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.browsePaths, shared.globalTags, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLFeatureTableSnapshot',
  graphql: { entityType: 'MLFEATURE_TABLE' },
  search: {},
  platform: (k) => k.platform,
  edits: { description: { aspect: editableMlFeatureTableProperties, field: 'description' } },
});
