import { corpUserSettings } from '../../entities/corp-user.js';
import { dataHubStepStateProperties } from '../../entities/data-hub-step-state.js';
import { dataHubViewInfo } from '../../entities/data-hub-view.js';
import { globalSettingsInfo } from '../../entities/global-settings.js';
import { entityDescriptor } from '../../entities/index.js';
import { postInfo } from '../../entities/post.js';
import { dataHubRoleInfo } from '../../entities/data-hub-role.js';
import { badRequest } from '../../errors.js';
import { parseUrn, tryParseUrn } from '../../model/urn.js';
import { GLOBAL_SETTINGS_URN } from '../../services/settings.js';
import { PLATFORM_PRIVILEGE_LIST, RESOURCE_PRIVILEGE_LIST } from '../../services/privilege-catalog.js';
import type { AnyAspect, AspectValue } from '../../entities/descriptor.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from './common.js';

/**
 * The web app's shell and settings: appConfig's sections, the caller's settings, saved views, home-page posts,
 * roles and invitations, onboarding step states and getGrantedPrivileges.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;


const page = (input: Obj) => ({
  start: Math.max(0, Number(input.start ?? 0) || 0),
  count: Math.min(1000, Math.max(0, Number(input.count ?? 20) || 0)),
});

const paged = <T>(items: T[], input: Obj) => {
  const { start, count } = page(input);
  const slice = items.slice(start, start + count);
  return { start, count: slice.length, total: items.length, items: slice };
};

const matches = (query: unknown, ...texts: (string | undefined)[]) => {
  const q = typeof query === 'string' ? query.trim().toLowerCase() : '';
  return q === '' || q === '*' || texts.some((t) => t?.toLowerCase().includes(q));
};

/** Every entity of a type with the latest values of some aspects (settings entities are few: read them all). */
async function all<const As extends readonly AnyAspect[]>(ctx: Ctx, entityType: string, aspects: As) {
  const rows = await ctx.catalog.entities.list({ entityType });
  return [...(await ctx.catalog.entities.latestValues(rows.map((r) => r.urn), aspects))];
}

// ---------------------------------------------------------------------------------------------------------------
// Views

type ViewInfo = AspectValue<typeof dataHubViewInfo>;

async function listViews(ctx: Ctx, input: Obj, keep: (info: ViewInfo) => boolean) {
  const views = (await all(ctx, 'dataHubView', [dataHubViewInfo]))
    .flatMap(([urn, v]) => { const info = v.get('dataHubViewInfo'); return info ? [{ urn, info }] : []; })
    .filter((v) => keep(v.info) && matches(input.query, v.info.name, v.info.description))
    .sort((a, b) => b.info.created.time - a.info.created.time || a.urn.localeCompare(b.urn));
  const { items, ...rest } = paged(views, input);
  return { ...rest, views: items.map((v) => ref(v.urn)) };
}

/** A view urn still stored, or null (a default view that was deleted no longer applies). */
async function existingView(ctx: Ctx, urn: string | undefined): Promise<string | null> {
  return urn && (await ctx.loader.load(urn)).exists ? urn : null;
}

// ---------------------------------------------------------------------------------------------------------------
// appConfig: Almanac's real configuration.

const appConfigSections = {
  // Analytics charts are computed from the catalog and the usage events the web app sends.
  analyticsConfig: () => ({ enabled: true }),
  // Users, groups, roles and invitations are managed here.
  identityManagementConfig: () => ({ enabled: true }),
  // Almanac stores ingestion sources but does not run them.
  managedIngestionConfig: () => ({ enabled: false }),
  // DataHub's defaults: the web app's own logo and favicon, five queries per tab, name highlighting.
  visualConfig: () => ({ logoUrl: '/assets/platforms/datahublogo.png', faviconUrl: '/assets/favicon.ico',
    queriesTab: { queriesTabResultSize: 5 }, entityProfiles: { domain: { defaultTab: null } },
    searchResult: { enableNameHighlight: true } }),
  // Almanac sends nothing to third parties.
  telemetryConfig: () => ({ enableThirdPartyLogging: false }),
  viewsConfig: () => ({ enabled: true }),
  featureFlags: () => ({ readOnlyModeEnabled: false, showSearchFiltersV2: true, showBrowseV2: true, showAcrylInfo: false,
    showAccessManagement: false, nestedDomainsEnabled: true }),
};

