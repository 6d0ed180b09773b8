import { badRequest, conflict, notFound, unprocessable } from '../errors.js';
import type { AnyAspect, AspectValue, EntityDescriptor, KeyValues } from '../entities/descriptor.js';
import { aspectDef, entityDescriptor, entityHasAspect, keyDisagreement, keyValuesOf, urnKeyProblem } from '../entities/index.js';
import { validateOrThrow } from '../registry/aspect-schemas.js';
import { aspectSpec, entitySpec } from '../registry/registry.js';
import { parseUrn, tryParseUrn, type Urn } from '../model/urn.js';
import { checkExpectedRevision } from '../storage/aspect-updates.js';
import type { AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, EntityRow, LatestAspects, Store, SystemMetadata, TimeseriesWrite } from '../storage/types.js';
import { SYSTEM_ACTOR_URN, type Actor } from '../model/actor.js';
import type { ChangeItem } from './ingest-format.js';
import { applyPatch, type Stamp } from './patch.js';
import { StartedOnce } from '../storage/module-workers.js';

/** The stored values of some aspects, by name, typed by their definitions (a name not stored is absent). */
export interface AspectValues<A extends AnyAspect> {
  get<N extends A['name']>(name: N): AspectValue<Extract<A, { name: N }>> | undefined;
  readonly size: number;
}

/** New values for some of the aspects, by name, each checked against its definition (and validated when written). */
export type AspectWrites<A extends AnyAspect> = { [D in A as D['name']]?: AspectValue<D> };

/**
 * What the entity service checks of each change of an ingest batch before writing it: the whole check of a value
 * (validate), the registry's part alone for a PATCH (its value is checked once applied). Decoding workers run it too
 * (src/services/record-decoding.ts), so that a batch they checked is not checked again (`ingest`'s `validated`).
 */
export function checkBeforeWrite(item: ChangeItem): void {
  if (item.changeType === 'PATCH') checkTarget(item);
  else validateChange(item);
}

/** Checks one change against the registry and the aspect's schema; throws 422/400 naming the problem. */
export function validateChange(item: ChangeItem): void {
  checkTarget(item);
  if (item.changeType === 'DELETE') return;
  validateOrThrow(item.aspect, item.value);
  // A key aspect sent that names another entity than its urn is accepted: see warnKeyDisagreements.
}
/**
 * The urn checkTarget found valid last, with its entity type: a batch sends the aspects of one entity one after another
 * (a dozen for a dataset), and the answer for the same urn and type is the same.
 */
let lastValidUrn: { urn: string; d: unknown } = { urn: '', d: undefined };

/** The registry's part of validate: the entity type has this aspect, and it may be changed this way. */
export function checkTarget(item: ChangeItem): void {
  const d = entityDescriptor(item.entityType);
  if (!d) throw unprocessable(`Unknown entity type '${item.entityType}'`, { urn: item.urn });
  // A malformed urn is refused before anything is written: no read could map the entity afterwards. Deleting an
  // aspect of one (stored before this check) stays possible.
  if (item.changeType !== 'DELETE' && (item.urn !== lastValidUrn.urn || d !== lastValidUrn.d)) {
    const problem = urnKeyProblem(d, parseUrn(item.urn));
    if (problem !== null) throw badRequest(`Invalid urn: '${item.urn}' is not a valid ${d.name} urn: ${problem}`, { urn: item.urn });
    lastValidUrn = { urn: item.urn, d };
  }
  const details = { urn: item.urn, aspect: item.aspect };
  if (!entityHasAspect(d, item.aspect)) {
    if (!aspectDef(item.aspect)) throw unprocessable(`Unknown aspect '${item.aspect}' for entity type '${d.name}'`, details);
    throw unprocessable(`Aspect '${item.aspect}' is not an aspect of entity type '${d.name}'`, details);
  }
  if (item.aspect === d.key.name) {
    if (item.changeType === 'DELETE') throw unprocessable('The key aspect cannot be deleted; delete the entity instead', details);
    if (item.changeType === 'PATCH') throw unprocessable(`Key aspect '${item.aspect}' cannot be patched; it is derived from the urn`, details);
    return;
  }
  if (item.changeType === 'PATCH' && aspectSpec(item.aspect)!.timeseries) {
    throw unprocessable(`Time-series aspect '${item.aspect}' cannot be patched; send it with UPSERT`);
  }
}


