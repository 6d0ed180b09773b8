import { ASPECT_TABLE, ENTITY_TABLE, toRecord, type AspectRow } from '../schema.js';
import type { AspectRecord, EntityRow, RunAspectRow, RunSummary } from '../types.js';
import { prepared, type PostgresConnection } from './connection.js';

/** Reads of entities, aspect versions and ingestion runs on PostgreSQL (the latest values: the store, which caches them parsed). */

/** The latest versions that name a run (a string runId), with when they were observed and whether their entity is soft-deleted. */
const RUN_ROWS = `SELECT a.urn AS urn, a.aspect AS aspect, a.sm ->> 'runId' AS run_id,
    CASE WHEN jsonb_typeof(a.sm -> 'lastObserved') = 'number' THEN (a.sm ->> 'lastObserved')::numeric::bigint ELSE a.createdon END AS ts,
    CASE WHEN s.metadata IS NOT NULL AND s.metadata::jsonb -> 'removed' = 'true'::jsonb THEN 1 ELSE 0 END AS removed
  FROM (SELECT urn, aspect, createdon, systemmetadata::jsonb AS sm FROM ${ASPECT_TABLE} WHERE version = 0 AND systemmetadata IS NOT NULL) a
  LEFT JOIN ${ASPECT_TABLE} s ON s.urn = a.urn AND s.aspect = 'status' AND s.version = 0
  WHERE jsonb_typeof(a.sm -> 'runId') = 'string'`;

