import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { bool, rec, str } from './schema.js';

export const dataHubRoleKey = keyAspect('dataHubRoleKey', 'com.linkedin.metadata.key.DataHubRoleKey', [['id', 'string']]);

export const dataHubRoleInfo = aspect('dataHubRoleInfo', 'com.linkedin.policy.DataHubRoleInfo',
  rec({ name: str, description: str, 'editable?': bool }));

/** DataHub's roles (Admin, Editor, Reader): sets of policies users are given. */
export const dataHubRole = defineEntity({
  name: 'dataHubRole',
  category: 'core',
  key: dataHubRoleKey,
  aspects: [dataHubRoleInfo],
  graphql: { entityType: 'DATAHUB_ROLE' },
});
