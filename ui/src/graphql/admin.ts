import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';

/**
 * The admin pages (ui/src/features/admin): access tokens (the GraphQL token API), users and groups with their roles
 * and groups (relationships IsMemberOfRole, IsMemberOfNativeGroup, IsMemberOfGroup), policies (read, switch on and
 * off through updatePolicy with the policy's other fields unchanged), and the sizes of the time-series tables.
 */
export const ADMIN_ME = typed<AdminMe>(/* GraphQL */ `
  query uiAdminMe {
    me {
      corpUser { urn username }
      platformPrivileges { manageTokens generatePersonalAccessTokens managePolicies manageIdentities }
    }
  }
`);

export const LIST_TOKENS = typed<{ listAccessTokens: { total: number; tokens: Token[] } }, { input: { start: number; count: number; filters: { field: string; values: string[] }[] } }>(/* GraphQL */ `
  query uiListTokens($input: ListAccessTokenInput!) {
    listAccessTokens(input: $input) {
      start count total
      tokens { urn id name description actorUrn ownerUrn createdAt expiresAt }
    }
  }
`);

export const CREATE_TOKEN = typed<{ createAccessToken: { accessToken: string; metadata: Token } }, { input: Record<string, unknown> }>(/* GraphQL */ `
  mutation uiCreateToken($input: CreateAccessTokenInput!) {
    createAccessToken(input: $input) {
      accessToken
      metadata { urn id name description actorUrn ownerUrn createdAt expiresAt }
    }
  }
`);

export const REVOKE_TOKEN = typed<{ revokeAccessToken: boolean }, { tokenId: string }>(/* GraphQL */ `
  mutation uiRevokeToken($tokenId: String!) { revokeAccessToken(tokenId: $tokenId) }
`);

const ROLE_NAMES = /* GraphQL */ `
  fragment uiRoleNames on EntityRelationshipsResult {
    total
    relationships { entity { urn type ... on DataHubRole { name } } }
  }
`;

const GROUP_NAMES = /* GraphQL */ `
  fragment uiGroupNames on EntityRelationshipsResult {
    total
    relationships { entity { urn type ... on CorpGroup { name groupProps: properties { displayName } } } }
  }
`;

export const LIST_USERS = typed<{ listUsers: { total: number; users: User[] } }, { input: { start: number; count: number; query?: string } }>(/* GraphQL */ `
  query uiListUsers($input: ListUsersInput!) {
    listUsers(input: $input) {
      start count total
      users {
        urn username status isNativeUser
        properties { displayName fullName email title active }
        editableProperties { displayName }
        roles: relationships(input: { types: ["IsMemberOfRole"], direction: OUTGOING, start: 0, count: 20 }) { ...uiRoleNames }
        groups: relationships(input: { types: ["IsMemberOfNativeGroup", "IsMemberOfGroup"], direction: OUTGOING, start: 0, count: 20 }) { ...uiGroupNames }
      }
    }
  }
  ${ROLE_NAMES}
  ${GROUP_NAMES}
`);

export const LIST_GROUPS = typed<{ listGroups: { total: number; groups: Group[] } }, { input: { start: number; count: number; query?: string } }>(/* GraphQL */ `
  query uiListGroups($input: ListGroupsInput!) {
    listGroups(input: $input) {
      start count total
      groups {
        urn name
        properties { displayName description email }
        origin { type externalType }
        info { members { urn } }
        members: relationships(input: { types: ["IsMemberOfNativeGroup", "IsMemberOfGroup"], direction: INCOMING, start: 0, count: 1000 }) {
          total relationships { entity { urn } }
        }
        roles: relationships(input: { types: ["IsMemberOfRole"], direction: OUTGOING, start: 0, count: 20 }) { ...uiRoleNames }
      }
    }
  }
  ${ROLE_NAMES}
`);

