import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, rec, str, urn } from './schema.js';

export const mlPrimaryKeyKey = keyAspect('mlPrimaryKeyKey', 'com.linkedin.metadata.key.MLPrimaryKeyKey', [['featureNamespace', 'string'], ['name', 'string']]);

/** Sources are required in DataHub's model (an empty list at least). */
export const mlPrimaryKeyProperties = aspect('mlPrimaryKeyProperties', 'com.linkedin.ml.metadata.MLPrimaryKeyProperties', rec({
  'description?': str, 'dataType?': shared.mlFeatureDataType, 'version?': shared.versionTag, sources: arr(urn),
}), { edges: (v, add) => { for (const s of v.sources) add('DerivedFrom', s); }, searchText: shared.propertiesText });

export const editableMlPrimaryKeyProperties = aspect('editableMlPrimaryKeyProperties',
  'com.linkedin.ml.metadata.EditableMLPrimaryKeyProperties', shared.editableDescription, { searchText: shared.editableText });

/** The keys that feature tables are looked up by. */
export const mlPrimaryKey = defineEntity({
  name: 'mlPrimaryKey',
  category: 'core',
  key: mlPrimaryKeyKey,
  aspects: [shared.glossaryTerms, editableMlPrimaryKeyProperties, shared.domains, mlPrimaryKeyProperties, shared.ownership,
    shared.institutionalMemory, shared.status, shared.deprecation, shared.globalTags, shared.dataPlatformInstance],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.browsePaths, shared.browsePathsV2, shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLPrimaryKeySnapshot',
  graphql: { entityType: 'MLPRIMARY_KEY' },
  search: {},
  edits: { description: { aspect: editableMlPrimaryKeyProperties, field: 'description' } },
});
