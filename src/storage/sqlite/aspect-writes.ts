import { addLatest, aspectKey, checkUpdate, entityMissing, planVersion, type VersionPlan } from '../aspect-updates.js';
import { CharBudgetMap } from '../char-budget-map.js';
import { deleteChange, SYSTEM_ACTOR, type ChangeRow, type StoredLatest } from '../change-log.js';
import type { ParsedValues } from '../parsed-values.js';
import { deepFreeze } from '../../model/deep-freeze.js';
import { ASPECT_TABLE, ENTITY_TABLE, recordOf, type AspectRow } from '../schema.js';
import { readJson, sameStored, storeJson, storeJsonBatch, type StoredJson } from '../stored-json.js';
import { valueJsonOf, type AspectKey, type AspectUpdate, type AspectWrite, type AspectWriteResult, type ChangeRecord, type LatestAspects, type TimeseriesWrite } from '../types.js';
import { logReferences, planVersions, type PlannedRow } from '../version-plan.js';
import type Database from 'better-sqlite3';
import * as changeLog from './change-log.js';
import { urnNumberer } from './urn-numbers.js';
import type { SqliteConnection } from './connection.js';
import * as timeseries from './timeseries.js';

/**
 * Aspect writes on SQLite: new versions, their history and log entries, written by group commit under the database's
 * write lock. Holds the group commit's state (the writes waiting, the groups taken and not committed yet).
 */
export class SqliteAspectWrites {
  /**
   * `latestValues`: the store's parsed latest values (updates read through them); `justWritten`: the texts of the
   * compressed values written last, which the store's reads answer from.
   */
  constructor(private readonly conn: SqliteConnection, private readonly latestValues: ParsedValues,
    private readonly justWritten: RecentTexts) {
    // Made once: better-sqlite3 builds a transaction function's wrappers each time one is made.
    this.plainGroupTransaction = conn.db.transaction((group: readonly GroupedWrite[], outcomes: Outcome[], failed: { write: boolean }) => {
      for (let i = 0; i < group.length;) {
        // Consecutive read-modify-writes (updateAspects) are planned and written together (updateRun).
        let end = i;
        while (end < group.length && group[end]!.update && group[end]!.update!.historyCap === group[i]!.update?.historyCap) end++;
        try {
          if (end - i >= 2) {
            this.updateRun(group.slice(i, end), outcomes);
            i = end;
          } else {
            outcomes.push({ ok: true, value: group[i]!.write() });
            i++;
          }
        } catch (error) {
          failed.write = true;
          throw error;
        }
      }
    });
    const savepoint = conn.db.transaction((write: () => AspectWriteResult[]) => write());
    this.groupTransaction = conn.db.transaction((group: readonly GroupedWrite[], outcomes: Outcome[], entries: ChangeRecord[]) => {
      for (const w of group) {
        const logged = entries.length;
        // A transaction function called inside a transaction is a savepoint (released, or rolled back on a throw).
        try {
          outcomes.push({ ok: true, value: savepoint(w.write) });
        } catch (error) {
          // Its log entries went with it (their offsets are given again to the writes after it).
          entries.length = logged;
          // Some failures (an I/O error, a full disk) end the whole transaction: then no write of the group stands.
          if (!conn.db.inTransaction) throw error;
          outcomes.push({ ok: false, error });
        }
      }
    });
  }

  /**
   * One group's transaction with no savepoint: what a group is first tried as. A savepoint per write costs two
   * statements and a copy of every page the write changes (SQLite keeps the pages' earlier content to roll back to):
   * with them, 32 concurrent `updateDescription` requests took 16 % more of the server's CPU each (338 against 292 ms
   * per 1,000, medians of 4 alternated runs of bench/write-cpu.ts, 2026-11-28), single-proposal ingests about 3 % more.
   * Writes rarely fail; a group one of them fails in is made again with savepoints (groupTransaction), so that only
   * that write fails.
   */
  private readonly plainGroupTransaction: Database.Transaction<(group: readonly GroupedWrite[], outcomes: Outcome[], failed: { write: boolean }) => void>;
  /** One group's transaction: each write in a savepoint of its own, its outcome pushed in order, its log entries too. */
  private readonly groupTransaction: Database.Transaction<(group: readonly GroupedWrite[], outcomes: Outcome[], entries: ChangeRecord[]) => void>;
  /** The log entries of the group being written (what the follower hears once it commits). */
  private groupEntries: ChangeRecord[] | undefined;

