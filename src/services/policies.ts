import { badRequest, notFound } from '../errors.js';
import { lookupTable, ownValue } from '../model/safe-keys.js';
import { parseUrn, tryParseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import { ROOT_USER_URN, type Actor } from '../model/actor.js';
import type { Authorizer } from './authz.js';
import type { Requirement } from '../model/privileges.js';
import type { EntityService } from './entities.js';
import { dataHubPolicyInfo } from '../entities/data-hub-policy.js';

/**
 * Policies: dataHubPolicy entities granting privileges to actors, on the platform (PLATFORM) or on resources
 * (METADATA). Evaluated per request from a snapshot of all policies and group memberships, reloaded after any
 * local write to a policy, group or user, and at most `refreshMs` old otherwise (writes made by other servers
 * on the same database).
 */

export const PLATFORM_PRIVILEGES = [
  'MANAGE_POLICIES', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS',
  'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS',
  'MANAGE_TESTS', 'VIEW_TESTS', 'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'CREATE_TAGS',
  'CREATE_DOMAINS', 'MANAGE_GLOBAL_VIEWS', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'RESTORE_INDICES_PRIVILEGE',
  'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE', 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE', 'GET_ES_TASK_STATUS_PRIVILEGE',
  'SET_WRITEABLE_PRIVILEGE', 'APPLY_RETENTION_PRIVILEGE', 'GET_ANALYTICS_PRIVILEGE', 'CREATE_GLOBAL_ANNOUNCEMENTS',
  // Almanac's own (the change log's subscribers, the operators' metrics)
  'VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS', 'VIEW_METRICS',
] as const;

export const METADATA_PRIVILEGES = [
  'VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_DEPRECATION', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY_OPERATIONS',
  'EDIT_ENTITY', 'DELETE_ENTITY', 'EDIT_LINEAGE', 'EDIT_ENTITY_EMBED', 'EDIT_ENTITY_QUERIES', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'SEARCH_PRIVILEGE',
  'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE',
  'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN',
] as const;

const ALL_PRIVILEGES = new Set<string>([...PLATFORM_PRIVILEGES, ...METADATA_PRIVILEGES]);

export interface PolicyInfo {
  displayName: string;
  description?: string;
  type: 'PLATFORM' | 'METADATA';
  state: 'ACTIVE' | 'INACTIVE';
  resources?: { type?: string; resources?: string[]; allResources?: boolean;
    filter?: { criteria: { field: string; values: string[]; condition?: 'EQUALS' | 'STARTS_WITH' }[] } };
  privileges: string[];
  actors: { users?: string[]; groups?: string[]; roles?: string[]; allUsers?: boolean; allGroups?: boolean;
    resourceOwners?: boolean; resourceOwnersTypes?: string[] };
  editable: boolean;
  lastUpdatedTimestamp?: number;
}

// DataHub 0.12.1's built-in policies (its boot file), with its urns, names, privileges, actors and states, so
// that clients and administrators find and toggle them by the same urns. Privileges come from these and from
// policies administrators write; nothing else grants one. Only the root user's two policies differ: they hold
// every privilege Almanac knows (a superset of DataHub's lists), so that the root user can always act and
// repair, and they cannot be edited.
const ROLE = (name: string) => [`urn:li:dataHubRole:${name}`];
const VIEW = ['VIEW_ENTITY_PAGE', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE'];
const ADMIN_PLATFORM = ['MANAGE_POLICIES', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS',
  'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_TESTS',
  'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'MANAGE_GLOBAL_VIEWS', 'RESTORE_INDICES_PRIVILEGE',
  'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE', 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE', 'GET_ES_TASK_STATUS_PRIVILEGE',
  'SET_WRITEABLE_PRIVILEGE', 'APPLY_RETENTION_PRIVILEGE', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'GET_ANALYTICS_PRIVILEGE',
  'VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS', 'VIEW_METRICS'];
const EDITOR_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_DATASET_COL_TAGS', 'EDIT_DATASET_COL_GLOSSARY_TERMS',
  'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'EDIT_TAG_COLOR', 'EDIT_LINEAGE',
  'EDIT_ENTITY_QUERIES', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE', 'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS'];
const ADMIN_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS',
  'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES',
  'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE',
  'GET_TIMELINE_PRIVILEGE', 'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS', 'DELETE_ENTITY'];
const OWNER_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS',
  'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES',
  'GET_TIMELINE_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_COUNTS_PRIVILEGE',
  'MANAGE_DATA_PRODUCTS'];
