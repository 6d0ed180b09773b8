import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { FTS_WORDS_FUNCTION, ftsWords } from './schema.js';
import type { ActivityEvent, UsageEventCountQuery, UsageEventRow } from './types.js';
import { TableSizes, type SqliteConnection } from './sqlite/connection.js';
import * as usage from './sqlite/usage.js';
import * as changeLog from './sqlite/change-log.js';
import * as timeseries from './sqlite/timeseries.js';
import * as relations from './sqlite/relationships.js';
import * as reads from './sqlite/aspect-reads.js';
import * as bulk from './sqlite/bulk-load.js';
import { SqliteSearch } from './sqlite/search.js';
import { RecentTexts, SqliteAspectWrites } from './sqlite/aspect-writes.js';
import * as exported from './sqlite/export.js';
import * as indexUpdates from './sqlite/index-updates.js';
import { JobRuns } from './sqlite/jobs.js';
import * as schemaMigrations from './sqlite/migrations.js';
import { keepPrivate, openPrivately } from './sqlite/private-file.js';
import * as settings from './sqlite/settings.js';
import type { TimeseriesRow, TimeseriesRowKey } from './types.js';
import { addLatest } from './aspect-updates.js';
import { worthDeferring } from './deferred-indexes.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { ParsedValues } from './parsed-values.js';
import { FacetIndex, type FacetStart } from './facet-index.js';
import { OwnEntries, SYSTEM_ACTOR, truncateChange, type ChangeRow } from './change-log.js';
import { ASPECT_TABLE, ENTITY_TABLE, timeseriesTables, type AspectRow } from './schema.js';
import type {
  AspectKey, AspectRecord, AspectUpdate, AspectWrite, AspectWriteResult, ChangeRecord, EntityRow, FacetCount, FacetSpec, IndexGuard,
  IndexUpdate, LatestAspects, Relationship, RunAspectRow, RunSummary,
  SearchDoc, SearchDocQuery, SearchSort, Store, TableSize, TimeseriesQuery, TimeseriesRecord, TimeseriesWrite, WebhookDeadLetter, WebhookRow,
} from './types.js';

/** How often externalWrites really looks (ms). */
const EXTERNAL_WRITES_CHECK_MS = 5;

