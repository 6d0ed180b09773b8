import { badRequest, notFound, unprocessable } from '../errors.js';
import { validateOrThrow } from '../model/aspect-schemas.js';
import { aspectSpec, entityHasAspect, entitySpec, keyAspectValue } from '../model/registry.js';
import { parseUrn, type Urn } from '../model/urn.js';
import type { AspectRecord, AspectWrite, Store, TimeseriesWrite } from '../storage/types.js';
import type { Actor } from './actor.js';
import type { ChangeItem } from './ingest-format.js';
import { applyPatch } from './patch.js';

export interface IngestResult {
  /** Versioned aspects whose value changed (a new version was made). */
  changed: number;
  /** Versioned aspects that equalled the latest value. */
  unchanged: number;
  timeseries: number;
  deleted: number;
}

/**
 * The catalog's rules for entities and aspects: registry checks, payload validation, key aspects for new
 * entities, versioned vs time-series routing. Every batch is all-or-nothing.
 */
export class EntityService {
  private readonly listeners: ((entityTypes: Set<string>) => void)[] = [];

  constructor(readonly store: Store, private readonly historyCap: number) {}

  /** Called after every successful write or delete with the entity types it touched (cache invalidation). */
  onWrite(listener: (entityTypes: Set<string>) => void): void {
    this.listeners.push(listener);
  }

  private written(entityTypes: Iterable<string>) {
    const set = new Set(entityTypes);
    for (const l of this.listeners) l(set);
  }

  private readonly afterWriteHooks: ((urns: string[]) => Promise<void>)[] = [];

  /** Awaited after every successful write or delete with the urns it touched (derived indexes, e.g. search). */
  afterWrite(hook: (urns: string[]) => Promise<void>): void {
    this.afterWriteHooks.push(hook);
  }

  private async runAfterWrite(urns: string[]) {
    for (const h of this.afterWriteHooks) await h(urns);
  }

  /** Checks one change against the registry and the aspect's schema; throws 422/400 naming the problem. */
  validate(item: ChangeItem): void {
    const spec = entitySpec(item.entityType);
    if (!spec) throw unprocessable(`Unknown entity type '${item.entityType}'`, { urn: item.urn });
    if (!aspectSpec(item.aspect)) throw unprocessable(`Unknown aspect '${item.aspect}'`, { urn: item.urn, aspect: item.aspect });
    if (!entityHasAspect(spec.name, item.aspect)) {
      throw unprocessable(`Aspect '${item.aspect}' is not an aspect of entity type '${spec.name}'`, { urn: item.urn, aspect: item.aspect });
    }
    if (item.changeType === 'DELETE') {
      if (item.aspect === spec.keyAspect) throw unprocessable('The key aspect cannot be deleted; delete the entity instead');
      return;
    }
    if (item.aspect === spec.keyAspect) {
      throw unprocessable(`Key aspect '${item.aspect}' is derived from the urn and cannot be written`, { aspect: item.aspect });
    }
    validateOrThrow(item.aspect, item.value);
  }

  /** Validates every item first, then writes all of them in one transaction. */
  async ingest(input: ChangeItem[], actor: Actor): Promise<IngestResult> {
    const items = await this.resolvePatches(input);
    for (const item of items) this.validate(item);
    const versioned: AspectWrite[] = [];
    const timeseries: TimeseriesWrite[] = [];
    const deletes: ChangeItem[] = [];
    const now = Date.now();
    for (const item of items) {
      const entityType = entitySpec(item.entityType)!.name;
      if (item.changeType === 'DELETE') deletes.push(item);
      else if (aspectSpec(item.aspect)!.timeseries) timeseries.push(toTimeseriesWrite({ ...item, entityType }));
      else versioned.push({ urn: item.urn, entityType, aspect: item.aspect, value: item.value,
        systemMetadata: item.systemMetadata, actor: actor.urn, time: now });
    }
    // DataHub writes the key aspect of every entity it has not seen; so do we (identical writes are no-ops).
    const newUrns = [...new Set([...versioned, ...timeseries].map((w) => w.urn))];
    const known = newUrns.length ? await this.store.existing(newUrns) : new Set<string>();
    for (const urn of newUrns) {
      if (known.has(urn)) continue;
      const u = parseUrn(urn);
      const spec = entitySpec(u.entityType)!;
      const key = keyAspectValue(spec.name, u.parts);
      if (key) versioned.unshift({ urn, entityType: spec.name, aspect: spec.keyAspect, value: key, systemMetadata: null,
        actor: actor.urn, time: now });
    }
    const results = versioned.length || timeseries.length
      ? await this.store.writeAspects(versioned, this.historyCap, timeseries) : [];
    let deleted = 0;
    for (const d of deletes) {
      deleted += aspectSpec(d.aspect)!.timeseries
        ? await this.store.deleteTimeseriesRange(d.urn, entitySpec(d.entityType)!.name, d.aspect)
        : await this.store.deleteAspects(d.urn, [d.aspect]);
    }
    this.written(items.map((i) => entitySpec(i.entityType)!.name));
    await this.runAfterWrite([...new Set(items.map((i) => i.urn))]);
    const changed = results.filter((r) => r.changed).length;
    return { changed, unchanged: results.length - changed, timeseries: timeseries.length, deleted };
  }

