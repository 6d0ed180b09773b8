import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { int, map, rec, str } from './schema.js';

export const dataHubUpgradeKey = keyAspect('dataHubUpgradeKey', 'com.linkedin.metadata.key.DataHubUpgradeKey', [['id', 'string']]);

export const dataHubUpgradeRequest = aspect('dataHubUpgradeRequest', 'com.linkedin.upgrade.DataHubUpgradeRequest',
  rec({ timestampMs: int, version: str }));

export const dataHubUpgradeResult = aspect('dataHubUpgradeResult', 'com.linkedin.upgrade.DataHubUpgradeResult',
  rec({ timestampMs: int, 'result?': map(str) }));

/** Records of DataHub's upgrade jobs. */
export const dataHubUpgrade = defineEntity({
  name: 'dataHubUpgrade',
  category: 'internal',
  key: dataHubUpgradeKey,
  aspects: [dataHubUpgradeRequest, dataHubUpgradeResult],
  graphql: { entityType: 'OTHER' },
});
