import pg from 'pg';
import type { ActivityEvent, PoolUse, UsageEventCountQuery, UsageEventRow } from './types.js';
import type { PostgresConnection } from './postgres/connection.js';
import * as usage from './postgres/usage.js';
import * as changeLog from './postgres/change-log.js';
import { isDatabaseUnreachable, prepared, staleNamedPlan, unavailableOr } from './postgres/connection.js';
import * as relations from './postgres/relationships.js';
import * as reads from './postgres/aspect-reads.js';
import * as bulk from './postgres/bulk-load.js';
import { PostgresSearch, type FacetChanges } from './postgres/search.js';
import { PostgresAspectWrites } from './postgres/aspect-writes.js';
import { PostgresExport } from './postgres/export.js';
import * as indexUpdates from './postgres/index-updates.js';
import * as jobs from './postgres/jobs.js';
import * as schemaMigrations from './postgres/migrations.js';
import * as settings from './postgres/settings.js';
import * as timeseries from './postgres/timeseries.js';
import { addLatest } from './aspect-updates.js';
import { worthDeferring } from './deferred-indexes.js';
import { ParsedValues } from './parsed-values.js';
import { clientWithStatementTimeout } from './postgres-connections.js';
import { ReplicaSet, type ReadRoutingStats, type ReplicaStatus } from './postgres-replicas.js';
import { FacetIndex, type FacetStart } from './facet-index.js';
import { OwnEntries, SYSTEM_ACTOR, truncateChange, type ChangeRow } from './change-log.js';
import { ASPECT_TABLE, ENTITY_TABLE, timeseriesTables, type AspectRow } from './schema.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, ChangeRecord, EntityRow, FacetCount, FacetSpec, IndexGuard,
  IndexUpdate, LatestAspects, Relationship, RunAspectRow, RunSummary,
  SearchDoc, SearchDocQuery, SearchSort, Store, TableSize, TimeseriesQuery, TimeseriesRecord, TimeseriesWrite, WebhookDeadLetter, WebhookRow,
} from './types.js';
import type { TimeseriesRow, TimeseriesRowKey } from './types.js';

export { isDatabaseUnreachable };

// BIGINT comes back as a string by default; our values (ms timestamps, versions, counts) fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** PostgreSQL's time limits (defaults: DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_QUERY_TIMEOUT_MS). */
export interface PostgresTimeouts {
  /** How long getting a connection may take: waiting for a free one of the pool, or making a new one. */
  connectTimeoutMs?: number;
  /** How long a statement may go unanswered before it fails and its connection is dropped; 0: no limit. */
  queryTimeoutMs?: number;
}

/** The pool and read replicas (defaults: DEFAULT_POOL_SIZE, no replicas, DEFAULT_READ_WAIT_MS, no statement_timeout). */
export interface PostgresOptions extends PostgresTimeouts {
  /** Connections of the pool (and of each replica's pool); the LISTEN connection comes on top. */
  poolSize?: number;
  /** PostgreSQL's own statement_timeout, set on each pooled connection (the server cancels the statement); 0: none. */
  statementTimeoutMs?: number;
  /** Streaming standbys that serve reads (src/storage/postgres-replicas.ts). */
  readUrls?: readonly string[];
  /** How long a read waits for a replica to replay past what it needs before the primary serves it. */
  readWaitMs?: number;
  /** Where replica warnings go (a replica out of rotation, back in rotation). */
  log?: (level: 'warn' | 'info', message: string) => void;
  /** When the facet structure starts loading (src/storage/facet-index.ts); at open when not given. */
  facetStart?: FacetStart;
}
export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_READ_WAIT_MS = 250;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

export class PostgresStore implements Store {
  readonly engine = 'postgres' as const;
  private readonly pool: pg.Pool;
  /** What every connection of this store is made with (the pool's, the LISTEN connection). */
  private readonly clientConfig: pg.ClientConfig;
  /** Latest aspect values parsed once and shared while their text is unchanged. */
  private readonly latestValues = new ParsedValues();
  /** Facet counts in memory (src/storage/facet-index.ts); each transaction's changes for it, by connection. */
  readonly facets: FacetIndex = new FacetIndex({
    dialect: 'postgres',
    rows: async (s) => (await this.query(s.sql, s.params)).rows,
    // One text of all the ids rather than a row each: at 100,000 ids, 2–5 times quicker to receive and parse.
    ids: async (s) => {
      const all = (await this.query(`SELECT string_agg(t.id::text, ',') AS ids FROM (${s.sql}) AS t(id)`, s.params)).rows[0].ids as string | null;
      return all ? all.split(',').map(Number) : [];
    },
    changesAfter: (after, limit) => this.changesAfter(after, limit),
    firstChangeSeq: () => this.firstChangeSeq(),
    consumerOffsets: () => this.consumerOffsets(),
    databaseUrl: () => this.clientConfig.connectionString ?? null,
  });
  private readonly facetTx = new Map<pg.PoolClient, FacetChanges>();
  private readonly search: PostgresSearch;
  /** Aspect writes and their group commit (postgres/aspect-writes.ts). */
  private readonly writes: PostgresAspectWrites;
  /** Export's reads (postgres/export.ts). */
  private readonly exported: PostgresExport;