const EDITABLE_TYPES = ['dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob', 'tag', 'container', 'domain', 'glossaryTerm',
  'glossaryNode', 'notebook', 'dataProduct'];

const policy = (displayName: string, type: PolicyInfo['type'], privileges: string[], actors: PolicyInfo['actors'],
  editable: boolean, description: string, resources?: PolicyInfo['resources']): PolicyInfo => ({
  displayName, description, type, state: 'ACTIVE', privileges,
  actors: { users: [], groups: [], allUsers: false, allGroups: false, resourceOwners: false, ...actors },
  ...(resources ? { resources } : {}), editable,
});

/** The policies every new catalog starts with, keyed by urn. */
export const DEFAULT_POLICIES: Readonly<Record<string, PolicyInfo>> = lookupTable<PolicyInfo>({
  'urn:li:dataHubPolicy:0': policy('Root User - All Platform Privileges', 'PLATFORM', [...PLATFORM_PRIVILEGES],
    { users: [ROOT_USER_URN] }, false, 'Grants every platform privilege to the root user.'),
  'urn:li:dataHubPolicy:1': policy('Root User - Edit and View All Resources', 'METADATA', [...METADATA_PRIVILEGES],
    { users: [ROOT_USER_URN] }, false, 'Grants every metadata privilege on every resource to the root user.'),
  'urn:li:dataHubPolicy:7': policy('All Users - Base Platform Privileges', 'PLATFORM',
    ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS'], { allUsers: true }, true,
    'Lets every user view analytics and create personal access tokens for themselves.'),
  'urn:li:dataHubPolicy:view-entity-page-all': policy('All Users - View Entity Page', 'METADATA', VIEW, { allUsers: true },
    true, 'Lets every user view and search every asset.'),
  'urn:li:dataHubPolicy:view-dataset-sensitive': policy('All Users - View Dataset Sensitive Information', 'METADATA',
    ['VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE'], { allUsers: true }, true,
    'Lets every user view the usage statistics and profiles of datasets.'),
  'urn:li:dataHubPolicy:admin-platform-policy': policy('Admins - Platform Policy', 'PLATFORM', ADMIN_PLATFORM,
    { roles: ROLE('Admin') }, false, 'Platform privileges of the Admin role.'),
  'urn:li:dataHubPolicy:admin-metadata-policy': policy('Admins - Metadata Policy', 'METADATA', ADMIN_METADATA,
    { roles: ROLE('Admin') }, false, 'Metadata privileges of the Admin role on every asset.'),
  'urn:li:dataHubPolicy:editor-platform-policy': policy('Editors - Platform Policy', 'PLATFORM',
    ['GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_GLOSSARIES', 'MANAGE_TAGS'],
    { roles: ROLE('Editor') }, false, 'Platform privileges of the Editor role.'),
  'urn:li:dataHubPolicy:editor-metadata-policy': policy('Editors - Metadata Policy', 'METADATA', EDITOR_METADATA,
    { roles: ROLE('Editor') }, false, 'Metadata privileges of the Editor role on every asset.'),
  'urn:li:dataHubPolicy:editor-metadata-policy-entities': policy('Editors - Edit Metadata Entities', 'METADATA', ['EDIT_ENTITY'],
    { roles: ROLE('Editor') }, true, 'Lets the Editor role edit assets of the common entity types.',
    { allResources: false, filter: { criteria: [{ field: 'RESOURCE_TYPE', values: EDITABLE_TYPES, condition: 'EQUALS' }] } }),
  'urn:li:dataHubPolicy:reader-platform-policy': policy('Readers - Platform Policy', 'PLATFORM', [],
    { roles: ROLE('Reader') }, false, 'Platform privileges of the Reader role (none).'),
  'urn:li:dataHubPolicy:reader-metadata-policy': policy('Readers - Metadata Policy', 'METADATA',
    ['VIEW_ENTITY_PAGE', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE',
      'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE'],
    { roles: ROLE('Reader') }, false, 'Metadata privileges of the Reader role on every asset.'),
  'urn:li:dataHubPolicy:asset-owners-metadata-policy': policy('Asset Owners - Metadata Policy', 'METADATA', OWNER_METADATA,
    { resourceOwners: true }, true, 'Lets the owners of an asset view and edit it.'),
});

