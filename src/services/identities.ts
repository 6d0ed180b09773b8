import { corpGroupEditableInfo, corpGroupInfo } from '../entities/corp-group.js';
import { corpUserInfo, corpUserStatus, groupMembership, nativeGroupMembership } from '../entities/corp-user.js';
import { origin, status } from '../entities/shared-aspects.js';
import { badRequest, notFound } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { AspectWrites, EntityService } from './entities.js';

/**
 * Users and groups. Membership lives on each user, as in DataHub: `nativeGroupMembership` for groups whose members
 * are managed in the catalog (their `origin` is NATIVE), `groupMembership` for groups from an identity provider or a
 * connector. Both become the
 * relationships IsMemberOfNativeGroup / IsMemberOfGroup, and both are what policies read.
 */

function check(urn: string, entityType: 'corpuser' | 'corpGroup'): string {
  const u = parseUrn(urn);
  if (u.entityType !== entityType) throw badRequest(`'${urn}' is not a ${entityType} urn`);
  return u.raw;
}

export class IdentityService {
  constructor(private readonly entities: EntityService, private readonly store: Store) {}

  /** Users (not removed) or groups, in urn order, filtered by a substring of the urn or names. */
  async list(entityType: 'corpuser' | 'corpGroup', opts: { start: number; count: number; query?: string }) {
    const rows = await this.store.listEntities({ entityType });
    const latest = await this.entities.latestValues(rows.map((r) => r.urn), [corpUserInfo, corpGroupInfo, status]);
    const q = opts.query?.trim().toLowerCase();
    const urns = rows.map((r) => r.urn).filter((urn) => {
      const m = latest.get(urn);
      if (m?.get('status')?.removed) return false;
      if (!q || q === '*') return true;
      const user = m?.get('corpUserInfo');
      const group = user ? undefined : m?.get('corpGroupInfo');
      return [urn, user?.displayName ?? group?.displayName, user?.fullName, user?.email ?? group?.email]
        .some((s) => typeof s === 'string' && s.toLowerCase().includes(q));
    });
    return { total: urns.length, urns: urns.slice(opts.start, opts.start + opts.count) };
  }

