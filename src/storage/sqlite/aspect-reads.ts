import { ASPECT_TABLE, ENTITY_TABLE, toRecord, type AspectRow } from '../schema.js';
import type { AspectRecord, EntityRow, RunAspectRow, RunSummary } from '../types.js';
import type { SqliteConnection } from './connection.js';

/** Reads of entities, aspect versions and ingestion runs on SQLite (the latest values: the store, which caches them parsed). */

/** SQLite has a limit on bound parameters; chunk IN-lists well below it. */
const CHUNK = 500;

/** The latest versions that name a run (a string runId), with when they were observed and whether their entity is soft-deleted. */
const RUN_ROWS = `SELECT a.urn AS urn, a.aspect AS aspect, json_extract(a.systemmetadata, '$.runId') AS run_id,
    CASE WHEN json_type(a.systemmetadata, '$.lastObserved') IN ('integer', 'real') THEN json_extract(a.systemmetadata, '$.lastObserved')
      ELSE a.createdon END AS ts,
    CASE WHEN typeof(s.metadata) = 'text' AND json_type(s.metadata, '$.removed') = 'true' THEN 1 ELSE 0 END AS removed
  FROM ${ASPECT_TABLE} a LEFT JOIN ${ASPECT_TABLE} s ON s.urn = a.urn AND s.aspect = 'status' AND s.version = 0
  WHERE a.version = 0 AND a.systemmetadata IS NOT NULL AND json_type(a.systemmetadata, '$.runId') = 'text'`;

export function getVersion(c: SqliteConnection, urn: string, aspect: string, version: number): AspectRecord | null {
  const row = c.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ? AND version = ?`)
    .get(urn, aspect, version) as AspectRow | undefined;
  return row ? toRecord(row) : null;
}

export function listVersions(c: SqliteConnection, urn: string, aspect: string): AspectRecord[] {
  const rows = c.stmt(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = ? AND aspect = ?
    ORDER BY CASE WHEN version = 0 THEN 0 ELSE 1 END, version DESC`).all(urn, aspect) as AspectRow[];
  return rows.map(toRecord);
}

export function existing(c: Pick<SqliteConnection, 'stmt'>, urns: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < urns.length; i += CHUNK) {
    const chunk = urns.slice(i, i + CHUNK);
    const rows = c.stmt(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn IN (${chunk.map(() => '?').join(',')})`)
      .pluck().all(...chunk) as string[];
    for (const u of rows) out.add(u);
  }
  return out;
}

/**
 * The latest rows (version 0) of the given aspects (all when omitted) of many entities, in chunks of CHUNK urns: what
 * the store's getLatest and a worker's index reads (src/storage/index-reads.ts) each turn into records.
 */
export function latestRows(c: Pick<SqliteConnection, 'stmt'>, urns: readonly string[], aspects?: readonly string[]): AspectRow[] {
  const out: AspectRow[] = [];
  if (aspects?.length === 0) return out;
  for (let i = 0; i < urns.length; i += CHUNK) {
    const chunk = urns.slice(i, i + CHUNK);
    let sql = `SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn IN (${chunk.map(() => '?').join(',')})`;
    const params: unknown[] = [...chunk];
    if (aspects) {
      sql += ` AND aspect IN (${aspects.map(() => '?').join(',')})`;
      params.push(...aspects);
    }
    out.push(...(c.stmt(sql).all(...params) as AspectRow[]));
  }
  return out;
}

export function listEntities(c: SqliteConnection, opts: { entityType?: string; start?: number; count?: number; after?: string }): EntityRow[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (opts.entityType) { where.push('entity_type = ?'); params.push(opts.entityType); }
  if (opts.after !== undefined) { where.push('urn > ?'); params.push(opts.after); }
  const sql = `SELECT urn, entity_type AS entityType FROM ${ENTITY_TABLE}${where.length ? ' WHERE ' + where.join(' AND ') : ''}
    ORDER BY urn LIMIT ? OFFSET ?`;
  return c.stmt(sql).all(...params, opts.count ?? -1, opts.start ?? 0) as EntityRow[];
}

export function countEntities(c: SqliteConnection, entityType?: string): number {
  return entityType
    ? (c.stmt(`SELECT COUNT(*) FROM ${ENTITY_TABLE} WHERE entity_type = ?`).pluck().get(entityType) as number)
    : (c.stmt(`SELECT COUNT(*) FROM ${ENTITY_TABLE}`).pluck().get() as number);
}

export function latestAspectsOfRun(c: SqliteConnection, runId: string): { urn: string; aspect: string }[] {
  // The LIKE narrows the scan cheaply; the JSON test decides.
  return c.db.prepare(`SELECT urn, aspect FROM ${ASPECT_TABLE} WHERE version = 0 AND systemmetadata LIKE ?
    AND json_extract(systemmetadata, '$.runId') = ? ORDER BY urn, aspect`).all(`%${runId}%`, runId) as { urn: string; aspect: string }[];
}

export function listRuns(c: SqliteConnection, q: { start: number; count: number; includeSoft: boolean }): RunSummary[] {
  const rows = c.db.prepare(`SELECT run_id, COUNT(*) AS n, MAX(ts) AS ts FROM (${RUN_ROWS}) GROUP BY run_id
    HAVING ? OR SUM(removed) < COUNT(*) ORDER BY ts DESC, run_id LIMIT ? OFFSET ?`)
    .all(q.includeSoft ? 1 : 0, q.count, q.start) as { run_id: string; n: number; ts: number }[];
  return rows.map((r) => ({ runId: r.run_id, rows: Number(r.n), timestamp: Number(r.ts) }));
}

export function aspectsOfRun(c: SqliteConnection, runId: string, q: { start: number; count: number; includeSoft: boolean }): RunAspectRow[] {
  // The LIKE narrows the scan cheaply; the JSON test decides.
  const rows = c.db.prepare(`SELECT * FROM (${RUN_ROWS} AND a.systemmetadata LIKE ?) WHERE run_id = ? AND (? OR removed = 0)
    ORDER BY urn, aspect LIMIT ? OFFSET ?`).all(`%${runId}%`, runId, q.includeSoft ? 1 : 0, q.count, q.start) as
    { urn: string; aspect: string; ts: number; removed: number }[];
  return rows.map((r) => ({ urn: r.urn, aspect: r.aspect, timestamp: Number(r.ts), removed: r.removed === 1 }));
}
