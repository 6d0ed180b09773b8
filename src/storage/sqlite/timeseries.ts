import { ENTITY_TABLE, sizesFor, tableFor, timeseriesTableNames, timeseriesTables } from '../schema.js';
import { readJson, storeJson, type StoredJson } from '../stored-json.js';
import { LOG_REF_SERIES, timeseriesChange, truncateChange, type ChangeRow } from '../change-log.js';
import { valueJsonOf, type ChangeRecord, type TableSize, type TimeseriesQuery, type TimeseriesRecord, type TimeseriesRow, type TimeseriesRowKey, type TimeseriesWrite } from '../types.js';
import { appendChanges } from './change-log.js';
import { urnNumberer } from './urn-numbers.js';
import type { SqliteConnection } from './connection.js';

/** Time series on SQLite: one table per entity type and aspect, their rows written, read, deleted, exported and measured. */

/** SQLite has a limit on bound parameters; chunk IN-lists well below it. */
const CHUNK = 500;

export function upsertTimeseries(c: SqliteConnection, rows: TimeseriesWrite[]): void {
  c.db.transaction(() => upsertTimeseriesRows(c, rows)).immediate();
}

/** What a time-series row's log entry names instead of copying (LOG_REF_SERIES), as appendChanges takes it. */
const BY_SERIES_ROW = [LOG_REF_SERIES];

/**
 * Writes time-series rows and appends each one's log entry (before the row: the row keeps the entry's offset, which
 * names it for the entry's values; migration 18); inside a write transaction. `known`: gets the stored form of each
 * event text. `encoded`: events whose text and stored form the caller made already (a large write compresses them
 * beside the event loop). `entitiesAdded`: urns whose entity row this transaction has made sure of already.
 * `entries`: gets the entries as a read without values gives them.
 */
export function upsertTimeseriesRows(c: SqliteConnection, rows: TimeseriesWrite[], known?: Map<string, StoredJson>,
  encoded?: { get(r: TimeseriesWrite): { json: string; stored: StoredJson } | undefined }, entitiesAdded?: { has(urn: string): boolean },
  entries?: ChangeRecord[], number: (urn: string) => number = urnNumberer(c)): void {
  if (rows.length === 0) return;
  const addEntity = c.stmt(`INSERT OR IGNORE INTO ${ENTITY_TABLE} (urn, entity_type, created_on) VALUES (?, ?, ?)`);
  for (const r of rows) {
    const t = tableFor(r.entityType, r.aspect);
    const ahead = encoded?.get(r);
    const json = ahead?.json ?? valueJsonOf(r);
    const stored = ahead?.stored ?? storeJson(json);
    known?.set(json, stored);
    const sys = r.systemMetadata ? JSON.stringify(r.systemMetadata) : null;
    c.sizes.changed(t);
    if (!entitiesAdded?.has(r.urn)) addEntity.run(r.urn, r.entityType, Date.now());
    const [seq] = appendChanges(c, [timeseriesChange(r, json, sys, Date.now())], known, entries, BY_SERIES_ROW, number);
    const sql = upsertSql(t);
    const runId = r.systemMetadata?.runId ?? null;
    if (c.stmt(sql.insert).run(r.urn, r.timestampMillis, r.partition, r.granularity, r.messageId, stored, sys, runId, seq).changes === 0) {
      c.stmt(sql.update).run(stored, sys, runId, seq, r.urn, r.timestampMillis, r.partition, r.granularity, r.messageId);
    }
  }
}

/**
 * The insert of a time-series row, and the update of one whose key is taken, by table: their text built once (a
 * template literal is built anew at every call). Not one upsert: the table's update trigger (migration 18) would
 * slow every insert of one (about 12 µs a row). A row overwritten takes the new entry's offset; the trigger copies
 * its values into the entry that wrote them.
 */
const upsertSqlByTable = new Map<string, { insert: string; update: string }>();
function upsertSql(table: string): { insert: string; update: string } {
  let sql = upsertSqlByTable.get(table);
  if (sql === undefined) {
    upsertSqlByTable.set(table, (sql = {
      insert: `INSERT INTO ${table} (urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata, run_id, log_seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (urn, timestamp_millis, partition_key, granularity, message_id) DO NOTHING`,
      update: `UPDATE ${table} SET event = ?, system_metadata = ?, run_id = ?, log_seq = ?
        WHERE urn = ? AND timestamp_millis = ? AND partition_key = ? AND granularity = ? AND message_id = ?`,
    }));
  }
  return sql;
}

