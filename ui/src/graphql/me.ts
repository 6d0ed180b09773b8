import { typed } from '../gql';
/** Who is signed in, and what they may administer (the shell and the admin pages read it). */
export const ME_QUERY = typed<{ me: Me }>(/* GraphQL */ `
  query uiMe {
    me {
      corpUser { urn username properties { displayName } editableProperties { displayName } }
      platformPrivileges { managePolicies manageTokens manageIdentities generatePersonalAccessTokens }
    }
  }
`);

/** Who is signed in (the `me` query). */
export interface Me {
  corpUser: { urn: string; username: string; properties: { displayName: string | null } | null; editableProperties: { displayName: string | null } | null };
  platformPrivileges: { managePolicies: boolean; manageTokens: boolean; manageIdentities: boolean; generatePersonalAccessTokens: boolean } | null;
}