  /**
   * The write's statements, looked up once: conn.stmt finds a statement by its SQL text, which a template literal
   * builds (and the lookup hashes) anew at every call.
   */
  private cachedStatements: ReturnType<typeof writeStatements> | undefined;
  private get statements(): ReturnType<typeof writeStatements> {
    return (this.cachedStatements ??= writeStatements(this.conn));
  }

  /** Returns once every write already asked for is committed (or has failed). */
  async drain(): Promise<void> {
    this.takeGroup();
    await this.committing;
  }

  async writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    const texts = writes.map(valueJsonOf);
    if (texts.reduce((n, t) => n + t.length, 0) < ENCODE_IN_POOL_FROM) {
      const now = new Map(writes.map((w, i) => [w, { json: texts[i]!, stored: storeJson(texts[i]!) }]));
      return this.grouped(() => this.writeLocked({ writes, timeseries }, historyCap, now));
    }
    // The write takes its place in the commit order now; its values are encoded meanwhile, before its group commits.
    // Time-series events (profiles, usage) too: the same batch, compressed once for their table and their log entry.
    const events = timeseries.map(valueJsonOf);
    let encoded: Map<AspectWrite | TimeseriesWrite, EncodedValue> | undefined;
    const prepared = encodeAhead([...writes, ...timeseries], [...texts, ...events]).then((e) => { encoded = e; });
    return this.grouped(() => this.writeLocked({ writes, timeseries }, historyCap, encoded), prepared);
  }

  /** Under the database's write lock from the read on, so no other writer (or process) comes between. */
  async updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number,
    mustExist?: readonly string[]): Promise<AspectWriteResult[]> {
    const { readLatestRow: read, entityExists } = this.statements;
    // Alone (or in a group retried write by write), it reads and writes for itself; beside others, updateRun.
    return this.grouped(() => {
      for (const urn of mustExist ?? []) if (entityExists.get(urn) === undefined) throw entityMissing(urn);
      const current: LatestAspects = new Map();
      // The rows read here are the ones the write plans from (nothing else writes under the lock): not read twice.
      const rows = new Map<string, RawLatest | null>();
      for (const k of keys) {
        const row = read.get(k.urn, k.aspect) as AspectRow | undefined;
        rows.set(aspectKey(k), row ?? null);
        if (row) addLatest(current, this.latestValues.record(row));
      }
      return this.writeLocked(checkUpdate(keys, modify(current)), historyCap, undefined, rows);
    }, undefined, { keys, modify, historyCap, mustExist });
  }

  /**
   * Read-modify-writes that follow one another in a group, made as one batch: each modify sees what those before it
   * wrote (their new latest rows, kept here as SQLite would give them back), and their writes are planned together
   * and written by one writeLocked, as a batch of ingested aspects is. Writes of one aspect in a row (concurrent edits
   * of a dataset's columns) then cost one read of it, one replacement of its latest and one trim of its history,
   * where each alone copied the latest to history, replaced it and trimmed a history row (whose trigger rewrites two
   * log entries); versions the history cap drops are never written. The rows and log entries are those the writes
   * leave one after another (planVersions plans a batch that way). A modify that throws writes nothing and fails
   * alone, as in its own savepoint; a write that also deletes or writes time series, or only for a new entity, runs
   * alone after what came before it. Fills `outcomes` in the order of `run`; throws when a statement fails, and the
   * group is then made again write by write.
   */
  private updateRun(run: readonly GroupedWrite[], outcomes: Outcome[]): void {
    const { readLatestRow: read, entityExists } = this.statements;
    const historyCap = run[0]!.update!.historyCap;
    /**
     * The latest row of each aspect read or written so far (null: none); one this run wrote has its text (the row's
     * `metadata` too). Its value once a modify has read it: ParsedValues's for a row read, else parsed and frozen here.
     */
    const latest = new Map<string, { row: AspectRow; text?: string; value?: unknown } | null>();
    /** Urns the writes so far name: their entity rows exist once those are written. */
    const named = new Set<string>();
    let batch: AspectWrite[] = [];
    /** The rows the batch's aspects had before it (what writeLocked plans from), by aspectKey. */
    let before = new Map<string, RawLatest | null>();
    let owners: { at: number; count: number }[] = [];
    /** What each write of the batch does to its aspect's versions, worked out below against the latest it finds. */
    let decided = new Map<AspectWrite, VersionPlan>();
    const flush = () => {
      if (batch.length === 0) return;
      const results = this.writeLocked({ writes: batch }, historyCap, undefined, before, decided);
      let from = 0;
      for (const o of owners) {
        outcomes[o.at] = { ok: true, value: results.slice(from, from + o.count) };
        from += o.count;
      }
      batch = [];
      before = new Map();
      decided = new Map();
      owners = [];
    };
    for (const w of run) {
      const { keys, modify, mustExist } = w.update!;
      const at = outcomes.length;
      outcomes.push({ ok: true, value: [] });
      let update: AspectUpdate;
      try {
        for (const urn of mustExist ?? []) if (!named.has(urn) && entityExists.get(urn) === undefined) throw entityMissing(urn);
        const current: LatestAspects = new Map();
        for (const k of keys) {
          const key = aspectKey(k);
          let entry = latest.get(key);
          if (entry === undefined) {
            const row = (read.get(k.urn, k.aspect) as AspectRow | undefined) ?? null;
            before.set(key, row);
            latest.set(key, (entry = row && { row }));
          }
          if (!entry) continue;
          // Each modify gets records of its own, sharing the frozen values (as ParsedValues hands them out).
          entry.value ??= entry.text === undefined ? this.latestValues.record(entry.row).value : deepFreeze(JSON.parse(entry.text));
          addLatest(current, recordOf(entry.row, entry.value));
        }
        update = checkUpdate(keys, modify(current));
      } catch (error) {
        // Nothing of this write was made; a failure that ended the transaction ends the group.
        if (!this.conn.db.inTransaction) throw error;
        outcomes[at] = { ok: false, error };
        continue;
      }
      if (update.deletes?.length || update.timeseriesDeletes?.length || update.timeseries?.length || update.writes.some((x) => x.onlyNewEntity)) {
        flush();
        outcomes[at] = { ok: true, value: this.writeLocked(update, historyCap) };
        // What it wrote is read again by the writes after it.
        latest.clear();
        continue;
      }
      for (const x of update.writes) {
        const key = aspectKey(x);
        const entry = latest.get(key) ?? null;
        const text = valueJsonOf(x);
        const sys = x.systemMetadata ? JSON.stringify(x.systemMetadata) : null;
        // Planned with its text and time fixed now, so that the batch stores what this run hands the writes after it.
        const write: AspectWrite = { ...x, json: text, time: x.time ?? Date.now() };
        const cur = entry ? { metadata: entry.text ?? this.justWritten.text(x.urn, x.aspect, entry.row.metadata), systemmetadata: entry.row.systemmetadata,
          revision: entry.row.revision } : undefined;
        const plan = planVersion(cur, text, sys, historyCap);
        if (plan.unchanged) {
          if (plan.touch !== null) latest.set(key, { ...entry!, row: { ...entry!.row, systemmetadata: plan.touch } });
        } else {
          latest.set(key, { row: { urn: x.urn, aspect: x.aspect, version: 0, metadata: text, systemmetadata: sys, createdon: write.time!,
            createdby: x.actor, revision: plan.revision }, text });
        }
        named.add(x.urn);
        batch.push(write);
        decided.set(write, plan);
      }
      if (update.writes.length) owners.push({ at, count: update.writes.length });
    }
    flush();
  }

  /** Aspect writes waiting for the group commit scheduled on the event loop's next turn. */
  private groupWaiting: GroupedWrite[] = [];
  /** The groups taken and not committed yet, in order (a group waits for its writes' values to be encoded). */
  private committing: Promise<void> = Promise.resolve();
  private groupsPending = 0;

  /**
   * Group commit: the aspect writes requested during one turn of the event loop (concurrent requests) are made on the
   * next turn in one transaction; one failing write undoes only itself (the group is then made again with a savepoint
   * per write, commitGroup). A
   * commit writes every page its transaction changed to the WAL; pages that concurrent writes share (the log's last
   * page, the entity and aspect tables' and their indexes' busiest pages) are then written once per group instead of
   * once per write. Nothing is visible before the commit and every caller waits for it, so no answer reports a write
   * that could still be lost; reads made meanwhile see the state before the group, as they would have before the
   * writes started.
   */
  private grouped(write: () => AspectWriteResult[], prepared?: Promise<void>, update?: GroupedWrite['update']): Promise<AspectWriteResult[]> {
    return new Promise((resolve, reject) => {
      // Settled into an outcome at once, so that a failed encoding is never an unhandled rejection while it waits.
      this.groupWaiting.push({ write, resolve, reject, prepared: prepared?.then(() => null, (error: unknown) => ({ error })), ...(update ? { update } : {}) });
      if (this.groupWaiting.length === 1) setImmediate(() => this.takeGroup());
    });
  }

  /**
   * Commits the waiting group: at once when nothing is left to wait for, otherwise once its writes' values are encoded
   * and the groups before it have committed (groups commit in the order they were taken, writes in the order made).
   */
  private takeGroup(): void {
    const group = this.groupWaiting;
    this.groupWaiting = [];
    if (group.length === 0) return;
    if (this.groupsPending === 0 && group.every((w) => w.prepared === undefined)) {
      this.commitGroup(group);
      return;
    }
    this.groupsPending++;
    this.committing = this.committing
      .then(() => Promise.all(group.map((w) => w.prepared)))
      .then((failures) => {
        const ready = group.filter((w, i) => {
          const failed = failures[i];
          if (failed) w.reject(failed.error);
          return !failed;
        });
        this.commitGroup(ready);
      })
      // Never leaves a write waiting, nor the chain broken for the groups after it (settled promises ignore this).
      .catch((error: unknown) => { for (const w of group) w.reject(error); })
      .finally(() => { this.groupsPending--; });
  }

  private commitGroup(group: readonly GroupedWrite[]): void {
    if (group.length === 0) return;
    const outcomes: Outcome[] = [];
    const entries: ChangeRecord[] = [];
    this.groupEntries = entries;
    try {
      const failed = { write: false };
      try {
        this.plainGroupTransaction.immediate(group, outcomes, failed);
      } catch (error) {
        // Nothing of the group stands. A failed BEGIN or COMMIT fails every write, as before; a write that failed alone
        // fails as it would have in a savepoint; otherwise the group is made again, each write in a savepoint, so that
        // the others stand.
        if (!failed.write || group.length === 1) throw error;
        outcomes.length = 0;
        entries.length = 0;
        this.groupTransaction.immediate(group, outcomes, entries);
      }
    } catch (error) {
      for (const w of group) w.reject(error);
      return;
    } finally {
      this.groupEntries = undefined;
    }
    // Committed: the follower hears its entries before any of its writers answers (src/changelog/service.ts).
    this.conn.own?.committed(entries);
    group.forEach((w, i) => {
      const o = outcomes[i]!;
      if (o.ok) w.resolve(o.value); else w.reject(o.error);
    });
  }

  /** Writes new versions of aspects, time-series rows and deletions, and logs each change; runs inside a write transaction. */
  /**
   * `read`: latest rows this transaction has just read (null: none stored), by aspectKey; the others are read here.
   * `decided`: planVersion's answer for writes whose caller worked it out already (planVersions).
   */
  private writeLocked(update: AspectUpdate, historyCap: number, encoded?: ReadonlyMap<AspectWrite | TimeseriesWrite, EncodedValue>,
    read?: ReadonlyMap<string, RawLatest | null>, decided?: ReadonlyMap<AspectWrite, VersionPlan>): AspectWriteResult[] {
    const { getLatest, copyLatest, insertRow, replaceLatest, touch, trim, addEntity } = this.statements;

    // The stored form of each value text this call wrote or read, so that the log stores it without compressing again.
    const known = new Map<string, StoredJson>();
    // Entities whose row this call makes sure of, once each (an ingest batch writes a dozen aspects of each entity).
    const entities = new Map<string, [string, number]>();
    for (const w of update.writes) if (!entities.has(w.urn)) entities.set(w.urn, [w.entityType, w.time ?? Date.now()]);
    const created = new Set<string>();
    for (const [urn, [type, on]] of entities) if (addEntity.run(urn, type, on).changes === 1) created.add(urn);
    // A write for new entities only goes when this call made its entity's row.
    const writes = update.writes.some((w) => w.onlyNewEntity) ? update.writes.filter((w) => !w.onlyNewEntity || created.has(w.urn)) : update.writes;
    const stored = new Map<string, StoredLatest>();
    for (const w of writes) {
      const k = aspectKey(w);
      // An entity whose row this call made has no aspect stored (its row goes only with all of them): not looked up,
      // which spares a bulk load of new entities a read per aspect.
      if (stored.has(k) || (created.has(w.urn) && !read?.has(k))) continue;
      const raw = read?.has(k) ? read.get(k) : getLatest.get(w.urn, w.aspect) as RawLatest | undefined;
      if (!raw) continue;
      const ahead = encoded?.get(w);
      // The same stored bytes are the same text: a value sent again unchanged is not decompressed to be compared, nor
      // one this process wrote last.
      const metadata = ahead && sameStored(ahead.stored, raw.metadata) ? ahead.json : this.justWritten.text(w.urn, w.aspect, raw.metadata);
      known.set(metadata, raw.metadata);
      stored.set(k, { metadata, systemmetadata: raw.systemmetadata, revision: raw.revision });
    }
    const plan = planVersions(stored, writes, historyCap, (w) => encoded?.get(w)?.json, decided);
    for (const w of writes) {
      const e = encoded?.get(w);
      if (e && !known.has(e.json)) known.set(e.json, e.stored);
    }
    // The entries first: each version row keeps the offset of the entry that wrote it, which names it for its values.
    // The urns' numbers looked up once for the call's entries (its versions', its time-series rows', its deletions').
    const number = urnNumberer(this.conn);
    const seqs = changeLog.appendChanges(this.conn, plan.log, known, this.groupEntries, logReferences(plan), number);
    const seqOf = new Map<PlannedRow, number>(plan.logVersions.map((v, i) => [v.row, seqs[i]!]));
    for (const t of plan.touches) touch.run(t.sys, t.urn, t.aspect);
    for (const m of plan.copies) copyLatest.run(m.version, m.urn, m.aspect);
    for (const t of plan.trims) trim.run(t.urn, t.aspect, t.upto);
    for (const r of plan.rows) {
      let value = known.get(r.json);
      if (value === undefined) known.set(r.json, (value = storeJson(r.json)));
      if (r.version === 0) this.justWritten.add(r.urn, r.aspect, value, r.json);
      const seq = seqOf.get(r);
      // The stored latest is replaced in place; every other row is new (history rows above the stored revisions). Not
      // an upsert: the trigger on updates of the table (migration 16) would slow every insert of one.
      if (r.version === 0 && stored.has(aspectKey(r))) replaceLatest.run(value, r.sys, r.createdOn, r.createdBy, r.revision, seq, r.urn, r.aspect);
      else insertRow.run(r.urn, r.aspect, r.version, value, r.sys, r.createdOn, r.createdBy, r.revision, seq);
    }
    const log: ChangeRow[] = [];
    const results = plan.results;
    timeseries.upsertTimeseriesRows(this.conn, update.timeseries ?? [], known, encoded, entities, this.groupEntries, number);
    for (const d of update.deletes ?? []) this.deleteAspectRows(d.urn, [d.aspect], d.actor, log);
    for (const d of update.timeseriesDeletes ?? []) timeseries.deleteTimeseriesRows(this.conn, d.urn, d.entityType, d.aspect, undefined, undefined, d.actor, log);
    changeLog.appendChanges(this.conn, log, known, this.groupEntries, undefined, number);
    return results;
  }


  /** Deletes every version of some aspects of an entity, logging the latest value of each; inside a write transaction. */
  deleteAspectRows(urn: string, aspects: readonly string[], actor: string, log: ChangeRow[]): number {
    const entityType = this.conn.stmt(`SELECT entity_type FROM ${ENTITY_TABLE} WHERE urn = ?`).pluck().get(urn) as string | undefined;
    const latest = this.conn.stmt(`SELECT metadata, systemmetadata, revision FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`);
    const del = this.conn.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ?`);
    let rows = 0;
    const now = Date.now();
    for (const aspect of aspects) {
      const raw = latest.get(urn, aspect) as RawLatest | undefined;
      rows += del.run(urn, aspect).changes;
      if (raw && entityType) log.push(deleteChange(urn, entityType, aspect, { ...raw, metadata: readJson(raw.metadata) }, actor, now));
    }
    return rows;
  }

  async deleteAspects(urn: string, aspects: readonly string[], actor = SYSTEM_ACTOR): Promise<number> {
    if (aspects.length === 0) return 0;
    return this.conn.db.transaction(() => {
      const log: ChangeRow[] = [];
      const n = this.deleteAspectRows(urn, aspects, actor, log);
      changeLog.appendChanges(this.conn, log);
      return n;
    }).immediate();
  }
}

/**
 * The text of the compressed values written last, by urn and aspect, up to a budget: the search and relationship
 * indexes read every aspect a write changed right after it commits, and would otherwise decompress each again.
 * A stored value is answered from here only when its bytes are the ones written (so never stale).
 */
export class RecentTexts {
  private readonly texts = new CharBudgetMap<{ stored: Buffer; text: string }>(8_000_000);

  add(urn: string, aspect: string, stored: StoredJson, text: string): void {
    if (typeof stored !== 'string') this.texts.set(aspectKey({ urn, aspect }), { stored, text }, text.length);
  }

  text(urn: string, aspect: string, stored: StoredJson): string {
    if (typeof stored === 'string') return stored;
    const hit = this.texts.get(aspectKey({ urn, aspect }));
    return hit && hit.stored.equals(stored) ? hit.text : readJson(stored);
  }
}

/**
 * Values of a write whose JSON is smaller than this in all are compressed on the event loop's thread: zlib on the
 * thread pool costs about five times the CPU for a value of a few kB (a stream, a hop to the pool and back), which is
 * what a request writing one aspect pays. Larger writes (ingest batches) are compressed in a worker thread, on another
 * core (storeJsonBatch).
 */
const ENCODE_IN_POOL_FROM = 256 * 1024;

/** The latest row of an aspect as SQLite stores it (its value possibly compressed). */
type RawLatest = Omit<StoredLatest, 'metadata'> & { metadata: StoredJson };

/** What a write of a group came to. */
type Outcome = { ok: true; value: AspectWriteResult[] } | { ok: false; error: unknown };

/** The statements of aspect writes. */
function writeStatements(conn: SqliteConnection) {
  return {
    readLatestRow: conn.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`),
    getLatest: conn.stmt(`SELECT metadata, systemmetadata, revision FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`),
    copyLatest: conn.stmt(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby, revision, log_seq)
      SELECT urn, aspect, ?, metadata, systemmetadata, createdon, createdby, revision, log_seq FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`),
    insertRow: conn.stmt(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby, revision, log_seq)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    replaceLatest: conn.stmt(`UPDATE ${ASPECT_TABLE} SET metadata = ?, systemmetadata = ?, createdon = ?, createdby = ?, revision = ?, log_seq = ?
      WHERE urn = ? AND aspect = ? AND version = 0`),
    touch: conn.stmt(`UPDATE ${ASPECT_TABLE} SET systemmetadata = ? WHERE urn = ? AND aspect = ? AND version = 0`),
    trim: conn.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version > 0 AND version <= ?`),
    addEntity: conn.stmt(`INSERT OR IGNORE INTO ${ENTITY_TABLE} (urn, entity_type, created_on) VALUES (?, ?, ?)`),
    entityExists: conn.stmt(`SELECT 1 FROM ${ENTITY_TABLE} WHERE urn = ?`).pluck(),
  };
}