  async createGroup(input: { id?: string | null; name: string; description?: string | null }, actor: Actor): Promise<string> {
    if (!input.name?.trim()) throw badRequest('A group needs a name');
    const id = input.id ?? crypto.randomUUID();
    if (!id.trim() || /[\s,()]/.test(id)) throw badRequest(`Group id '${id}' must be non-empty and contain no spaces, commas or parentheses`);
    const urn = parseUrn(`urn:li:corpGroup:${id}`).raw;
    await this.entities.createOnce(urn, [corpGroupInfo, origin], {
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
    if (users.length) await this.dropMembers(g, users, actor);
    await this.entities.deleteEntity(g);
  }

  async setUserStatus(urn: string, status: 'ACTIVE' | 'SUSPENDED', actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.writeToExisting(u, [corpUserStatus], { corpUserStatus: { status, lastModified: { time: Date.now(), actor: actor.urn } } }, actor);
  }

  /**
   * Removes a user as DataHub does: every aspect of the user goes (so reads answer as for a user that never
   * existed, and search and the membership relationships forget them), their tokens are revoked (as any removal of a
   * user revokes them: TokenService.heard), and group member lists that name them drop them.
   */
  async removeUser(urn: string, actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.requireExists(u);
    // Legacy member lists (corpGroupInfo.members / admins) that name the user drop them, each under the aspect's lock.
    const groupRows = await this.store.listEntities({ entityType: 'corpGroup' });
    const infos = await this.entities.latestValues(groupRows.map((r) => r.urn), [corpGroupInfo]);
    const naming = [...infos].filter(([, m]) => (['members', 'admins'] as const).some((k) => m.get('corpGroupInfo')?.[k]?.includes(u)))
      .map(([g]) => g);
    if (naming.length) {
      await this.entities.edit(new Map(naming.map((g) => [g, [corpGroupInfo]])), (current) => new Map([...current].flatMap(([g, m]) => {
        const info = m.get('corpGroupInfo');
        if (!info) return [];
        const next = { ...info };
        for (const k of ['members', 'admins'] as const) if (next[k]) next[k] = next[k].filter((x) => x !== u);
        return [[g, { corpGroupInfo: next }]];
      })), actor);
    }
    await this.entities.deleteEntity(u);
  }

  /**
   * addGroupMembers / removeGroupMembers, as DataHub 0.12.1's resolvers do them. A group with no origin (ingested by
   * a connector or a sample file) is first made native: its members through `groupMembership` (IsMemberOfGroup) are
   * moved to `nativeGroupMembership` and the group's origin becomes NATIVE. Then the users are added as native members
   * (each group taken out and appended, so it comes last) or taken out of the native members. A group from an
   * identity provider (origin EXTERNAL) is refused: its members come from there. Users added must exist; users
   * removed that do not are skipped. All in one transaction, each aspect locked while it is read and rewritten.
   */
  async changeMembers(groupUrn: string, userUrns: string[], op: 'add' | 'remove', actor: Actor): Promise<void> {
    const g = check(groupUrn, 'corpGroup');
    const users = [...new Set(userUrns.map((u) => check(u, 'corpuser')))];
    if (users.length === 0) throw badRequest('No users given');
    if (!(await this.entities.exists(g))) {
      throw notFound(`Failed to ${op === 'add' ? 'add members to' : 'remove members from'} group ${g}. Group does not exist.`, { urn: g });
    }
    const existing = await this.store.existing(users);
    if (op === 'add') {
      const absent = users.find((u) => !existing.has(u));
      if (absent) throw notFound(`Entity ${absent} does not exist`, { urn: absent });
    }
    const targets = users.filter((u) => existing.has(u));
    // Who a migration would move (read from the relationship index, current on this server).
    const ingested = (await this.store.relationships({ urn: g, direction: 'INCOMING', types: ['IsMemberOfGroup'], start: 0, count: 1_000_000 }))
      .edges.map((e) => e.source).filter((u) => parseUrn(u).entityType === 'corpuser');
    const people = [...new Set([...ingested, ...targets])];
    const aspects = new Map<string, readonly (typeof groupMembership | typeof nativeGroupMembership | typeof origin)[]>(
      people.map((u) => [u, [groupMembership, nativeGroupMembership]]));
    aspects.set(g, [origin]);
    await this.entities.edit(aspects, (current) => {
      const type = current.get(g)?.get('origin')?.type;
      if (type === 'EXTERNAL') {
        throw badRequest(`Group ${g} was ingested from an external provider and cannot have members manually ${op === 'add' ? 'added to' : 'removed from'} it`,
          { urn: g });
      }
      const groups = new Map(people.map((u) => [u, current.get(u)?.get('groupMembership')?.groups]));
      const natives = new Map(people.map((u) => [u, current.get(u)?.get('nativeGroupMembership')?.nativeGroups]));
      const out = new Map<string, AspectWrites<typeof groupMembership | typeof nativeGroupMembership | typeof origin>>();
      const appended = (list: readonly string[] | undefined) => [...(list ?? []).filter((x) => x !== g), g];
      if (type === undefined) {
        out.set(g, { origin: { type: 'NATIVE' } });
        for (const u of ingested) {
          const listed = groups.get(u);
          if (!listed?.includes(g)) continue;
          groups.set(u, listed.filter((x) => x !== g));
          natives.set(u, appended(natives.get(u)));
        }
      }
      for (const u of targets) {
        if (op === 'add') natives.set(u, appended(natives.get(u)));
        else if (natives.get(u)?.includes(g)) natives.set(u, natives.get(u)!.filter((x) => x !== g));
      }
      for (const u of people) {
        const write: AspectWrites<typeof groupMembership | typeof nativeGroupMembership> = {};
        const [was, now] = [current.get(u)?.get('groupMembership')?.groups, groups.get(u)];
        if (now && now !== was) write.groupMembership = { groups: now };
        const [wasNative, nowNative] = [current.get(u)?.get('nativeGroupMembership')?.nativeGroups, natives.get(u)];
        if (nowNative && nowNative !== wasNative) write.nativeGroupMembership = { nativeGroups: nowNative };
        if (Object.keys(write).length) out.set(u, write);
      }
      return out;
    }, actor);
  }

  /** Takes a group out of its members' membership aspects (both kinds): the group is being removed. */
  private async dropMembers(g: string, users: string[], actor: Actor): Promise<void> {
    await this.entities.edit(new Map(users.map((u) => [u, [groupMembership, nativeGroupMembership]])), (current) => new Map(users.flatMap((u) => {
      const values = current.get(u)!;
      const out: AspectWrites<typeof groupMembership | typeof nativeGroupMembership> = {};
      const groups = values.get('groupMembership')?.groups;
      if (groups?.includes(g)) out.groupMembership = { groups: groups.filter((x) => x !== g) };
      const nativeGroups = values.get('nativeGroupMembership')?.nativeGroups;
      if (nativeGroups?.includes(g)) out.nativeGroupMembership = { nativeGroups: nativeGroups.filter((x) => x !== g) };
      return Object.keys(out).length ? [[u, out]] : [];
    })), actor);
  }

  async updateGroup(urn: string, input: { description?: string | null; slack?: string | null; email?: string | null }, actor: Actor) {
    const g = check(urn, 'corpGroup');
    await this.entities.requireExists(g);
    await this.entities.editExisting(g, [corpGroupEditableInfo], (current) => {
      const next = { ...current.get('corpGroupEditableInfo') };
      for (const k of ['description', 'slack', 'email'] as const) {
        const v = input[k];
        if (v != null) next[k] = v;
      }
      return { corpGroupEditableInfo: next };
    }, actor);
  }
}