/** DataHub's three built-in roles, which the role policies above name; a user holds one through `roleMembership`. */
export const DEFAULT_ROLES: Readonly<Record<string, { name: string; description: string; editable: boolean }>> = lookupTable({
  'urn:li:dataHubRole:Admin': { name: 'Admin', description: 'Every platform and metadata privilege.', editable: false },
  'urn:li:dataHubRole:Editor': { name: 'Editor', description: 'Reads and edits all metadata; no administration.', editable: false },
  'urn:li:dataHubRole:Reader': { name: 'Reader', description: 'Reads all metadata; edits nothing by default.', editable: false },
});

/**
 * Policies written by earlier Almanac versions under urns DataHub uses differently. `urn:li:dataHubPolicy:7` held an
 * inactive "All Users - Edit All Metadata"; DataHub's policy 7 is the base platform policy, which Almanac kept under
 * its own urn. On start, such a catalog is moved to DataHub's urns, keeping the administrator's on/off choice.
 */
const LEGACY_EDIT_ALL_NAME = 'All Users - Edit All Metadata';
const LEGACY_BASE_PLATFORM_URN = 'urn:li:dataHubPolicy:all-users-base-platform';
/** Where an old policy 7 that an administrator had switched on is kept. */
const LEGACY_EDIT_ALL_URN = 'urn:li:dataHubPolicy:all-users-edit-all-metadata';

/**
 * A policy as matching reads it, built from the stored value's own properties only: nothing inherited (say from a
 * polluted `Object.prototype`) can add an actor, a privilege or a resource, and a malformed field grants nothing.
 */
interface PolicyRule {
  active: boolean;
  type: string | undefined;
  privileges: readonly string[];
  users: ReadonlySet<string>;
  groups: ReadonlySet<string>;
  roles: ReadonlySet<string>;
  allUsers: boolean;
  allGroups: boolean;
  resourceOwners: boolean;
  /** Undefined: the policy names no resources (it applies to all). */
  resources?: { allResources: boolean; type?: string; urns: readonly string[];
    criteria: readonly { field: string; values: readonly string[]; condition: string }[] };
}

const ownObject = (o: unknown, key: string): object | undefined => {
  const v = ownValue(o, key);
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
};
const ownStrings = (o: unknown, key: string): string[] => {
  const v = ownValue(o, key);
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
};
const ownString = (o: unknown, key: string): string | undefined => {
  const v = ownValue(o, key);
  return typeof v === 'string' ? v : undefined;
};

export function policyRule(info: unknown): PolicyRule {
  const actors = ownObject(info, 'actors');
  const res = ownObject(info, 'resources');
  const filter = ownObject(res, 'filter');
  const criteria = ownValue(filter, 'criteria');
  return {
    active: ownValue(info, 'state') === 'ACTIVE',
    type: ownString(info, 'type'),
    privileges: ownStrings(info, 'privileges'),
    users: new Set(ownStrings(actors, 'users')),
    groups: new Set(ownStrings(actors, 'groups')),
    roles: new Set(ownStrings(actors, 'roles')),
    allUsers: ownValue(actors, 'allUsers') === true,
    allGroups: ownValue(actors, 'allGroups') === true,
    resourceOwners: ownValue(actors, 'resourceOwners') === true,
    resources: res && {
      allResources: ownValue(res, 'allResources') === true,
      type: ownString(res, 'type'),
      urns: ownStrings(res, 'resources'),
      criteria: (Array.isArray(criteria) ? criteria : []).map((c: unknown) => ({
        field: ownString(c, 'field') ?? '', values: ownStrings(c, 'values'), condition: ownString(c, 'condition') ?? 'EQUALS',
      })),
    },
  };
}

