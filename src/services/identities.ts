import { badRequest, conflict } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from './actor.js';
import type { EntityService } from './entities.js';

/**
 * Users and groups. Membership lives on each user's `groupMembership` aspect (what DataHub's ingestion writes and
 * what policies read); removing a user marks it removed, which also stops its tokens.
 */
type Obj = Record<string, any>;

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
    if (await this.entities.exists(urn)) throw conflict(`This Group already exists: ${urn}`, { urn });
    await this.entities.ingest([{ urn, entityType: 'corpGroup', aspect: 'corpGroupInfo', changeType: 'UPSERT', systemMetadata: null,
      value: { displayName: input.name, ...(input.description ? { description: input.description } : {}), admins: [], members: [], groups: [] } }], actor);
    return urn;
  }

  async removeGroup(urn: string): Promise<void> {
    const u = check(urn, 'corpGroup');
    await this.entities.requireExists(u);
    await this.entities.deleteEntity(u);
  }

  async setUserStatus(urn: string, status: 'ACTIVE' | 'SUSPENDED', actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.writeToExisting(u, { corpUserStatus: { status, lastModified: { time: Date.now(), actor: actor.urn } } }, actor);
  }

  async removeUser(urn: string, actor: Actor): Promise<void> {
    const u = check(urn, 'corpuser');
    await this.entities.writeToExisting(u, { status: { removed: true } }, actor);
  }

  /** Adds or removes members; every user and the group must exist; all or nothing. */
  async changeMembers(groupUrn: string, userUrns: string[], op: 'add' | 'remove', actor: Actor): Promise<void> {
    const g = check(groupUrn, 'corpGroup');
    const users = [...new Set(userUrns.map((u) => check(u, 'corpuser')))];
    if (users.length === 0) throw badRequest('No users given');
    await this.entities.requireExists(g);
    for (const u of users) await this.entities.requireExists(u);
    const latest = await this.store.getLatest(users, ['groupMembership']);
    const items = users.map((u) => {
      const groups: string[] = ((latest.get(u)?.get('groupMembership')?.value as Obj | undefined)?.groups ?? []);
      const next = op === 'add' ? (groups.includes(g) ? groups : [...groups, g]) : groups.filter((x) => x !== g);
      return { urn: u, entityType: 'corpuser', aspect: 'groupMembership', changeType: 'UPSERT' as const, value: { groups: next }, systemMetadata: null };
    });
    await this.entities.ingest(items, actor);
  }

  async updateGroup(urn: string, input: { description?: string | null; slack?: string | null; email?: string | null }, actor: Actor) {
    const g = check(urn, 'corpGroup');
    await this.entities.requireExists(g);
    const prev = (await this.entities.getLatest(g, ['corpGroupEditableInfo'])).get('corpGroupEditableInfo')?.value as Obj | undefined;
    const next: Obj = { ...prev };
    for (const k of ['description', 'slack', 'email'] as const) if (input[k] != null) next[k] = input[k];
    await this.entities.writeToExisting(g, { corpGroupEditableInfo: next }, actor);
  }
}