const POLICY_FIELDS = /* GraphQL */ `
  fragment uiPolicy on Policy {
    urn type name state description privileges editable
    resources {
      type resources allResources
      filter { criteria { field condition values { value entity { ...uiEntitySummary } } } }
    }
    actors {
      users groups roles allUsers allGroups resourceOwners resourceOwnersTypes
      resolvedUsers { urn username properties { displayName } editableProperties { displayName } }
      resolvedGroups { urn name properties { displayName } }
      resolvedRoles { urn name }
    }
  }
`;

export const LIST_POLICIES = typed<{ listPolicies: { total: number; policies: PolicyData[] } }, { input: { start: number; count: number; query?: string } }>(/* GraphQL */ `
  query uiListPolicies($input: ListPoliciesInput!) {
    listPolicies(input: $input) { start count total policies { ...uiPolicy } }
  }
  ${POLICY_FIELDS}
  ${ENTITY_SUMMARY}
`);

export const GET_POLICY = typed<{ getPolicy: PolicyData | null }, { urn: string }>(/* GraphQL */ `
  query uiGetPolicy($urn: String!) {
    getPolicy(urn: $urn) { ...uiPolicy }
  }
  ${POLICY_FIELDS}
  ${ENTITY_SUMMARY}
`);

export const UPDATE_POLICY = typed<{ updatePolicy: string }, { urn: string; input: Record<string, unknown> }>(/* GraphQL */ `
  mutation uiUpdatePolicy($urn: String!, $input: PolicyUpdateInput!) { updatePolicy(urn: $urn, input: $input) }
`);

export const TIMESERIES_SIZES = typed<{ timeseriesIndexSizes: IndexSize[] }>(/* GraphQL */ `
  query uiTimeseriesSizes { timeseriesIndexSizes { entityName aspectName indexName sizeMb } }
`);

// Answers, as the documents above select them.

export interface Token { urn: string; id: string; name: string; description: string | null; actorUrn: string; ownerUrn: string; createdAt: number; expiresAt: number | null }
export interface AdminMe { me: { corpUser: { urn: string; username: string }; platformPrivileges: { manageTokens: boolean; generatePersonalAccessTokens: boolean } | null } }

/** A page of roles or groups through relationships (the uiRoleNames / uiGroupNames fragments). */
export interface Named { total: number | null; relationships: { entity: { urn: string; type: string; name?: string; groupProps?: { displayName: string | null } | null } | null }[] }
export interface User {
  urn: string; username: string; status: string | null; isNativeUser: boolean | null;
  properties: { displayName: string | null; fullName: string | null; email: string | null; title: string | null; active: boolean } | null;
  editableProperties: { displayName: string | null } | null;
  roles: Named | null; groups: Named | null;
}
export interface Group {
  urn: string; name: string;
  properties: { displayName: string | null; description: string | null; email: string | null } | null;
  origin: { type: string; externalType: string | null } | null;
  info: { members: { urn: string }[] | null } | null;
  members: { total: number | null; relationships: { entity: { urn: string } | null }[] } | null;
  roles: { total: number | null; relationships: { entity: { urn: string; type: string; name?: string } | null }[] } | null;
}

/** A policy as the admin pages read it (the uiPolicy fragment). */
export interface PolicyData {
  urn: string; type: string; name: string; state: string; description: string | null; privileges: string[]; editable: boolean;
  resources: {
    type: string | null; resources: string[] | null; allResources: boolean | null;
    filter: { criteria: { field: string; condition: string; values: { value: string; entity: { urn: string; type: string; [k: string]: unknown } | null }[] }[] | null } | null;
  } | null;
  actors: {
    users: string[] | null; groups: string[] | null; roles: string[] | null; allUsers: boolean; allGroups: boolean;
    resourceOwners: boolean; resourceOwnersTypes: string[] | null;
    resolvedUsers: { urn: string; username: string; properties: { displayName: string | null } | null; editableProperties: { displayName: string | null } | null }[] | null;
    resolvedGroups: { urn: string; name: string; properties: { displayName: string | null } | null }[] | null;
    resolvedRoles: { urn: string; name: string }[] | null;
  };
}

export interface IndexSize { entityName: string; aspectName: string; indexName: string; sizeMb: number }
