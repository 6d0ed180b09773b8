import { badRequest, notFound } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from './actor.js';
import type { EntityService } from './entities.js';
import type { TokenService } from './tokens.js';

/**
 * Users and groups. Membership lives on each user, as in DataHub: `nativeGroupMembership` for groups created in the
 * catalog (their `origin` is NATIVE), `groupMembership` for groups from an identity provider. Both become the
 * relationships IsMemberOfNativeGroup / IsMemberOfGroup, and both are what policies read.
 */
type Obj = Record<string, any>;

const ownStringList = (v: unknown, key: string): string[] => {
  const list = v && typeof v === 'object' && Object.hasOwn(v, key) ? (v as Obj)[key] : undefined;
  return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
};

function check(urn: string, entityType: 'corpuser' | 'corpGroup'): string {
  const u = parseUrn(urn);
  if (u.entityType !== entityType) throw badRequest(`'${urn}' is not a ${entityType} urn`);
  return u.raw;
}

export class IdentityService {
  constructor(private readonly entities: EntityService, private readonly store: Store, private readonly tokens: TokenService) {}

  /** Users (not removed) or groups, in urn order, filtered by a substring of the urn or names. */
  async list(entityType: 'corpuser' | 'corpGroup', opts: { start: number; count: number; query?: string }) {
    const rows = await this.store.listEntities({ entityType });
    const latest = await this.store.getLatest(rows.map((r) => r.urn), ['corpUserInfo', 'corpGroupInfo', 'status']);
    const q = opts.query?.trim().toLowerCase();
    const urns = rows.map((r) => r.urn).filter((urn) => {
      const m = latest.get(urn);
      if ((m?.get('status')?.value as Obj | undefined)?.removed) return false;
      if (!q || q === '*') return true;
      const info = (m?.get('corpUserInfo') ?? m?.get('corpGroupInfo'))?.value as Obj | undefined;
      return [urn, info?.displayName, info?.fullName, info?.email].some((s) => typeof s === 'string' && s.toLowerCase().includes(q));
    });
    return { total: urns.length, urns: urns.slice(opts.start, opts.start + opts.count) };
  }

  async createGroup(input: { id?: string | null; name: string; description?: string | null }, actor: Actor): Promise<string> {
    if (!input.name?.trim()) throw badRequest('A group needs a name');
    const id = input.id ?? crypto.randomUUID();
    if (!id.trim() || /[\s,()]/.test(id)) throw badRequest(`Group id '${id}' must be non-empty and contain no spaces, commas or parentheses`);
    const urn = parseUrn(`urn:li:corpGroup:${id}`).raw;
    await this.entities.createOnce(urn, {
      corpGroupInfo: { displayName: input.name, ...(input.description ? { description: input.description } : {}), admins: [], members: [], groups: [] },
      origin: { type: 'NATIVE' } }, actor, 'Group');
    return urn;
  }

  /** Removes a group and takes it out of its members' membership aspects (so a new group of the same name starts empty). */
  async removeGroup(urn: string, actor: Actor): Promise<void> {
    const g = check(urn, 'corpGroup');
    await this.entities.requireExists(g);
    const members = await this.store.relationships({ urn: g, direction: 'INCOMING', types: ['IsMemberOfGroup', 'IsMemberOfNativeGroup'],
      start: 0, count: 1_000_000 });
    const users = [...new Set(members.edges.map((e) => e.source))];
    if (users.length) await this.changeMembers(g, users, 'remove', actor);
    await this.entities.deleteEntity(g);
  }

  async setUserStatus(urn: string, status: 'ACTIVE' | 'SUSPENDED', actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.writeToExisting(u, { corpUserStatus: { status, lastModified: { time: Date.now(), actor: actor.urn } } }, actor);
  }

  /**
   * Removes a user as DataHub does: every aspect of the user goes (so reads answer as for a user that never
   * existed, and search and the membership relationships forget them), their tokens are revoked, and group member
   * lists that name them drop them.
   */
  async removeUser(urn: string, actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.requireExists(u);
    await this.tokens.revokeAllOf(u);
    // Legacy member lists (corpGroupInfo.members / admins) that name the user drop them, each under the aspect's lock.
    const groupRows = await this.store.listEntities({ entityType: 'corpGroup' });
    const infos = await this.store.getLatest(groupRows.map((r) => r.urn), ['corpGroupInfo']);
    const naming = [...infos].filter(([, m]) => (['members', 'admins'] as const)
      .some((k) => ownStringList(m.get('corpGroupInfo')?.value, k).includes(u))).map(([g]) => g);
    if (naming.length) {
      await this.entities.edit(new Map(naming.map((g) => [g, ['corpGroupInfo']])), (current) => new Map([...current].flatMap(([g, m]) => {
        const info = m.get('corpGroupInfo');
        if (!info) return [];
        const next: Obj = { ...info };
        for (const k of ['members', 'admins'] as const) if (Array.isArray(next[k])) next[k] = ownStringList(next, k).filter((x) => x !== u);
        return [[g, { corpGroupInfo: next }]];
      })), actor);
    }
    await this.entities.deleteEntity(u);
  }

  /**
   * Adds or removes members; every user and the group must exist; all or nothing. A group created here (origin
   * NATIVE) is recorded in the users' `nativeGroupMembership`, any other in `groupMembership`; removing takes the
   * group out of both.
   */
  async changeMembers(groupUrn: string, userUrns: string[], op: 'add' | 'remove', actor: Actor): Promise<void> {
    const g = check(groupUrn, 'corpGroup');
    const users = [...new Set(userUrns.map((u) => check(u, 'corpuser')))];
    if (users.length === 0) throw badRequest('No users given');
    await this.entities.requireExists(g);
    const existing = await this.store.existing(users);
    const absent = users.find((u) => !existing.has(u));
    if (absent) throw notFound(`Entity ${absent} does not exist`, { urn: absent });
    const native = (await this.entities.getLatest(g, ['origin'])).get('origin')?.value as Obj | undefined;
    const aspect = native?.type === 'NATIVE' ? 'nativeGroupMembership' : 'groupMembership';
    const field = (a: string) => (a === 'nativeGroupMembership' ? 'nativeGroups' : 'groups');
    const aspects = op === 'add' ? [aspect] : ['groupMembership', 'nativeGroupMembership'];
    // One transaction for all users, each membership aspect locked while it is read and rewritten.
    await this.entities.edit(new Map(users.map((u) => [u, aspects])), (current) => new Map(users.flatMap((u) => {
      const out: Obj = {};
      for (const a of aspects) {
        const list = ownStringList(current.get(u)?.get(a), field(a));
        if (op === 'add' && !list.includes(g)) out[a] = { [field(a)]: [...list, g] };
        if (op === 'remove' && list.includes(g)) out[a] = { [field(a)]: list.filter((x) => x !== g) };
      }
      return Object.keys(out).length ? [[u, out]] : [];
    })), actor);
  }

  async updateGroup(urn: string, input: { description?: string | null; slack?: string | null; email?: string | null }, actor: Actor) {
    const g = check(urn, 'corpGroup');
    await this.entities.requireExists(g);
    await this.entities.editExisting(g, ['corpGroupEditableInfo'], (current) => {
      const next: Obj = { ...current.get('corpGroupEditableInfo') };
      for (const k of ['description', 'slack', 'email'] as const) if (input[k] != null) next[k] = input[k];
      return { corpGroupEditableInfo: next };
    }, actor);
  }
}
