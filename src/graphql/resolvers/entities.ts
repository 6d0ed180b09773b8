import { ALMANAC_VERSION } from '../../version.js';
import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';

/** The caller (`me`) and the app configuration. Entity types are served from their descriptors (src/entities). */
type Ctx = GraphQLContext;

const PLATFORM_PRIVILEGES: [field: string, privilege: string][] = [
  ['viewAnalytics', 'VIEW_ANALYTICS'], ['managePolicies', 'MANAGE_POLICIES'], ['manageIdentities', 'MANAGE_USERS_AND_GROUPS'],
  ['generatePersonalAccessTokens', 'GENERATE_PERSONAL_ACCESS_TOKENS'], ['createDomains', 'CREATE_DOMAINS'],
  ['manageDomains', 'MANAGE_DOMAINS'], ['manageIngestion', 'MANAGE_INGESTION'], ['manageSecrets', 'MANAGE_SECRETS'],
  ['manageTokens', 'MANAGE_ACCESS_TOKENS'], ['viewTests', 'VIEW_TESTS'], ['manageTests', 'MANAGE_TESTS'],
  ['manageGlossaries', 'MANAGE_GLOSSARIES'], ['manageUserCredentials', 'MANAGE_USER_CREDENTIALS'],
  ['createTags', 'CREATE_TAGS'], ['manageTags', 'MANAGE_TAGS'], ['manageGlobalViews', 'MANAGE_GLOBAL_VIEWS'],
  ['manageOwnershipTypes', 'MANAGE_GLOBAL_OWNERSHIP_TYPES'], ['manageGlobalAnnouncements', 'MANAGE_GLOBAL_ANNOUNCEMENTS'],
];

export const entityReaders = {
  Query: {
    // The caller's own user: it may never have been ingested, so it is not required to exist.
    me: (_: unknown, _a: unknown, ctx: Ctx) => ({ corpUser: ref(ctx.actor.urn), platformPrivileges: {} }),
    appConfig: () => ({
      appVersion: ALMANAC_VERSION, authConfig: { tokenAuthEnabled: true }, policiesConfig: { enabled: true },
      testsConfig: { enabled: true },
    }),
  },
  AuthenticatedUser: {
    platformPrivileges: async (_: unknown, _a: unknown, ctx: Ctx) => {
      const held = await ctx.catalog.authorized.reads.heldPrivileges(ctx.actor, PLATFORM_PRIVILEGES.map(([, p]) => p));
      return Object.fromEntries(PLATFORM_PRIVILEGES.map(([field, p]) => [field, held.has(p)]));
    },
  },
};