interface Snapshot {
  at: number;
  policies: { urn: string; info: PolicyInfo; rule: PolicyRule }[];
  /** user urn → groups whose (legacy) `corpGroupInfo.members` list names the user. */
  listedIn: Map<string, Set<string>>;
}

/** Who a user is for matching: their groups (both membership aspects and group member lists) and roles. */
interface Principal {
  at: number;
  groups: Set<string>;
  roles: Set<string>;
}

export class PolicyService implements Authorizer {
  private snapshot?: Promise<Snapshot>;
  private readonly principals = new Map<string, Promise<Principal>>();
  /** Checks answered from the policies' snapshot and those that reloaded it (read by the metrics at scrape time). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly entities: EntityService, private readonly store: Store, private readonly refreshMs: number) {
    entities.onWrite((entityTypes) => {
      if (entityTypes.has('dataHubPolicy') || entityTypes.has('corpGroup')) this.snapshot = undefined;
      if (entityTypes.has('corpuser') || entityTypes.has('corpGroup')) this.principals.clear();
    });
  }

  /**
   * Creates the default policies that are missing (never overwrites an administrator's change), after moving a
   * catalog made by an earlier Almanac to DataHub's urns (see LEGACY_EDIT_ALL_NAME).
   */
  async bootstrap(actor: Actor): Promise<void> {
    await this.moveLegacyPolicies(actor);
    await this.addNewBuiltInPrivileges(actor);
    const urns = [...Object.keys(DEFAULT_POLICIES), ...Object.keys(DEFAULT_ROLES)];
    const existing = await this.store.existing(urns);
    const missing = urns.filter((u) => !existing.has(u));
    if (missing.length === 0) return;
    await this.entities.ingest(missing.map((urn) => (urn in DEFAULT_ROLES
      ? { urn, entityType: 'dataHubRole', aspect: 'dataHubRoleInfo', changeType: 'UPSERT' as const, value: DEFAULT_ROLES[urn], systemMetadata: null }
      : { urn, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
        value: { ...DEFAULT_POLICIES[urn], lastUpdatedTimestamp: Date.now() }, systemMetadata: null })), actor);
  }

  /**
   * Built-in policies (not editable) stored by an earlier Almanac gain the privileges added to their defaults since
   * (VIEW_CHANGE_LOG, MANAGE_WEBHOOKS, VIEW_METRICS for the root user and admins); nothing else of theirs changes.
   */
  private async addNewBuiltInPrivileges(actor: Actor): Promise<void> {
    const builtIn = Object.entries(DEFAULT_POLICIES).filter(([, p]) => !p.editable);
    const latest = await this.store.getLatest(builtIn.map(([urn]) => urn), ['dataHubPolicyInfo']);
    const items = builtIn.flatMap(([urn, def]) => {
      const stored = latest.get(urn)?.get('dataHubPolicyInfo')?.value;
      if (stored === undefined || ownValue(stored, 'editable') !== false) return [];
      const held = ownStrings(stored, 'privileges');
      const missing = def.privileges.filter((p) => !held.includes(p));
      if (missing.length === 0) return [];
      return [{ urn, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
        value: { ...(stored as object), privileges: [...held, ...missing], lastUpdatedTimestamp: Date.now() }, systemMetadata: null }];
    });
    if (items.length > 0) await this.entities.ingest(items, actor);
  }

