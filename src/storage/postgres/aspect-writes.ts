import type pg from 'pg';
import { addLatest, aspectKey, checkUpdate, entityMissing, lockNames } from '../aspect-updates.js';
import { deleteChange, LOG_REF_VALUE, SYSTEM_ACTOR, type ChangeRow, type StoredLatest } from '../change-log.js';
import type { ParsedValues } from '../parsed-values.js';
import { ASPECT_TABLE, ENTITY_TABLE, type AspectRow } from '../schema.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, LatestAspects, SystemMetadata, TimeseriesWrite,
} from '../types.js';
import { logReferences, planVersions, type PlannedRow } from '../version-plan.js';
import { deepFreeze } from '../../model/deep-freeze.js';
import * as changeLog from './change-log.js';
import { drawOffsets, runTogether } from './change-log.js';
import { lockInOrder, lockInOrderSql, prepared, textArray, type PostgresConnection } from './connection.js';
import * as timeseries from './timeseries.js';
import { COPY_FROM_ROWS, copyRows } from './copy.js';

/**
 * Aspect writes on PostgreSQL: new versions, their history and log entries, written by group commit under the
 * aspects' advisory locks. Holds the group commit's state (the writes waiting, the groups under way).
 */
export class PostgresAspectWrites {
  /** `latestValues`: the store's parsed latest values, which the reads of a group share. */
  constructor(private readonly conn: PostgresConnection, private readonly latestValues: ParsedValues) {}

  /** Returns once every write already asked for is made (a group waiting for its turn starts as another ends). */
  async drain(): Promise<void> {
    this.closing = true;
    this.launchGroup();
    while (this.groupsDone.size) await Promise.all(this.groupsDone);
  }

