import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addLatest, checkUpdate, sameValue } from './aspect-updates.js';
import {
  ASPECT_TABLE, ENTITY_TABLE, MIGRATIONS_TABLE, RELATIONSHIP_TABLE, SEARCH_TABLE, SETTINGS_TABLE, migrations, sizesFor, tableFor, timeseriesTableNames,
  timeseriesTableStatements, toRecord, type AspectRow,
} from './schema.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, EntityRow, LatestAspects, Relationship, SearchDoc, Store, TableSize,
  TimeseriesQuery, TimeseriesRecord, TimeseriesWrite,
} from './types.js';

/** SQLite has a limit on bound parameters; chunk IN-lists well below it. */
const CHUNK = 500;

/**
 * The database file holds the token signing key (unless ALMANAC_TOKEN_SECRET or _FILE is set) and every token's
 * hash: only its owner may read it. A new file is created with mode 0600 before SQLite opens it, and SQLite gives the
 * -wal and -shm files it creates the database file's mode. An existing file (or -wal, -shm) that grants group or
 * others any access is tightened to owner-only, with a warning; one that is already private is left as it is.
 */
function openPrivately(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) keepPrivate(f);
}

function keepPrivate(file: string): void {
  if (process.platform === 'win32') return;
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return; // not there (yet)
  }
  if ((mode & 0o077) === 0) return;
  const show = (m: number) => `0${m.toString(8).padStart(3, '0')}`;
  try {
    fs.chmodSync(file, mode & 0o700);
    process.stderr.write(`almanac: warning: ${file} was open to other users (mode ${show(mode)}); changed to ${show(mode & 0o700)}\n`);
  } catch (e) {
    process.stderr.write(`almanac: warning: ${file} is open to other users (mode ${show(mode)}) and could not be changed: ${(e as Error).message}\n`);
  }
}

