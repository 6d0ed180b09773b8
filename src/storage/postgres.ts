import pg from 'pg';
import { addLatest, checkUpdate, lockNames, sameValue } from './aspect-updates.js';
import {
  ASPECT_TABLE, ENTITY_TABLE, MIGRATIONS_TABLE, RELATIONSHIP_TABLE, SEARCH_TABLE, SETTINGS_TABLE, migrations, sizesFor, tableFor, timeseriesTableNames,
  timeseriesTableStatements, toRecord, type AspectRow,
} from './schema.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, EntityRow, LatestAspects, Relationship, SearchDoc, Store, TableSize,
  TimeseriesQuery, TimeseriesRecord, TimeseriesWrite,
} from './types.js';

// BIGINT comes back as a string by default; our values (ms timestamps, versions, counts) fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** Serialises migrations of several servers starting at once on one database. */
const MIGRATION_LOCK = 727_100_001;

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, poolSize = 10) {
    this.pool = new pg.Pool({ connectionString, max: poolSize });
    // An idle client that loses its connection must not crash the process.
    this.pool.on('error', () => {});
  }

  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const r = await fn(c);
      await c.query('COMMIT');
      return r;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release();
    }
  }

  async migrate(): Promise<void> {
    await this.tx(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await c.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_on BIGINT NOT NULL)`);
      const done = new Set((await c.query(`SELECT version FROM ${MIGRATIONS_TABLE}`)).rows.map((r) => r.version as number));
      for (const m of migrations('postgres')) {
        if (done.has(m.version)) continue;
        for (const s of m.statements) await c.query(s);
        await c.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, applied_on) VALUES ($1, $2)`, [m.version, Date.now()]);
      }
      for (const s of timeseriesTableStatements('postgres')) await c.query(s);
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  async writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    return this.tx(async (c) => {
      await this.lockAspects(c, writes);
      return this.writeLocked(c, writes, historyCap, timeseries);
    });
  }

  async updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number): Promise<AspectWriteResult[]> {
    return this.tx(async (c) => {
      await this.lockAspects(c, keys);
      const current: LatestAspects = new Map();
      if (keys.length) {
        const { rows } = await c.query(`SELECT a.* FROM ${ASPECT_TABLE} a JOIN UNNEST($1::text[], $2::text[]) AS k(urn, aspect)
          ON a.urn = k.urn AND a.aspect = k.aspect WHERE a.version = 0`, [keys.map((k) => k.urn), keys.map((k) => k.aspect)]);
        for (const row of rows as AspectRow[]) addLatest(current, toRecord(row));
      }
      const update = checkUpdate(keys, modify(current));
      return this.writeLocked(c, update.writes, historyCap, update.timeseries ?? []);
    });
  }

  /**
   * Transaction-scoped advisory locks, one per (urn, aspect), taken in lockNames' order in one round trip. They
   * exist whether or not the aspect does, so they serialise the first writers of an aspect too.
   */
  private async lockAspects(c: pg.PoolClient, keys: readonly AspectKey[]): Promise<void> {
    await this.lockInOrder(c, lockNames(keys));
  }

  private async lockInOrder(c: pg.PoolClient, names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await c.query(`SELECT pg_advisory_xact_lock(hashtextextended(name, 0))
      FROM (SELECT name FROM UNNEST($1::text[]) WITH ORDINALITY AS l(name, i) ORDER BY i) AS ordered`, [names]);
  }

  /** Writes new versions of aspects whose locks this transaction holds. */
  private async writeLocked(c: pg.PoolClient, writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[]): Promise<AspectWriteResult[]> {
    const results: AspectWriteResult[] = [];
    for (const w of writes) {
      const now = w.time ?? Date.now();
      const sys = w.systemMetadata ? JSON.stringify(w.systemMetadata) : null;
      await c.query(`INSERT INTO ${ENTITY_TABLE} (urn, entity_type, created_on) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [w.urn, w.entityType, now]);
      const cur = (await c.query(`SELECT metadata, systemmetadata FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2 AND version = 0`,
        [w.urn, w.aspect])).rows[0] as { metadata: string; systemmetadata: string | null } | undefined;
      if (cur && sameValue(cur.metadata, w.value)) {
        if (sys !== null && sys !== cur.systemmetadata) {
          await c.query(`UPDATE ${ASPECT_TABLE} SET systemmetadata = $1 WHERE urn = $2 AND aspect = $3 AND version = 0`,
            [sys, w.urn, w.aspect]);
        }
        results.push({ urn: w.urn, aspect: w.aspect, changed: false });
        continue;
      }
      if (cur) {
        const max = (await c.query(`SELECT MAX(version) AS m FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2`,
          [w.urn, w.aspect])).rows[0].m as number;
        const next = max + 1;
        await c.query(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby)
          SELECT urn, aspect, $1, metadata, systemmetadata, createdon, createdby FROM ${ASPECT_TABLE}
          WHERE urn = $2 AND aspect = $3 AND version = 0`, [next, w.urn, w.aspect]);
        await c.query(`DELETE FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2 AND version > 0 AND version <= $3`,
          [w.urn, w.aspect, next - Math.max(historyCap - 1, 0)]);
      }
      await c.query(`INSERT INTO ${ASPECT_TABLE} (urn, aspect, version, metadata, systemmetadata, createdon, createdby)
        VALUES ($1, $2, 0, $3, $4, $5, $6) ON CONFLICT (urn, aspect, version) DO UPDATE SET metadata = excluded.metadata,
        systemmetadata = excluded.systemmetadata, createdon = excluded.createdon, createdby = excluded.createdby`,
        [w.urn, w.aspect, JSON.stringify(w.value), sys, now, w.actor]);
      results.push({ urn: w.urn, aspect: w.aspect, changed: true });
    }
    await this.upsertTimeseriesRows(c, timeseries);
    return results;
  }

  async getLatest(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>> {
    const out = new Map<string, Map<string, AspectRecord>>();
    if (urns.length === 0 || (aspects && aspects.length === 0)) return out;
    const { rows } = aspects
      ? await this.pool.query(`SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn = ANY($1) AND aspect = ANY($2)`,
        [urns, aspects])
      : await this.pool.query(`SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn = ANY($1)`, [urns]);
    for (const row of rows as AspectRow[]) addLatest(out, toRecord(row));
    return out;
  }

  async getVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null> {
    const { rows } = await this.pool.query(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2 AND version = $3`,
      [urn, aspect, version]);
    return rows[0] ? toRecord(rows[0]) : null;
  }

  async listVersions(urn: string, aspect: string): Promise<AspectRecord[]> {
    const { rows } = await this.pool.query(`SELECT * FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = $2
      ORDER BY CASE WHEN version = 0 THEN 0 ELSE 1 END, version DESC`, [urn, aspect]);
    return (rows as AspectRow[]).map(toRecord);
  }

  async deleteAspects(urn: string, aspects: readonly string[]): Promise<number> {
    if (aspects.length === 0) return 0;
    const r = await this.pool.query(`DELETE FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = ANY($2)`, [urn, aspects]);
    return r.rowCount ?? 0;
  }

  async existing(urns: readonly string[]): Promise<Set<string>> {
    if (urns.length === 0) return new Set();
    const { rows } = await this.pool.query(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn = ANY($1)`, [urns]);
    return new Set(rows.map((r) => r.urn as string));
  }

  async listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts.entityType) { params.push(opts.entityType); where.push(`entity_type = $${params.length}`); }
    if (opts.after !== undefined) { params.push(opts.after); where.push(`urn > $${params.length}`); }
    params.push(opts.count ?? null, opts.start ?? 0);
    const { rows } = await this.pool.query(`SELECT urn, entity_type AS "entityType" FROM ${ENTITY_TABLE}
      ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY urn COLLATE "C" LIMIT $${params.length - 1} OFFSET $${params.length}`, params);
    return rows as EntityRow[];
  }

  async countEntities(entityType?: string): Promise<number> {
    const { rows } = entityType
      ? await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${ENTITY_TABLE} WHERE entity_type = $1`, [entityType])
      : await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${ENTITY_TABLE}`);
    return rows[0].n as number;
  }

  async deleteEntity(urn: string): Promise<{ rows: number; timeseriesRows: number }> {
    return this.tx(async (c) => {
      const rows = (await c.query(`DELETE FROM ${ASPECT_TABLE} WHERE urn = $1`, [urn])).rowCount ?? 0;
      let timeseriesRows = 0;
      for (const t of timeseriesTableNames()) timeseriesRows += (await c.query(`DELETE FROM ${t} WHERE urn = $1`, [urn])).rowCount ?? 0;
      await c.query(`DELETE FROM ${SEARCH_TABLE} WHERE urn = $1`, [urn]);
      await c.query(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = $1`, [urn]);
      await c.query(`DELETE FROM ${ENTITY_TABLE} WHERE urn = $1`, [urn]);
      return { rows, timeseriesRows };
    });
  }

  async upsertTimeseries(rows: TimeseriesWrite[]): Promise<void> {
    await this.tx((c) => this.upsertTimeseriesRows(c, rows));
  }

  /** One multi-row statement per table and chunk; within a batch the last row for a key wins. */
  private async upsertTimeseriesRows(c: pg.PoolClient, rows: TimeseriesWrite[]): Promise<void> {
    if (rows.length === 0) return;
    const entities = new Map(rows.map((r) => [r.urn, r.entityType]));
    await c.query(`INSERT INTO ${ENTITY_TABLE} (urn, entity_type, created_on) SELECT u, t, $3 FROM UNNEST($1::text[], $2::text[]) AS x(u, t)
      ON CONFLICT DO NOTHING`, [[...entities.keys()], [...entities.values()], Date.now()]);
    const byTable = new Map<string, Map<string, TimeseriesWrite>>();
    for (const r of rows) {
      const t = tableFor(r.entityType, r.aspect);
      let m = byTable.get(t);
      if (!m) byTable.set(t, (m = new Map()));
      m.set(JSON.stringify([r.urn, r.timestampMillis, r.partition, r.granularity, r.messageId]), r);
    }
    const CHUNK = 5000;
    for (const [t, m] of byTable) {
      const list = [...m.values()];
      for (let i = 0; i < list.length; i += CHUNK) {
        const chunk = list.slice(i, i + CHUNK);
        await c.query(`INSERT INTO ${t} (urn, timestamp_millis, partition_key, granularity, message_id, event, system_metadata, run_id)
          SELECT * FROM UNNEST($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])
          ON CONFLICT ON CONSTRAINT ${t}_key
          DO UPDATE SET event = excluded.event, system_metadata = excluded.system_metadata, run_id = excluded.run_id`,
        [chunk.map((r) => r.urn), chunk.map((r) => r.timestampMillis), chunk.map((r) => r.partition), chunk.map((r) => r.granularity),
          chunk.map((r) => r.messageId), chunk.map((r) => JSON.stringify(r.value)),
          chunk.map((r) => (r.systemMetadata ? JSON.stringify(r.systemMetadata) : null)), chunk.map((r) => r.systemMetadata?.runId ?? null)]);
      }
    }
  }

  async queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]> {
    const t = tableFor(q.entityType, q.aspect);
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.urn !== undefined) { params.push(q.urn); where.push(`urn = $${params.length}`); }
    if (q.startTimeMillis !== undefined) { params.push(q.startTimeMillis); where.push(`timestamp_millis >= $${params.length}`); }
    if (q.endTimeMillis !== undefined) { params.push(q.endTimeMillis); where.push(`timestamp_millis <= $${params.length}`); }
    params.push(q.limit ?? null);
    const { rows } = await this.pool.query(`SELECT urn, timestamp_millis, event, system_metadata FROM ${t}
      ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY timestamp_millis ${q.order === 'asc' ? 'ASC' : 'DESC'}
      LIMIT $${params.length}`, params);
    return rows.map((r) => ({
      urn: r.urn, timestampMillis: r.timestamp_millis, value: JSON.parse(r.event),
      systemMetadata: r.system_metadata ? JSON.parse(r.system_metadata) : null,
    }));
  }

  async countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    const { rows } = beforeMillis === undefined
      ? await this.pool.query(`SELECT COUNT(*)::bigint AS n FROM ${t}`)
      : await this.pool.query(`SELECT COUNT(*)::bigint AS n FROM ${t} WHERE timestamp_millis < $1`, [beforeMillis]);
    return rows[0].n as number;
  }

  async deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    const r = await this.pool.query(`DELETE FROM ${t} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${t} WHERE timestamp_millis < $1 LIMIT $2))`,
      [endTimeMillis, batchSize]);
    return r.rowCount ?? 0;
  }

  async deleteTimeseriesRange(urn: string, entityType: string, aspect: string, start?: number, end?: number): Promise<number> {
    const t = tableFor(entityType, aspect);
    const r = await this.pool.query(`DELETE FROM ${t} WHERE urn = $1 AND timestamp_millis >= $2 AND timestamp_millis <= $3`,
      [urn, start ?? Number.MIN_SAFE_INTEGER, end ?? Number.MAX_SAFE_INTEGER]);
    return r.rowCount ?? 0;
  }

  async reclaimTimeseriesSpace(entityType: string, aspect: string, rewrite: boolean): Promise<void> {
    // Plain VACUUM never blocks readers or writers but only trims empty pages at the end of the table; old rows
    // sit at its start, so after a large truncation the table is rewritten (its size then really falls).
    await this.pool.query(`VACUUM (${rewrite ? 'FULL, ' : ''}ANALYZE) ${tableFor(entityType, aspect)}`);
  }

  async timeseriesSizes(): Promise<TableSize[]> {
    const names = timeseriesTableNames();
    const { rows } = await this.pool.query(`SELECT c.relname AS tbl, pg_total_relation_size(c.oid)::bigint AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ANY($1)`, [names]);
    return sizesFor(new Map(rows.map((r) => [r.tbl as string, r.bytes as number])));
  }

  async upsertSearchDocs(docs: SearchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.pool.query(`INSERT INTO ${SEARCH_TABLE} (urn, entity_type, body)
      SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[])
      ON CONFLICT (urn) DO UPDATE SET entity_type = excluded.entity_type, body = excluded.body`,
    [docs.map((d) => d.urn), docs.map((d) => d.entityType), docs.map((d) => d.text)]);
  }

  async deleteSearchDocs(urns: readonly string[]): Promise<void> {
    if (urns.length) await this.pool.query(`DELETE FROM ${SEARCH_TABLE} WHERE urn = ANY($1)`, [urns]);
  }

  async searchDocs(q: { terms: string[]; entityTypes?: string[]; start: number; count: number }) {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.terms.length) { params.push(q.terms.map((t) => `${t}:*`).join(' & ')); where.push(`tsv @@ to_tsquery('simple', $${params.length})`); }
    if (q.entityTypes?.length) { params.push(q.entityTypes); where.push(`entity_type = ANY($${params.length})`); }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${SEARCH_TABLE} ${w}`, params)).rows[0].n as number;
    const order = q.terms.length ? `ORDER BY ts_rank(tsv, to_tsquery('simple', $1)) DESC, urn COLLATE "C"` : 'ORDER BY urn COLLATE "C"';
    const { rows } = await this.pool.query(`SELECT urn FROM ${SEARCH_TABLE} ${w} ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, q.count, q.start]);
    return { total, urns: rows.map((r) => r.urn as string) };
  }

  async countSearchDocs(): Promise<number> {
    return (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${SEARCH_TABLE}`)).rows[0].n as number;
  }

  async replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void> {
    await this.tx(async (c) => {
      // Two replacements of one source's edges would otherwise deadlock on each other's uncommitted inserts.
      await this.lockInOrder(c, [...new Set(sources)].sort().map((source) => `${source}\n#relationships`));
      await c.query(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = ANY($1)`, [sources]);
      if (edges.length) {
        await c.query(`INSERT INTO ${RELATIONSHIP_TABLE} (source, type, destination)
          SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
        [edges.map((e) => e.source), edges.map((e) => e.type), edges.map((e) => e.destination)]);
      }
    });
  }

  async relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
    const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
    const params: unknown[] = [q.urn];
    let where = `${self} = $1`;
    if (q.types?.length) { params.push(q.types); where += ` AND type = ANY($2)`; }
    const total = (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${RELATIONSHIP_TABLE} WHERE ${where}`, params)).rows[0].n as number;
    const { rows } = await this.pool.query(`SELECT source, type, destination FROM ${RELATIONSHIP_TABLE} WHERE ${where}
      ORDER BY ${other} COLLATE "C", type LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.count, q.start]);
    return { total, edges: rows as Relationship[] };
  }

  async countRelationships(): Promise<number> {
    return (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${RELATIONSHIP_TABLE}`)).rows[0].n as number;
  }

  async getOrSetSetting(key: string, value: string): Promise<string> {
    const { rows } = await this.pool.query(`WITH ins AS (INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ($1, $2)
      ON CONFLICT (key) DO NOTHING RETURNING value) SELECT value FROM ins UNION ALL
      SELECT value FROM ${SETTINGS_TABLE} WHERE key = $1 LIMIT 1`, [key, value]);
    return rows[0].value as string;
  }
}