  private async moveLegacyPolicies(actor: Actor): Promise<void> {
    const seven = 'urn:li:dataHubPolicy:7';
    const latest = await this.store.getLatest([seven, LEGACY_BASE_PLATFORM_URN], ['dataHubPolicyInfo']);
    const oldSeven = latest.get(seven)?.get('dataHubPolicyInfo')?.value;
    const oldBase = latest.get(LEGACY_BASE_PLATFORM_URN)?.get('dataHubPolicyInfo')?.value;
    if (ownValue(oldSeven, 'displayName') !== LEGACY_EDIT_ALL_NAME) return;
    const state = ownValue(oldBase, 'state') === 'INACTIVE' ? 'INACTIVE' : 'ACTIVE';
    // An administrator who switched the old "edit everything" policy on keeps it, under a urn of its own.
    const keepEditAll = ownValue(oldSeven, 'state') === 'ACTIVE'
      ? [{ urn: LEGACY_EDIT_ALL_URN, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT' as const,
        value: { ...(oldSeven as object), lastUpdatedTimestamp: Date.now() }, systemMetadata: null }]
      : [];
    await this.entities.ingest([...keepEditAll, { urn: seven, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT',
      value: { ...DEFAULT_POLICIES[seven], state, lastUpdatedTimestamp: Date.now() }, systemMetadata: null }], actor);
    if (oldBase !== undefined) await this.entities.deleteEntity(LEGACY_BASE_PLATFORM_URN);
  }

  private load(): Promise<Snapshot> {
    const cur = this.snapshot;
    if (cur) return cur.then((s) => (Date.now() - s.at < this.refreshMs ? (this.stats.hits++, s) : this.reload()));
    return this.reload();
  }

  private reload(): Promise<Snapshot> {
    this.stats.misses++;
    const p = (async (): Promise<Snapshot> => {
      const at = Date.now();
      const policyRows = await this.store.listEntities({ entityType: 'dataHubPolicy' });
      const policyAspects = await this.store.getLatest(policyRows.map((r) => r.urn), ['dataHubPolicyInfo']);
      const policies = [...policyAspects].flatMap(([urn, m]) => {
        const info = m.get('dataHubPolicyInfo')?.value as PolicyInfo | undefined;
        return info ? [{ urn, info, rule: policyRule(info) }] : [];
      });
      const listedIn = new Map<string, Set<string>>();
      const groupRows = await this.store.listEntities({ entityType: 'corpGroup' });
      const groupAspects = await this.store.getLatest(groupRows.map((r) => r.urn), ['corpGroupInfo']);
      for (const [group, m] of groupAspects) {
        for (const u of ownStrings(m.get('corpGroupInfo')?.value, 'members')) {
          let set = listedIn.get(u);
          if (!set) listedIn.set(u, (set = new Set()));
          set.add(group);
        }
      }
      return { at, policies, listedIn };
    })();
    this.snapshot = p;
    p.catch(() => { if (this.snapshot === p) this.snapshot = undefined; });
    return p;
  }

  /**
   * The user's groups and roles, read from their own aspects per user (not for every user at once), trusted for
   * `refreshMs` and dropped at once when a user or group is written on this server.
   */
  private principal(userUrn: string, snap: Snapshot): Promise<Principal> {
    const cached = this.principals.get(userUrn);
    if (cached) return cached.then((p) => (Date.now() - p.at < this.refreshMs ? p : this.loadPrincipal(userUrn, snap)));
    return this.loadPrincipal(userUrn, snap);
  }

  private loadPrincipal(userUrn: string, snap: Snapshot): Promise<Principal> {
    const p = (async (): Promise<Principal> => {
      const at = Date.now();
      const m = await this.entities.getLatest(userUrn, ['groupMembership', 'nativeGroupMembership', 'roleMembership']);
      const groups = new Set<string>(snap.listedIn.get(userUrn));
      for (const g of ownStrings(m.get('groupMembership')?.value, 'groups')) groups.add(g);
      for (const g of ownStrings(m.get('nativeGroupMembership')?.value, 'nativeGroups')) groups.add(g);
      return { at, groups, roles: new Set(ownStrings(m.get('roleMembership')?.value, 'roles')) };
    })();
    if (this.principals.size >= 10_000) this.principals.clear();
    this.principals.set(userUrn, p);
    p.catch(() => { if (this.principals.get(userUrn) === p) this.principals.delete(userUrn); });
    return p;
  }

  /** The privileges the actor holds on the resource (or on the platform when no resource is named). */
  async privilegesOf(actor: Actor, resourceUrn?: string): Promise<Set<string>> {
    return this.grant(actor, resourceUrn);
  }