/**
 * better-sqlite3 in WAL mode: one connection, synchronous calls wrapped in the async Store contract.
 * synchronous=NORMAL in WAL keeps every committed transaction across a process crash (kill -9).
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  /** Prepared statements are cached by their SQL text; each text is always used in the same mode. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  constructor(file: string) {
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk) {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      openPrivately(file);
    }
    this.db = new Database(file);
    // auto_vacuum must be chosen before the first table exists; it lets truncation give pages back.
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // WAL mode has created -wal and -shm by now: check them (a crash may have left older ones behind).
    if (onDisk) for (const f of [`${file}-wal`, `${file}-shm`]) keepPrivate(f);
  }

  async migrate(): Promise<void> {
    const db = this.db;
    db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_on INTEGER NOT NULL)`);
    const done = new Set(this.stmt(`SELECT version FROM ${MIGRATIONS_TABLE}`).pluck().all() as number[]);
    const apply = db.transaction(() => {
      for (const m of migrations('sqlite')) {
        if (done.has(m.version)) continue;
        for (const s of m.statements) db.exec(s);
        this.stmt(`INSERT INTO ${MIGRATIONS_TABLE} (version, applied_on) VALUES (?, ?)`).run(m.version, Date.now());
      }
      for (const s of timeseriesTableStatements('sqlite')) db.exec(s);
    });
    apply.immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  async writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    return this.db.transaction(() => this.writeLocked(writes, historyCap, timeseries)).immediate();
  }

  /** BEGIN IMMEDIATE takes the database's write lock before the read, so no other writer (or process) comes between. */
  async updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number): Promise<AspectWriteResult[]> {
    const read = this.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`);
    return this.db.transaction(() => {
      const current: LatestAspects = new Map();
      for (const k of keys) {
        const row = read.get(k.urn, k.aspect) as AspectRow | undefined;
        if (row) addLatest(current, toRecord(row));
      }
      const update = checkUpdate(keys, modify(current));
      return this.writeLocked(update.writes, historyCap, update.timeseries ?? []);
    }).immediate();
  }

  /** Writes new versions of aspects; runs inside a write transaction. */
  private writeLocked(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[]): AspectWriteResult[] {
    const getLatest = this.stmt(`SELECT metadata, systemmetadata FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`);
    const maxVersion = this.stmt(`SELECT MAX(version) FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ?`).pluck();
    const copyLatest = this.stmt(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby)
      SELECT urn, aspect, ?, metadata, systemmetadata, createdon, createdby FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = 0`);
    const upsertLatest = this.stmt(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby)
      VALUES (?, ?, 0, ?, ?, ?, ?) ON CONFLICT (urn, aspect, version) DO UPDATE SET metadata = excluded.metadata,
      systemmetadata = excluded.systemmetadata, createdon = excluded.createdon, createdby = excluded.createdby`);
    const touch = this.stmt(`UPDATE ${ASPECT_TABLE} SET systemmetadata = ? WHERE urn = ? AND aspect = ? AND version = 0`);
    const trim = this.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version > 0 AND version <= ?`);
    const addEntity = this.stmt(`INSERT OR IGNORE INTO ${ENTITY_TABLE} (urn, entity_type, created_on) VALUES (?, ?, ?)`);

    const results = writes.map((w): AspectWriteResult => {
      const now = w.time ?? Date.now();
      const json = JSON.stringify(w.value);
      const sys = w.systemMetadata ? JSON.stringify(w.systemMetadata) : null;
      addEntity.run(w.urn, w.entityType, now);
      const cur = getLatest.get(w.urn, w.aspect) as { metadata: string; systemmetadata: string | null } | undefined;
      if (cur && sameValue(cur.metadata, w.value)) {
        if (sys !== null && sys !== cur.systemmetadata) touch.run(sys, w.urn, w.aspect);
        return { urn: w.urn, aspect: w.aspect, changed: false };
      }
      if (cur) {
        const next = ((maxVersion.get(w.urn, w.aspect) as number | null) ?? 0) + 1;
        copyLatest.run(next, w.urn, w.aspect);
        // Keep at most historyCap versions in all: v0 plus historyCap - 1 history rows.
        trim.run(w.urn, w.aspect, next - Math.max(historyCap - 1, 0));
      }
      upsertLatest.run(w.urn, w.aspect, json, sys, now, w.actor);
      return { urn: w.urn, aspect: w.aspect, changed: true };
    });
    this.upsertTimeseriesRows(timeseries);
    return results;
  }

  async getLatest(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>> {
    const out = new Map<string, Map<string, AspectRecord>>();
    for (let i = 0; i < urns.length; i += CHUNK) {
      const chunk = urns.slice(i, i + CHUNK);
      let sql = `SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn IN (${chunk.map(() => '?').join(',')})`;
      const params: unknown[] = [...chunk];
      if (aspects) {
        if (aspects.length === 0) continue;
        sql += ` AND aspect IN (${aspects.map(() => '?').join(',')})`;
        params.push(...aspects);
      }
      for (const row of this.stmt(sql).all(...params) as AspectRow[]) addLatest(out, toRecord(row));
    }
    return out;
  }

  async getVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null> {
    const row = this.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = ?`)
      .get(urn, aspect, version) as AspectRow | undefined;
    return row ? toRecord(row) : null;
  }

  async listVersions(urn: string, aspect: string): Promise<AspectRecord[]> {
    const rows = this.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ?
      ORDER BY CASE WHEN version = 0 THEN 0 ELSE 1 END, version DESC`).all(urn, aspect) as AspectRow[];
    return rows.map(toRecord);
  }

  async deleteAspects(urn: string, aspects: readonly string[]): Promise<number> {
    if (aspects.length === 0) return 0;
    return this.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect IN (${aspects.map(() => '?').join(',')})`)
      .run(urn, ...aspects).changes;
  }

  async existing(urns: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < urns.length; i += CHUNK) {
      const chunk = urns.slice(i, i + CHUNK);
      const rows = this.stmt(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn IN (${chunk.map(() => '?').join(',')})`)
        .pluck().all(...chunk) as string[];
      for (const u of rows) out.add(u);
    }
    return out;
  }

  async listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts.entityType) { where.push('entity_type = ?'); params.push(opts.entityType); }
    if (opts.after !== undefined) { where.push('urn > ?'); params.push(opts.after); }
    const sql = `SELECT urn, entity_type AS entityType FROM ${ENTITY_TABLE}${where.length ? ' WHERE ' + where.join(' AND ') : ''}
      ORDER BY urn LIMIT ? OFFSET ?`;
    return this.stmt(sql).all(...params, opts.count ?? -1, opts.start ?? 0) as EntityRow[];
  }

  async countEntities(entityType?: string): Promise<number> {
    return entityType
      ? (this.stmt(`SELECT COUNT(*) FROM ${ENTITY_TABLE} WHERE entity_type = ?`).pluck().get(entityType) as number)
      : (this.stmt(`SELECT COUNT(*) FROM ${ENTITY_TABLE}`).pluck().get() as number);
  }

  async deleteEntity(urn: string): Promise<{ rows: number; timeseriesRows: number }> {
    const db = this.db;
    return db.transaction(() => {
      const rows = this.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ?`).run(urn).changes;
      let timeseriesRows = 0;
      for (const t of timeseriesTableNames()) {
        const n = this.stmt(`DELETE FROM ${t} WHERE urn = ?`).run(urn).changes;
        if (n) this.changedTable(t);
        timeseriesRows += n;
      }
      this.stmt(`DELETE FROM ${SEARCH_TABLE} WHERE urn = ?`).run(urn);
      this.stmt(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = ?`).run(urn);
      this.stmt(`DELETE FROM ${ENTITY_TABLE} WHERE urn = ?`).run(urn);
      return { rows, timeseriesRows };
    }).immediate();
  }

  async upsertTimeseries(rows: TimeseriesWrite[]): Promise<void> {
    this.db.transaction(() => this.upsertTimeseriesRows(rows)).immediate();
  }

  private upsertTimeseriesRows(rows: TimeseriesWrite[]): void {
    const db = this.db;
    const addEntity = this.stmt(`INSERT OR IGNORE INTO ${ENTITY_TABLE} (urn, entity_type, created_on) VALUES (?, ?, ?)`);
    for (const r of rows) {
      const t = tableFor(r.entityType, r.aspect);
      this.changedTable(t);
      addEntity.run(r.urn, r.entityType, Date.now());
      this.stmt(`INSERT INTO ${t} (urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata, run_id)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (urn, timestamp_millis, partition_key, granularity, message_id)
        DO UPDATE SET event = excluded.event, system_metadata = excluded.system_metadata, run_id = excluded.run_id`)
        .run(r.urn, r.timestampMillis, r.partition, r.granularity, r.messageId, JSON.stringify(r.value),
          r.systemMetadata ? JSON.stringify(r.systemMetadata) : null, r.systemMetadata?.runId ?? null);
    }
  }

  async queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]> {
    const t = tableFor(q.entityType, q.aspect);
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.urn !== undefined) { where.push('urn = ?'); params.push(q.urn); }
    if (q.startTimeMillis !== undefined) { where.push('timestamp_millis >= ?'); params.push(q.startTimeMillis); }
    if (q.endTimeMillis !== undefined) { where.push('timestamp_millis <= ?'); params.push(q.endTimeMillis); }
    const sql = `SELECT urn, timestamp_millis, event, system_metadata FROM ${t}${where.length ? ' WHERE ' + where.join(' AND ') : ''}
      ORDER BY timestamp_millis ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = this.stmt(sql).all(...params, q.limit ?? -1) as
      { urn: string; timestamp_millis: number; event: string; system_metadata: string | null }[];
    return rows.map((r) => ({
      urn: r.urn, timestampMillis: r.timestamp_millis, value: JSON.parse(r.event),
      systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
    }));
  }

  async countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    return beforeMillis === undefined
      ? (this.stmt(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number)
      : (this.stmt(`SELECT COUNT(*) FROM ${t} WHERE timestamp_millis < ?`).pluck().get(beforeMillis) as number);
  }

  async deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    this.changedTable(t);
    return this.stmt(`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE timestamp_millis < ? LIMIT ?)`)
      .run(endTimeMillis, batchSize).changes;
  }

  async deleteTimeseriesRange(urn: string, entityType: string, aspect: string, start?: number, end?: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    this.changedTable(t);
    return this.stmt(`DELETE FROM ${t} WHERE urn = ? AND timestamp_millis >= ? AND timestamp_millis <= ?`)
      .run(urn, start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER).changes;
  }

  async reclaimTimeseriesSpace(): Promise<void> {
    // Freed pages already left the table's b-tree (so its dbstat size fell); this returns them to the file system,
    // a few hundred pages per step so that other requests run in between.
    while ((this.db.pragma('freelist_count', { simple: true }) as number) > 0) {
      this.db.pragma('incremental_vacuum(256)');
      await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * dbstat's figures for each table and its indexes. Measuring walks every page of a b-tree, so a table's figure
   * is kept until that table changes (writes through this store) or the database changes under us (another
   * process: PRAGMA data_version).
   */
  async timeseriesSizes(): Promise<TableSize[]> {
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    if (dataVersion !== this.sizesDataVersion) {
      this.sizeCache.clear();
      this.sizesDataVersion = dataVersion;
    }
    const bytes = new Map<string, number>();
    for (const t of timeseriesTableNames()) {
      let size = this.sizeCache.get(t);
      if (size === undefined) {
        const names = this.stmt('SELECT name FROM sqlite_master WHERE tbl_name = ?').pluck().all(t) as string[];
        size = names.reduce((sum, n) => sum + ((this.stmt('SELECT pgsize FROM dbstat WHERE name = ? AND aggregate = 1').pluck().get(n) as number) ?? 0), 0);
        this.sizeCache.set(t, size);
      }
      bytes.set(t, size);
    }
    return sizesFor(bytes);
  }

  private readonly sizeCache = new Map<string, number>();
  private sizesDataVersion = -1;

  private changedTable(table: string) {
    this.sizeCache.delete(table);
  }

  async upsertSearchDocs(docs: SearchDoc[]): Promise<void> {
    this.db.transaction(() => {
      for (const d of docs) {
        this.stmt(`DELETE FROM ${SEARCH_TABLE} WHERE urn = ?`).run(d.urn);
        this.stmt(`INSERT INTO ${SEARCH_TABLE} (urn, entity_type, body) VALUES (?, ?, ?)`).run(d.urn, d.entityType, d.text);
      }
    }).immediate();
  }

  async deleteSearchDocs(urns: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      for (const u of urns) this.stmt(`DELETE FROM ${SEARCH_TABLE} WHERE urn = ?`).run(u);
    }).immediate();
  }

  async searchDocs(q: { terms: string[]; entityTypes?: string[]; start: number; count: number }) {
    const where: string[] = [];
    const params: unknown[] = [];
    // Terms are [a-z0-9]+ by construction; quoting keeps FTS5 from reading them as operators.
    if (q.terms.length) { where.push(`${SEARCH_TABLE} MATCH ?`); params.push(q.terms.map((t) => `"${t}"*`).join(' AND ')); }
    if (q.entityTypes?.length) { where.push(`entity_type IN (${q.entityTypes.map(() => '?').join(',')})`); params.push(...q.entityTypes); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.stmt(`SELECT COUNT(*) FROM ${SEARCH_TABLE} ${w}`).pluck().get(...params) as number;
    const order = q.terms.length ? 'ORDER BY bm25(' + SEARCH_TABLE + ', 0, 0, 1), urn' : 'ORDER BY urn';
    const urns = this.stmt(`SELECT urn FROM ${SEARCH_TABLE} ${w} ${order} LIMIT ? OFFSET ?`).pluck()
      .all(...params, q.count, q.start) as string[];
    return { total, urns };
  }

  async countSearchDocs(): Promise<number> {
    return this.stmt(`SELECT COUNT(*) FROM ${SEARCH_TABLE}`).pluck().get() as number;
  }

  async replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void> {
    this.db.transaction(() => {
      for (const s of sources) this.stmt(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = ?`).run(s);
      for (const e of edges) {
        this.stmt(`INSERT OR IGNORE INTO ${RELATIONSHIP_TABLE} (source, type, destination) VALUES (?, ?, ?)`).run(e.source, e.type, e.destination);
      }
    }).immediate();
  }

  async relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
    const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
    const params: unknown[] = [q.urn];
    let where = `${self} = ?`;
    if (q.types?.length) { where += ` AND type IN (${q.types.map(() => '?').join(',')})`; params.push(...q.types); }
    const total = this.stmt(`SELECT COUNT(*) FROM ${RELATIONSHIP_TABLE} WHERE ${where}`).pluck().get(...params) as number;
    const edges = this.stmt(`SELECT source, type, destination FROM ${RELATIONSHIP_TABLE} WHERE ${where} ORDER BY ${other}, type LIMIT ? OFFSET ?`)
      .all(...params, q.count, q.start) as Relationship[];
    return { total, edges };
  }

  async countRelationships(): Promise<number> {
    return this.stmt(`SELECT COUNT(*) FROM ${RELATIONSHIP_TABLE}`).pluck().get() as number;
  }

  async getOrSetSetting(key: string, value: string): Promise<string> {
    this.stmt(`INSERT OR IGNORE INTO ${SETTINGS_TABLE} (key, value) VALUES (?, ?)`).run(key, value);
    return this.stmt(`SELECT value FROM ${SETTINGS_TABLE} WHERE key = ?`).pluck().get(key) as string;
  }
}

