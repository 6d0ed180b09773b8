import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { rec, str, urn } from './schema.js';

export const inviteTokenKey = keyAspect('inviteTokenKey', 'com.linkedin.metadata.key.InviteTokenKey', [['id', 'string']]);

export const inviteToken = aspect('inviteToken', 'com.linkedin.identity.InviteToken', rec({ token: str, 'role?': urn }));

/** Sign-up invitations (the token lets someone create an account: read only by those who manage users). */
export const inviteTokenEntity = defineEntity({
  name: 'inviteToken',
  category: 'internal',
  key: inviteTokenKey,
  aspects: [inviteToken],
  graphql: { entityType: 'OTHER' },
  privileges: { read: 'read.inviteToken' },
});
