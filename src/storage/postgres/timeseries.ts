import type pg from 'pg';
import { ENTITY_TABLE, sizesFor, tableFor, timeseriesTableNames, timeseriesTables } from '../schema.js';
import { timeseriesChange, truncateChange, type ChangeRow } from '../change-log.js';
import { valueJsonOf, type TableSize, type TimeseriesQuery, type TimeseriesRecord, type TimeseriesRow, type TimeseriesRowKey, type TimeseriesWrite } from '../types.js';
import { appendChanges } from './change-log.js';
import { NO_TIME_LIMIT, timed, unavailableOr, type PostgresConnection } from './connection.js';

/** Time series on PostgreSQL: one table per entity type and aspect, their rows written, read, deleted, exported and measured. */

export async function upsertTimeseries(db: PostgresConnection, rows: TimeseriesWrite[]): Promise<void> {
  await db.tx(async (c) => {
    const log: ChangeRow[] = [];
    await upsertTimeseriesRows(c, rows, log);
    await appendChanges(c, log);
  });
}

/**
 * Time-series rows as parts of a writer's statement (runTogether's `name AS (...)`; `$` adds a parameter): one upsert
 * per table, the last row for a key winning, each row logged in `log`; their entities are added to `entities` (urn →
 * entity type) for the statement's own insert of entities. Null, and nothing done, when a table gets more rows than
 * one statement takes (upsertTimeseriesRows then writes them in chunks).
 */
export function timeseriesParts(rows: readonly TimeseriesWrite[], log: ChangeRow[], $: (v: unknown) => string,
  entities: Map<string, string>): string[] | null {
  const byTable = latestByTable(rows);
  if ([...byTable.values()].some((m) => m.size > UPSERT_CHUNK)) return null;
  const now = Date.now();
  const json = new Map(rows.map((r) => [r, valueJsonOf(r)]));
  const sys = new Map(rows.map((r) => [r, r.systemMetadata ? JSON.stringify(r.systemMetadata) : null]));
  for (const r of rows) log.push(timeseriesChange(r, json.get(r)!, sys.get(r)!, now));
  for (const r of rows) if (!entities.has(r.urn)) entities.set(r.urn, r.entityType);
  return [...byTable].map(([t, m], i) => {
    const list = [...m.values()];
    return `timeseries_${i} AS (${upsertInto(t, [list.map((r) => r.urn), list.map((r) => r.timestampMillis), list.map((r) => r.partition),
      list.map((r) => r.granularity), list.map((r) => r.messageId), list.map((r) => json.get(r)!), list.map((r) => sys.get(r)!),
      list.map((r) => r.systemMetadata?.runId ?? null)].map($))})`;
  });
}

/** Rows per upsert statement. */
const UPSERT_CHUNK = 5000;

/** Each table's rows of a batch, by key: the last row for a key wins. */
function latestByTable(rows: readonly TimeseriesWrite[]): Map<string, Map<string, TimeseriesWrite>> {
  const byTable = new Map<string, Map<string, TimeseriesWrite>>();
  for (const r of rows) {
    const t = tableFor(r.entityType, r.aspect);
    let m = byTable.get(t);
    if (!m) byTable.set(t, (m = new Map()));
    m.set(JSON.stringify([r.urn, r.timestampMillis, r.partition, r.granularity, r.messageId]), r);
  }
  return byTable;
}

/** The upsert of rows into a time-series table, its eight columns' arrays given as parameters. */
function upsertInto(table: string, p: readonly string[]): string {
  return `INSERT INTO ${table} (urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata, run_id)
    SELECT * FROM UNNEST(${p[0]}::text[], ${p[1]}::bigint[], ${p[2]}::text[], ${p[3]}::text[], ${p[4]}::text[], ${p[5]}::text[], ${p[6]}::text[], ${p[7]}::text[])
    ON CONFLICT ON CONSTRAINT ${table}_key
    DO UPDATE SET event = excluded.event, system_metadata = excluded.system_metadata, run_id = excluded.run_id`;
}

