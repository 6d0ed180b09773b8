import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { bool, map, rec, str, urn } from './schema.js';

export const dataHubIngestionSourceKey = keyAspect('dataHubIngestionSourceKey', 'com.linkedin.metadata.key.DataHubIngestionSourceKey',
  [['id', 'string']]);

export const dataHubIngestionSourceInfo = aspect('dataHubIngestionSourceInfo', 'com.linkedin.ingestion.DataHubIngestionSourceInfo', rec({
  name: str, type: str, 'platform?': urn, 'schedule?': rec({ interval: str, timezone: str }),
  config: rec({ recipe: str, 'version?': str, 'executorId?': str, 'debugMode?': bool, 'extraArgs?': map(str) }),
}));

/** Ingestion sources managed in DataHub's UI: a recipe and a schedule. */
export const dataHubIngestionSource = defineEntity({
  name: 'dataHubIngestionSource',
  category: 'internal',
  key: dataHubIngestionSourceKey,
  aspects: [dataHubIngestionSourceInfo],
  graphql: { entityType: 'INGESTION_SOURCE' },
  privileges: { read: 'read.ingestion' },
});