function valuesOf<A extends AnyAspect>(stored: ReadonlyMap<string, unknown>): AspectValues<A> {
  return { get: (name) => stored.get(name) as never, size: stored.size };
}

export interface IngestResult {
  /** Versioned aspects whose value changed (a new version was made). */
  changed: number;
  /** Versioned aspects that equalled the latest value. */
  unchanged: number;
  timeseries: number;
  /** DELETE changes applied (each removes an aspect with its history, or one entity's rows of a time-series aspect). */
  deleted: number;
}

/**
 * The catalog's rules for entities and aspects: registry checks, payload validation, key aspects for new
 * entities, versioned vs time-series routing. Every batch is all-or-nothing.
 */
/** What decodes a REST batch body in a worker thread and checks its items (RecordDecoders, src/services/record-decoding.ts). */
export interface BatchDecoder {
  decodeProposalBatch(text: string, maxItems: number): Promise<{ items: ChangeItem[]; invalid?: string } | { unrecognised: string } | { malformed: true }>;
  close(): Promise<void>;
}

/** EntityService.decodeBatchInWorkerFrom's default, in characters. */
const DECODE_BATCH_IN_WORKER_FROM = 128 * 1024;

/** Changes from which one ingest call is indexed as a bulk load (src/changelog/service.ts afterCommit). */
const BULK_BATCH = 5000;

export class EntityService {
  private readonly listeners: ((entityTypes: Set<string>) => void)[] = [];
  /** Where the catalog's warnings go: stderr, or the server's log (src/app.ts). */
  warn: (message: string, fields: Record<string, unknown>) => void = (m) => process.stderr.write(`almanac: warning: ${m}\n`);

  constructor(private readonly store: Store, private readonly historyCap: number) {}

  /**
   * Whether records may be decoded and checked in worker threads (src/services/record-decoding.ts), which know the
   * built-in registry only: off when the deployment's registry has types of its own, and on PostgreSQL (src/catalog.ts).
   */
  decodeInWorkers = true;

  /**
   * REST ingestProposalBatch bodies of this many characters or more are parsed, decoded and checked in a worker thread
   * (decodeProposalBatch), when decodeInWorkers: about 60 of the benchmarks' generated proposals.
   */
  decodeBatchInWorkerFrom = DECODE_BATCH_IN_WORKER_FROM;
  /**
   * Starts the batch decoding worker (RecordDecoders of src/services/record-decoding.ts, handed in by the catalog:
   * that file imports this one); none, batches are decoded by the route.
   */
  batchDecoderStarter: (() => Promise<BatchDecoder | null>) | null = null;
  /** The batch decoding worker (none where it cannot start, or once the service closes). */
  private readonly batchDecoders = new StartedOnce<BatchDecoder>(async () => this.batchDecoderStarter?.() ?? null);

  /**
   * A REST ingestProposalBatch body (`{"proposals": [...]}`), decoded as the route decodes it and checked as `ingest`
   * checks each item, in a worker thread (src/services/record-decoding.ts), its values handed over as the texts the
   * writes store (ChangeWithText: parsed here only if read). Null when the caller is to read it itself: a small body,
   * the worker not started yet (its first call starts it), or anything in the body refused or malformed (the caller
   * then answers as it would without a worker).
   */
  async decodeProposalBatch(text: string, maxItems: number): Promise<ChangeItem[] | null> {
    if (!this.decodesBatchInWorker(text.length)) return null;
    const decoders = this.batchDecoders.current;
    if (decoders === undefined) {
      this.startBatchDecoder().catch(() => {});
      return null;
    }
    if (!decoders) return null;
    const decoded = await decoders.decodeProposalBatch(text, maxItems);
    if (!('items' in decoded) || decoded.invalid !== undefined) return null;
    this.batchesDecodedInWorker++;
    return decoded.items;
  }

