import { badRequest, notFound } from '../errors.js';
import { ownershipTypeInfo } from '../entities/ownership-type.js';
import { isSystemOwnershipType, SYSTEM_OWNERSHIP_TYPES } from '../entities/ownership-types.js';
import { ownership, status } from '../entities/shared-aspects.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import { REQUIRES, type Operation } from '../model/privileges.js';

/**
 * Ownership types as entities: the system ones DataHub creates on first start, and custom ones users create, list,
 * rename and delete. A system type is never removed, only marked removed (status), as DataHub does; deleting a
 * custom one also takes it off every owner entry that names it, unless asked not to.
 */
export interface OwnershipTypeInput {
  name?: string | null;
  description?: string | null;
}

const stamp = (actor: Actor, time = Date.now()) => ({ time, actor: actor.urn });

export class OwnershipTypeService {
  constructor(private readonly entities: EntityService, private readonly store: Store, private readonly authz: Authorizer) {}

  /** Who may: any reader lists them; MANAGE_GLOBAL_OWNERSHIP_TYPES creates, changes and deletes them. */
  private require(actor: Actor, op: Operation) {
    return requirePrivilege(this.authz, actor, REQUIRES[op]);
  }

  /** Creates the system ownership types that do not exist yet (an edited or removed one is left as it is). */
  async bootstrap(actor: Actor): Promise<void> {
    const urns = SYSTEM_OWNERSHIP_TYPES.map((t) => t.urn);
    const latest = await this.store.getLatest(urns, ['ownershipTypeInfo']);
    const now = Date.now();
    const missing = SYSTEM_OWNERSHIP_TYPES.filter((t) => !latest.get(t.urn)?.has('ownershipTypeInfo'));
    if (missing.length === 0) return;
    await this.entities.ingest(missing.map((t) => ({
      urn: t.urn, entityType: 'ownershipType', aspect: 'ownershipTypeInfo', changeType: 'UPSERT' as const, systemMetadata: null,
      value: { name: t.name, description: t.description, created: stamp(actor, now), lastModified: stamp(actor, now) },
    })), actor);
  }

  /** Ownership types not marked removed whose name or description holds the query, newest first, paged. */
  async list(opts: { start: number; count: number; query?: string }, actor: Actor) {
    await this.require(actor, 'graphql.read');
    if (opts.start < 0 || opts.count < 0 || opts.count > 1000) throw badRequest('start must be ≥ 0 and count between 0 and 1000');
    const rows = await this.store.listEntities({ entityType: 'ownershipType' });
    const latest = await this.entities.latestValues(rows.map((r) => r.urn), [ownershipTypeInfo, status]);
    const q = opts.query?.trim().toLowerCase();
    const found = rows.map((r) => ({ urn: r.urn, info: latest.get(r.urn)?.get('ownershipTypeInfo'),
      removed: latest.get(r.urn)?.get('status')?.removed === true }))
      .filter((t) => t.info && !t.removed)
      .filter((t) => !q || q === '*' || [t.info!.name, t.info!.description].some((s) => typeof s === 'string' && s.toLowerCase().includes(q)))
      .sort((a, b) => (b.info!.created?.time ?? 0) - (a.info!.created?.time ?? 0) || a.urn.localeCompare(b.urn));
    return { total: found.length, urns: found.slice(opts.start, opts.start + opts.count).map((t) => t.urn) };
  }

  async create(input: OwnershipTypeInput, actor: Actor): Promise<string> {
    await this.require(actor, 'graphql.manageOwnershipTypes');
    const name = input.name;
    if (!name?.trim()) throw badRequest('An ownership type needs a name');
    const urn = `urn:li:ownershipType:${crypto.randomUUID()}`;
    const now = Date.now();
    await this.entities.createOnce(urn, [ownershipTypeInfo], { ownershipTypeInfo: {
      name, ...(input.description != null ? { description: input.description } : {}),
      created: stamp(actor, now), lastModified: stamp(actor, now),
    } }, actor, 'Ownership Type');
    return urn;
  }

  /** Changes the name and description given (each only when given); the type must exist. */
  async update(urn: string, input: OwnershipTypeInput, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.manageOwnershipTypes');
    const u = this.ownershipTypeUrn(urn);
    if (input.name != null && !input.name.trim()) throw badRequest('An ownership type needs a name');
    const missing = () => notFound(`Failed to update Ownership Type. Ownership Type with urn ${u} does not exist.`, { urn: u });
    if (!(await this.entities.exists(u))) throw missing();
    await this.entities.editExisting(u, [ownershipTypeInfo], (current) => {
      const info = current.get('ownershipTypeInfo');
      if (!info) throw missing();
      return { ownershipTypeInfo: { ...info, ...(input.name != null ? { name: input.name } : {}),
        ...(input.description != null ? { description: input.description } : {}), lastModified: stamp(actor) } };
    }, actor);
  }

  /**
   * A system type is marked removed; a custom one is deleted, and (deleteReferences, the default) taken off every
   * owner entry that names it, in one transaction with the entities that hold them.
   */
  async delete(urn: string, deleteReferences: boolean, actor: Actor): Promise<void> {
    await this.require(actor, 'graphql.manageOwnershipTypes');
    const u = this.ownershipTypeUrn(urn);
    if (!(await this.entities.exists(u))) throw notFound(`Ownership Type ${u} does not exist`, { urn: u });
    if (isSystemOwnershipType(u)) {
      await this.entities.editExisting(u, [status], () => ({ status: { removed: true } }), actor);
      return;
    }
    if (deleteReferences) {
      const holders = (await this.store.relationships({ urn: u, direction: 'INCOMING', types: ['ownershipType'], start: 0, count: 10_000 }))
        .edges.map((e) => e.source);
      if (holders.length) {
        await this.entities.edit(new Map(holders.map((h) => [h, [ownership]])), (current) => new Map(holders.flatMap((h) => {
          const prev = current.get(h)?.get('ownership');
          if (!prev) return [];
          const owners = prev.owners.filter((o) => o.typeUrn !== u);
          return owners.length === prev.owners.length ? [] : [[h, { ownership: { ...prev, owners, lastModified: stamp(actor) } }]];
        })), actor);
      }
    }
    await this.entities.deleteEntity(u);
  }

  private ownershipTypeUrn(urn: string): string {
    const u = parseUrn(urn);
    if (u.entityType !== 'ownershipType') throw badRequest(`Invalid urn: '${urn}' is not an ownershipType urn`, { urn });
    return u.raw;
  }
}