/** One multi-row statement per table and chunk; within a batch the last row for a key wins. Each row is logged. */
export async function upsertTimeseriesRows(c: pg.PoolClient, rows: TimeseriesWrite[], log: ChangeRow[]): Promise<void> {
  if (rows.length === 0) return;
  const now = Date.now();
  const json = new Map(rows.map((r) => [r, valueJsonOf(r)]));
  const sys = new Map(rows.map((r) => [r, r.systemMetadata ? JSON.stringify(r.systemMetadata) : null]));
  for (const r of rows) log.push(timeseriesChange(r, json.get(r)!, sys.get(r)!, now));
  const entities = new Map(rows.map((r) => [r.urn, r.entityType]));
  await c.query(`INSERT INTO ${ENTITY_TABLE} (urn, entity_type, created_on) SELECT u, t, $3 FROM UNNEST($1::text[], $2::text[]) AS x(u, t)
    ON CONFLICT DO NOTHING`, [[...entities.keys()], [...entities.values()], Date.now()]);
  for (const [t, m] of latestByTable(rows)) {
    const list = [...m.values()];
    for (let i = 0; i < list.length; i += UPSERT_CHUNK) {
      const chunk = list.slice(i, i + UPSERT_CHUNK);
      await c.query(upsertInto(t, ['$1', '$2', '$3', '$4', '$5', '$6', '$7', '$8']),
        [chunk.map((r) => r.urn), chunk.map((r) => r.timestampMillis), chunk.map((r) => r.partition), chunk.map((r) => r.granularity),
          chunk.map((r) => r.messageId), chunk.map((r) => json.get(r)!), chunk.map((r) => sys.get(r)!),
          chunk.map((r) => r.systemMetadata?.runId ?? null)]);
    }
  }
}

export async function queryTimeseries(db: PostgresConnection, q: TimeseriesQuery): Promise<TimeseriesRecord[]> {
  const t = tableFor(q.entityType, q.aspect);
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.urn !== undefined) { params.push(q.urn); where.push(`urn = $${params.length}`); }
  if (q.startTimeMillis !== undefined) { params.push(q.startTimeMillis); where.push(`timestamp_millis >= $${params.length}`); }
  if (q.endTimeMillis !== undefined) { params.push(q.endTimeMillis); where.push(`timestamp_millis <= $${params.length}`); }
  params.push(q.limit ?? null);
  const { rows } = await db.query(`SELECT urn, timestamp_millis, event, system_metadata FROM ${t}
    ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY timestamp_millis ${q.order === 'asc' ? 'ASC' : 'DESC'}
    LIMIT $${params.length}`, params);
  return rows.map((r) => ({
    urn: r.urn, timestampMillis: r.timestamp_millis, value: JSON.parse(r.event),
    systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
  }));
}

export async function countTimeseries(db: PostgresConnection, entityType: string, aspect: string, beforeMillis?: number): Promise<number> {
  const t = tableFor(entityType, aspect);
  const { rows } = beforeMillis === undefined
    ? await db.query(`SELECT COUNT(*)::bigint AS n FROM ${t}`)
    : await db.query(`SELECT COUNT(*)::bigint AS n FROM ${t} WHERE timestamp_millis < $1`, [beforeMillis]);
  return rows[0].n as number;
}

export async function deleteTimeseriesBefore(db: PostgresConnection, entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): Promise<number> {
  const t = tableFor(entityType, aspect);
  return db.tx(async (c) => {
    const n = (await c.query(`DELETE FROM ${t} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${t} WHERE timestamp_millis < $1 LIMIT $2))`,
      [endTimeMillis, batchSize])).rowCount ?? 0;
    if (n) await appendChanges(c, [truncateChange({ urn: null, entityType, aspect, endTimeMillis, rows: n, actor }, Date.now())]);
    return n;
  });
}

export async function deleteTimeseriesRange(db: PostgresConnection, urn: string, entityType: string, aspect: string, start?: number, end?: number, actor?: string): Promise<number> {
  return db.tx(async (c) => {
    const log: ChangeRow[] = [];
    const n = await deleteTimeseriesRows(c, urn, entityType, aspect, start, end, actor, log);
    await appendChanges(c, log);
    return n;
  });
}