  /**
   * Accumulates privileges policy by policy; stops as soon as `enough` says the grants suffice, so the common
   * case (a view granted to all users) never loads the resource's owners.
   */
  private async grant(actor: Actor, resourceUrn?: string, enough?: (granted: Set<string>) => boolean): Promise<Set<string>> {
    if (actor.kind === 'system') return ALL_PRIVILEGES;
    const snap = await this.load();
    const { groups, roles } = await this.principal(actor.urn, snap);
    const granted = new Set<string>();
    /** The resource as its urn tells it, for rules that need no more. */
    const named = resourceUrn ? { urn: resourceUrn, entityType: entityTypeOf(resourceUrn) } : undefined;
    let resource: { urn: string; entityType: string; owners?: Set<string>; domains?: string[] } | undefined;
    const loadResource = async () => {
      if (resource || !named) return resource;
      const { urn: resourceUrn, entityType } = named;
      const latest = await this.entities.getLatest(resourceUrn, ['ownership', 'domains']);
      const ownerList = ownValue(latest.get('ownership')?.value, 'owners');
      const owners = new Set<string>((Array.isArray(ownerList) ? ownerList : []).map((o: unknown) => ownString(o, 'owner'))
        .filter((o): o is string => o !== undefined));
      resource = { urn: resourceUrn, entityType, owners, domains: ownStrings(latest.get('domains')?.value, 'domains') };
      return resource;
    };
    // Rules that need the resource's stored owners or domains are decided last, so that when the others grant
    // enough (an administrator, a role's editors) the resource is never read. The union granted is the same.
    const later: PolicyRule[] = [];
    for (const pass of [snap.policies.map((p) => p.rule), later]) {
      for (const rule of pass) {
        if (!rule.active) continue;
        if (rule.type === 'METADATA') {
          if (!named) {
            // With no resource, only policies over all resources apply (e.g. "may this user view anything?").
            if (!(rule.resources?.allResources || !rule.resources)) continue;
          } else if (pass !== later && readsResource(rule)) {
            later.push(rule);
            continue;
          } else if (!this.matchesResource(rule, readsResource(rule) ? (await loadResource())! : named)) continue;
        } else if (rule.type !== 'PLATFORM') continue;
        if (!(await this.matchesActor(rule, actor, groups, roles, loadResource))) continue;
        for (const p of rule.privileges) granted.add(p);
        if (enough?.(granted)) return granted;
      }
    }
    return granted;
  }

  async allowed(actor: Actor, requirement: Requirement, resourceUrn?: string): Promise<boolean> {
    if (actor.kind === 'system' || requirement.length === 0) return true;
    const satisfied = (held: Set<string>) => requirement.some((group) => group.every((p) => held.has(p)));
    return satisfied(await this.grant(actor, resourceUrn, satisfied));
  }

  private async matchesActor(rule: PolicyRule, actor: Actor, groups: Set<string>, roles: Set<string>,
    loadResource: () => Promise<{ owners?: Set<string> } | undefined>): Promise<boolean> {
    if (rule.allUsers) return true;
    if (rule.users.has(actor.urn)) return true;
    if (rule.allGroups && groups.size > 0) return true;
    for (const g of groups) if (rule.groups.has(g)) return true;
    for (const r of roles) if (rule.roles.has(r)) return true;
    if (rule.resourceOwners && rule.type === 'METADATA') {
      const r = await loadResource();
      if (r?.owners && (r.owners.has(actor.urn) || [...groups].some((g) => r.owners!.has(g)))) return true;
    }
    return false;
  }

  private matchesResource(rule: PolicyRule, r: { urn: string; entityType: string; domains?: string[] }): boolean {
    const res = rule.resources;
    if (!res || res.allResources) return true;
    if (res.type && res.type.toLowerCase() !== r.entityType.toLowerCase()) return false;
    if (res.urns.length && !res.urns.includes(r.urn)) return false;
    for (const c of res.criteria) {
      const values = c.values;
      const field = c.field.toUpperCase();
      const cond = c.condition.toUpperCase();
      const test = (candidate: string) => cond === 'STARTS_WITH' ? values.some((v) => candidate.startsWith(v)) : values.includes(candidate);
      if (field === 'TYPE' || field === 'RESOURCE_TYPE') {
        if (!values.some((v) => v.toLowerCase() === r.entityType.toLowerCase())) return false;
      } else if (field === 'URN' || field === 'RESOURCE_URN') {
        if (!test(r.urn)) return false;
      } else if (field === 'DOMAIN') {
        if (!(r.domains ?? []).some(test)) return false;
      } else {
        return false;
      }
    }
    return !!(res.type || res.urns.length || res.criteria.length);
  }

