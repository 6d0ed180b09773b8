import { randomUUID } from 'node:crypto';
import { corpUserSettings, roleMembership } from '../../entities/corp-user.js';
import { dataHubStepStateProperties } from '../../entities/data-hub-step-state.js';
import { dataHubViewInfo } from '../../entities/data-hub-view.js';
import { globalSettingsInfo } from '../../entities/global-settings.js';
import { descriptorOfGraphQLType, entityDescriptor } from '../../entities/index.js';
import { postInfo } from '../../entities/post.js';
import { dataHubRoleInfo } from '../../entities/data-hub-role.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { parseUrn, tryParseUrn } from '../../model/urn.js';
import { PLATFORM_PRIVILEGE_LIST, RESOURCE_PRIVILEGE_LIST } from '../../services/privilege-catalog.js';
import type { AnyAspect, AspectValue } from '../../entities/descriptor.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from './common.js';
import { authorize } from './privileges.js';

/**
 * The web app's shell and settings: appConfig's sections, the caller's settings, saved views, home-page posts,
 * roles and invitations, onboarding step states and getGrantedPrivileges.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

/** The one globalSettings entity DataHub keeps (its id is 0). */
const GLOBAL_SETTINGS_URN = 'urn:li:globalSettings:0';

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

const urnOfType = (urn: string, entityType: string, what: string) => {
  const u = tryParseUrn(urn);
  if (typeof u === 'string' || u.entityType !== entityType) throw badRequest(`'${urn}' is not a ${what} urn`, { urn });
  return u.raw;
};

const stamp = (ctx: Ctx) => ({ time: Date.now(), actor: ctx.actor.urn });

// ---------------------------------------------------------------------------------------------------------------
// Views

type ViewInfo = AspectValue<typeof dataHubViewInfo>;

/** DataHub adds `.keyword` to a filter field (except these) when it stores a view. */
const NO_KEYWORD = new Set(['runId', '_entityType']);

function viewDefinition(input: Obj): ViewInfo['definition'] {
  const entityTypes = (input.entityTypes as string[]).map((t) => {
    const d = descriptorOfGraphQLType(t);
    if (!d) throw badRequest(`A view cannot list entities of type ${t}`, { field: 'entityTypes' });
    return d.name;
  });
  const criteria = (input.filter.filters as Obj[]).map((f) => {
    const values: string[] = f.values ?? (f.value != null ? [f.value] : []);
    const field = String(f.field);
    return { field: NO_KEYWORD.has(field) || field.endsWith('.keyword') ? field : `${field}.keyword`, value: values[0] ?? '', values,
      condition: f.condition ?? 'EQUAL', negated: f.negated ?? false };
  });
  // AND: one conjunction of every criterion; OR: one conjunction per criterion.
  const or = input.filter.operator === 'AND' ? [{ and: criteria }] : criteria.map((c) => ({ and: [c] }));
  return { entityTypes, filter: { or } };
}

async function loadView(ctx: Ctx, urn: string): Promise<{ urn: string; info: ViewInfo }> {
  const raw = urnOfType(urn, 'dataHubView', 'view');
  const info = (await ctx.catalog.entities.latestValues([raw], [dataHubViewInfo])).get(raw)?.get('dataHubViewInfo');
  if (!info) throw notFound(`View ${raw} does not exist`, { urn: raw });
  return { urn: raw, info };
}

/** A global view may be changed by those who manage global views; any view by the user who created it. */
async function requireViewEditor(ctx: Ctx, urn: string) {
  const view = await loadView(ctx, urn);
  if (view.info.created.actor === ctx.actor.urn) return view;
  if (view.info.type === 'GLOBAL') {
    await authorize(ctx, 'graphql.manageGlobalViews');
    return view;
  }
  throw forbidden();
}

async function listViews(ctx: Ctx, input: Obj, keep: (info: ViewInfo) => boolean) {
  const views = (await all(ctx, 'dataHubView', [dataHubViewInfo]))
    .flatMap(([urn, v]) => { const info = v.get('dataHubViewInfo'); return info ? [{ urn, info }] : []; })
    .filter((v) => keep(v.info) && matches(input.query, v.info.name, v.info.description))
    .sort((a, b) => b.info.created.time - a.info.created.time || a.urn.localeCompare(b.urn));
  const { items, ...rest } = paged(views, input);
  return { ...rest, views: items.map((v) => ref(v.urn)) };
}