  /** The connection as each concern's module takes it (postgres/). */
  private readonly conn: PostgresConnection;
  /** The log entries this store's transactions append (for the change log's follower). */
  private readonly own = new OwnEntries();

  /** Read replicas, when DATABASE_READ_URL names some. */
  private readonly replicas?: ReplicaSet;

  constructor(connectionString: string, options: PostgresOptions = {}) {
    const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
    const queryTimeout = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.clientConfig = {
      connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      ...(queryTimeout > 0 ? { query_timeout: queryTimeout } : {}),
      // A peer gone without a word (a failover, a network cut) is found out by TCP rather than never.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    };
    const statementTimeout = options.statementTimeoutMs ?? 0;
    this.pool = new pg.Pool({ ...this.clientConfig, max: poolSize, ...(statementTimeout > 0 ? { Client: clientWithStatementTimeout(statementTimeout) } : {}) });
    // A database restart ends every session. An idle client that loses its connection is dropped by the pool (which
    // then reports it here); a client lost while in use (a transaction between statements, a job's lock connection)
    // fails its user's next statement, and runExclusive hears of it — the event itself must never crash the process.
    this.pool.on('error', () => {});
    this.pool.on('connect', (c) => c.on('error', () => {}));
    if (options.readUrls?.length) {
      this.replicas = new ReplicaSet(options.readUrls, { ...this.clientConfig, max: poolSize }, this.pool, {
        waitMs: options.readWaitMs ?? DEFAULT_READ_WAIT_MS, unreachable: isDatabaseUnreachable,
        log: options.log ?? ((level, m) => process.stderr.write(`almanac: ${level === 'warn' ? 'warning: ' : ''}${m}\n`)),
      });
    }
    this.conn = {
      query: (text, params) => this.query(text, params), tx: (fn, opening) => this.tx(fn, opening), connect: () => this.connect(), pool: this.pool, clientConfig: this.clientConfig, replicas: this.replicas,
    };
    this.search = new PostgresSearch(this.conn, this.facets, this.facetTx);
    this.writes = new PostgresAspectWrites(this.conn, this.latestValues);
    this.exported = new PostgresExport(this.conn);
    this.facetStart = options.facetStart ?? 'open';
  }

  private readonly facetStart: FacetStart;

  /** The read replicas' state and where reads went (none without DATABASE_READ_URL). */
  readReplicas(): { status: ReplicaStatus[]; stats: ReadRoutingStats } | undefined {
    return this.replicas && { status: this.replicas.status(), stats: this.replicas.stats };
  }

  connections(): PoolUse {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount, max: this.pool.options.max };
  }

  /** A statement on a connection of the pool; the database out of reach is a typed 503. */
  private async query(text: string | pg.QueryConfig | pg.QueryArrayConfig, params?: unknown[]): Promise<pg.QueryResult> {
    try {
      // A request's reads may be served by a caught-up replica (postgres-replicas.ts); everything else by the primary.
      if (this.replicas) return await this.replicas.query(text, params, () => this.pool.query(text as string, params));
      return await this.pool.query(text as string, params);
    } catch (e) {
      // A prepared statement whose table changed shape under it (a migration by another server): once more, prepared anew.
      if (typeof text === 'object' && text.name && staleNamedPlan(e)) return this.query(prepared(text.text, text.values ?? []), params);
      throw unavailableOr(e);
    }
  }

