import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { int, rec, str, urn } from './schema.js';

export const dataHubAccessTokenKey = keyAspect('dataHubAccessTokenKey', 'com.linkedin.metadata.key.DataHubAccessTokenKey', [['id', 'string']]);

export const dataHubAccessTokenInfo = aspect('dataHubAccessTokenInfo', 'com.linkedin.access.token.DataHubAccessTokenInfo',
  rec({ name: str, actorUrn: urn, ownerUrn: urn, createdAt: int, 'expiresAt?': int, 'description?': str }));

/** Personal access tokens (their metadata; the token itself is never stored). */
export const dataHubAccessToken = defineEntity({
  name: 'dataHubAccessToken',
  category: 'internal',
  key: dataHubAccessTokenKey,
  aspects: [dataHubAccessTokenInfo],
  graphql: { entityType: 'ACCESS_TOKEN' },
  privileges: { read: 'read.dataHubAccessToken' },
});