/**
 * better-sqlite3 in WAL mode: one connection, synchronous calls wrapped in the async Store contract.
 * synchronous=NORMAL in WAL keeps every committed transaction across a process crash (kill -9).
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** The connection as each concern's module takes it (sqlite/). */
  private readonly conn: SqliteConnection;
  private readonly search: SqliteSearch;
  /** Aspect writes and their group commit (sqlite/aspect-writes.ts). */
  private readonly writes: SqliteAspectWrites;
  /** Latest aspect values parsed once and shared while their text is unchanged. */
  private readonly latestValues = new ParsedValues(undefined, (urn, aspect, stored) => this.justWritten.text(urn, aspect, stored));
  /** The texts of compressed values this process wrote last, which the index step reads right after the write. */
  private readonly justWritten = new RecentTexts();
  /** The log entries this store's writes append (for the change log's follower). */
  private readonly own = new OwnEntries();
  /** Facet counts in memory (src/storage/facet-index.ts). */
  readonly facets: FacetIndex = new FacetIndex({
    dialect: 'sqlite',
    rows: async (s) => this.search.run(s) as Record<string, unknown>[],
    ids: async (s) => this.search.ids(s),
    changesAfter: (after, limit) => this.changesAfter(after, limit),
    firstChangeSeq: () => this.firstChangeSeq(),
    consumerOffsets: () => this.consumerOffsets(),
    databaseUrl: () => this.databaseUrl,
  });
  /** The database file as another connection opens it (a facet build's worker), or null when in memory. */
  private databaseUrl: string | null = null;

  /** Prepared statements are cached by their SQL text; each text is always used in the same mode. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) this.statements.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** `cacheMb`: SQLite's page cache (ALMANAC_SQLITE_CACHE_MB); `bulkCacheMb`: a bulk catch-up's (ALMANAC_SQLITE_BULK_CACHE_MB). */
  constructor(file: string, opts: { cacheMb?: number; bulkCacheMb?: number; facetStart?: FacetStart } = {}) {
    this.bulkCacheMb = opts.bulkCacheMb ?? DEFAULT_BULK_CACHE_MB;
    this.facetStart = opts.facetStart ?? 'open';
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk) {
      fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      openPrivately(file);
      this.databaseUrl = `sqlite:${path.resolve(file)}`;
    }
    this.db = new Database(file);
    this.conn = { db: this.db, stmt: (sql) => this.stmt(sql), sizes: new TableSizes(), own: this.own };
    this.search = new SqliteSearch(this.conn, this.facets);
    this.writes = new SqliteAspectWrites(this.conn, this.latestValues, this.justWritten);
    // auto_vacuum must be chosen before the first table exists; it lets truncation give pages back.
    this.db.pragma('auto_vacuum = INCREMENTAL');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // The page cache: SQLite's default is 2 MiB. An ingest batch's index updates dirty more pages than that, which then
    // spill to the WAL mid-transaction and are read back, and a large catalog's index pages are read again and again:
    // loading 50,000 generated datasets took 171 s with 32 MiB, 150 s with 128 MiB, 127 s with 256 MiB (2026-11-27).
    this.db.pragma(`cache_size = -${Math.round((opts.cacheMb ?? DEFAULT_CACHE_MB) * 1024)}`);
    // The query planner's statistics (ANALYZE), sampled so that gathering them stays a matter of milliseconds.
    this.db.pragma('analysis_limit = 1000');
    // Migration 15 counts the words of the documents already indexed from FTS5's record of each one's size.
    this.db.function(FTS_WORDS_FUNCTION, { deterministic: true }, (sz: unknown) => (sz instanceof Uint8Array ? ftsWords(sz) : null));
    // WAL mode has created -wal and -shm by now: check them (a crash may have left older ones behind).
    if (onDisk) for (const f of [`${file}-wal`, `${file}-shm`]) keepPrivate(f);
    if (onDisk) this.checkpointer = new SqliteCheckpointer(file, (pages) => { if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${pages}`); });
  }

  /** When the facet structure starts loading (src/storage/facet-index.ts). */
  private readonly facetStart: FacetStart;

  /** Checkpoints the WAL in a worker thread once the database is busy (on disk only). */
  private readonly checkpointer: SqliteCheckpointer | undefined;

  async migrate(): Promise<void> {
    schemaMigrations.migrate(this.conn);
    if (this.facetStart === 'open') this.facets.start();
  }

  async close(): Promise<void> {
    await this.writes.drain();
    await this.facets.close();
    await this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }

  writeAspects(writes: AspectWrite[], historyCap: number, timeseries: TimeseriesWrite[] = []): Promise<AspectWriteResult[]> {
    return this.writes.writeAspects(writes, historyCap, timeseries);
  }

  /** Under the database's write lock from the read on, so no other writer (or process) comes between. */
  updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number,
    mustExist?: readonly string[]): Promise<AspectWriteResult[]> {
    return this.writes.updateAspects(keys, modify, historyCap, mustExist);
  }

  async getLatest(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>> {
    const out = new Map<string, Map<string, AspectRecord>>();
    for (const row of reads.latestRows(this.conn, urns, aspects)) addLatest(out, this.latestValues.record(row));
    return out;
  }


  async getVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null> {
    return reads.getVersion(this.conn, urn, aspect, version);
  }
  async listVersions(urn: string, aspect: string): Promise<AspectRecord[]> { return reads.listVersions(this.conn, urn, aspect); }

  deleteAspects(urn: string, aspects: readonly string[], actor = SYSTEM_ACTOR): Promise<number> {
    return this.writes.deleteAspects(urn, aspects, actor);
  }

  async existing(urns: readonly string[]): Promise<Set<string>> { return reads.existing(this.conn, urns); }
  async listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]> {
    return reads.listEntities(this.conn, opts);
  }
  async countEntities(entityType?: string): Promise<number> { return reads.countEntities(this.conn, entityType); }

  async deleteEntity(urn: string, actor = SYSTEM_ACTOR): Promise<{ rows: number; timeseriesRows: number }> {
    const db = this.db;
    return this.search.withFacets(() => db.transaction(() => {
      const log: ChangeRow[] = [];
      const aspects = this.stmt(`SELECT aspect FROM ${ASPECT_TABLE} WHERE urn = ? AND version = 0 ORDER BY aspect`).pluck().all(urn) as string[];
      const rows = this.writes.deleteAspectRows(urn, aspects, actor, log)
        + this.stmt(`DELETE FROM ${ASPECT_TABLE} WHERE urn = ?`).run(urn).changes;
      let timeseriesRows = 0;
      for (const t of timeseriesTables()) {
        const n = this.stmt(`DELETE FROM ${t.table} WHERE urn = ?`).run(urn).changes;
        if (n === 0) continue;
        this.conn.sizes.changed(t.table);
        timeseriesRows += n;
        log.push(truncateChange({ urn, entityType: t.entityType, aspect: t.aspect, rows: n, actor }, Date.now()));
      }
      this.search.removeSearchDocs([urn]);
      relations.deleteEdgesFrom(this.conn, urn);
      this.stmt(`DELETE FROM ${ENTITY_TABLE} WHERE urn = ?`).run(urn);
      changeLog.appendChanges(this.conn, log);
      return { rows, timeseriesRows };
    }).immediate());
  }

  async upsertTimeseries(rows: TimeseriesWrite[]): Promise<void> { return timeseries.upsertTimeseries(this.conn, rows); }

  async queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]> { return timeseries.queryTimeseries(this.conn, q); }
  async countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number> {
    return timeseries.countTimeseries(this.conn, entityType, aspect, beforeMillis);
  }
  async deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): Promise<number> {
    return timeseries.deleteTimeseriesBefore(this.conn, entityType, aspect, endTimeMillis, batchSize, actor);
  }
  async deleteTimeseriesRange(urn: string, entityType: string, aspect: string, start?: number, end?: number, actor?: string): Promise<number> {
    return timeseries.deleteTimeseriesRange(this.conn, urn, entityType, aspect, start, end, actor);
  }

  async reclaimTimeseriesSpace(): Promise<void> { await timeseries.reclaimTimeseriesSpace(this.conn); }
  async timeseriesSizes(): Promise<TableSize[]> { return timeseries.timeseriesSizes(this.conn); }

  // Search (sqlite/search.ts)
  async upsertSearchDocs(docs: SearchDoc[]): Promise<void> { this.search.upsertSearchDocs(docs); }
  async deleteSearchDocs(urns: readonly string[]): Promise<void> { this.search.deleteSearchDocs(urns); }
  searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }) { return this.search.searchDocs(q); }
  searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    return this.search.searchFacets(q, facets, matches);
  }
  async countSearchDocs(upTo?: number): Promise<number> { return this.search.countSearchDocs(upTo); }
  async replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void> {
    return relations.replaceRelationships(this.conn, sources, edges);
  }

  onOwnEntries(listener: (entries: readonly ChangeRecord[]) => void): void { this.own.listen(listener); }
  newestOwnEntry(): number { return this.own.newest; }

  async changesAfter(after: number, limit: number, withValues = false): Promise<ChangeRecord[]> {
    return changeLog.changesAfter(this.conn, after, limit, withValues);
  }
  async lastChangeSeq(): Promise<number> { return changeLog.lastChangeSeq(this.conn); }
  async firstChangeSeq(): Promise<number | null> { return changeLog.firstChangeSeq(this.conn); }
  async consumerOffsets(): Promise<Map<string, number>> { return changeLog.consumerOffsets(this.conn); }
  async registerConsumer(name: string, seq: number): Promise<number> { return changeLog.registerConsumer(this.conn, name, seq); }
  async moveConsumer(name: string, from: number, to: number): Promise<boolean> { return changeLog.moveConsumer(this.conn, name, from, to); }

  async removeConsumer(name: string): Promise<void> { return changeLog.removeConsumer(this.conn, name); }
  async trimChanges(beforeTime: number, batchSize: number): Promise<number> { return changeLog.trimChanges(this.conn, beforeTime, batchSize); }

  async indexedWithoutEntity(index: 'search' | 'relationships', limit: number): Promise<string[]> {
    return indexUpdates.indexedWithoutEntity(this.conn, index, limit);
  }

  /** PRAGMA data_version moves when another connection commits (never for this one's own commits). */
  private seenDataVersion = -1;
  private dataVersionCheckedAt = 0;

  /** Asked at most every few milliseconds (a hot read path asks on every request): another process's commit shows within that. */
  externalWrites(): boolean {
    const now = Date.now();
    if (now - this.dataVersionCheckedAt < EXTERNAL_WRITES_CHECK_MS) return false;
    this.dataVersionCheckedAt = now;
    const v = this.stmt('PRAGMA data_version').pluck().get() as number;
    if (v === this.seenDataVersion) return false;
    const first = this.seenDataVersion === -1;
    this.seenDataVersion = v;
    return !first;
  }

  async applyIndexUpdate(update: IndexUpdate, guards: readonly IndexGuard[]): Promise<boolean> {
    return indexUpdates.applyIndexUpdate(this.conn, this.search, this.facets, update, guards);
  }

  async relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }) {
    return relations.relationships(this.conn, q);
  }
  async countRelationships(upTo?: number): Promise<number> { return relations.countRelationships(this.conn, upTo); }

  async deferIndexes(backlog: number): Promise<(() => Promise<void>) | null> {
    if (!worthDeferring(backlog, await this.countSearchDocs())) return null;
    bulk.dropDeferredIndexes(this.conn);
    return async () => bulk.restoreIndexes(this.conn);
  }

  private readonly bulkCacheMb: number;

  /** For a bulk catch-up: the page cache set to the bulk size (unless the usual one is larger); the returned function sets it back. */
  bulkPageCache(): () => void {
    const usual = this.db.pragma('cache_size', { simple: true }) as number;
    const usualKib = usual < 0 ? -usual : (usual * (this.db.pragma('page_size', { simple: true }) as number)) / 1024;
    const bulkKib = Math.round(this.bulkCacheMb * 1024);
    if (bulkKib <= usualKib) return () => {};
    this.db.pragma(`cache_size = -${bulkKib}`);
    return () => { if (this.db.open) this.db.pragma(`cache_size = ${usual}`); };
  }

  readerUrl(): string | null {
    return this.db.memory ? null : `sqlite:${this.db.name}`;
  }

  async getOrSetSetting(key: string, value: string): Promise<string> { return settings.getOrSetSetting(this.conn, key, value); }

  async relationshipsOf(q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Promise<Relationship[]> {
    return relations.relationshipsOf(this.conn, q);
  }

  // Usage and activity (sqlite/usage.ts)
  async recordActivity(a: ActivityEvent, keep: number): Promise<void> { usage.recordActivity(this.conn, a, keep); }
  async recentActivity(actor: string, kind: string, limit: number): Promise<ActivityEvent[]> {
    return usage.recentActivity(this.conn, actor, kind, limit);
  }
  async aspectWritesBy(actor: string, start: number, count: number) { return usage.aspectWritesBy(this.conn, actor, start, count); }
  async datasetUsageLeaders(sinceMillis: number, limit: number) { return usage.datasetUsageLeaders(this.conn, sinceMillis, limit); }
  async recordUsageEvents(events: readonly UsageEventRow[]): Promise<void> { usage.recordUsageEvents(this.conn, events); }
  async countUsageEvents(q: UsageEventCountQuery) { return usage.countUsageEvents(this.conn, q); }
  async deleteUsageEventsBefore(time: number): Promise<number> { return usage.deleteUsageEventsBefore(this.conn, time); }

  async latestAspectsOfRun(runId: string): Promise<{ urn: string; aspect: string }[]> { return reads.latestAspectsOfRun(this.conn, runId); }

  async listRuns(q: { start: number; count: number; includeSoft: boolean }): Promise<RunSummary[]> { return reads.listRuns(this.conn, q); }
  async aspectsOfRun(runId: string, q: { start: number; count: number; includeSoft: boolean }): Promise<RunAspectRow[]> {
    return reads.aspectsOfRun(this.conn, runId, q);
  }
  async deleteTimeseriesOfRun(runId: string, actor?: string): Promise<number> { return timeseries.deleteTimeseriesOfRun(this.conn, runId, actor); }

  // Several servers on one database (issue 16): SQLite has no cross-process signal, followers poll the log.
  async watchChanges(): Promise<null> {
    return null;
  }

  /** One server per SQLite file: nothing to exclude, but runs of one job in this process still do not overlap. */
  runExclusive(job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean> { return this.jobs.runExclusive(job, fn); }
  private readonly jobs = new JobRuns();

  // Webhooks (migration 10)

  async createWebhook(w: WebhookRow, seq: number): Promise<void> { return changeLog.createWebhook(this.conn, w, seq); }
  async listWebhooks(): Promise<WebhookRow[]> { return changeLog.listWebhooks(this.conn); }
  async deleteWebhook(id: string): Promise<boolean> { return changeLog.deleteWebhook(this.conn, id); }
  async addWebhookDeadLetter(d: Omit<WebhookDeadLetter, 'id'>, from: number, to: number): Promise<boolean> {
    return changeLog.addWebhookDeadLetter(this.conn, d, from, to);
  }
  async webhookDeadLetters(webhookId: string, after: number, limit: number): Promise<WebhookDeadLetter[]> {
    return changeLog.webhookDeadLetters(this.conn, webhookId, after, limit);
  }

  // Export and backup (src/services/export.ts, backup.ts)

  async entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]> {
    return exported.entitiesAfter(this.conn, q);
  }

  async timeseriesRowsAfter(q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number; limit: number }): Promise<TimeseriesRow[]> {
    return timeseries.timeseriesRowsAfter(this.conn, q);
  }

  backupTo(file: string): Promise<{ pages: number }> { return exported.backupTo(this.conn, file); }
}

/** The page cache's size unless configured (ALMANAC_SQLITE_CACHE_MB): pages are held only once read. */
export const DEFAULT_CACHE_MB = 128;
/**
 * The page cache while a bulk load's indexes catch up, unless configured (ALMANAC_SQLITE_BULK_CACHE_MB). The pages a
 * catch-up updates at random (edges by source, documents by urn, the full-text segments it merges) outgrow the usual
 * cache as the catalog grows. The catch-up of 100,000 generated datasets (1.29 million log entries; bench/index-phase.ts,
 * 2026-11-28, 2 cores): with 128 MiB its main thread read 72.9 GB back from the OS and took 104.5 CPU seconds (29.2 in
 * the kernel), peak RSS 681 MB; with 256 MiB, 4.1 GB and 68.1 s (3.6), 793 MB; 384 MiB read as much as 256 for a peak
 * of 982 MB.
 */
export const DEFAULT_BULK_CACHE_MB = 256;
