import { badRequest, notFound } from '../errors.js';
import { ownValue } from '../model/safe-keys.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { Authorizer } from './authz.js';
import type { Requirement } from '../model/privileges.js';
import type { EntityService } from './entities.js';
import { dataHubPolicyInfo } from '../entities/data-hub-policy.js';
import { bootstrapPolicies } from './policy-bootstrap.js';
import { ALL_PRIVILEGES, type PolicyInfo } from './policy-defaults.js';
import { entityTypeOf, ownString, ownStrings, policyRule, readsResource, ruleMatchesActor, ruleMatchesResource, ruleNamesActor, type PolicyRule } from './policy-rules.js';

export type { PolicyInfo } from './policy-defaults.js';

/**
 * Policies: dataHubPolicy entities granting privileges to actors, on the platform (PLATFORM) or on resources
 * (METADATA). Evaluated per request from a snapshot of all policies and group memberships, reloaded after any
 * local write to a policy, group or user, and at most `refreshMs` old otherwise (writes made by other servers
 * on the same database). The privileges and default policies are in policy-defaults.ts, how one rule matches in
 * policy-rules.ts, what a catalog starts with in policy-bootstrap.ts.
 */
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
   * catalog made by an earlier Almanac to DataHub's urns (policy-bootstrap.ts).
   */
  bootstrap(actor: Actor): Promise<void> {
    return bootstrapPolicies(this.entities, this.store, actor);
  }

  private load(): Promise<Snapshot> {
    const cur = this.snapshot;
    // Expired: reloaded once, by the first caller to find it so (the others wait for that reload).
    if (cur) return cur.then((s) => (Date.now() - s.at < this.refreshMs ? (this.stats.hits++, s) : this.snapshot === cur ? this.reload() : this.load()));
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
    if (cached) {
      return cached.then((p) => (Date.now() - p.at < this.refreshMs ? p
        : this.principals.get(userUrn) === cached ? this.loadPrincipal(userUrn, snap) : this.principal(userUrn, snap)));
    }
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
  private async grant(actor: Actor, resourceUrn?: string, enough?: (granted: Set<string>) => boolean,
    loaded?: { snap: Snapshot; principal: Principal }): Promise<Set<string>> {
    if (actor.kind === 'system') return ALL_PRIVILEGES;
    const snap = loaded?.snap ?? await this.load();
    const { groups, roles } = loaded?.principal ?? await this.principal(actor.urn, snap);
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
          } else if (!ruleMatchesResource(rule, readsResource(rule) ? (await loadResource())! : named)) continue;
        } else if (rule.type !== 'PLATFORM') continue;
        if (!(await ruleMatchesActor(rule, actor, groups, roles, loadResource))) continue;
        for (const p of rule.privileges) granted.add(p);
        if (enough?.(granted)) return granted;
      }
    }
    return granted;
  }

  async allowed(actor: Actor, requirement: Requirement, resourceUrn?: string): Promise<boolean> {
    if (actor.kind === 'system' || requirement.length === 0) return true;
    const satisfied = (held: Set<string>) => requirement.some((group) => group.every((p) => held.has(p)));
    const snap = await this.load();
    const principal = await this.principal(actor.urn, snap);
    // Most checks (an administrator's, an editor's) are settled by what the actor holds on every resource.
    if (satisfied(this.heldEverywhere(actor, snap, principal))) return true;
    return satisfied(await this.grant(actor, resourceUrn, satisfied, { snap, principal }));
  }

  /** Per user as last loaded: the privileges held everywhere, and the policies' snapshot they were worked out from. */
  private readonly everywhere = new WeakMap<Principal, { snap: Snapshot; granted: Set<string> }>();

  /**
   * The privileges the actor holds on every resource and on the platform: those of the active PLATFORM rules and of the
   * METADATA rules over all resources that name the actor as a user or through a group or role (resource owners are
   * not known without a resource). A part of what grant() gives for any resource, or none; worked out once per
   * snapshot and user.
   */
  private heldEverywhere(actor: Actor, snap: Snapshot, principal: Principal): Set<string> {
    const kept = this.everywhere.get(principal);
    if (kept?.snap === snap) return kept.granted;
    const granted = new Set<string>();
    for (const { rule } of snap.policies) {
      if (!rule.active) continue;
      if (rule.type === 'METADATA' ? rule.resources && !rule.resources.allResources : rule.type !== 'PLATFORM') continue;
      if (ruleNamesActor(rule, actor, principal.groups, principal.roles)) for (const p of rule.privileges) granted.add(p);
    }
    this.everywhere.set(principal, { snap, granted });
    return granted;
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
