import { parseUrn } from '../../model/urn.js';
import { ROOT_USER_URN } from '../../services/actor.js';
import { ALMANAC_VERSION } from '../../version.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import {
  customProperties, domain, exists, globalTags, glossaryTerms, institutionalMemory, ownership, parentContainers, ref,
  requireEntity, status, subTypes,
} from './common.js';

/** Readers for the entities around a dataset: users, groups, platforms, containers, glossary, domains, tags. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;
const a = (ctx: Ctx, r: EntityRef, name: string) => ctx.loader.aspect(r.urn, name);
const id = (r: EntityRef) => parseUrn(r.urn).key;

function userInfo(i: Obj | undefined) {
  if (!i) return null;
  return { active: i.active ?? true, displayName: i.displayName ?? null, title: i.title ?? null, email: i.email ?? null,
    firstName: i.firstName ?? null, lastName: i.lastName ?? null, fullName: i.fullName ?? null,
    managerUrn: i.managerUrn ?? null, departmentName: i.departmentName ?? null, countryCode: i.countryCode ?? null };
}

function userEditable(e: Obj | undefined) {
  if (!e) return null;
  return { displayName: e.displayName ?? null, title: e.title ?? null, aboutMe: e.aboutMe ?? null, teams: e.teams ?? null,
    skills: e.skills ?? null, pictureLink: e.pictureLink ?? null, slack: e.slack ?? null, phone: e.phone ?? null, email: e.email ?? null };
}

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
    tag: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'tag'),
    corpUser: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'corpuser'),
    corpGroup: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'corpGroup'),
    dataPlatform: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'dataPlatform'),
    container: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'container'),
    glossaryTerm: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'glossaryTerm'),
    glossaryNode: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'glossaryNode'),
    domain: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => requireEntity(urn, ctx, 'domain'),
    // The caller's own user: it may never have been ingested, so it is not required to exist.
    me: (_: unknown, _a: unknown, ctx: Ctx) => ({ corpUser: ref(ctx.actor.urn), platformPrivileges: {} }),
    appConfig: () => ({
      appVersion: ALMANAC_VERSION, authConfig: { tokenAuthEnabled: true }, policiesConfig: { enabled: true },
      testsConfig: { enabled: true },
    }),
  },
  AuthenticatedUser: {
    platformPrivileges: async (_: unknown, _a: unknown, ctx: Ctx) => {
      const entries = await Promise.all(PLATFORM_PRIVILEGES.map(async ([field, p]) =>
        [field, await ctx.catalog.authz.allowed(ctx.actor, [[p]])] as const));
      return Object.fromEntries(entries);
    },
  },
  Tag: {
    type: () => 'TAG',
    name: id,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const p = await a(ctx, r, 'tagProperties');
      return p ? { name: p.name ?? id(r), description: p.description ?? null, colorHex: p.colorHex ?? null } : null;
    },
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    description: async (r: EntityRef, _a: unknown, ctx: Ctx) => (await a(ctx, r, 'tagProperties'))?.description ?? null,
    exists,
  },
  CorpUser: {
    type: () => 'CORP_USER',
    username: id,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'corpUserInfo');
      const info = userInfo(i);
      return info ? { ...info, customProperties: customProperties(i?.customProperties, r.urn) } : null;
    },
    info: async (r: EntityRef, _a: unknown, ctx: Ctx) => userInfo(await a(ctx, r, 'corpUserInfo')),
    editableProperties: async (r: EntityRef, _a: unknown, ctx: Ctx) => userEditable(await a(ctx, r, 'corpUserEditableInfo')),
    editableInfo: async (r: EntityRef, _a: unknown, ctx: Ctx) => userEditable(await a(ctx, r, 'corpUserEditableInfo')),
    status: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const s = await a(ctx, r, 'corpUserStatus');
      return s?.status === 'SUSPENDED' ? 'SUSPENDED' : s ? 'ACTIVE' : null;
    },
    tags: async (r: EntityRef, _a: unknown, ctx: Ctx) => globalTags(await a(ctx, r, 'globalTags'), r.urn),
    globalTags: async (r: EntityRef, _a: unknown, ctx: Ctx) => globalTags(await a(ctx, r, 'globalTags'), r.urn),
    isNativeUser: async (r: EntityRef, _a: unknown, ctx: Ctx) => r.urn === ROOT_USER_URN || !!(await a(ctx, r, 'corpUserCredentials')),
    exists,
  },
  CorpGroup: {
    type: () => 'CORP_GROUP',
    name: id,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'corpGroupInfo');
      return i ? { displayName: i.displayName ?? null, description: i.description ?? null, email: i.email ?? null } : null;
    },
    info: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'corpGroupInfo');
      return i ? { displayName: i.displayName ?? null, description: i.description ?? null, email: i.email ?? null,
        admins: (i.admins ?? []).map(ref), members: (i.members ?? []).map(ref), groups: i.groups ?? [] } : null;
    },
    editableProperties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const e = await a(ctx, r, 'corpGroupEditableInfo');
      return e ? { description: e.description ?? null, slack: e.slack ?? null, email: e.email ?? null } : null;
    },
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    exists,
  },
  DataPlatform: {
    type: () => 'DATA_PLATFORM',
    name: id,
    displayName: async (r: EntityRef, _a: unknown, ctx: Ctx) => (await a(ctx, r, 'dataPlatformInfo'))?.displayName ?? null,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => platformProps(await a(ctx, r, 'dataPlatformInfo')),
    info: async (r: EntityRef, _a: unknown, ctx: Ctx) => platformProps(await a(ctx, r, 'dataPlatformInfo')),
  },
  Container: {
    type: () => 'CONTAINER',
    platform: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const p = await a(ctx, r, 'dataPlatformInstance');
      return p?.platform ? ref(p.platform) : null;
    },
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const [p, e] = await Promise.all([a(ctx, r, 'containerProperties'), a(ctx, r, 'editableContainerProperties')]);
      if (!p) return null;
      return { name: p.name ?? id(r), description: e?.description || (p.description ?? null),
        customProperties: customProperties(p.customProperties, r.urn), externalUrl: p.externalUrl ?? null,
        qualifiedName: p.qualifiedName ?? null };
    },
    editableProperties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const e = await a(ctx, r, 'editableContainerProperties');
      return e ? { description: e.description ?? null } : null;
    },
    subTypes: async (r: EntityRef, _a: unknown, ctx: Ctx) => subTypes(await a(ctx, r, 'subTypes')),
    container: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const c = await a(ctx, r, 'container');
      return c?.container ? ref(c.container) : null;
    },
    parentContainers: (r: EntityRef, _a: unknown, ctx: Ctx) => parentContainers(r.urn, ctx),
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    tags: async (r: EntityRef, _a: unknown, ctx: Ctx) => globalTags(await a(ctx, r, 'globalTags'), r.urn),
    glossaryTerms: async (r: EntityRef, _a: unknown, ctx: Ctx) => glossaryTerms(await a(ctx, r, 'glossaryTerms'), r.urn),
    institutionalMemory: async (r: EntityRef, _a: unknown, ctx: Ctx) => institutionalMemory(await a(ctx, r, 'institutionalMemory'), r.urn),
    domain: async (r: EntityRef, _a: unknown, ctx: Ctx) => domain(await a(ctx, r, 'domains'), r.urn),
    status: async (r: EntityRef, _a: unknown, ctx: Ctx) => status(await a(ctx, r, 'status')),
    exists,
    entities: async (r: EntityRef, { input }: { input?: Obj }, ctx: Ctx) => {
      const start = Math.max(0, Number(input?.start ?? 0));
      const count = Math.min(1000, Math.max(0, Number(input?.count ?? 20)));
      const children = await ctx.catalog.relationships.containerChildren(r.urn, start, count);
      return { start, count: children.urns.length, total: children.total, searchResults: children.urns.map((u) => ({ entity: ref(u), matchedFields: [] })) };
    },
  },
  GlossaryTerm: {
    type: () => 'GLOSSARY_TERM',
    name: async (r: EntityRef, _a: unknown, ctx: Ctx) => (await a(ctx, r, 'glossaryTermInfo'))?.name ?? id(r),
    hierarchicalName: id,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'glossaryTermInfo');
      return i ? { name: i.name ?? id(r), description: i.definition ?? null, definition: i.definition ?? '',
        termSource: i.termSource ?? 'INTERNAL', sourceRef: i.sourceRef ?? null, sourceUrl: i.sourceUrl ?? null,
        customProperties: customProperties(i.customProperties, r.urn) } : null;
    },
    glossaryTermInfo: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'glossaryTermInfo');
      return i ? { name: i.name ?? null, description: i.definition ?? null, definition: i.definition ?? '', termSource: i.termSource ?? 'INTERNAL' } : null;
    },
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    exists,
  },
  GlossaryNode: {
    type: () => 'GLOSSARY_NODE',
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const i = await a(ctx, r, 'glossaryNodeInfo');
      return i ? { name: i.name ?? id(r), description: i.definition ?? null } : null;
    },
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    exists,
  },
  Domain: {
    type: () => 'DOMAIN',
    id,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const p = await a(ctx, r, 'domainProperties');
      return p ? { name: p.name ?? id(r), description: p.description ?? null } : null;
    },
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await a(ctx, r, 'ownership'), r.urn),
    exists,
  },
};

function platformProps(i: Obj | undefined) {
  if (!i) return null;
  return { type: i.type ?? 'OTHERS', displayName: i.displayName ?? null, datasetNameDelimiter: i.datasetNameDelimiter ?? '.', logoUrl: i.logoUrl ?? null };
}