  /**
   * Turns PATCH items into UPSERTs of the patched value (patches of one aspect in one batch apply in order).
   * The read and the write are not one transaction: two concurrent patches of one aspect may lose one.
   */
  private async resolvePatches(items: ChangeItem[]): Promise<ChangeItem[]> {
    if (!items.some((i) => i.changeType === 'PATCH')) return items;
    const pending = new Map<string, unknown>();
    const out: ChangeItem[] = [];
    for (const item of items) {
      if (item.changeType !== 'PATCH') { out.push(item); continue; }
      const spec = aspectSpec(item.aspect);
      if (!spec) throw unprocessable(`Unknown aspect '${item.aspect}'`, { urn: item.urn, aspect: item.aspect });
      if (spec.timeseries) throw unprocessable(`Time-series aspect '${item.aspect}' cannot be patched; send it with UPSERT`);
      const key = `${item.urn}\n${item.aspect}`;
      const current = pending.has(key) ? pending.get(key) : (await this.getLatest(item.urn, [item.aspect])).get(item.aspect)?.value;
      const value = applyPatch(item.aspect, current, item.value);
      pending.set(key, value);
      out.push({ ...item, changeType: 'UPSERT', value });
    }
    return out;
  }

  /** Writes aspects of an entity that must already exist (GraphQL edits): 404 otherwise, nothing written. */
  async writeToExisting(urn: string, aspects: Record<string, unknown>, actor: Actor): Promise<void> {
    await this.requireExists(urn);
    const u = parseUrn(urn);
    const items: ChangeItem[] = Object.entries(aspects).map(([aspect, value]) => ({
      urn, entityType: u.entityType, aspect, changeType: 'UPSERT', value, systemMetadata: null,
    }));
    await this.ingest(items, actor);
  }

  async exists(urn: string): Promise<boolean> {
    return (await this.store.existing([urn])).has(urn);
  }

  async requireExists(urn: string): Promise<Urn> {
    const u = parseUrn(urn);
    if (!(await this.exists(u.raw))) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
    return u;
  }

  async getLatest(urn: string, aspects?: readonly string[]): Promise<Map<string, AspectRecord>> {
    return (await this.store.getLatest([urn], aspects)).get(urn) ?? new Map();
  }

  async getAspect(urn: string, aspect: string, version = 0): Promise<AspectRecord> {
    const u = parseUrn(urn);
    const spec = aspectSpec(aspect);
    if (!spec) throw unprocessable(`Unknown aspect '${aspect}'`, { aspect });
    if (spec.timeseries) throw badRequest(`Aspect '${aspect}' is a time-series aspect; read it with getTimeseriesAspectValues`);
    if (!Number.isInteger(version) || version < 0) throw badRequest(`version must be a whole number ≥ 0, got '${version}'`);
    const rec = await this.store.getVersion(u.raw, aspect, version);
    if (!rec) throw notFound(`Aspect ${aspect} (version ${version}) of ${u.raw} not found`, { urn: u.raw, aspect });
    return rec;
  }

  async deleteEntity(urn: string): Promise<{ rows: number; timeseriesRows: number }> {
    const u = parseUrn(urn);
    const result = await this.store.deleteEntity(u.raw);
    this.written([u.entityType]);
    await this.runAfterWrite([u.raw]);
    return result;
  }
}

function toTimeseriesWrite(item: ChangeItem): TimeseriesWrite {
  const v = item.value as Record<string, unknown>;
  const ts = v.timestampMillis;
  if (typeof ts !== 'number' || !Number.isFinite(ts)) {
    throw unprocessable(`Invalid aspect ${item.aspect}: timestampMillis: required field is missing`, { field: 'timestampMillis' });
  }
  const part = v.partitionSpec as { partition?: string } | undefined;
  const gran = v.eventGranularity as { unit?: string; multiple?: number } | undefined;
  return {
    urn: item.urn, entityType: item.entityType, aspect: item.aspect, timestampMillis: ts,
    partition: part?.partition ?? '',
    granularity: gran?.unit ? `${gran.unit}:${gran.multiple ?? 1}` : '',
    messageId: typeof v.messageId === 'string' ? v.messageId : '',
    value: item.value, systemMetadata: item.systemMetadata,
  };
}
