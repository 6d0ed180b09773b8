import pg from 'pg';
import { ACTIVITY_TABLE, USAGE_EVENT_TABLE } from './schema.js';
import { USAGE_COLUMNS, type ActivityEvent, type UsageColumn, type UsageEventCountQuery, type UsageEventRow } from './types.js';
import { addLatest, checkUpdate, lockNames, sameValue } from './aspect-updates.js';
import {
  ASPECT_TABLE, ENTITY_TABLE, MIGRATIONS_TABLE, RELATIONSHIP_TABLE, SEARCH_COUNTS, SEARCH_DOCS, SEARCH_TEXT, SEARCH_VALUES, SETTINGS_TABLE, migrations, sizesFor, tableFor, timeseriesTableNames,
  timeseriesTableStatements, toRecord, type AspectRow,
} from './schema.js';
import {
  addCountDeltas, countChanges, countStatement, distinctValues, facetSteps, type FacetRow, numeric, pageStatement, type CountedDoc,
} from './search-sql.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, EntityRow, FacetCount, FacetSpec, LatestAspects, Relationship,
  SearchDoc, SearchDocQuery, SearchSort, Store, TableSize, TimeseriesQuery, TimeseriesRecord, TimeseriesWrite,
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
      await this.removeSearchDocs(c, [urn]);
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
    // Documents in urn order, counts in key order: concurrent indexers lock rows in one order and cannot deadlock.
    const sorted = [...docs].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    await this.tx(async (c) => {
      const deltas = new Map<string, number>();
      for (const d of sorted) {
        const values = distinctValues(d);
        const inserted = await c.query(`INSERT INTO ${SEARCH_DOCS} (urn, entity_type, removed, sort_name) VALUES ($1, $2, $3, $4)
          ON CONFLICT (urn) DO NOTHING RETURNING id`, [d.urn, d.entityType, d.removed, d.sortName]);
        let id: number;
        let old: CountedDoc | undefined;
        if (inserted.rows.length) {
          id = Number(inserted.rows[0].id);
        } else {
          const taken = (await this.takeSearchDoc(c, d.urn))!;
          id = taken.id;
          old = taken.doc;
          await c.query(`UPDATE ${SEARCH_DOCS} SET entity_type = $1, removed = $2, sort_name = $3 WHERE id = $4`,
            [d.entityType, d.removed, d.sortName, id]);
        }
        await c.query(`INSERT INTO ${SEARCH_TEXT} (doc_id, tsv)
          VALUES ($1, setweight(to_tsvector('simple', $2), 'A') || setweight(to_tsvector('simple', $3), 'B'))
          ON CONFLICT (doc_id) DO UPDATE SET tsv = excluded.tsv`, [id, d.name, d.text]);
        if (values.length) {
          await c.query(`INSERT INTO ${SEARCH_VALUES} (field, value, doc_id, num)
            SELECT f, v, $3, n FROM UNNEST($1::text[], $2::text[], $4::float8[]) AS t(f, v, n)`,
          [values.map((x) => x[0]), values.map((x) => x[1]), id, values.map((x) => numeric(x[1]))]);
        }
        addCountDeltas(deltas, old, { entityType: d.entityType, removed: d.removed, values });
      }
      await this.applyCounts(c, deltas);
    });
  }

  /** Locks a document's row, removes its values and returns what the counts held for it. */
  private async takeSearchDoc(c: pg.PoolClient, urn: string): Promise<{ id: number; doc: CountedDoc } | undefined> {
    const row = (await c.query(`SELECT id, entity_type, removed FROM ${SEARCH_DOCS} WHERE urn = $1 FOR UPDATE`, [urn])).rows[0];
    if (!row) return undefined;
    const id = Number(row.id);
    const values = (await c.query(`DELETE FROM ${SEARCH_VALUES} WHERE doc_id = $1 RETURNING field, value`, [id])).rows
      .map((r) => [r.field as string, r.value as string] as const);
    return { id, doc: { entityType: row.entity_type, removed: row.removed, values } };
  }

  private async applyCounts(c: pg.PoolClient, deltas: Map<string, number>): Promise<void> {
    const changes = countChanges(deltas);
    if (changes.length === 0) return;
    const cols = [changes.map((x) => x.field), changes.map((x) => x.removed), changes.map((x) => x.entityType), changes.map((x) => x.value)];
    await c.query(`INSERT INTO ${SEARCH_COUNTS} AS t (field, removed, entity_type, value, n)
      SELECT * FROM UNNEST($1::text[], $2::boolean[], $3::text[], $4::text[], $5::bigint[])
      ON CONFLICT (field, removed, entity_type, value) DO UPDATE SET n = t.n + excluded.n`, [...cols, changes.map((x) => x.n)]);
    await c.query(`DELETE FROM ${SEARCH_COUNTS} WHERE n <= 0 AND (field, removed, entity_type, value) IN
      (SELECT * FROM UNNEST($1::text[], $2::boolean[], $3::text[], $4::text[]))`, cols);
  }

  /** Runs inside a write transaction. */
  private async removeSearchDocs(c: pg.PoolClient, urns: readonly string[]): Promise<void> {
    const deltas = new Map<string, number>();
    for (const u of [...urns].sort()) {
      const old = await this.takeSearchDoc(c, u);
      if (!old) continue;
      await c.query(`DELETE FROM ${SEARCH_DOCS} WHERE id = $1`, [old.id]);
      await c.query(`DELETE FROM ${SEARCH_TEXT} WHERE doc_id = $1`, [old.id]);
      addCountDeltas(deltas, old.doc, undefined);
    }
    await this.applyCounts(c, deltas);
  }

  async deleteSearchDocs(urns: readonly string[]): Promise<void> {
    if (urns.length) await this.tx((c) => this.removeSearchDocs(c, urns));
  }

  async searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number }) {
    const counted = countStatement('postgres', q);
    const total = Number((await this.pool.query(counted.sql, counted.params)).rows[0].n);
    if (q.count === 0 || total === 0) return { total, urns: [] };
    const page = pageStatement('postgres', q, total, Number.POSITIVE_INFINITY);
    return { total, urns: (await this.pool.query(page.sql, page.params)).rows.map((r) => r.urn as string) };
  }

  async searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    const steps = facetSteps('postgres', q, facets, matches);
    let step = steps.next();
    while (!step.done) {
      const rows = await Promise.all(step.value.map(async (s) => (await this.pool.query(s.sql, s.params)).rows as FacetRow[]));
      step = steps.next(rows);
    }
    return step.value;
  }

  async countSearchDocs(): Promise<number> {
    return (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${SEARCH_DOCS}`)).rows[0].n as number;
  }

  async replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void> {
    await this.tx(async (c) => {
      // Two replacements of one source's edges would otherwise deadlock on each other's uncommitted inserts.
      await this.lockInOrder(c, [...new Set(sources)].sort().map((source) => `${source}\n#relationships`));
      await c.query(`DELETE FROM ${RELATIONSHIP_TABLE} WHERE source = ANY($1)`, [sources]);
      if (edges.length) {
        await c.query(`INSERT INTO ${RELATIONSHIP_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual)
          SELECT * FROM UNNEST($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::text[], $8::int[])
          ON CONFLICT DO NOTHING`,
        [edges.map((e) => e.source), edges.map((e) => e.type), edges.map((e) => e.destination), edges.map((e) => e.createdOn ?? null),
          edges.map((e) => e.createdActor ?? null), edges.map((e) => e.updatedOn ?? null), edges.map((e) => e.updatedActor ?? null),
          edges.map((e) => (e.manual ? 1 : 0))]);
      }
    });
  }

  async relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
    const [self, other] = q.direction === 'INCOMING' ? ['destination', 'source'] : ['source', 'destination'];
    const params: unknown[] = [q.urn];
    let where = `${self} = $1`;
    if (q.types?.length) { params.push(q.types); where += ` AND type = ANY($2)`; }
    const total = (await this.pool.query(`SELECT COUNT(*)::int AS n FROM ${RELATIONSHIP_TABLE} WHERE ${where}`, params)).rows[0].n as number;
    const { rows } = await this.pool.query(`SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${where}
      ORDER BY ${other} COLLATE "C", type LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [...params, q.count, q.start]);
    return { total, edges: rows.map(edgeOf) };
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

  async relationshipsOf(q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[] }): Promise<Relationship[]> {
    if (q.urns.length === 0 || q.types.length === 0) return [];
    const self = q.direction === 'INCOMING' ? 'destination' : 'source';
    const { rows } = await this.pool.query(`SELECT ${EDGE_COLUMNS} FROM ${RELATIONSHIP_TABLE} WHERE ${self} = ANY($1) AND type = ANY($2)`,
      [[...q.urns], [...q.types]]);
    return rows.map(edgeOf);
  }

  async recordActivity(a: ActivityEvent, keep: number): Promise<void> {
    await this.tx(async (c) => {
      await c.query(`INSERT INTO ${ACTIVITY_TABLE} AS t (actor, kind, value, at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (actor, kind, value) DO UPDATE SET at = GREATEST(t.at, EXCLUDED.at)`, [a.actor, a.kind, a.value, a.time]);
      // Everything older than the keep-th newest goes (nothing while there are fewer).
      await c.query(`DELETE FROM ${ACTIVITY_TABLE} WHERE actor = $1 AND kind = $2 AND at < (SELECT at FROM ${ACTIVITY_TABLE}
        WHERE actor = $1 AND kind = $2 ORDER BY at DESC LIMIT 1 OFFSET $3)`, [a.actor, a.kind, keep - 1]);
    });
  }

  async recentActivity(actor: string, kind: string, limit: number): Promise<ActivityEvent[]> {
    const { rows } = await this.pool.query(`SELECT value, at FROM ${ACTIVITY_TABLE} WHERE actor = $1 AND kind = $2
      ORDER BY at DESC, value COLLATE "C" LIMIT $3`, [actor, kind, limit]);
    return rows.map((r) => ({ actor, kind, value: r.value as string, time: Number(r.at) }));
  }

  async aspectWritesBy(actor: string, start: number, count: number): Promise<{ urn: string; time: number }[]> {
    const { rows } = await this.pool.query(`SELECT urn, createdon FROM ${ASPECT_TABLE} WHERE createdby = $1
      ORDER BY createdon DESC, urn COLLATE "C" LIMIT $2 OFFSET $3`, [actor, count, start]);
    return rows.map((r) => ({ urn: r.urn as string, time: Number(r.createdon) }));
  }

  async datasetUsageLeaders(sinceMillis: number, limit: number): Promise<{ urn: string; queries: number }[]> {
    const t = tableFor('dataset', 'datasetUsageStatistics');
    const { rows } = await this.pool.query(`SELECT urn, SUM(COALESCE((event::jsonb ->> 'totalSqlQueries')::numeric, 0)) AS queries FROM ${t}
      WHERE timestamp_millis >= $1 GROUP BY urn HAVING SUM(COALESCE((event::jsonb ->> 'totalSqlQueries')::numeric, 0)) > 0
      ORDER BY queries DESC, urn COLLATE "C" LIMIT $2`, [sinceMillis, limit]);
    return rows.map((r) => ({ urn: r.urn as string, queries: Number(r.queries) }));
  }

  async recordUsageEvents(events: readonly UsageEventRow[]): Promise<void> {
    if (events.length === 0) return;
    const cols = ['at', 'type', 'actor', 'browser_id', 'entity_urn', 'entity_type', 'query', 'section', 'action_type', 'event'] as const;
    await this.pool.query(`INSERT INTO ${USAGE_EVENT_TABLE} (${cols.join(', ')})
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
    cols.map((c) => events.map((e) => e[c])));
  }

  async countUsageEvents(q: UsageEventCountQuery): Promise<{ keys: (string | null)[]; count: number }[]> {
    const col = (c: UsageColumn) => {
      if (!USAGE_COLUMNS.includes(c)) throw new Error(`unknown usage event column ${c}`);
      return c;
    };
    const params: unknown[] = [q.from, q.to];
    const where = ['at >= $1', 'at < $2'];
    if (q.types) {
      if (q.types.length === 0) return [];
      params.push([...q.types]);
      where.push(`type = ANY($${params.length})`);
    }
    for (const [c, v] of Object.entries(q.where ?? {})) {
      params.push(v);
      where.push(`${col(c as UsageColumn)} = $${params.length}`);
    }
    const keys = q.groupBy.map(col);
    const count = q.distinct ? `COUNT(DISTINCT ${col(q.distinct)})` : 'COUNT(*)';
    const select = keys.map((k, i) => `${k} AS k${i}`).join(', ');
    const sql = `SELECT ${select}${select ? ', ' : ''}${count} AS n FROM ${USAGE_EVENT_TABLE} WHERE ${where.join(' AND ')}`
      + (keys.length ? ` GROUP BY ${keys.join(', ')} ORDER BY n DESC, ${keys.map((k) => `${k} IS NULL, ${k} COLLATE "C"`).join(', ')}` : '')
      + (q.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(q.limit))}` : '');
    const { rows } = await this.pool.query(sql, params);
    return rows.map((r) => ({ keys: keys.map((_, i) => (r[`k${i}`] ?? null) as string | null), count: Number(r.n) }));
  }

  async deleteUsageEventsBefore(time: number): Promise<number> {
    const r = await this.pool.query(`DELETE FROM ${USAGE_EVENT_TABLE} WHERE at < $1`, [time]);
    return r.rowCount ?? 0;
  }

  async latestAspectsOfRun(runId: string): Promise<{ urn: string; aspect: string }[]> {
    // strpos narrows the scan cheaply; the JSON test decides.
    const { rows } = await this.pool.query(`SELECT urn, aspect FROM ${ASPECT_TABLE} WHERE version = 0 AND strpos(systemmetadata, $1) > 0
      AND systemmetadata::jsonb ->> 'runId' = $1 ORDER BY urn COLLATE "C", aspect COLLATE "C"`, [runId]);
    return rows.map((r) => ({ urn: r.urn as string, aspect: r.aspect as string }));
  }

  async deleteTimeseriesOfRun(runId: string): Promise<number> {
    return this.tx(async (c) => {
      let n = 0;
      for (const t of timeseriesTableNames()) n += (await c.query(`DELETE FROM ${t} WHERE run_id = $1`, [runId])).rowCount ?? 0;
      return n;
    });
  }
}

const EDGE_COLUMNS = 'source, type, destination, created_on, created_actor, updated_on, updated_actor, manual';

/** A row of the relationship table as a Relationship: stamps only where the edge has them (BIGINT arrives as text). */
function edgeOf(r: Record<string, any>): Relationship {
  const e: Relationship = { source: r.source, type: r.type, destination: r.destination };
  if (r.created_on != null) e.createdOn = Number(r.created_on);
  if (r.created_actor != null) e.createdActor = r.created_actor;
  if (r.updated_on != null) e.updatedOn = Number(r.updated_on);
  if (r.updated_actor != null) e.updatedActor = r.updated_actor;
  if (r.manual) e.manual = true;
  return e;
}