/** A write waiting for its group's commit; `prepared` settles when its values are encoded. */
interface GroupedWrite {
  /**
   * Runs inside the group's transaction. It may run twice (a group one write fails in is made again): it must change
   * nothing outside the transaction but caches that hold only what matches the stored bytes (RecentTexts, ParsedValues).
   */
  write: () => AspectWriteResult[];
  /** A read-modify-write (updateAspects): what `write` does, for a group to make it together with others (updateRun). */
  update?: { keys: readonly AspectKey[]; modify: (current: LatestAspects) => AspectUpdate; historyCap: number; mustExist?: readonly string[] };
  resolve: (r: AspectWriteResult[]) => void;
  reject: (e: unknown) => void;
  /** Settles when its values are encoded: null, or why they could not be. */
  prepared?: Promise<{ error: unknown } | null>;
}

/** A value's JSON text and its stored form, made before the write transaction. */
interface EncodedValue {
  json: string;
  stored: StoredJson;
}

/**
 * Compresses the large values of a write in a worker thread (storeJsonBatch) before the write takes the database lock:
 * the compression of a large batch runs beside the event loop rather than inside the transaction.
 */
async function encodeAhead<W>(writes: readonly W[], texts: readonly string[]): Promise<Map<W, EncodedValue>> {
  const stored = await storeJsonBatch(texts);
  return new Map(writes.map((w, i) => [w, { json: texts[i]!, stored: stored[i]! }]));
}
