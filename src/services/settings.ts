import { randomUUID } from 'node:crypto';
import { corpUserSettings, roleMembership } from '../entities/corp-user.js';
import { dataHubStepStateProperties } from '../entities/data-hub-step-state.js';
import { dataHubViewInfo } from '../entities/data-hub-view.js';
import type { AspectValue } from '../entities/descriptor.js';
import { globalSettingsInfo } from '../entities/global-settings.js';
import { descriptorOfGraphQLType } from '../entities/index.js';
import { postInfo } from '../entities/post.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { parseUrn, tryParseUrn } from '../model/urn.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import type { EntityService } from './entities.js';
import type { InviteTokenService } from './invite-tokens.js';

/**
 * The web app's settings as they are changed: global and personal default views, saved views, home-page posts, roles
 * and invitations, onboarding step states; each operation deciding who may. Personal views and settings need no
 * privilege (their owner only changes them); roles and invitations are administered with MANAGE_POLICIES.
 */
type Obj = Record<string, any>;
type ViewInfo = AspectValue<typeof dataHubViewInfo>;

/** The one globalSettings entity DataHub keeps (its id is 0). */
export const GLOBAL_SETTINGS_URN = 'urn:li:globalSettings:0';

/** DataHub adds `.keyword` to a filter field (except these) when it stores a view. */
const NO_KEYWORD = new Set(['runId', '_entityType']);

const urnOfType = (urn: string, entityType: string, what: string) => {
  const u = tryParseUrn(urn);
  if (typeof u === 'string' || u.entityType !== entityType) throw badRequest(`'${urn}' is not a ${what} urn`, { urn });
  return u.raw;
};

const stamp = (actor: Actor) => ({ time: Date.now(), actor: actor.urn });

/** A view's definition as stored, from the web app's input (GraphQL entity types and filters). */
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

export class SettingsService {
  constructor(private readonly entities: EntityService, private readonly inviteTokens: InviteTokenService,
    private readonly authz: Authorizer) {}

  private require(actor: Actor, op: Operation) {
    return requirePrivilege(this.authz, actor, REQUIRES[op]);
  }

  private async loadView(urn: string): Promise<{ urn: string; info: ViewInfo }> {
    const raw = urnOfType(urn, 'dataHubView', 'view');
    const info = (await this.entities.latestValues([raw], [dataHubViewInfo])).get(raw)?.get('dataHubViewInfo');
    if (!info) throw notFound(`View ${raw} does not exist`, { urn: raw });
    return { urn: raw, info };
  }

  /** A global view may be changed by those who manage global views; any view by the user who created it. */
  private async requireViewEditor(urn: string, actor: Actor) {
    const view = await this.loadView(urn);
    if (view.info.created.actor === actor.urn) return view;
    if (view.info.type === 'GLOBAL') {
      await this.require(actor, 'graphql.manageGlobalViews');
      return view;
    }
    throw forbidden();
  }

  /** A view the caller may use as a default: a global one, or one of their own. */
  private async requireUsableView(urn: string, globalOnly: boolean, actor: Actor) {
    const view = await this.loadView(urn);
    if (view.info.type === 'GLOBAL') return view.urn;
    if (globalOnly) throw badRequest(`View ${view.urn} is personal: only a global view can be the default for everyone`, { urn: view.urn });
    if (view.info.created.actor !== actor.urn) throw forbidden();
    return view.urn;
  }

  async setGlobalDefaultView(viewUrn: string | null | undefined, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.manageGlobalViews');
    const view = viewUrn ? await this.requireUsableView(viewUrn, true, actor) : null;
    await this.entities.edit(new Map([[GLOBAL_SETTINGS_URN, [globalSettingsInfo]]]), (cur) => {
      const { views, ...rest } = cur.get(GLOBAL_SETTINGS_URN)?.get('globalSettingsInfo') ?? {};
      const { defaultView: _old, ...otherViews } = views ?? {};
      return new Map([[GLOBAL_SETTINGS_URN, { globalSettingsInfo: { ...rest, views: { ...otherViews, ...(view ? { defaultView: view } : {}) } } }]]);
    }, actor);
  }

  async setSimplifiedHomepage(show: boolean, actor: Actor): Promise<void> {
    await this.entities.editExisting(actor.urn, [corpUserSettings], (cur) => {
      const s = cur.get('corpUserSettings');
      return { corpUserSettings: { ...s, appearance: { ...s?.appearance, showSimplifiedHomepage: show } } };
    }, actor);
  }

  async setPersonalDefaultView(viewUrn: string | null | undefined, actor: Actor): Promise<void> {
    const view = viewUrn ? await this.requireUsableView(viewUrn, false, actor) : null;
    await this.entities.editExisting(actor.urn, [corpUserSettings], (cur) => {
      const s = cur.get('corpUserSettings');
      const { defaultView: _old, ...otherViews } = s?.views ?? {};
      return { corpUserSettings: { ...s, appearance: s?.appearance ?? { showSimplifiedHomepage: false },
        views: { ...otherViews, ...(view ? { defaultView: view } : {}) } } };
    }, actor);
  }

  /** A saved view (a global one needs MANAGE_GLOBAL_VIEWS); its urn. */
  async createView(input: Obj, actor: Actor): Promise<string> {
    if (input.viewType === 'GLOBAL') await this.require(actor, 'graphql.manageGlobalViews');
    const name = String(input.name ?? '').trim();
    if (!name) throw badRequest('A view needs a name', { field: 'name' });
    const urn = `urn:li:dataHubView:${randomUUID()}`;
    const at = stamp(actor);
    await this.entities.createOnce(urn, [dataHubViewInfo], { dataHubViewInfo: {
      name, ...(input.description != null ? { description: String(input.description) } : {}), type: input.viewType,
      definition: viewDefinition(input.definition), created: at, lastModified: at } }, actor, 'view');
    return urn;
  }