  // Administration

  async list(opts: { start: number; count: number; query?: string }) {
    const snap = await this.reload();
    let items = snap.policies;
    if (opts.query) {
      const q = opts.query.toLowerCase();
      items = items.filter((p) => p.info.displayName.toLowerCase().includes(q) || (p.info.description ?? '').toLowerCase().includes(q));
    }
    items = [...items].sort((a, b) => a.urn.localeCompare(b.urn));
    return { start: opts.start, total: items.length, policies: items.slice(opts.start, opts.start + opts.count) };
  }

  async get(urn: string): Promise<{ urn: string; info: PolicyInfo }> {
    const u = parseUrn(urn);
    if (u.entityType !== 'dataHubPolicy') throw badRequest(`'${urn}' is not a dataHubPolicy urn`);
    const info = (await this.entities.getLatest(u.raw, ['dataHubPolicyInfo'])).get('dataHubPolicyInfo')?.value as PolicyInfo | undefined;
    if (!info) throw notFound(`Policy ${u.raw} does not exist`, { urn: u.raw });
    return { urn: u.raw, info };
  }

  validate(info: PolicyInfo): void {
    if (!info.displayName?.trim()) throw badRequest('A policy needs a name');
    if (!['PLATFORM', 'METADATA'].includes(info.type)) throw badRequest(`Policy type must be PLATFORM or METADATA, got '${info.type}'`);
    if (!['ACTIVE', 'INACTIVE'].includes(info.state)) throw badRequest(`Policy state must be ACTIVE or INACTIVE, got '${info.state}'`);
    const unknown = info.privileges.filter((p) => !ALL_PRIVILEGES.has(p));
    if (unknown.length) throw badRequest(`Unknown privilege(s): ${unknown.join(', ')}`);
    for (const u of [...(info.actors.users ?? []), ...(info.actors.groups ?? []), ...(info.actors.roles ?? []), ...(info.resources?.resources ?? [])]) parseUrn(u);
  }

  async create(info: PolicyInfo, actor: Actor): Promise<string> {
    this.validate(info);
    const urn = `urn:li:dataHubPolicy:${crypto.randomUUID()}`;
    await this.entities.ingest([{ urn, entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT',
      value: { ...info, editable: true, lastUpdatedTimestamp: Date.now() }, systemMetadata: null }], actor);
    return urn;
  }

  async update(urn: string, info: PolicyInfo, actor: Actor): Promise<string> {
    const current = await this.get(urn);
    // The built-in root policies cannot change: the root user always keeps every privilege.
    if (current.info.editable === false) throw badRequest(`Policy ${current.urn} is built in and cannot be changed`);
    this.validate(info);
    await this.entities.writeToExisting(current.urn, [dataHubPolicyInfo], { dataHubPolicyInfo: { ...info, editable: true, lastUpdatedTimestamp: Date.now() } }, actor);
    return current.urn;
  }

  async delete(urn: string): Promise<void> {
    const current = await this.get(urn);
    if (current.info.editable === false) throw badRequest(`Policy ${current.urn} is built in and cannot be deleted`);
    await this.entities.deleteEntity(current.urn);
  }
}

/** The entity type a urn names ('' for a urn that does not parse: no typed rule matches it). */
function entityTypeOf(urn: string): string {
  const u = tryParseUrn(urn);
  return typeof u === 'string' ? '' : u.entityType;
}

/** Whether deciding a metadata rule for a resource may read the resource's stored aspects (its owners or domains). */
function readsResource(rule: PolicyRule): boolean {
  return rule.resourceOwners || (rule.resources?.criteria ?? []).some((c) => c.field.toUpperCase() === 'DOMAIN');
}
