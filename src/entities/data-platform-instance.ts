import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const dataPlatformInstanceKey = keyAspect('dataPlatformInstanceKey', 'com.linkedin.metadata.key.DataPlatformInstanceKey',
  [['platform', 'urn'], ['instance', 'string']]);

export const dataPlatformInstanceProperties = aspect('dataPlatformInstanceProperties',
  'com.linkedin.dataplatforminstance.DataPlatformInstanceProperties',
  rec({ ...shared.customPropertiesField, ...shared.externalReferenceField, 'name?': str, 'description?': str }),
  { searchText: shared.propertiesText });

/** One deployment of a platform (a second Snowflake account, a staging Kafka). */
export const dataPlatformInstance = defineEntity({
  name: 'dataPlatformInstance',
  category: 'internal',
  key: dataPlatformInstanceKey,
  aspects: [dataPlatformInstanceProperties, shared.ownership, shared.globalTags, shared.institutionalMemory, shared.deprecation,
    shared.status],
  graphql: { entityType: 'DATA_PLATFORM_INSTANCE' },
  platform: (k) => k.platform,
});