export function queryTimeseries(c: SqliteConnection, q: TimeseriesQuery): TimeseriesRecord[] {
  const t = tableFor(q.entityType, q.aspect);
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.urn !== undefined) { where.push('urn = ?'); params.push(q.urn); }
  if (q.startTimeMillis !== undefined) { where.push('timestamp_millis >= ?'); params.push(q.startTimeMillis); }
  if (q.endTimeMillis !== undefined) { where.push('timestamp_millis <= ?'); params.push(q.endTimeMillis); }
  const sql = `SELECT urn, timestamp_millis, event, system_metadata FROM ${t}${where.length ? ' WHERE ' + where.join(' AND ') : ''}
    ORDER BY timestamp_millis ${q.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
  const rows = c.stmt(sql).all(...params, q.limit ?? -1) as
    { urn: string; timestamp_millis: number; event: StoredJson; system_metadata: string | null }[];
  return rows.map((r) => ({
    urn: r.urn, timestampMillis: r.timestamp_millis, value: JSON.parse(readJson(r.event)),
    systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
  }));
}

export function countTimeseries(c: SqliteConnection, entityType: string, aspect: string, beforeMillis?: number): number {
  const t = tableFor(entityType, aspect);
  return beforeMillis === undefined
    ? (c.stmt(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number)
    : (c.stmt(`SELECT COUNT(*) FROM ${t} WHERE timestamp_millis < ?`).pluck().get(beforeMillis) as number);
}

export function deleteTimeseriesBefore(c: SqliteConnection, entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): number {
  const t = tableFor(entityType, aspect);
  c.sizes.changed(t);
  return c.db.transaction(() => {
    const n = c.stmt(`DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE timestamp_millis < ? LIMIT ?)`)
      .run(endTimeMillis, batchSize).changes;
    if (n) appendChanges(c, [truncateChange({ urn: null, entityType, aspect, endTimeMillis, rows: n, actor }, Date.now())]);
    return n;
  }).immediate();
}

export function deleteTimeseriesRange(c: SqliteConnection, urn: string, entityType: string, aspect: string, start?: number, end?: number, actor?: string): number {
  return c.db.transaction(() => {
    const log: ChangeRow[] = [];
    const n = deleteTimeseriesRows(c, urn, entityType, aspect, start, end, actor, log);
    appendChanges(c, log);
    return n;
  }).immediate();
}

/** Deletes one entity's time-series rows of an aspect in a time range (all when open), logging it; inside a write transaction. */
export function deleteTimeseriesRows(c: SqliteConnection, urn: string, entityType: string, aspect: string, start: number | undefined, end: number | undefined, actor: string | undefined, log: ChangeRow[]): number {
  const t = tableFor(entityType, aspect);
  c.sizes.changed(t);
  const n = c.stmt(`DELETE FROM ${t} WHERE urn = ? AND timestamp_millis >= ? AND timestamp_millis <= ?`)
    .run(urn, start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER).changes;
  if (n) log.push(truncateChange({ urn, entityType, aspect, startTimeMillis: start, endTimeMillis: end, rows: n, actor }, Date.now()));
  return n;
}

export async function reclaimTimeseriesSpace(c: SqliteConnection): Promise<void> {
  // Freed pages already left the table's b-tree (so its dbstat size fell); this returns them to the file system,
  // a few hundred pages per step so that other requests run in between.
  while ((c.db.pragma('freelist_count', { simple: true }) as number) > 0) {
    c.db.pragma('incremental_vacuum(256)');
    await new Promise((r) => setImmediate(r));
  }
}

/** dbstat's figures for each table and its indexes (kept: TableSizes). */
export function timeseriesSizes(c: SqliteConnection): TableSize[] {
  const cache = c.sizes.current(c.db.pragma('data_version', { simple: true }) as number);
  const bytes = new Map<string, number>();
  for (const t of timeseriesTableNames()) {
    let size = cache.get(t);
    if (size === undefined) {
      const names = c.stmt('SELECT name FROM sqlite_master WHERE tbl_name = ?').pluck().all(t) as string[];
      size = names.reduce((sum, n) => sum + ((c.stmt('SELECT pgsize FROM dbstat WHERE name = ? AND aggregate = 1').pluck().get(n) as number) ?? 0), 0);
      cache.set(t, size);
    }
    bytes.set(t, size);
  }
  return sizesFor(bytes);
}

export function deleteTimeseriesOfRun(c: SqliteConnection, runId: string, actor?: string): number {
  let n = 0;
  c.db.transaction(() => {
    const log: ChangeRow[] = [];
    for (const t of timeseriesTables()) {
      const rows = c.stmt(`DELETE FROM ${t.table} WHERE run_id = ?`).run(runId).changes;
      if (rows === 0) continue;
      c.sizes.changed(t.table);
      n += rows;
      log.push(truncateChange({ urn: null, entityType: t.entityType, aspect: t.aspect, runId, rows, actor }, Date.now()));
    }
    appendChanges(c, log);
  }).immediate();
  return n;
}

export function timeseriesRowsAfter(c: SqliteConnection, q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number; limit: number }): TimeseriesRow[] {
  if (q.urns.length === 0) return [];
  const t = tableFor(q.entityType, q.aspect);
  const out: TimeseriesRow[] = [];
  // SQLite compares text byte by byte (BINARY), the order the export needs; the table's unique index serves it.
  for (let i = 0; i < q.urns.length && out.length < q.limit; i += CHUNK) {
    const chunk = q.urns.slice(i, i + CHUNK);
    const where = [`urn IN (${chunk.map(() => '?').join(',')})`];
    const params: unknown[] = [...chunk];
    if (q.after) {
      where.push('(urn, timestamp_millis, partition_key, granularity, message_id) > (?, ?, ?, ?, ?)');
      params.push(q.after.urn, q.after.timestampMillis, q.after.partition, q.after.granularity, q.after.messageId);
    }
    if (q.sinceMillis !== undefined) { where.push('timestamp_millis >= ?'); params.push(q.sinceMillis); }
    const rows = c.stmt(`SELECT urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata FROM ${t}
      WHERE ${where.join(' AND ')} ORDER BY urn, timestamp_millis, partition_key, granularity, message_id LIMIT ?`)
      .all(...params, q.limit - out.length) as TimeseriesTableRow[];
    out.push(...rows.map(timeseriesRowOf));
  }
  return out;
}

interface TimeseriesTableRow {
  urn: string; timestamp_millis: number; partition_key: string; granularity: string; message_id: string; event: StoredJson; system_metadata: string | null;
}

function timeseriesRowOf(r: TimeseriesTableRow): TimeseriesRow {
  return {
    urn: r.urn, timestampMillis: Number(r.timestamp_millis), partition: r.partition_key, granularity: r.granularity, messageId: r.message_id,
    value: JSON.parse(readJson(r.event)), systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
  };
}