  async writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    return this.grouped({ keys: writes, build: () => ({ writes, timeseries }), historyCap });
  }

  /** Under the aspects' locks from the read on, so no other writer (of any server) comes between. */
  async updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number,
    mustExist?: readonly string[]): Promise<AspectWriteResult[]> {
    return this.grouped({ keys, build: (current) => checkUpdate(keys, modify(current)), historyCap, ...(mustExist?.length ? { mustExist } : {}) });
  }

  /** Aspect writes waiting for the next group commit. */
  private groupWaiting: GroupedWrite[] = [];
  /** Group commits under way (at most MAX_GROUPS_IN_FLIGHT), each settled when its group is. */
  private readonly groupsDone = new Set<Promise<void>>();

  /**
   * Group commit: aspect writes requested while earlier groups commit are made together in one transaction, opened
   * by one round trip of BEGIN, locks and reads of the current rows (`opening`), with their versions and log entries written set by
   * set. A write on PostgreSQL is mostly round trips between processes (and a commit, a WAL flush), so a group of ten
   * costs about what one write did. Each write's update is computed from the aspects as the writes before it in the
   * group leave them, exactly as if it had waited for their commit; an update that refuses (a missing entity, a
   * failed precondition) fails alone. If the transaction fails, every write of the group is tried again on its own,
   * so one bad write fails alone there too. No caller hears of its write before the commit.
   */
  private grouped(write: Omit<GroupedWrite, 'resolve' | 'reject'>): Promise<AspectWriteResult[]> {
    return new Promise((resolve, reject) => {
      this.groupWaiting.push({ ...write, resolve, reject });
      this.startGroup();
    });
  }

  /**
   * How many writes this server had under way when its last group ended (that group's and those waiting): the next
   * group waits for as many, up to GATHER_MS, since the writers just answered usually send their next write at once.
   */
  private underWay = 1;
  /** The wait for more writes before the next group starts (startGroup). */
  private gathering: NodeJS.Timeout | undefined;
  /** The store closes: no more waiting for writes. */
  private closing = false;

  /**
   * Starts the next group when none is in flight — at once if as many writes wait as were under way when the last
   * group ended, else once they have come or GATHER_MS has passed. Without the wait, a server's writers split into two
   * halves taking turns (one half's group commits while the other half's writes gather): with N servers sharing the
   * clients, each server's groups held ~4 writes against ~13 on one server, and a group's cost is mostly per
   * transaction (its round trips, its statements' planning, the announcement each other server receives), so the cost
   * per write grew with N. A lone writer never waits (nothing else was under way).
   */
  private startGroup(): void {
    if (this.groupWaiting.length === 0 || this.groupsDone.size >= MAX_GROUPS_IN_FLIGHT) return;
    if (this.groupWaiting.length < this.underWay && !this.closing && GATHER_MS > 0) {
      this.gathering ??= setTimeout(() => {
        this.gathering = undefined;
        this.launchGroup();
      }, GATHER_MS);
      return;
    }
    this.launchGroup();
  }

  private launchGroup(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (this.groupWaiting.length === 0 || this.groupsDone.size >= MAX_GROUPS_IN_FLIGHT) return;
    const group = this.groupWaiting;
    this.groupWaiting = [];
    const done: Promise<void> = this.commitGroup(group).finally(() => {
      this.groupsDone.delete(done);
      this.underWay = group.length + this.groupWaiting.length;
      this.startGroup();
    });
    this.groupsDone.add(done);
  }

  private async commitGroup(group: GroupedWrite[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      outcomes = group.length === 1
        ? [{ ok: true, value: await this.conn.tx((c, opened) => this.writeGroup(c, group, opened).then((o) => settled(o[0]!)), opening(group)) }]
        : await this.conn.tx((c, opened) => this.writeGroup(c, group, opened), opening(group));
    } catch (error) {
      if (group.length === 1) {
        group[0]!.reject(error);
        return;
      }
      // Something failed in the database: each write again in a transaction of its own, so only the bad one fails.
      await Promise.all(group.map((w) => this.conn.tx((c, opened) => this.writeGroup(c, [w], opened), opening([w]))
        .then((o) => settle(w, o[0]!), (e) => w.reject(e))));
      return;
    }
    group.forEach((w, i) => settle(w, outcomes[i]!));
  }

  /**
   * The writes of a group, in one transaction: every aspect locked and read at once, each update computed in turn
   * from the values the writes before it leave, then the versions written together (in runs between deletions,
   * which must keep their place among the writes). Refusals by an update are its outcome; database errors throw.
   */
  private async writeGroup(c: pg.PoolClient, group: readonly GroupedWrite[], opened: readonly pg.QueryResult[]): Promise<Outcome[]> {
    // The transaction opened with the group's locks, its latest rows and which of its entities exist (`opening`).
    const [, , latestRead, entitiesRead] = opened;
    const stored = new Map<string, StoredLatest>();
    const records = new Map<string, AspectRecord>();
    for (const row of latestRead!.rows as AspectRow<string>[]) {
      stored.set(aspectKey(row), row);
      records.set(aspectKey(row), this.latestValues.record(row));
    }
    // The latest of each aspect as the writes so far leave it (`stored` stays as read: the first run's rows).
    const latest = new Map(stored);
    // How many writes still to come read each aspect: what an update writes is worked out for them only.
    const readLater = new Map<string, number>();
    for (const w of group) for (const k of new Set(w.keys.map(aspectKey))) readLater.set(k, (readLater.get(k) ?? 0) + 1);

    // Whether each entity a write for new entities only names exists, as the writes so far leave it (read once).
    const entityExists = new Map<string, boolean>(openingUrns(group).map((u) => [u, false]));
    for (const r of entitiesRead!.rows) entityExists.set(r.urn as string, true);
    const outcomes: Outcome[] = new Array(group.length);
    let run: { update: Required<AspectUpdate>; members: { index: number; writes: number }[]; historyCap: number; known?: Map<string, StoredLatest> } | undefined;
    let firstRun = true;
    const flush = async () => {
      if (!run) return;
      // The first run's rows are the ones read above; later runs read theirs again (an earlier run changed them).
      const results = await this.writeLocked(c, run.update, run.historyCap, run.known);
      let at = 0;
      for (const m of run.members) {
        outcomes[m.index] = { ok: true, value: results.slice(at, at + m.writes) };
        at += m.writes;
      }
      run = undefined;
    };
    for (const [index, w] of group.entries()) {
      const mine = new Set(w.keys.map(aspectKey));
      for (const k of mine) readLater.set(k, readLater.get(k)! - 1);
      const current: LatestAspects = new Map();
      for (const k of mine) {
        const r = records.get(k);
        if (r) addLatest(current, r);
      }
      let update: AspectUpdate;
      if (w.mustExist) {
        await this.readEntities(c, w.mustExist, entityExists);
        const missing = w.mustExist.find((u) => !entityExists.get(u));
        if (missing !== undefined) {
          outcomes[index] = { ok: false, error: entityMissing(missing) };
          continue;
        }
      }
      try {
        update = w.build(current);
      } catch (error) {
        outcomes[index] = { ok: false, error };
        continue;
      }
      if (update.writes.some((x) => x.onlyNewEntity)) {
        await this.readEntities(c, update.writes.filter((x) => x.onlyNewEntity).map((x) => x.urn), entityExists);
        update = { ...update, writes: update.writes.filter((x) => !x.onlyNewEntity || entityExists.get(x.urn) === false) };
      }
      for (const x of update.writes) entityExists.set(x.urn, true);
      for (const x of update.timeseries ?? []) entityExists.set(x.urn, true);
      const deletes = (update.deletes?.length ?? 0) + (update.timeseriesDeletes?.length ?? 0) > 0;
      if (run && (deletes || run.historyCap !== w.historyCap || run.update.deletes.length + run.update.timeseriesDeletes.length > 0)) await flush();
      if (!run) {
        run = { update: { writes: [], timeseries: [], deletes: [], timeseriesDeletes: [] }, members: [], historyCap: w.historyCap,
          known: firstRun ? stored : undefined };
        firstRun = false;
      }
      run.update.writes.push(...update.writes);
      run.update.timeseries.push(...(update.timeseries ?? []));
      run.update.deletes.push(...(update.deletes ?? []));
      run.update.timeseriesDeletes.push(...(update.timeseriesDeletes ?? []));
      run.members.push({ index, writes: update.writes.length });
      // What the writes after this one will read: the same plan as the statements will carry out.
      const readAgain = update.writes.filter((aw) => readLater.get(aspectKey(aw)));
      if (readAgain.length) {
        for (const [k, after] of planVersions(latest, readAgain, w.historyCap).latest) {
          const sys = after.systemmetadata === null ? null : JSON.parse(after.systemmetadata) as SystemMetadata;
          const aw = after.write;
          if (!aw) {
            if (after.systemmetadata !== latest.get(k)!.systemmetadata) records.set(k, { ...records.get(k)!, systemMetadata: sys });
          } else {
            records.set(k, { urn: aw.urn, aspect: aw.aspect, version: 0, value: deepFreeze(JSON.parse(after.metadata) as unknown),
              systemMetadata: sys, createdOn: after.createdOn!, createdBy: aw.actor, revision: after.revision });
          }
          latest.set(k, { metadata: after.metadata, systemmetadata: after.systemmetadata, revision: after.revision });
        }
      }
      for (const d of update.deletes ?? []) {
        latest.delete(aspectKey(d));
        records.delete(aspectKey(d));
      }
    }
    // The last run's log append commits the transaction in its own round trip (nothing is sent after it).
    changeLog.commitsWithLog.add(c);
    await flush();
    return outcomes;
  }

  /** Notes in `exists` whether each of these entities exists, reading those it does not know yet. */
  private async readEntities(c: pg.PoolClient, urns: readonly string[], exists: Map<string, boolean>): Promise<void> {
    const unknown = [...new Set(urns.filter((u) => !exists.has(u)))];
    if (unknown.length === 0) return;
    const { rows } = await c.query(prepared(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn = ANY($1)`, [unknown]));
    for (const u of unknown) exists.set(u, false);
    for (const r of rows) exists.set(r.urn as string, true);
  }

  /**
   * Transaction-scoped advisory locks, one per (urn, aspect), taken in lockNames' order in one round trip. They
   * exist whether or not the aspect does, so they serialise the first writers of an aspect too.
   */
  async lockAspects(c: pg.PoolClient, keys: readonly AspectKey[]): Promise<void> {
    await lockInOrder(c, lockNames(keys));
  }

  /** Writes new versions of aspects whose locks this transaction holds, time-series rows and deletions, and logs each change. */
  private async writeLocked(c: pg.PoolClient, update: AspectUpdate, historyCap: number, stored?: ReadonlyMap<string, StoredLatest>): Promise<AspectWriteResult[]> {
    const log: ChangeRow[] = [];
    // Versions and time-series rows without deletions (an edit, most ingestion) are written and logged by one statement.
    const noDeletes = !update.deletes?.length && !update.timeseriesDeletes?.length;
    if (noDeletes) return this.writeVersions(c, update.writes, historyCap, log, stored, true, update.timeseries ?? []);
    const results = await this.writeVersions(c, update.writes, historyCap, log, stored, false);
    await timeseries.upsertTimeseriesRows(c, update.timeseries ?? [], log);
    for (const d of update.deletes ?? []) await this.deleteAspectRows(c, d.urn, [d.aspect], d.actor, log);
    for (const d of update.timeseriesDeletes ?? []) await timeseries.deleteTimeseriesRows(c, d.urn, d.entityType, d.aspect, undefined, undefined, d.actor, log);
    await changeLog.appendChanges(c, log);
    return results;
  }

  /**
   * New versions of many aspects in a fixed number of statements (each set-based over the batch), decided by
   * planVersion as the SQLite engine decides them one by one. The writes of one batch are applied in order: an aspect
   * written twice sees its first new value as the latest, kept in memory until the statements run. `known`: the latest
   * rows of every aspect written, already read under their locks (an aspect absent from it has none).
   */
  private async writeVersions(c: pg.PoolClient, writes: readonly AspectWrite[], historyCap: number, log: ChangeRow[],
    known?: ReadonlyMap<string, StoredLatest>, appendLog = false, timeseriesRows: readonly TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    if (writes.length === 0 && timeseriesRows.length === 0) return [];
    const entities = new Map<string, [string, number]>();
    for (const w of writes) if (!entities.has(w.urn)) entities.set(w.urn, [w.entityType, w.time ?? Date.now()]);
    let stored: ReadonlyMap<string, StoredLatest>;
    if (known || writes.length === 0) {
      stored = known ?? new Map();
    } else {
      const keys = [...new Map(writes.map((w) => [aspectKey(w), w])).values()];
      const { rows } = await c.query(prepared(latestRowsSql('$1::text[]', '$2::text[]'), [keys.map((w) => w.urn), keys.map((w) => w.aspect)]));
      stored = new Map(rows.map((r) => [aspectKey(r), r as StoredLatest]));
    }
    const plan = planVersions(stored, writes, historyCap);
    const firstEntry = log.length;
    log.push(...plan.log);
    if (plan.touches.length) {
      // Before the statement below, which may copy a touched row to history (one statement must not change a row twice).
      const t = plan.touches;
      await c.query(prepared(`UPDATE ${ASPECT_TABLE} a SET systemmetadata = k.sys FROM UNNEST($1::text[], $2::text[], $3::text[]) AS k(urn, aspect, sys)
        WHERE a.urn = k.urn AND a.aspect = k.aspect AND a.version = 0`, [t.map((x) => x.urn), t.map((x) => x.aspect), t.map((x) => x.sys)]));
    }
    const copied = plan.copies;
    let out = plan.rows;
    const trims = plan.trims;

    // One statement, so one round trip under the aspects' locks: the entities, the stored latest copied to history
    // under its revision, the new rows, the history beyond the cap, and (`appendLog`) the log entries. Its parts see
    // the table as it was before the statement: the copy reads the latest row that the upsert replaces.
    const params: unknown[] = [];
    const $ = (v: unknown) => { params.push(v); return `$${params.length}`; };
    const parts: string[] = [];
    // The time-series rows in the same statement (their entities in its insert of entities), unless too many for one.
    const byUrn = new Map<string, string>();
    const series = timeseriesRows.length ? timeseries.timeseriesParts(timeseriesRows, log, $, byUrn) : [];
    if (series === null) await timeseries.upsertTimeseriesRows(c, [...timeseriesRows], log);
    else parts.push(...series);

    // Logged here (`appendLog`), the entries name the versions written with them rather than copy their values
    // (migration 31): each version row keeps the offset of its entry — drawn ahead for a batch that goes by COPY, else
    // read from the statement's appended entries. Entries logged later (after deletions) copy their values.
    const refs = appendLog ? new Array<number>(log.length).fill(0) : undefined;
    // The value only: the previous one stays a copy (src/storage/change-log.ts pgChangeLogReferenceStatements).
    if (refs) logReferences(plan).forEach((ref, i) => { refs[firstEntry + i] = ref & LOG_REF_VALUE; });
    const seqs = appendLog && (log.length >= COPY_FROM_ROWS || out.length >= COPY_FROM_ROWS) ? await drawOffsets(c, log.length) : undefined;
    const seqOf = seqs ? new Map<PlannedRow, number>(plan.logVersions.map((v, i) => [v.row, seqs[firstEntry + i]!])) : undefined;
    if (out.length >= COPY_FROM_ROWS) {
      // Many rows (a bulk load's batch): the new latest rows of aspects stored for the first time go by COPY, as plain
      // inserts — none can exist, as the read under their locks found none — before the statement below, which writes
      // the rest as usual (none of its parts reads or writes those rows: they copy and trim history of stored aspects).
      const fresh = out.filter((r) => r.version === 0 && !stored.has(aspectKey(r)));
      if (fresh.length) {
        await copyRows(c, ASPECT_TABLE, [...ASPECT_COLUMNS, 'log_seq'], fresh.map((r) => [r.urn, r.aspect, r.version, r.json, r.sys, r.createdOn,
          r.createdBy, r.revision, seqOf?.get(r) ?? null]));
        out = out.filter((r) => r.version !== 0 || stored.has(aspectKey(r)));
      }
    }
    const now = Date.now();
    for (const [urn, type] of byUrn) if (!entities.has(urn)) entities.set(urn, [type, now]);
    parts.push(`entities AS (INSERT INTO ${ENTITY_TABLE} (urn, entity_type, created_on) SELECT * FROM UNNEST(${$([...entities.keys()])}::text[],
      ${$([...entities.values()].map((e) => e[0]))}::text[], ${$([...entities.values()].map((e) => e[1]))}::bigint[]) ON CONFLICT DO NOTHING)`);
    if (copied.length) {
      parts.push(`history AS (INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby, revision, log_seq)
        SELECT a.urn, a.aspect, k.version, a.metadata, a.systemmetadata, a.createdon, a.createdby, a.revision, a.log_seq
        FROM UNNEST(${$(copied.map((m) => m.urn))}::text[], ${$(copied.map((m) => m.aspect))}::text[], ${$(copied.map((m) => m.version))}::bigint[])
        AS k(urn, aspect, version) CROSS JOIN LATERAL (${LATEST_OF_KEY}) a)`);
    }
    if (out.length) {
      const [urn, aspect, version, metadata, sys, on, by, revision] = (['urn', 'aspect', 'version', 'json', 'sys', 'createdOn', 'createdBy', 'revision'] as const)
        .map((f) => $(out.map((r) => r[f])));
      // Each row's entry: its offset drawn ahead, or the entry of its revision the statement appends (`logged`).
      const seq = seqOf ? `${$(out.map((r) => seqOf.get(r) ?? null))}::bigint[]` : undefined;
      const unnest = `UNNEST(${urn}::text[], ${aspect}::text[], ${version}::bigint[], ${metadata}::text[], ${sys}::text[], ${on}::bigint[],
        ${by}::text[], ${revision}::bigint[]${seq ? `, ${seq}` : ''})`;
      const rows = seq ? `SELECT * FROM ${unnest}`
        : appendLog && log.length ? `SELECT k.*, l.seq FROM ${unnest} AS k(urn, aspect, version, metadata, systemmetadata, createdon, createdby, revision)
          LEFT JOIN logged l ON l.urn = k.urn AND l.aspect = k.aspect AND l.revision = k.revision`
          : `SELECT *, NULL::bigint FROM ${unnest}`;
      parts.push(`versions AS (INSERT INTO ${ASPECT_TABLE} (${ASPECT_COLUMNS.join(', ')}, log_seq) ${rows}
        ON CONFLICT (urn, aspect, version) DO UPDATE SET metadata = excluded.metadata, systemmetadata = excluded.systemmetadata,
        createdon = excluded.createdon, createdby = excluded.createdby, revision = excluded.revision, log_seq = excluded.log_seq)`);
    }
    if (trims.length) {
      parts.push(`trimmed AS (DELETE FROM ${ASPECT_TABLE} a USING UNNEST(${$(trims.map((x) => x.urn))}::text[], ${$(trims.map((x) => x.aspect))}::text[],
        ${$(trims.map((x) => x.upto))}::bigint[]) AS k(urn, aspect, upto) WHERE a.urn = k.urn AND a.aspect = k.aspect AND a.version > 0
        AND a.version <= k.upto)`);
    }
    await runTogether(c, parts, params, $, appendLog ? log : [], refs, seqs);
    return plan.results;
  }


  /** Deletes every version of some aspects of an entity, logging the latest value of each; inside a write transaction. */
  async deleteAspectRows(c: pg.PoolClient, urn: string, aspects: readonly string[], actor: string, log: ChangeRow[]): Promise<number> {
    if (aspects.length === 0) return 0;
    const entityType = (await c.query(`SELECT entity_type FROM ${ENTITY_TABLE} WHERE urn = $1`, [urn])).rows[0]?.entity_type as string | undefined;
    const { rows: latest } = await c.query(`SELECT aspect, metadata, systemmetadata, revision FROM ${ASPECT_TABLE}
      WHERE urn = $1 AND aspect = ANY($2) AND version = 0 ORDER BY aspect COLLATE "C"`, [urn, aspects]);
    const n = (await c.query(`DELETE FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = ANY($2)`, [urn, aspects])).rowCount ?? 0;
    const now = Date.now();
    if (entityType) for (const r of latest) log.push(deleteChange(urn, entityType, r.aspect, r as StoredLatest, actor, now));
    return n;
  }

  async deleteAspects(urn: string, aspects: readonly string[], actor = SYSTEM_ACTOR): Promise<number> {
    if (aspects.length === 0) return 0;
    return this.conn.tx(async (c) => {
      await this.lockAspects(c, aspects.map((aspect) => ({ urn, aspect })));
      const log: ChangeRow[] = [];
      const n = await this.deleteAspectRows(c, urn, aspects, actor, log);
      await changeLog.appendChanges(c, log);
      return n;
    });
  }
}

/** An aspect write waiting for a group commit: its update, computed under the group's locks from the current values. */
interface GroupedWrite {
  /** The aspects locked and read for it (every aspect it writes among them). */
  keys: readonly AspectKey[];
  build: (current: LatestAspects) => AspectUpdate;
  /** Entities that must exist when it runs (else it fails with NOT_FOUND). */
  mustExist?: readonly string[];
  historyCap: number;
  resolve: (r: AspectWriteResult[]) => void;
  reject: (e: unknown) => void;
}

/** The aspect table's columns as a write gives them (PlannedRow's order). */
const ASPECT_COLUMNS = ['urn', 'aspect', 'version', 'metadata', 'systemmetadata', 'createdon', 'createdby', 'revision'] as const;

type Outcome = { ok: true; value: AspectWriteResult[] } | { ok: false; error: unknown };

/**
 * What a group's transaction opens with, sent with its BEGIN in one round trip (PostgresConnection.tx): the aspects'
 * locks, then their latest rows and which of the entities they name exist — each statement of a simple query reads
 * with a snapshot of its own, taken after the one before it ended, so the reads see every commit made before the locks
 * were granted. Three round trips fewer than BEGIN, the locks, the read and one read of entities per write that
 * writes for new entities only: with N servers, each server's groups hold fewer writes, so what a group costs weighed
 * N times as much per write.
 */
function opening(group: readonly GroupedWrite[]): (string | pg.QueryConfig)[] {
  const keys = group.flatMap((w) => w.keys);
  const unique = [...new Map(keys.map((k) => [aspectKey(k), k])).values()];
  // Up to PREPARED_OPENING_KEYS aspects the lists go as array parameters of prepared statements (connection.ts
  // `prepared`), pipelined with the BEGIN (PostgresConnection.tx): as one simple query of literals they were parsed
  // and planned on every group, 50–70 µs a write with four servers' smaller groups. A bulk batch's thousands of keys
  // go as literals still (one text, not a name per size; planned once a batch).
  const asParameters = unique.length <= PREPARED_OPENING_KEYS;
  const statement = (sql: (...lists: string[]) => string, lists: string[][]) => (asParameters
    ? prepared(sql(...lists.map((_, i) => `$${i + 1}::text[]`)), lists)
    : sql(...lists.map(textArray)));
  return [
    // The group's statements run on their prepared statements' generic plans (src/storage/postgres/connection.ts
    // `prepared`): planned once per connection instead of once per group. With their lists as array parameters,
    // PostgreSQL estimates a generic plan for ten rows and a custom one for the group's size, so it would otherwise
    // keep planning them (0.35–1.3 ms a group for the versions statement) — a cost per group, which with N servers'
    // smaller groups weighed more per write. Their plans are the same whatever the size (inserts from UNNEST, key probes).
    'SET LOCAL plan_cache_mode = force_generic_plan',
    statement(lockInOrderSql, [lockNames(keys)]),
    statement(latestRowsSql, [unique.map((k) => k.urn), unique.map((k) => k.aspect)]),
    statement((urns) => `SELECT urn FROM ${ENTITY_TABLE} WHERE urn = ANY(${urns})`, [openingUrns(group)]),
  ];
}

/** The most aspects a group's opening sends as parameters of prepared statements (beyond, as literals). */
const PREPARED_OPENING_KEYS = 500;

/**
 * The latest row of the aspect `k` names, as a LATERAL subquery: one probe of the key per aspect. As a join, the
 * planner took a bulk batch's 2,000 keys for a hash join over the whole table (never analyzed during a load, and
 * thought small): 47 ms a batch at 5,000 generated datasets, growing with the catalog, against 3–4 ms so.
 */
const LATEST_OF_KEY = `SELECT * FROM ${ASPECT_TABLE} a WHERE a.urn = k.urn AND a.aspect = k.aspect AND a.version = 0 LIMIT 1`;

/** The latest rows of the aspects named by two text[] expressions (urns, aspects), one probe each (LATEST_OF_KEY). */
function latestRowsSql(urns: string, aspects: string): string {
  return `SELECT a.* FROM UNNEST(${urns}, ${aspects}) AS k(urn, aspect) CROSS JOIN LATERAL (${LATEST_OF_KEY}) a`;
}

/** The entities whose existence a group's opening reads: those its aspects belong to and those that must exist. */
function openingUrns(group: readonly GroupedWrite[]): string[] {
  return [...new Set(group.flatMap((w) => [...w.keys.map((k) => k.urn), ...(w.mustExist ?? [])]))];
}


/**
 * Groups committing at once on one server: the next group gathers the writes requested meanwhile, so groups grow with
 * the load. One: a second group in flight overlapped one group's round trips with another's, but halved the groups,
 * and a group's cost is mostly per transaction (its round trips — three since `opening` — the commit, and the after-commit read
 * of the log), not per write. That mattered most where each server has less of the load: with 32 connections spread over
 * four servers, groups of about two writes each. Same-run pairs (2026-11-28, 2 shared cores, load average 10–16,
 * single-proposal ingest): four servers 6.9 → 4.9 ms of CPU per write (servers and PostgreSQL), 99 → 129 writes/s;
 * one server 2.9 → 2.1 ms, 209 → 325 writes/s.
 */
const MAX_GROUPS_IN_FLIGHT = 1;

/**
 * The longest a group waits for the writes under way at the last group's end (startGroup): long enough for a writer
 * just answered to send its next write on a busy machine. Four servers × 8 connections, single-proposal ingest: 6.5
 * writes per group with 3 ms, 6.3–6.9 with 10 ms (of at most 8), against 3.7 without waiting.
 */
const GATHER_MS = 3;

function settle(w: GroupedWrite, o: Outcome): void {
  if (o.ok) w.resolve(o.value); else w.reject(o.error);
}

/** A lone write's outcome as its transaction's result: a refusal throws, so that the transaction rolls back. */
function settled(o: Outcome): AspectWriteResult[] {
  if (o.ok) return o.value;
  throw o.error;
}