  /** Batches decodeProposalBatch handed over decoded by the worker (tests). */
  batchesDecodedInWorker = 0;

  /** Starts the batch decoding worker (once); resolves to whether it runs. */
  async startBatchDecoder(): Promise<boolean> {
    if (!this.decodeInWorkers || !this.batchDecoderStarter) return false;
    return (await this.batchDecoders.started()) !== null;
  }

  /** Whether a REST ingestProposalBatch body of this many characters is decoded in a worker thread (decodeProposalBatch). */
  decodesBatchInWorker(chars: number): boolean {
    return this.decodeInWorkers && chars >= this.decodeBatchInWorkerFrom;
  }

  /** Ends the batch decoding worker, if started (the catalog closes). */
  async close(): Promise<void> {
    await this.batchDecoders.close();
  }

  /** Called after every successful write or delete with the entity types it touched (cache invalidation). */
  onWrite(listener: (entityTypes: Set<string>) => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners these entity types changed: after this process's writes, and for other servers' (the change log's follower). */
  notifyWritten(entityTypes: Iterable<string>): void {
    const set = new Set(entityTypes);
    for (const l of this.listeners) l(set);
  }

  private readonly afterCommitHooks: ((opts: { bulk?: boolean }) => Promise<void>)[] = [];

  /**
   * Awaited after every successful write or delete commits (the change log's consumers: search, relationships); `bulk`
   * at the end of a bulk load, whose writes were left to it.
   */
  afterCommit(hook: (opts: { bulk?: boolean }) => Promise<void>): void {
    this.afterCommitHooks.push(hook);
  }

  /** Runs the after-commit hooks: for writes made straight through the store (time-series deletions), and after a bulk load. */
  async committed(opts: { bulk?: boolean } = {}): Promise<void> {
    for (const h of this.afterCommitHooks) await h(opts);
  }

  /** Checks one change against the registry and the aspect's schema; throws 422/400 naming the problem. */
  validate(item: ChangeItem): void {
    validateChange(item);
  }

  /**
   * The urn is the entity's identity: a key aspect sent with it is stored as the urn derives it. One that names another
   * entity is accepted as DataHub accepts it (connectors send such keys: PowerBI's), with one warning once written.
   */
  private warnKeyDisagreements(items: readonly ChangeItem[]): void {
    for (const item of items) {
      if (item.changeType === 'DELETE' || item.changeType === 'PATCH') continue;
      const d = entityDescriptor(item.entityType)!;
      if (item.aspect !== d.key.name) continue;
      const field = keyDisagreement(d, parseUrn(item.urn), item.value as Record<string, unknown>);
      if (field === null) continue;
      this.warn(`key aspect ${item.aspect} sent for ${item.urn} disagrees with the urn (its ${field}); stored the key the urn derives, `
        + `not the one sent: ${JSON.stringify(item.value)}`, { urn: item.urn, aspect: item.aspect, field, sent: item.value });
    }
  }

  /**
   * Validates every item first, then writes all of them in one transaction. A batch with PATCH items reads and
   * writes the aspects it touches under lock (store.updateAspects): each patch applies to the value stored when it
   * runs, so concurrent patches of one aspect all survive. `indexLater`: the write is not applied to the derived indexes
   * before this returns; a bulk load (src/services/ingest-files.ts) has them catch up once at its end.
   */
  async ingest(input: ChangeItem[], actor: Actor, opts: { indexLater?: boolean; validated?: boolean } = {}): Promise<IngestResult> {
    const patches = input.some((i) => i.changeType === 'PATCH');
    // `validated`: every item has passed checkBeforeWrite already (decoded and checked in a worker thread).
    if (!opts.validated) for (const item of input) checkBeforeWrite(item);
    const now = Date.now();
    // System metadata as DataHub stores it and sends it in the change log: the one sent, else a default (see below).
    const versionedSys = (i: ChangeItem) => versionedSystemMetadata(i.systemMetadata, now);
    // DataHub writes the key aspect of every entity it has not seen; so do we (identical writes are no-ops). Whether the
    // entity exists is decided by the write itself, in its transaction (onlyNewEntity), unless the batch sends that
    // key aspect too: then it is asked first, so that a sent key aspect of an entity that exists is written as sent.
    const newUrns = [...new Set(input.filter((i) => i.changeType !== 'DELETE').map((i) => i.urn))];
    const sendsKey = new Set(input.filter((i) => i.changeType !== 'DELETE' && i.aspect === entityDescriptor(i.entityType)!.key.name).map((i) => i.urn));
    const known = sendsKey.size ? await this.store.existing([...sendsKey]) : new Set<string>();
    const keyWrites: AspectWrite[] = [];
    const firstOf = new Map<string, ChangeItem>();
    for (const i of input) if (i.changeType !== 'DELETE' && !firstOf.has(i.urn)) firstOf.set(i.urn, i);
    for (const urn of newUrns) {
      if (known.has(urn)) continue;
      const u = parseUrn(urn);
      const d = entityDescriptor(u.entityType)!;
      const key = keyValuesOf(d, u);
      // With the system metadata of the (first) proposal that brought it, as DataHub derives it from that proposal.
      if (key) {
        keyWrites.push({ urn, entityType: d.name, aspect: d.key.name, value: keyAspectValue(d, key), systemMetadata: versionedSys(firstOf.get(urn)!), actor: actor.urn,
          time: now, ...(sendsKey.has(urn) ? {} : { onlyNewEntity: true }) });
      }
    }
    const keyWritten = new Set(keyWrites.map((w) => w.urn));
    const plan = (items: ChangeItem[]) => {
      const versioned: AspectWrite[] = [...keyWrites];
      const timeseries: TimeseriesWrite[] = [];
      for (const item of items) {
        if (item.changeType === 'DELETE') continue;
        const d = entityDescriptor(item.entityType)!;
        const entityType = d.name;
        if (item.aspect === d.key.name) {
          // The value written for a sent key aspect is the one derived from the urn (whatever was sent: see warnKeyDisagreements).
          if (keyWritten.has(item.urn)) continue;
          const key = keyValuesOf(d, parseUrn(item.urn));
          if (key) versioned.push({ urn: item.urn, entityType, aspect: item.aspect, value: keyAspectValue(d, key), systemMetadata: versionedSys(item), actor: actor.urn, time: now });
          continue;
        }
        if (aspectSpec(item.aspect)!.timeseries) timeseries.push(toTimeseriesWrite(item, entityType, withDefaultSystemMetadata(item.systemMetadata, now)));
        else versioned.push(versionedWrite(item, entityType, versionedSys(item), actor.urn, now));
      }
      return { writes: versioned, timeseries };
    };
    const deletes = input.filter((i) => i.changeType === 'DELETE');
    const update = (items: ChangeItem[]): AspectUpdate => ({
      ...plan(items),
      deletes: deletes.filter((d) => !aspectSpec(d.aspect)!.timeseries).map((d) => ({ urn: d.urn, aspect: d.aspect, actor: actor.urn })),
      timeseriesDeletes: deletes.filter((d) => aspectSpec(d.aspect)!.timeseries)
        .map((d) => ({ urn: d.urn, entityType: entitySpec(d.entityType)!.name, aspect: d.aspect, actor: actor.urn })),
    });
    const conditional = input.filter((i) => i.expectedVersion !== undefined);
    for (const c of conditional) {
      if (aspectSpec(c.aspect)!.timeseries) {
        throw badRequest(`If-Version-Match applies to versioned aspects; '${c.aspect}' is a time-series aspect`, { urn: c.urn, aspect: c.aspect });
      }
    }
    let results: AspectWriteResult[];
    if (patches || conditional.length || deletes.length) {
      // Under the aspects' locks: patches apply to the value stored when they run, expected versions are checked
      // against it, deletions log what they remove; all of it one transaction.
      const keys = [...keyWrites, ...input.filter((i) => !aspectSpec(i.aspect)!.timeseries)];
      results = await this.store.updateAspects(keys, (current) => {
        for (const c of conditional) checkExpectedRevision(c.urn, c.aspect, c.expectedVersion!, current.get(c.urn)?.get(c.aspect));
        const items = patches ? resolvePatches(input, current, { time: now, actor: SYSTEM_ACTOR_URN }) : input;
        if (patches) items.forEach((item, i) => { if (input[i]!.changeType === 'PATCH') validateOrThrow(item.aspect, item.value); });
        return update(items);
      }, this.historyCap);
    } else {
      const { writes, timeseries } = plan(input);
      results = writes.length || timeseries.length ? await this.store.writeAspects(writes, this.historyCap, timeseries) : [];
    }
    const deleted = deletes.length;
    this.warnKeyDisagreements(input);
    this.notifyWritten(input.map((i) => entitySpec(i.entityType)!.name));
    // A large batch (REST ingestProposalBatch) is indexed as a bulk load is: in large steps.
    if (!opts.indexLater) await this.committed({ bulk: input.length >= BULK_BATCH });
    const changed = results.filter((r) => r.changed).length;
    const timeseriesCount = input.filter((i) => i.changeType !== 'DELETE' && aspectSpec(i.aspect)!.timeseries).length;
    return { changed, unchanged: results.length - changed, timeseries: timeseriesCount, deleted };
  }

  /**
   * Writes aspects of an entity that must already exist (GraphQL edits): 404 otherwise, nothing written. The values
   * are checked against the aspect definitions given (and validated when written).
   */
  async writeToExisting<const As extends readonly AnyAspect[]>(urn: string, aspects: As, values: AspectWrites<As[number]>,
    actor: Actor): Promise<void> {
    await this.requireExists(urn);
    const u = parseUrn(urn);
    const items: ChangeItem[] = Object.entries(values).map(([aspect, value]) => ({
      urn, entityType: u.entityType, aspect, changeType: 'UPSERT', value, systemMetadata: null,
    }));
    await this.ingest(items, actor);
  }

  /**
   * Read-modify-write of aspects of an entity that must exist (404 otherwise, nothing written), with no lost
   * update: the named aspects are locked and read, `modify` returns new values for some of them (or nothing), and
   * these are validated and written in the same transaction. `modify` must be synchronous and work only on the
   * values it is given; what it throws (and a value that fails validation) leaves everything as it was. The values
   * read and written are typed by the aspect definitions given.
   */
  async editExisting<const As extends readonly AnyAspect[]>(urn: string, aspects: As,
    modify: (current: AspectValues<As[number]>) => AspectWrites<As[number]> | null, actor: Actor): Promise<void> {
    await this.editChecked(parseUrn(urn).raw, aspects, modify, actor, { mustExist: true });
  }

  /**
   * editExisting of an entity the caller has just found to exist (`urn` as parseUrn gives it back), or, with
   * `mustExist`, that the write finds to exist in its own transaction (404 otherwise, before `modify` runs).
   */
  async editChecked<const As extends readonly AnyAspect[]>(urn: string, aspects: As,
    modify: (current: AspectValues<As[number]>) => AspectWrites<As[number]> | null, actor: Actor, opts: { mustExist?: boolean } = {}): Promise<void> {
    await this.editByName(new Map([[urn, aspects.map((a) => a.name)]]), (current) => {
      const next = modify(valuesOf<As[number]>(current.get(urn)!));
      return new Map(next ? [[urn, next as Readonly<Record<string, unknown>>]] : []);
    }, actor, opts.mustExist ? [urn] : undefined);
  }

  /**
   * editExisting for several entities in one transaction (all written, or none). The caller has checked that
   * the entities exist.
   */
  async edit<A extends AnyAspect>(targets: ReadonlyMap<string, readonly A[]>,
    modify: (current: Map<string, AspectValues<A>>) => Map<string, AspectWrites<A>>, actor: Actor): Promise<void> {
    return this.editByName(new Map([...targets].map(([urn, defs]) => [urn, defs.map((d) => d.name)])),
      (current) => modify(new Map([...current].map(([urn, m]) => [urn, valuesOf<A>(m)]))), actor);
  }

  /** edit by aspect names, the values as records (validated before they are written). */
  private async editByName(targets: ReadonlyMap<string, readonly string[]>,
    modify: (current: Map<string, Map<string, unknown>>) => Map<string, Readonly<Record<string, unknown>>>, actor: Actor,
    mustExist?: readonly string[]): Promise<void> {
    const keys = [...targets].flatMap(([urn, aspects]) => aspects.map((aspect) => ({ urn, aspect })));
    const now = Date.now();
    const touched = new Map<string, string>();
    const results = await this.store.updateAspects(keys, (latest) => {
      const current = new Map([...targets.keys()].map((urn) =>
        [urn, new Map([...(latest.get(urn) ?? [])].map(([aspect, rec]) => [aspect, rec.value]))]));
      const writes: AspectWrite[] = [];
      for (const [urn, values] of modify(current)) {
        const entityType = parseUrn(urn).entityType;
        for (const [aspect, value] of Object.entries(values)) {
          this.validate({ urn, entityType, aspect, changeType: 'UPSERT', value, systemMetadata: null });
          const name = entitySpec(entityType)!.name;
          touched.set(urn, name);
          writes.push({ urn, entityType: name, aspect, value, systemMetadata: versionedSystemMetadata(null, now), actor: actor.urn, time: now });
        }
      }
      return { writes };
    }, this.historyCap, mustExist);
    if (results.length === 0) return;
    this.notifyWritten(touched.values());
    await this.committed();
  }

  /**
   * Creates an entity from these aspects unless it exists: the existence check and the write happen under the
   * aspects' locks, so of two concurrent creations of one urn exactly one succeeds and the other gets 409.
   */
  async createOnce<const As extends readonly AnyAspect[]>(urn: string, aspects: As, values: AspectWrites<As[number]>, actor: Actor,
    what: string): Promise<void> {
    const conflictError = () => conflict(`This ${what} already exists: ${urn}`, { urn });
    if (await this.exists(urn)) throw conflictError();
    await this.editByName(new Map([[urn, aspects.map((a) => a.name)]]), (current) => {
      if ((current.get(urn)?.size ?? 0) > 0) throw conflictError();
      return new Map([[urn, values]]);
    }, actor);
  }

  async exists(urn: string): Promise<boolean> {
    return (await this.store.existing([urn])).has(urn);
  }

  async requireExists(urn: string): Promise<Urn> {
    const u = parseUrn(urn);
    if (!(await this.exists(u.raw))) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
    return u;
  }

  /**
   * The latest values of some aspects of several entities, typed by the aspect definitions given (their values were
   * validated when written). An entity with none of them is absent.
   */
  async latestValues<const As extends readonly AnyAspect[]>(urns: readonly string[], aspects: As): Promise<Map<string, AspectValues<As[number]>>> {
    const latest = await this.store.getLatest(urns, aspects.map((a) => a.name));
    return new Map([...latest].map(([urn, m]) => [urn, valuesOf<As[number]>(new Map([...m].map(([aspect, rec]) => [aspect, rec.value])))]));
  }

  async getLatest(urn: string, aspects?: readonly string[]): Promise<Map<string, AspectRecord>> {
    return (await this.getLatestOf([urn], aspects)).get(urn) ?? new Map();
  }

  /** getLatest for several entities in one read: urn → aspect → record; an entity with none of them is absent. */
  getLatestOf(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>> {
    return this.store.getLatest(urns, aspects);
  }

  /** Which of the urns name a stored entity. */
  existing(urns: readonly string[]): Promise<Set<string>> {
    return this.store.existing(urns);
  }

  /** One stored version of an aspect (0 is the latest), or null; unlike getAspect, no check of the urn or aspect. */
  storedVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null> {
    return this.store.getVersion(urn, aspect, version);
  }

  /** Every stored version of an aspect of an entity (the history kept: historyCap). */
  versions(urn: string, aspect: string): Promise<AspectRecord[]> {
    return this.store.listVersions(urn, aspect);
  }

  /** Stored entities in urn order, of one type when given: a page from `start`, or the page after the urn `after`. */
  list(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
    return this.store.listEntities(opts);
  }

  /** Deletes an entity's values of a time-series aspect in a range (every one without bounds): how many went. */
  async deleteTimeseriesRange(urn: string, aspect: string, range: { startTimeMillis?: number; endTimeMillis?: number }, actor: Actor): Promise<number> {
    const n = await this.store.deleteTimeseriesRange(urn, entitySpec(parseUrn(urn).entityType)!.name, aspect,
      range.startTimeMillis, range.endTimeMillis, actor.urn);
    await this.committed();
    return n;
  }

  async getAspect(urn: string, aspect: string, version = 0): Promise<AspectRecord> {
    const u = parseUrn(urn);
    // A urn that cannot name an entity (unknown type, wrong number of key parts) is the caller's mistake, not a miss.
    const d = entityDescriptor(u.entityType);
    if (!d) throw badRequest(`Invalid urn '${u.raw}': unknown entity type '${u.entityType}'`, { urn: u.raw });
    if (!keyValuesOf(d, u)) {
      const fields = d.key.fields.map((f) => f.name);
      throw badRequest(`Invalid urn '${u.raw}': a ${d.name} urn has ${fields.length} key parts (${fields.join(', ')}), this one has ${u.parts.length}`,
        { urn: u.raw });
    }
    const spec = aspectSpec(aspect);
    if (!spec) {
      // An aspect no longer declared (taken out of the deployment's ALMANAC_REGISTRY file) stays readable as stored.
      if (!Number.isInteger(version) || version < 0) throw badRequest(`version must be a whole number ≥ 0, got '${version}'`);
      const stored = await this.store.getVersion(u.raw, aspect, version);
      if (stored) return stored;
      throw unprocessable(`Unknown aspect '${aspect}'`, { aspect });
    }
    if (spec.timeseries) throw badRequest(`Aspect '${aspect}' is a time-series aspect; read it with getTimeseriesAspectValues`);
    if (!Number.isInteger(version) || version < 0) throw badRequest(`version must be a whole number ≥ 0, got '${version}'`);
    const rec = await this.store.getVersion(u.raw, aspect, version);
    if (!rec) throw notFound(`Aspect ${aspect} (version ${version}) of ${u.raw} not found`, { urn: u.raw, aspect });
    return rec;
  }

  /**
   * Stored entities whose urn no write accepts today (stored before writes checked urns, or by an older build), each
   * with why, in urn order: what `almanac doctor` lists. Reads leave them out; deleting them is the remedy.
   */
  async invalidUrns(): Promise<{ urn: string; entityType: string; problem: string }[]> {
    const out: { urn: string; entityType: string; problem: string }[] = [];
    for (let after: string | undefined; ;) {
      const rows = await this.store.listEntities({ count: 1000, after });
      for (const r of rows) {
        const u = tryParseUrn(r.urn);
        const d = entityDescriptor(typeof u === 'string' ? r.entityType : u.entityType);
        const problem = typeof u === 'string' ? u : d ? urnKeyProblem(d, u) : `unknown entity type '${u.entityType}'`;
        if (problem !== null) out.push({ urn: r.urn, entityType: r.entityType, problem });
      }
      if (rows.length < 1000) return out;
      after = rows[rows.length - 1]!.urn;
    }
  }

  /** Deletes the entity with every aspect, time-series row and index entry, in one transaction. */
  async deleteEntity(urn: string, actor?: Actor): Promise<{ rows: number; timeseriesRows: number }> {
    const u = parseUrn(urn);
    const result = await this.store.deleteEntity(u.raw, actor?.urn ?? SYSTEM_ACTOR_URN);
    this.notifyWritten([u.entityType]);
    await this.committed();
    return result;
  }
}

/**
 * The key aspect's value written for a urn: its key fields in order, as a plain object of its own. Made field by field:
 * spreading the key (a lookup table, whose null prototype gives it no fixed shape) was a fifth of this service's own
 * CPU per single-proposal ingest, which writes a new entity's key aspect with every proposal.
 */
function keyAspectValue(d: EntityDescriptor, key: KeyValues): Record<string, string> {
  const value: Record<string, string> = {};
  for (const f of d.key.fields) value[f.name] = key[f.name]!;
  return value;
}

/** The runId DataHub gives metadata sent without one: never rolled back. */
export const DEFAULT_RUN_ID = 'no-run-id-provided';

/**
 * The system metadata DataHub 0.12.1 stores with a write (AbstractBatchItem.generateSystemMetadataIfEmpty): the one
 * sent, else `{runId: 'no-run-id-provided', lastObserved: <now, ms>}`. A copy: the item's own is left as it was.
 */
export function withDefaultSystemMetadata(sent: SystemMetadata | null, now: number): SystemMetadata {
  return sent ? { ...sent } : { runId: DEFAULT_RUN_ID, lastObserved: now };
}

/**
 * A versioned aspect's system metadata: withDefaultSystemMetadata's, also naming the run that last wrote it, `lastRunId`
 * (EntityServiceImpl ingestAspectToLocalDB): the write's `runId`, when it has one. Time-series rows keep the metadata as
 * sent. A copy: the item's own is left as it was.
 */
function versionedSystemMetadata(sent: SystemMetadata | null, now: number): SystemMetadata {
  // withDefaultSystemMetadata's copy and this one made as one (a second spread of the sent object cost a microsecond or two a write).
  if (!sent) return { runId: DEFAULT_RUN_ID, lastObserved: now, lastRunId: DEFAULT_RUN_ID };
  return typeof sent.runId === 'string' ? { ...sent, lastRunId: sent.runId } : { ...sent };
}

/**
 * Turns PATCH items into UPSERTs of the patched value, against the values read under lock. Changes of one aspect
 * in one batch apply in order: a patch after an UPSERT (or another patch) of the same aspect applies to that value.
 */
function resolvePatches(items: ChangeItem[], current: LatestAspects, stamp: Stamp): ChangeItem[] {
  const pending = new Map<string, unknown>();
  return items.map((item) => {
    if (item.changeType === 'DELETE' || aspectSpec(item.aspect)!.timeseries) return item;
    const key = `${item.urn}\n${item.aspect}`;
    if (item.changeType !== 'PATCH') {
      pending.set(key, item.value);
      return item;
    }
    const base = pending.has(key) ? pending.get(key) : current.get(item.urn)?.get(item.aspect)?.value;
    const value = applyPatch(item.aspect, base, item.value, stamp);
    pending.set(key, value);
    return { ...item, changeType: 'UPSERT', value, valueJson: undefined };
  });
}

/**
 * The write of a versioned aspect's value. A value that came as text (ChangeWithText) is stored as that text, and
 * parsed only if the store reads it (a write never does when it has the text).
 */
function versionedWrite(item: ChangeItem, entityType: string, systemMetadata: SystemMetadata, actor: string, time: number): AspectWrite {
  if (item.valueJson === undefined) return { urn: item.urn, entityType, aspect: item.aspect, value: item.value, systemMetadata, actor, time };
  return { urn: item.urn, entityType, aspect: item.aspect, get value() { return item.value; }, json: item.valueJson, systemMetadata, actor, time };
}

function toTimeseriesWrite(item: ChangeItem, entityType: string, systemMetadata: SystemMetadata | null): TimeseriesWrite {
  const v = item.value as Record<string, unknown>;
  const ts = v.timestampMillis;
  if (typeof ts !== 'number' || !Number.isFinite(ts)) {
    throw unprocessable(`Invalid aspect ${item.aspect}: timestampMillis: required field is missing`, { field: 'timestampMillis' });
  }
  const part = v.partitionSpec as { partition?: string } | undefined;
  const gran = v.eventGranularity as { unit?: string; multiple?: number } | undefined;
  return {
    urn: item.urn, entityType, aspect: item.aspect, timestampMillis: ts,
    partition: part?.partition ?? '',
    granularity: gran?.unit ? `${gran.unit}:${gran.multiple ?? 1}` : '',
    messageId: typeof v.messageId === 'string' ? v.messageId : '',
    value: item.value, ...(item.valueJson === undefined ? {} : { json: item.valueJson }), systemMetadata,
  };
}