/** A view the caller may use as a default: a global one, or one of their own. */
async function requireUsableView(ctx: Ctx, urn: string, globalOnly: boolean) {
  const view = await loadView(ctx, urn);
  if (view.info.type === 'GLOBAL') return view.urn;
  if (globalOnly) throw badRequest(`View ${view.urn} is personal: only a global view can be the default for everyone`, { urn: view.urn });
  if (view.info.created.actor !== ctx.actor.urn) throw forbidden();
  return view.urn;
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
      // As in DataHub: a user may ask only about themselves.
      if (input.actorUrn !== ctx.actor.urn) throw forbidden('Unauthorized to get privileges for the given author.');
      const resource = input.resourceSpec ? parseUrn(input.resourceSpec.resourceUrn).raw : undefined;
      return { privileges: [...(await ctx.catalog.policies.privilegesOf(ctx.actor, resource))].sort() };
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
      await authorize(ctx, 'graphql.managePolicies');
      const role = input.roleUrn ? (await ctx.catalog.entities.requireExists(urnOfType(input.roleUrn, 'dataHubRole', 'role'))).raw : null;
      return { inviteToken: await ctx.catalog.inviteTokens.get(role, false, ctx.actor) };
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
  Mutation: {
    updateGlobalViewsSettings: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.manageGlobalViews');
      const view = input.defaultView ? await requireUsableView(ctx, input.defaultView, true) : null;
      await ctx.catalog.entities.edit(new Map([[GLOBAL_SETTINGS_URN, [globalSettingsInfo]]]), (cur) => {
        const { views, ...rest } = cur.get(GLOBAL_SETTINGS_URN)?.get('globalSettingsInfo') ?? {};
        const { defaultView: _old, ...otherViews } = views ?? {};
        return new Map([[GLOBAL_SETTINGS_URN, { globalSettingsInfo: { ...rest, views: { ...otherViews, ...(view ? { defaultView: view } : {}) } } }]]);
      }, ctx.actor);
      ctx.loader.clear();
      return true;
    },
    updateUserSetting: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      if (input.name !== 'SHOW_SIMPLIFIED_HOMEPAGE') throw badRequest(`User setting ${input.name} is not supported`);
      await ctx.catalog.entities.editExisting(ctx.actor.urn, [corpUserSettings], (cur) => {
        const s = cur.get('corpUserSettings');
        return { corpUserSettings: { ...s, appearance: { ...s?.appearance, showSimplifiedHomepage: Boolean(input.value) } } };
      }, ctx.actor);
      ctx.loader.clear(ctx.actor.urn);
      return true;
    },
    updateCorpUserViewsSettings: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const view = input.defaultView ? await requireUsableView(ctx, input.defaultView, false) : null;
      await ctx.catalog.entities.editExisting(ctx.actor.urn, [corpUserSettings], (cur) => {
        const s = cur.get('corpUserSettings');
        const { defaultView: _old, ...otherViews } = s?.views ?? {};
        return { corpUserSettings: { ...s, appearance: s?.appearance ?? { showSimplifiedHomepage: false },
          views: { ...otherViews, ...(view ? { defaultView: view } : {}) } } };
      }, ctx.actor);
      ctx.loader.clear(ctx.actor.urn);
      return true;
    },
    createView: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      if (input.viewType === 'GLOBAL') await authorize(ctx, 'graphql.manageGlobalViews');
      const name = String(input.name ?? '').trim();
      if (!name) throw badRequest('A view needs a name', { field: 'name' });
      const urn = `urn:li:dataHubView:${randomUUID()}`;
      const at = stamp(ctx);
      await ctx.catalog.entities.createOnce(urn, [dataHubViewInfo], { dataHubViewInfo: {
        name, ...(input.description != null ? { description: String(input.description) } : {}), type: input.viewType,
        definition: viewDefinition(input.definition), created: at, lastModified: at } }, ctx.actor, 'view');
      return ref(urn);
    },
    updateView: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      const view = await requireViewEditor(ctx, urn);
      if (input.name != null && !String(input.name).trim()) throw badRequest('A view needs a name', { field: 'name' });
      const definition = input.definition ? viewDefinition(input.definition) : undefined;
      await ctx.catalog.entities.editExisting(view.urn, [dataHubViewInfo], (cur) => {
        const info = cur.get('dataHubViewInfo');
        if (!info) throw notFound(`View ${view.urn} does not exist`, { urn: view.urn });
        return { dataHubViewInfo: { ...info, ...(input.name != null ? { name: String(input.name).trim() } : {}),
          ...(input.description != null ? { description: String(input.description) } : {}),
          ...(definition ? { definition } : {}), lastModified: stamp(ctx) } };
      }, ctx.actor);
      ctx.loader.clear(view.urn);
      return ref(view.urn);
    },
    deleteView: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const view = await requireViewEditor(ctx, urn);
      await ctx.catalog.entities.deleteEntity(view.urn);
      ctx.loader.clear();
      return true;
    },
    createPost: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.createPost');
      const c = input.content as Obj;
      const title = String(c.title ?? '').trim();
      if (!title) throw badRequest('A post needs a title', { field: 'title' });
      if (c.contentType === 'LINK' && !c.link) throw badRequest('A link post needs a link', { field: 'link' });
      const now = Date.now();
      const urn = `urn:li:post:${randomUUID()}`;
      await ctx.catalog.entities.createOnce(urn, [postInfo], { postInfo: { type: input.postType, content: {
        title, type: c.contentType, ...(c.description != null ? { description: String(c.description) } : {}),
        ...(c.link != null ? { link: String(c.link) } : {}),
        ...(c.media ? { media: { type: c.media.type, location: String(c.media.location) } } : {}) },
      created: now, lastModified: now } }, ctx.actor, 'post');
      return true;
    },
    deletePost: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.deletePost');
      const u = await ctx.catalog.entities.requireExists(urnOfType(urn, 'post', 'post'));
      await ctx.catalog.entities.deleteEntity(u.raw);
      ctx.loader.clear();
      return true;
    },
    batchAssignRole: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      const role = input.roleUrn ? (await ctx.catalog.entities.requireExists(urnOfType(input.roleUrn, 'dataHubRole', 'role'))).raw : null;
      await assignRole(ctx, input.actors as string[], role);
      return true;
    },
    acceptRole: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const role = await ctx.catalog.inviteTokens.roleOf(String(input.inviteToken));
      // An invitation without a role leaves the caller's role as it is.
      if (role) await assignRole(ctx, [ctx.actor.urn], role);
      return true;
    },
    createInviteToken: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      await authorize(ctx, 'graphql.managePolicies');
      const role = input.roleUrn ? (await ctx.catalog.entities.requireExists(urnOfType(input.roleUrn, 'dataHubRole', 'role'))).raw : null;
      return { inviteToken: await ctx.catalog.inviteTokens.get(role, true, ctx.actor) };
    },
    batchUpdateStepStates: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const results: { id: string; succeeded: boolean }[] = [];
      for (const state of input.states as Obj[]) {
        const id = String(state.id);
        const entries = (state.properties as (Obj | null)[]).filter((e): e is Obj => e != null);
        // The web app names a user's steps `<user urn>-<step>`: a user records their own steps only.
        const u = tryParseUrn(`urn:li:dataHubStepState:${id}`);
        if (!id.startsWith(`${ctx.actor.urn}-`) || typeof u === 'string' || entries.some((e) => e.value == null)) {
          results.push({ id, succeeded: false });
          continue;
        }
        await ctx.catalog.entities.ingest([{ urn: u.raw, entityType: 'dataHubStepState', aspect: 'dataHubStepStateProperties',
          changeType: 'UPSERT', systemMetadata: null,
          value: { properties: Object.fromEntries(entries.map((e) => [String(e.key), String(e.value)])), lastModified: stamp(ctx) } }], ctx.actor);
        results.push({ id, succeeded: true });
      }
      return { results };
    },
  },
};

/** Gives each actor (user or group) exactly this role, or none: all of them, or none if one does not exist. */
async function assignRole(ctx: Ctx, actors: string[], role: string | null) {
  const urns = [...new Set(actors.map((a) => {
    const u = parseUrn(a);
    if (u.entityType !== 'corpuser' && u.entityType !== 'corpGroup') throw badRequest(`'${a}' is not a user or group urn`, { urn: a });
    return u.raw;
  }))];
  const existing = await ctx.catalog.entities.existing(urns);
  const missing = urns.find((u) => !existing.has(u));
  if (missing) throw notFound(`Entity ${missing} does not exist`, { urn: missing });
  await ctx.catalog.entities.edit(new Map(urns.map((u) => [u, [roleMembership]])),
    () => new Map(urns.map((u) => [u, { roleMembership: { roles: role ? [role] : [] } }])), ctx.actor);
  ctx.loader.clear();
}