  /** Its urn. */
  async updateView(urn: string, input: Obj, actor: Actor): Promise<string> {
    const view = await this.requireViewEditor(urn, actor);
    if (input.name != null && !String(input.name).trim()) throw badRequest('A view needs a name', { field: 'name' });
    const definition = input.definition ? viewDefinition(input.definition) : undefined;
    await this.entities.editExisting(view.urn, [dataHubViewInfo], (cur) => {
      const info = cur.get('dataHubViewInfo');
      if (!info) throw notFound(`View ${view.urn} does not exist`, { urn: view.urn });
      return { dataHubViewInfo: { ...info, ...(input.name != null ? { name: String(input.name).trim() } : {}),
        ...(input.description != null ? { description: String(input.description) } : {}),
        ...(definition ? { definition } : {}), lastModified: stamp(actor) } };
    }, actor);
    return view.urn;
  }

  async deleteView(urn: string, actor: Actor): Promise<void> {
    const view = await this.requireViewEditor(urn, actor);
    await this.entities.deleteEntity(view.urn);
  }

  async createPost(input: Obj, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.createPost');
    const c = input.content as Obj;
    const title = String(c.title ?? '').trim();
    if (!title) throw badRequest('A post needs a title', { field: 'title' });
    if (c.contentType === 'LINK' && !c.link) throw badRequest('A link post needs a link', { field: 'link' });
    const now = Date.now();
    const urn = `urn:li:post:${randomUUID()}`;
    await this.entities.createOnce(urn, [postInfo], { postInfo: { type: input.postType, content: {
      title, type: c.contentType, ...(c.description != null ? { description: String(c.description) } : {}),
      ...(c.link != null ? { link: String(c.link) } : {}),
      ...(c.media ? { media: { type: c.media.type, location: String(c.media.location) } } : {}) },
    created: now, lastModified: now } }, actor, 'post');
  }

  async deletePost(urn: string, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.deletePost');
    const u = await this.entities.requireExists(urnOfType(urn, 'post', 'post'));
    await this.entities.deleteEntity(u.raw);
  }

  /** The role named (which must exist), or null for none. */
  private async roleOrNone(roleUrn: string | null | undefined): Promise<string | null> {
    return roleUrn ? (await this.entities.requireExists(urnOfType(roleUrn, 'dataHubRole', 'role'))).raw : null;
  }

  /** The current invitation to a role (or to none), a new one when `regenerate`. */
  async inviteToken(roleUrn: string | null | undefined, regenerate: boolean, actor: Actor): Promise<string> {
    await this.require(actor, 'graphql.managePolicies');
    return this.inviteTokens.get(await this.roleOrNone(roleUrn), regenerate, actor);
  }

  async assignRole(actors: string[], roleUrn: string | null | undefined, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.managePolicies');
    await this.setRole(actors, await this.roleOrNone(roleUrn), actor);
  }

  /** The caller takes the invitation's role (one without a role leaves theirs as it is). */
  async acceptRole(inviteToken: string, actor: Actor): Promise<void> {
    const role = await this.inviteTokens.roleOf(inviteToken);
    if (role) await this.setRole([actor.urn], role, actor);
  }

  /** Gives each actor (user or group) exactly this role, or none: all of them, or none if one does not exist. */
  private async setRole(actors: string[], role: string | null, actor: Actor): Promise<void> {
    const urns = [...new Set(actors.map((a) => {
      const u = parseUrn(a);
      if (u.entityType !== 'corpuser' && u.entityType !== 'corpGroup') throw badRequest(`'${a}' is not a user or group urn`, { urn: a });
      return u.raw;
    }))];
    const existing = await this.entities.existing(urns);
    const missing = urns.find((u) => !existing.has(u));
    if (missing) throw notFound(`Entity ${missing} does not exist`, { urn: missing });
    await this.entities.edit(new Map(urns.map((u) => [u, [roleMembership]])),
      () => new Map(urns.map((u) => [u, { roleMembership: { roles: role ? [role] : [] } }])), actor);
  }

  /** Onboarding step states; the web app names a user's steps `<user urn>-<step>`: a user records their own steps only. */
  async updateStepStates(states: { id: string; properties: ({ key: unknown; value: unknown } | null)[] }[], actor: Actor) {
    const results: { id: string; succeeded: boolean }[] = [];
    for (const state of states) {
      const id = String(state.id);
      const entries = state.properties.filter((e): e is { key: unknown; value: unknown } => e != null);
      const u = tryParseUrn(`urn:li:dataHubStepState:${id}`);
      if (!id.startsWith(`${actor.urn}-`) || typeof u === 'string' || entries.some((e) => e.value == null)) {
        results.push({ id, succeeded: false });
        continue;
      }
      await this.entities.ingest([{ urn: u.raw, entityType: 'dataHubStepState', aspect: dataHubStepStateProperties.name,
        changeType: 'UPSERT', systemMetadata: null,
        value: { properties: Object.fromEntries(entries.map((e) => [String(e.key), String(e.value)])), lastModified: stamp(actor) } }], actor);
      results.push({ id, succeeded: true });
    }
    return results;
  }
}
