import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { int, rec } from './schema.js';

export const dataHubRetentionKey = keyAspect('dataHubRetentionKey', 'com.linkedin.metadata.key.DataHubRetentionKey',
  [['entityName', 'string'], ['aspectName', 'string']]);

export const dataHubRetentionConfig = aspect('dataHubRetentionConfig', 'com.linkedin.retention.DataHubRetentionConfig', rec({
  retention: rec({ 'version?': rec({ maxVersions: int }), 'time?': rec({ maxAgeInSeconds: int }) }),
}));

/** How many versions of an aspect DataHub keeps (Almanac's own cap is ALMANAC_HISTORY_CAP; these are stored, not applied). */
export const dataHubRetention = defineEntity({
  name: 'dataHubRetention',
  category: 'internal',
  key: dataHubRetentionKey,
  aspects: [dataHubRetentionConfig],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataHubRetentionSnapshot',
  graphql: { entityType: 'OTHER' },
});
