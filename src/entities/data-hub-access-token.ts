import { aspect, defineEntity, keyAspect, type FieldContext } from './descriptor.js';
import { int, rec, str, urn } from './schema.js';

export const dataHubAccessTokenKey = keyAspect('dataHubAccessTokenKey', 'com.linkedin.metadata.key.DataHubAccessTokenKey', [['id', 'string']]);

export const dataHubAccessTokenInfo = aspect('dataHubAccessTokenInfo', 'com.linkedin.access.token.DataHubAccessTokenInfo',
  rec({ name: str, actorUrn: urn, ownerUrn: urn, createdAt: int, 'expiresAt?': int, 'description?': str }));

/** Reads one field of the token's info (the type's SDL is in src/graphql/schema/auth.graphql, beside the token operations). */
const info = (map: (i: { name: string; actorUrn: string; ownerUrn: string; createdAt: number; expiresAt?: number; description?: string }) => unknown) =>
  async (f: FieldContext) => {
    const i = await f.aspect(dataHubAccessTokenInfo);
    return i ? map(i) : null;
  };

/** Personal access tokens (their metadata; the token itself is never stored). */
export const dataHubAccessToken = defineEntity({
  name: 'dataHubAccessToken',
  category: 'internal',
  key: dataHubAccessTokenKey,
  aspects: [dataHubAccessTokenInfo],
  graphql: {
    entityType: 'ACCESS_TOKEN',
    objectType: 'AccessTokenMetadata',
    fields: {
      id: (f) => f.key.id,
      name: info((i) => i.name),
      description: info((i) => i.description ?? null),
      actorUrn: info((i) => i.actorUrn),
      ownerUrn: info((i) => i.ownerUrn),
      createdAt: info((i) => i.createdAt),
      expiresAt: info((i) => i.expiresAt ?? null),
    },
  },
  privileges: { read: 'read.dataHubAccessToken' },
});
