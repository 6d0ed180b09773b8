import { ENTITY_SUMMARY } from './fragments';

/**
 * The admin pages (ui/src/features/admin): access tokens (the GraphQL token API), users and groups with their roles
 * and groups (relationships IsMemberOfRole, IsMemberOfNativeGroup, IsMemberOfGroup), policies (read, switch on and
 * off through updatePolicy with the policy's other fields unchanged), and the sizes of the time-series tables.
 */
export const ADMIN_ME = /* GraphQL */ `
  query uiAdminMe {
    me {
      corpUser { urn username }
      platformPrivileges { manageTokens generatePersonalAccessTokens managePolicies manageIdentities }
    }
  }
`;

export const LIST_TOKENS = /* GraphQL */ `
  query uiListTokens($input: ListAccessTokenInput!) {
    listAccessTokens(input: $input) {
      start count total
      tokens { urn id name description actorUrn ownerUrn createdAt expiresAt }
    }
  }
`;

export const CREATE_TOKEN = /* GraphQL */ `
  mutation uiCreateToken($input: CreateAccessTokenInput!) {
    createAccessToken(input: $input) {
      accessToken
      metadata { urn id name description actorUrn ownerUrn createdAt expiresAt }
    }
  }
`;

export const REVOKE_TOKEN = /* GraphQL */ `
  mutation uiRevokeToken($tokenId: String!) { revokeAccessToken(tokenId: $tokenId) }
`;

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

export const LIST_USERS = /* GraphQL */ `
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
`;

export const LIST_GROUPS = /* GraphQL */ `
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
`;

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

export const LIST_POLICIES = /* GraphQL */ `
  query uiListPolicies($input: ListPoliciesInput!) {
    listPolicies(input: $input) { start count total policies { ...uiPolicy } }
  }
  ${POLICY_FIELDS}
  ${ENTITY_SUMMARY}
`;

export const GET_POLICY = /* GraphQL */ `
  query uiGetPolicy($urn: String!) {
    getPolicy(urn: $urn) { ...uiPolicy }
  }
  ${POLICY_FIELDS}
  ${ENTITY_SUMMARY}
`;

export const UPDATE_POLICY = /* GraphQL */ `
  mutation uiUpdatePolicy($urn: String!, $input: PolicyUpdateInput!) { updatePolicy(urn: $urn, input: $input) }
`;

export const TIMESERIES_SIZES = /* GraphQL */ `
  query uiTimeseriesSizes { timeseriesIndexSizes { entityName aspectName indexName sizeMb } }
`;
