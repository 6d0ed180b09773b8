import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const dataHubSecretKey = keyAspect('dataHubSecretKey', 'com.linkedin.metadata.key.DataHubSecretKey', [['id', 'string']]);

export const dataHubSecretValue = aspect('dataHubSecretValue', 'com.linkedin.secret.DataHubSecretValue',
  rec({ name: str, value: str, 'description?': str, 'created?': shared.auditStamp }));

/** Secrets that ingestion recipes name (stored encrypted by DataHub; read only by those who manage secrets). */
export const dataHubSecret = defineEntity({
  name: 'dataHubSecret',
  category: 'internal',
  key: dataHubSecretKey,
  aspects: [dataHubSecretValue],
  graphql: { entityType: 'OTHER' },
  privileges: { read: 'read.dataHubSecret' },
});