export const settingsResolvers = {
  AppConfig: appConfigSections,
  PoliciesConfig: {
    platformPrivileges: () => PLATFORM_PRIVILEGE_LIST,
    resourcePrivileges: () => RESOURCE_PRIVILEGE_LIST.map((r) => ({ ...r,
      entityType: entityDescriptor(r.resourceType)?.graphql.entityType ?? null })),
  },
  CorpUser: {
    settings: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const s = await ctx.loader.aspect<AspectValue<typeof corpUserSettings>>(r.urn, 'corpUserSettings');
      return {
        appearance: { showSimplifiedHomepage: s?.appearance?.showSimplifiedHomepage ?? false },
        views: s?.views ? { defaultView: (await existingView(ctx, s.views.defaultView)) ? ref(s.views.defaultView!) : null } : null,
      };
    },
  },
  Query: {
    globalViewsSettings: async (_: unknown, _a: unknown, ctx: Ctx) => {
      const info = (await ctx.catalog.entities.latestValues([GLOBAL_SETTINGS_URN], [globalSettingsInfo])).get(GLOBAL_SETTINGS_URN)?.get('globalSettingsInfo');
      return { defaultView: await existingView(ctx, info?.views?.defaultView) };
    },
    getGrantedPrivileges: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const resource = () => (input.resourceSpec ? parseUrn(input.resourceSpec.resourceUrn).raw : undefined);
      return { privileges: await ctx.catalog.authorized.policies.grantedPrivileges(ctx.actor, input.actorUrn, resource) };
    },
    listMyViews: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      listViews(ctx, input, (v) => v.created.actor === ctx.actor.urn && (input.viewType == null || v.type === input.viewType)),
    listGlobalViews: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => listViews(ctx, input, (v) => v.type === 'GLOBAL'),
    listPosts: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const posts = (await all(ctx, 'post', [postInfo]))
        .flatMap(([urn, v]) => { const info = v.get('postInfo'); return info ? [{ urn, info }] : []; })
        .filter((p) => matches(input.query, p.info.content.title, p.info.content.description))
        .sort((a, b) => b.info.lastModified - a.info.lastModified || a.urn.localeCompare(b.urn));
      const { items, ...rest } = paged(posts, input);
      return { ...rest, posts: items.map((p) => ref(p.urn)) };
    },
    listRoles: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const roles = (await all(ctx, 'dataHubRole', [dataHubRoleInfo]))
        .map(([urn, v]) => ({ urn, name: v.get('dataHubRoleInfo')?.name ?? parseUrn(urn).key, description: v.get('dataHubRoleInfo')?.description }))
        .filter((r) => matches(input.query, r.name, r.description))
        .sort((a, b) => a.name.localeCompare(b.name) || a.urn.localeCompare(b.urn));
      const { items, ...rest } = paged(roles, input);
      return { ...rest, roles: items.map((r) => ref(r.urn)) };
    },
    getInviteToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      return { inviteToken: await ctx.catalog.settings.inviteToken(input.roleUrn, false, ctx.actor) };
    },
    batchGetStepStates: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const ids = new Map<string, string>();
      for (const id of input.ids as string[]) {
        const u = tryParseUrn(`urn:li:dataHubStepState:${id}`);
        if (typeof u !== 'string') ids.set(u.raw, id);
      }
      const values = await ctx.catalog.entities.latestValues([...ids.keys()], [dataHubStepStateProperties]);
      return { results: [...ids].flatMap(([urn, id]) => {
        const p = values.get(urn)?.get('dataHubStepStateProperties');
        return p ? [{ id, properties: Object.entries(p.properties ?? {}).map(([key, value]) => ({ key, value })) }] : [];
      }) };
    },
  },
  // Each decided in the settings service (services/settings.ts), who may included.
  Mutation: {
    updateGlobalViewsSettings: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.settings.setGlobalDefaultView(input.defaultView, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    updateUserSetting: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      if (input.name !== 'SHOW_SIMPLIFIED_HOMEPAGE') throw badRequest(`User setting ${input.name} is not supported`);
      await ctx.catalog.settings.setSimplifiedHomepage(Boolean(input.value), ctx.actor);
      ctx.loader.clear(ctx.actor.urn);
      return true;
    },
    updateCorpUserViewsSettings: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.settings.setPersonalDefaultView(input.defaultView, ctx.actor);
      ctx.loader.clear(ctx.actor.urn);
      return true;
    },
    createView: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => ref(await ctx.catalog.settings.createView(input, ctx.actor)),
    updateView: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      const view = await ctx.catalog.settings.updateView(urn, input, ctx.actor);
      ctx.loader.clear(view);
      return ref(view);
    },
    deleteView: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.settings.deleteView(urn, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    createPost: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.settings.createPost(input, ctx.actor);
      return true;
    },
    deletePost: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.settings.deletePost(urn, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    batchAssignRole: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.settings.assignRole(input.actors as string[], input.roleUrn, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    acceptRole: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await ctx.catalog.settings.acceptRole(String(input.inviteToken), ctx.actor);
      ctx.loader.clear();
      return true;
    },
    createInviteToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      ({ inviteToken: await ctx.catalog.settings.inviteToken(input.roleUrn, true, ctx.actor) }),
    batchUpdateStepStates: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      ({ results: await ctx.catalog.settings.updateStepStates(input.states, ctx.actor) }),
  },
};