export async function getVersion(db: PostgresConnection, urn: string, aspect: string, version: number): Promise<AspectRecord | null> {
  const { rows } = await db.query(prepared(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2 AND version = $3`,
    [urn, aspect, version]));
  return rows[0] ? toRecord(rows[0]) : null;
}

export async function listVersions(db: PostgresConnection, urn: string, aspect: string): Promise<AspectRecord[]> {
  const { rows } = await db.query(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2
    ORDER BY CASE WHEN version = 0 THEN 0 ELSE 1 END, version DESC`, [urn, aspect]);
  return (rows as AspectRow[]).map(toRecord);
}

/**
 * Lists of up to this many values are sent as that many parameters (`$1, $2, …`), one statement text per length,
 * rather than as one array parameter. PostgreSQL estimates `= ANY($1)` and `UNNEST($1)` of an array parameter at ten
 * elements in a prepared statement's generic plan, and a custom plan at the list's length: the custom one looking
 * cheaper, a prepared statement was planned again on every run (a `dataset(urn)` read planned its entity and latest
 * aspect reads for 230 µs of PostgreSQL's CPU of about 800, 2026-11-28). With the length in the text, the generic plan
 * is the custom one, and is kept after the first runs. Longer lists (bulk reads, whose plan may depend on the size)
 * keep the array.
 */
const LISTED_MAX = 32;

/** `$from, $from+1, …` for the values, or null beyond LISTED_MAX. */
function listed(count: number, from: number, type = ''): string | null {
  return count > LISTED_MAX ? null : Array.from({ length: count }, (_, i) => `$${from + i}${type}`).join(', ');
}

export async function existing(db: Pick<PostgresConnection, 'query'>, urns: readonly string[]): Promise<Set<string>> {
  if (urns.length === 0) return new Set();
  const list = listed(urns.length, 1);
  const { rows } = list
    ? await db.query(prepared(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn IN (${list})`, [...urns]))
    : await db.query(prepared(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn = ANY($1)`, [urns]));
  return new Set(rows.map((r) => r.urn as string));
}

/**
 * The latest rows (version 0) of the given aspects (all when omitted) of many entities, in one statement: what the
 * store's getLatest and a worker's index reads (src/storage/index-reads.ts) each turn into records.
 */
export async function latestRows(db: Pick<PostgresConnection, 'query'>, urns: readonly string[], aspects?: readonly string[]): Promise<AspectRow[]> {
  if (urns.length === 0 || aspects?.length === 0) return [];
  // Each entity's rows read by a probe of the key (a LATERAL subquery the planner keeps apart: OFFSET 0). With
  // `urn = ANY`, a page of a bulk catch-up (800 entities) was read by a parallel scan of the whole table, its
  // statistics never gathered during the load: 37 ms a page at 5,000 generated datasets, growing with the catalog.
  const unique = [...new Set(urns)];
  // One entity (most reads) by its own statement: PostgreSQL estimates UNNEST of a parameter at ten elements in a
  // prepared statement's generic plan, so the statement below is planned anew on every run; this one runs on its
  // generic plan.
  if (unique.length === 1) {
    const names = aspects && listed(aspects.length, 2);
    const { rows: one } = names
      ? await db.query(prepared(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND version = 0 AND aspect IN (${names})`, [unique[0], ...aspects!]))
      : aspects
        ? await db.query(prepared(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND version = 0 AND aspect = ANY($2)`, [unique[0], aspects]))
        : await db.query(prepared(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND version = 0`, [unique[0]]));
    return one as AspectRow[];
  }
  // A few entities (a page of a read, lineage's neighbours): their urns as a VALUES list of parameters (LISTED_MAX),
  // padded with NULLs (which match nothing) to a power of two, so that the texts stay few: the plan's rows are the
  // list's either way.
  const width = 2 ** Math.ceil(Math.log2(unique.length));
  const keys = listed(width, 1, '::text');
  const names = aspects ? listed(aspects.length, width + 1) : '';
  if (keys && names !== null) {
    const padded = [...unique, ...Array.from({ length: width - unique.length }, () => null)];
    const { rows } = await db.query(prepared(`SELECT a.* FROM (VALUES (${keys.split(', ').join('), (')})) AS k(urn) CROSS JOIN LATERAL
      (SELECT * FROM ${ASPECT_TABLE} a WHERE a.urn = k.urn AND a.version = 0${aspects ? ` AND a.aspect IN (${names})` : ''} OFFSET 0) a`,
    [...padded, ...(aspects ?? [])]));
    return rows as AspectRow[];
  }
  const { rows } = aspects
    ? await db.query(prepared(`SELECT a.* FROM UNNEST($1::text[]) AS k(urn) CROSS JOIN LATERAL (SELECT * FROM ${ASPECT_TABLE} a
        WHERE a.urn = k.urn AND a.version = 0 AND a.aspect = ANY($2) OFFSET 0) a`, [unique, aspects]))
    : await db.query(prepared(`SELECT a.* FROM UNNEST($1::text[]) AS k(urn) CROSS JOIN LATERAL (SELECT * FROM ${ASPECT_TABLE} a
        WHERE a.urn = k.urn AND a.version = 0 OFFSET 0) a`, [unique]));
  return rows as AspectRow[];
}

export async function listEntities(db: PostgresConnection, opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  // Compared and ordered alike, in byte order: a page `after` a urn starts where the one before ended whatever the
  // database's collation, and is read from the urn's index where that collation is byte order already (a key-order
  // catch-up's pages: with COLLATE "C" on such a database each page sorted every entity after it).
  const urn = await urnInByteOrder(db);
  if (opts.entityType) { params.push(opts.entityType); where.push(`entity_type = $${params.length}`); }
  if (opts.after !== undefined) { params.push(opts.after); where.push(`${urn} > $${params.length}`); }
  params.push(opts.count ?? null, opts.start ?? 0);
  const { rows } = await db.query(`SELECT urn, entity_type AS "entityType" FROM ${ENTITY_TABLE}
    ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY ${urn} LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
  return rows as EntityRow[];
}

const byteCollation = new WeakMap<object, Promise<boolean>>();

/**
 * The urn column as compared in byte order, as SQLite compares: itself where the database's collation is byte order
 * already (C or POSIX, or C.UTF-8: code point order, which is UTF-8's byte order), so that its index serves the
 * order; otherwise `urn COLLATE "C"`, at the price of sorting what a page reads. Asked once per connection, by
 * sorting some text both ways: a database's name of its collation does not tell (an ICU database keeps the libc name,
 * C.UTF-8 by default, beside the ICU locale it compares by).
 */
export async function urnInByteOrder(db: Pick<PostgresConnection, 'query'>): Promise<string> {
  let bytes = byteCollation.get(db);
  if (!bytes) {
    bytes = db.query(`SELECT array_agg(x ORDER BY x) = array_agg(x ORDER BY x COLLATE "C") AS bytes
      FROM unnest(ARRAY['a', 'B', 'b', 'Z', '_', '-', '.', ',', '(', ')', ':', '1', 'é', 'e', 'ü', '中', '😀']) AS t(x)`)
      .then(({ rows }) => rows[0]?.bytes === true);
    bytes.catch(() => byteCollation.delete(db));
    byteCollation.set(db, bytes);
  }
  return (await bytes) ? 'urn' : 'urn COLLATE "C"';
}

export async function countEntities(db: PostgresConnection, entityType?: string): Promise<number> {
  const { rows } = entityType
    ? await db.query(`SELECT COUNT(*)::int AS n FROM ${ENTITY_TABLE} WHERE entity_type = $1`, [entityType])
    : await db.query(`SELECT COUNT(*)::int AS n FROM ${ENTITY_TABLE}`);
  return rows[0].n as number;
}

export async function latestAspectsOfRun(db: PostgresConnection, runId: string): Promise<{ urn: string; aspect: string }[]> {
  // strpos narrows the scan cheaply; the JSON test decides.
  const { rows } = await db.query(`SELECT urn, aspect FROM ${ASPECT_TABLE} WHERE version = 0 AND strpos(systemmetadata, $1) > 0
    AND systemmetadata::jsonb ->> 'runId' = $1 ORDER BY urn COLLATE "C", aspect COLLATE "C"`, [runId]);
  return rows.map((r) => ({ urn: r.urn as string, aspect: r.aspect as string }));
}

export async function listRuns(db: PostgresConnection, q: { start: number; count: number; includeSoft: boolean }): Promise<RunSummary[]> {
  const { rows } = await db.pool.query(`SELECT run_id, COUNT(*) AS n, MAX(ts) AS ts FROM (${RUN_ROWS}) r GROUP BY run_id
    HAVING $1 OR SUM(removed) < COUNT(*) ORDER BY ts DESC, run_id COLLATE "C" LIMIT $2 OFFSET $3`, [q.includeSoft, q.count, q.start]);
  return rows.map((r) => ({ runId: r.run_id as string, rows: Number(r.n), timestamp: Number(r.ts) }));
}

export async function aspectsOfRun(db: PostgresConnection, runId: string, q: { start: number; count: number; includeSoft: boolean }): Promise<RunAspectRow[]> {
  const { rows } = await db.pool.query(`SELECT * FROM (${RUN_ROWS}) r WHERE run_id = $1 AND ($2 OR removed = 0)
    ORDER BY urn COLLATE "C", aspect COLLATE "C" LIMIT $3 OFFSET $4`, [runId, q.includeSoft, q.count, q.start]);
  return rows.map((r) => ({ urn: r.urn as string, aspect: r.aspect as string, timestamp: Number(r.ts), removed: Number(r.removed) === 1 }));
}