  /** A connection of the pool; the database out of reach is a typed 503. */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw unavailableOr(e);
    }
  }

  private async tx<T>(fn: (c: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>, opening: readonly (string | pg.QueryConfig)[] = []): Promise<T> {
    const c = await this.connect();
    let lost: unknown;
    try {
      let opened: pg.QueryResult[] = [];
      if (opening.length && opening.every((o) => typeof o === 'string')) {
        // One simple query (no parameters): BEGIN and the opening statements in one round trip.
        const results = await c.query([`BEGIN`, ...opening].join(';\n')) as unknown as pg.QueryResult[];
        opened = results.slice(1);
      } else if (opening.length) {
        // Statements with parameters (prepared ones: parsed and planned once per connection, not on every run as a
        // simple query's are): pipelined with the BEGIN, still one round trip. Each reads with a snapshot of its own,
        // taken after the one before it ended, as in a simple query.
        const client = c as pg.PoolClient & { pipeline: boolean };
        client.pipeline = true;
        let results: PromiseSettledResult<pg.QueryResult>[];
        try {
          results = await Promise.allSettled([c.query('BEGIN'), ...opening.map((o) => c.query(o as pg.QueryConfig))]);
        } finally {
          client.pipeline = false;
        }
        // The first failure is the cause (those after it only found the transaction aborted).
        const failed = results.find((r) => r.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
        opened = results.slice(1).map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value);
      } else {
        await c.query('BEGIN');
      }
      const changes: FacetChanges = { ops: [] };
      this.facetTx.set(c, changes);
      const own = { own: this.own, entries: [] as ChangeRecord[], complete: true };
      changeLog.ownEntriesOf.set(c, own);
      const r = await fn(c, opened);
      // Unless its last statement's round trip committed it (a group commit's log append: change-log.ts).
      if (!changeLog.committedWithLog.delete(c)) await c.query('COMMIT');
      // Its log entries, to this process's follower, which then need not read them back (src/changelog/service.ts).
      if (own.complete) this.own.committed(own.entries);
      // Its position, for reads from replicas to wait for (committed: a failure here is no reason to refuse the write).
      if (this.replicas) await this.replicas.committed(c).catch(() => {});
      // This process's changes of the search tables, to its facet index right after they commit.
      this.facetTx.delete(c);
      if (changes.ops.length || changes.move) this.facets.committed(changes.ops, changes.move, changes.absent);
      return r;
    } catch (e) {
      if (isDatabaseUnreachable(e)) {
        lost = e;
        throw unavailableOr(e);
      }
      // Named anew from now on; the caller's retry (a group's writes one by one, an index step's next try) prepares them.
      staleNamedPlan(e);
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      this.facetTx.delete(c);
      changeLog.ownEntriesOf.delete(c);
      changeLog.commitsWithLog.delete(c);
      changeLog.committedWithLog.delete(c);
      // A connection lost (or a statement that timed out, still running) is closed rather than pooled.
      c.release(lost as Error | undefined);
    }
  }

  async migrate(): Promise<void> {
    await schemaMigrations.migrate(this.conn);
    if (this.facetStart === 'open') this.facets.start();
    await this.replicas?.start();
  }

  async close(): Promise<void> {
    // Writes already asked for are made first (the facet index saves its snapshot after them).
    await this.writes.drain();
    await this.facets.close();
    await this.replicas?.close();
    await this.pool.end();
  }

  async writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    return this.writes.writeAspects(writes, historyCap, timeseries);
  }

  /** Under the aspects' locks from the read on, so no other writer (of any server) comes between. */
  updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number,
    mustExist?: readonly string[]): Promise<AspectWriteResult[]> {
    return this.writes.updateAspects(keys, modify, historyCap, mustExist);
  }

  async getLatest(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>> {
    const out = new Map<string, Map<string, AspectRecord>>();
    for (const row of await reads.latestRows(this.conn, urns, aspects)) addLatest(out, this.latestValues.record(row));
    return out;
  }


  getVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null> { return reads.getVersion(this.conn, urn, aspect, version); }
  listVersions(urn: string, aspect: string): Promise<AspectRecord[]> { return reads.listVersions(this.conn, urn, aspect); }

  deleteAspects(urn: string, aspects: readonly string[], actor = SYSTEM_ACTOR): Promise<number> {
    return this.writes.deleteAspects(urn, aspects, actor);
  }

  existing(urns: readonly string[]): Promise<Set<string>> { return reads.existing(this.conn, urns); }
  listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
    return reads.listEntities(this.conn, opts);
  }
  countEntities(entityType?: string): Promise<number> { return reads.countEntities(this.conn, entityType); }

  async deleteEntity(urn: string, actor = SYSTEM_ACTOR): Promise<{ rows: number; timeseriesRows: number }> {
    return this.tx(async (c) => {
      const log: ChangeRow[] = [];
      const aspects = (await c.query(`SELECT aspect FROM ${ASPECT_TABLE} WHERE urn = $1 AND version = 0`, [urn])).rows.map((r) => r.aspect as string);
      // The aspects' own locks: a concurrent edit of one of them waits for the deletion, then finds nothing.
      await this.writes.lockAspects(c, aspects.map((aspect) => ({ urn, aspect })));
      const rows = await this.writes.deleteAspectRows(c, urn, aspects, actor, log)
        + ((await c.query(`DELETE FROM ${ASPECT_TABLE} WHERE urn = $1`, [urn])).rowCount ?? 0);
      let timeseriesRows = 0;
      for (const t of timeseriesTables()) {
        const n = (await c.query(`DELETE FROM ${t.table} WHERE urn = $1`, [urn])).rowCount ?? 0;
        if (n === 0) continue;
        timeseriesRows += n;
        log.push(truncateChange({ urn, entityType: t.entityType, aspect: t.aspect, rows: n, actor }, Date.now()));
      }
      await this.search.removeSearchDocs(c, [urn]);
      await relations.deleteEdgesFrom(c, urn);
      await c.query(`DELETE FROM ${ENTITY_TABLE} WHERE urn = $1`, [urn]);
      await changeLog.appendChanges(c, log);
      return { rows, timeseriesRows };
    });
  }

  upsertTimeseries(rows: TimeseriesWrite[]): Promise<void> { return timeseries.upsertTimeseries(this.conn, rows); }

  queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]> { return timeseries.queryTimeseries(this.conn, q); }
  countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number> {
    return timeseries.countTimeseries(this.conn, entityType, aspect, beforeMillis);
  }
  deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): Promise<number> {
    return timeseries.deleteTimeseriesBefore(this.conn, entityType, aspect, endTimeMillis, batchSize, actor);
  }
  deleteTimeseriesRange(urn: string, entityType: string, aspect: string, start?: number, end?: number, actor?: string): Promise<number> {
    return timeseries.deleteTimeseriesRange(this.conn, urn, entityType, aspect, start, end, actor);
  }

  reclaimTimeseriesSpace(entityType: string, aspect: string, rewrite: boolean): Promise<void> {
    return timeseries.reclaimTimeseriesSpace(this.conn, entityType, aspect, rewrite);
  }
  timeseriesSizes(): Promise<TableSize[]> { return timeseries.timeseriesSizes(this.conn); }

  // Search (postgres/search.ts)
  upsertSearchDocs(docs: SearchDoc[]): Promise<void> { return this.search.upsertSearchDocs(docs); }
  deleteSearchDocs(urns: readonly string[]): Promise<void> { return this.search.deleteSearchDocs(urns); }
  searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }) { return this.search.searchDocs(q); }
  searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    return this.search.searchFacets(q, facets, matches);
  }
  countSearchDocs(upTo?: number): Promise<number> { return this.search.countSearchDocs(upTo); }
  replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void> {
    return relations.replaceRelationships(this.conn, sources, edges);
  }

  onOwnEntries(listener: (entries: readonly ChangeRecord[]) => void): void { this.own.listen(listener); }
  newestOwnEntry(): number { return this.own.newest; }

  changesAfter(after: number, limit: number, withValues = false): Promise<ChangeRecord[]> {
    return changeLog.changesAfter(this.conn, after, limit, withValues);
  }
  lastChangeSeq(): Promise<number> { return changeLog.lastChangeSeq(this.conn); }
  firstChangeSeq(): Promise<number | null> { return changeLog.firstChangeSeq(this.conn); }
  consumerOffsets(): Promise<Map<string, number>> { return changeLog.consumerOffsets(this.conn); }
  registerConsumer(name: string, seq: number): Promise<number> { return changeLog.registerConsumer(this.conn, name, seq); }
  moveConsumer(name: string, from: number, to: number): Promise<boolean> { return changeLog.moveConsumer(this.conn, name, from, to); }
  removeConsumer(name: string): Promise<void> { return changeLog.removeConsumer(this.conn, name); }
  trimChanges(beforeTime: number, batchSize: number): Promise<number> { return changeLog.trimChanges(this.conn, beforeTime, batchSize); }

  indexedWithoutEntity(index: 'search' | 'relationships', limit: number): Promise<string[]> {
    return indexUpdates.indexedWithoutEntity(this.conn, index, limit);
  }

  externalWrites(): boolean {
    return false;
  }

  applyIndexUpdate(update: IndexUpdate, guards: readonly IndexGuard[]): Promise<boolean> {
    return indexUpdates.applyIndexUpdate(this.conn, this.search, this.facetTx, update, guards, this.facets);
  }

  serialIndexStep<T>(fn: (stored: Map<string, number>) => Promise<T>): Promise<T> { return changeLog.serialIndexStep(this.conn, fn); }

  relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
    return relations.relationships(this.conn, q);
  }
  countRelationships(upTo?: number): Promise<number> { return relations.countRelationships(this.conn, upTo); }

  async deferIndexes(backlog: number): Promise<(() => Promise<void>) | null> {
    if (!worthDeferring(backlog, await this.countSearchDocs())) return null;
    // Dropping and building them takes the derived tables whole: while no index step runs (this server's or another's),
    // else the two can deadlock.
    await this.serialIndexStep(() => bulk.dropDeferredIndexes(this.conn));
    return async () => {
      await this.serialIndexStep(() => this.tx((c) => bulk.restoreIndexes(c)));
      // Not in the serial step: VACUUM blocks no writer, so other servers' index steps go on meanwhile.
      await bulk.vacuumAfterLoad(this.conn);
      await bulk.compactAfterLoad(this.conn);
    };
  }

  readerUrl(): string | null {
    return this.clientConfig.connectionString ?? null;
  }

  getOrSetSetting(key: string, value: string): Promise<string> { return settings.getOrSetSetting(this.conn, key, value); }

  relationshipsOf(q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Promise<Relationship[]> {
    return relations.relationshipsOf(this.conn, q);
  }

  // Usage and activity (postgres/usage.ts)
  recordActivity(a: ActivityEvent, keep: number): Promise<void> { return usage.recordActivity(this.conn, a, keep); }
  recentActivity(actor: string, kind: string, limit: number): Promise<ActivityEvent[]> { return usage.recentActivity(this.conn, actor, kind, limit); }
  aspectWritesBy(actor: string, start: number, count: number) { return usage.aspectWritesBy(this.conn, actor, start, count); }
  datasetUsageLeaders(sinceMillis: number, limit: number) { return usage.datasetUsageLeaders(this.conn, sinceMillis, limit); }
  recordUsageEvents(events: readonly UsageEventRow[]): Promise<void> { return usage.recordUsageEvents(this.conn, events); }
  countUsageEvents(q: UsageEventCountQuery) { return usage.countUsageEvents(this.conn, q); }
  deleteUsageEventsBefore(time: number): Promise<number> { return usage.deleteUsageEventsBefore(this.conn, time); }

  latestAspectsOfRun(runId: string): Promise<{ urn: string; aspect: string }[]> { return reads.latestAspectsOfRun(this.conn, runId); }

  listRuns(q: { start: number; count: number; includeSoft: boolean }): Promise<RunSummary[]> { return reads.listRuns(this.conn, q); }
  aspectsOfRun(runId: string, q: { start: number; count: number; includeSoft: boolean }): Promise<RunAspectRow[]> {
    return reads.aspectsOfRun(this.conn, runId, q);
  }
  deleteTimeseriesOfRun(runId: string, actor?: string): Promise<number> { return timeseries.deleteTimeseriesOfRun(this.conn, runId, actor); }
  watchChanges(wake: (seq?: number, entries?: readonly ChangeRecord[]) => void, onState?: (listening: boolean, error?: Error) => void): Promise<() => Promise<void>> {
    return changeLog.watchChanges(this.conn, wake, onState);
  }

  /** Under the job's session advisory lock (postgres/jobs.ts). */
  runExclusive(job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean> { return jobs.runExclusive(this.conn, job, fn); }

  // Webhooks (migration 10)

  createWebhook(w: WebhookRow, seq: number): Promise<void> { return changeLog.createWebhook(this.conn, w, seq); }
  listWebhooks(): Promise<WebhookRow[]> { return changeLog.listWebhooks(this.conn); }
  deleteWebhook(id: string): Promise<boolean> { return changeLog.deleteWebhook(this.conn, id); }
  addWebhookDeadLetter(d: Omit<WebhookDeadLetter, 'id'>, from: number, to: number): Promise<boolean> {
    return changeLog.addWebhookDeadLetter(this.conn, d, from, to);
  }
  webhookDeadLetters(webhookId: string, after: number, limit: number): Promise<WebhookDeadLetter[]> {
    return changeLog.webhookDeadLetters(this.conn, webhookId, after, limit);
  }

  // Export and backup (src/services/export.ts, backup.ts)

  entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]> { return this.exported.entitiesAfter(q); }

  timeseriesRowsAfter(q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number; limit: number }): Promise<TimeseriesRow[]> {
    return timeseries.timeseriesRowsAfter(this.conn, q);
  }

  async backupTo(): Promise<{ pages: number }> {
    throw new Error('a PostgreSQL database is backed up with pg_dump (and restored with pg_restore), not by Almanac');
  }
}

