/** Who is making a request: a user (through a token) or the system client. */
export interface Actor {
  urn: string;
  kind: 'user' | 'system';
  /** Id of the personal access token used, when the request carried one. */
  tokenId?: string;
}

export const ROOT_USER_URN = 'urn:li:corpuser:datahub';
export const SYSTEM_ACTOR_URN = 'urn:li:corpuser:__datahub_system';

export const systemActor = (): Actor => ({ urn: SYSTEM_ACTOR_URN, kind: 'system' });
export const rootActor = (): Actor => ({ urn: ROOT_USER_URN, kind: 'user' });