/** Deletes one entity's time-series rows of an aspect in a time range (all when open), logging it; inside a write transaction. */
export async function deleteTimeseriesRows(c: pg.PoolClient, urn: string, entityType: string, aspect: string, start: number | undefined, end: number | undefined, actor: string | undefined, log: ChangeRow[]): Promise<number> {
  const t = tableFor(entityType, aspect);
  const n = (await c.query(`DELETE FROM ${t} WHERE urn = $1 AND timestamp_millis >= $2 AND timestamp_millis <= $3`,
    [urn, start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER])).rowCount ?? 0;
  if (n) log.push(truncateChange({ urn, entityType, aspect, startTimeMillis: start, endTimeMillis: end, rows: n, actor }, Date.now()));
  return n;
}

export async function reclaimTimeseriesSpace(db: PostgresConnection, entityType: string, aspect: string, rewrite: boolean): Promise<void> {
  // Plain VACUUM never blocks readers or writers but only trims empty pages at the end of the table; old rows
  // sit at its start, so after a large truncation the table is rewritten (its size then really falls).
  const c = await db.connect();
  try {
    // Nor does statement_timeout (ALMANAC_PG_STATEMENT_TIMEOUT_MS): lifted for this connection, closed after.
    await c.query('SET statement_timeout = 0');
    await c.query(timed(`VACUUM (${rewrite ? 'FULL, ' : ''}ANALYZE) ${tableFor(entityType, aspect)}`, NO_TIME_LIMIT));
  } catch (e) {
    throw unavailableOr(e);
  } finally {
    c.release(true);
  }
}

export async function timeseriesSizes(db: PostgresConnection): Promise<TableSize[]> {
  const names = timeseriesTableNames();
  const { rows } = await db.query(`SELECT c.relname AS tbl, pg_total_relation_size(c.oid)::bigint AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY($1)`, [names]);
  return sizesFor(new Map(rows.map((r) => [r.tbl as string, r.bytes as number])));
}

export async function deleteTimeseriesOfRun(db: PostgresConnection, runId: string, actor?: string): Promise<number> {
  return db.tx(async (c) => {
    let n = 0;
    const log: ChangeRow[] = [];
    for (const t of timeseriesTables()) {
      const rows = (await c.query(`DELETE FROM ${t.table} WHERE run_id = $1`, [runId])).rowCount ?? 0;
      if (rows === 0) continue;
      n += rows;
      log.push(truncateChange({ urn: null, entityType: t.entityType, aspect: t.aspect, runId, rows, actor }, Date.now()));
    }
    await appendChanges(c, log);
    return n;
  });
}

export async function timeseriesRowsAfter(db: PostgresConnection, q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number; limit: number }): Promise<TimeseriesRow[]> {
  if (q.urns.length === 0) return [];
  const t = tableFor(q.entityType, q.aspect);
  const params: unknown[] = [q.urns];
  const where = ['urn = ANY($1::text[])'];
  if (q.after) {
    params.push(q.after.urn, q.after.timestampMillis, q.after.partition, q.after.granularity, q.after.messageId);
    where.push('(urn COLLATE "C", timestamp_millis, partition_key COLLATE "C", granularity COLLATE "C", message_id COLLATE "C") > ($2, $3, $4, $5, $6)');
  }
  if (q.sinceMillis !== undefined) { params.push(q.sinceMillis); where.push(`timestamp_millis >= $${params.length}`); }
  params.push(q.limit);
  const { rows } = await db.query(`SELECT urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata FROM ${t}
    WHERE ${where.join(' AND ')}
    ORDER BY urn COLLATE "C", timestamp_millis, partition_key COLLATE "C", granularity COLLATE "C", message_id COLLATE "C"
    LIMIT $${params.length}`, params);
  return rows.map((r) => ({
    urn: r.urn, timestampMillis: Number(r.timestamp_millis), partition: r.partition_key, granularity: r.granularity, messageId: r.message_id,
    value: JSON.parse(r.event), systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
  }));
}
