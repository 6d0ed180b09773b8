import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { enumOf, int, rec, str } from './schema.js';

export const mlModelDeploymentKey = keyAspect('mlModelDeploymentKey', 'com.linkedin.metadata.key.MLModelDeploymentKey', [['platform', 'urn'], ['name', 'string'], ['origin', 'fabric']]);

export const mlModelDeploymentProperties = aspect('mlModelDeploymentProperties', 'com.linkedin.ml.metadata.MLModelDeploymentProperties',
  rec({
    ...shared.customPropertiesField, ...shared.externalReferenceField, 'description?': str, 'createdAt?': int, 'version?': shared.versionTag,
    'status?': enumOf(['OUT_OF_SERVICE', 'CREATING', 'UPDATING', 'ROLLING_BACK', 'IN_SERVICE', 'DELETING', 'FAILED', 'UNKNOWN']),
  }), { searchText: shared.propertiesText });

/** Where a model is served. DataHub 0.12.1 has no GraphQL type (nor EntityType value) for it. */
export const mlModelDeployment = defineEntity({
  name: 'mlModelDeployment',
  category: 'core',
  key: mlModelDeploymentKey,
  aspects: [mlModelDeploymentProperties, shared.ownership, shared.status, shared.deprecation, shared.globalTags, shared.dataPlatformInstance],
  snapshotClass: 'com.linkedin.metadata.snapshot.MLModelDeploymentSnapshot',
  graphql: { entityType: 'OTHER' },
  platform: (k) => k.platform,
});
