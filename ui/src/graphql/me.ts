/** Who is signed in, and what they may administer (the shell and the admin pages read it). */
export const ME_QUERY = /* GraphQL */ `
  query uiMe {
    me {
      corpUser { urn username properties { displayName } editableProperties { displayName } }
      platformPrivileges { managePolicies manageTokens manageIdentities generatePersonalAccessTokens }
    }
  }
`;
