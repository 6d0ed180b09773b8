import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { datasetUsageStatistics } from '../entities/dataset.js';
import type { AspectValue } from '../entities/descriptor.js';
import { badRequest, notFound } from '../errors.js';
import { findTimeseriesIndex, TIMESERIES_INDICES, type TimeseriesIndex } from '../registry/registry.js';
import type { Retention } from '../config.js';
import type { Store, TimeseriesRecord } from '../storage/types.js';
import { lookupTable } from '../model/safe-keys.js';

/**
 * Time-series aspects (profiles, usage, operations…): reads, DataHub's index-size report, truncation in batches
 * with background tasks, and retention. Each (entity type, aspect) has its own table named like DataHub's index.
 */
export interface IndexSize {
  aspectName: string;
  sizeMb: number;
  indexName: string;
  entityName: string;
}

export interface TruncateRequest {
  entityType: string;
  aspect: string;
  endTimeMillis: number;
  dryRun?: boolean;
  batchSize?: number;
  timeoutSeconds?: number;
  forceDeleteByQuery?: boolean;
  forceReindex?: boolean;
  /**
   * How the caller's transport runs it for real, ending a dry run's report; DataHub's REST wording
   * ("Run with dryRun = false to execute.") when not given.
   */
  executeHint?: string;
}

export interface TaskStatus {
  completed: boolean;
  taskId: string;
  status: { total: number; deleted: number; batches: number; updated: 0; created: 0; version_conflicts: 0; noops: 0;
    retries: { bulk: 0; search: 0 }; throttled_millis: 0; requests_per_second: -1; throttled_until_millis: 0 };
  runTimeNanos: number;
  error?: string;
}

export interface UsageResult {
  buckets: { bucket: number; duration: string; resource: string; metrics: { uniqueUserCount: number | null; totalSqlQueries: number | null;
    topSqlQueries: string[] | null; users: { user: string; count: number; userEmail: string | null }[]; fields: { fieldName: string; count: number }[] } }[];
  aggregations: { uniqueUserCount: number; totalSqlQueries: number; users: { user: string; count: number; userEmail: string | null }[];
    fields: { fieldName: string; count: number }[] };
}

const DAY = 86_400_000;
/** DataHub's usage ranges, counted back from now. */
export const USAGE_RANGES: Readonly<Record<string, number | undefined>> = lookupTable<number | undefined>({ DAY, WEEK: 7 * DAY, MONTH: 30 * DAY, QUARTER: 91 * DAY, YEAR: 365 * DAY, ALL: undefined });

const NODE = 'almanac';
const DEFAULT_BATCH = 10_000;
/** Rows deleted per statement at most, whatever the batch size: each statement holds the write lock briefly. */
const MAX_STATEMENT_ROWS = 250;

interface Task {
  id: number;
  started: bigint;
  finished?: bigint;
  total: number;
  deleted: number;
  batches: number;
  error?: string;
  done: Promise<void>;
}

export class TimeseriesService {
  private readonly tasks = new Map<number, Task>();
  private nextTask = 1;

  /** `committed`: run after each deletion commits (the change log's consumers apply its entry). */
  constructor(private readonly store: Store, private readonly committed: () => Promise<void> = async () => {}) {}

  index(entityType: string, aspect: string): TimeseriesIndex {
    if (!entityType) throw badRequest("Missing required parameter 'entityType'", { field: 'entityType' });
    if (!aspect) throw badRequest("Missing required parameter 'aspect'", { field: 'aspect' });
    const idx = findTimeseriesIndex(entityType, aspect);
    if (!idx) throw badRequest(`${entityType}.${aspect} is not a time-series aspect (known: ${TIMESERIES_INDICES.map((i) => `${i.entityType}.${i.aspect}`).join(', ')})`);
    return idx;
  }

  async indexSizes(): Promise<IndexSize[]> {
    const sizes = await this.store.timeseriesSizes();
    return sizes.map((s) => ({
      aspectName: s.aspect.toLowerCase(),
      // Decimal megabytes, as DataHub reports them.
      sizeMb: Math.round((s.bytes / 1_000_000) * 1e6) / 1e6,
      indexName: s.table,
      entityName: s.entityType.toLowerCase(),
    }));
  }

  async values(q: { urn?: string; entityType: string; aspect: string; startTimeMillis?: number; endTimeMillis?: number; limit?: number }): Promise<TimeseriesRecord[]> {
    const idx = this.index(q.entityType, q.aspect);
    const limit = q.limit ?? 10_000;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw badRequest(`limit must be between 1 and 100000, got ${limit}`);
    return this.store.queryTimeseries({ entityType: idx.entityType, aspect: idx.aspect, urn: q.urn, startTimeMillis: q.startTimeMillis,
      endTimeMillis: q.endTimeMillis, limit, order: 'desc' });
  }

  /** Usage of a dataset over a range (oldest bucket first), with totals per user (most active first) and field. */
  async usage(urn: string, opts: { range: string; startTimeMillis?: number; now?: number }): Promise<UsageResult> {
    if (!(opts.range in USAGE_RANGES)) throw badRequest(`range must be one of ${Object.keys(USAGE_RANGES).join(', ')}, got '${opts.range}'`);
    const span = USAGE_RANGES[opts.range];
    const start = opts.startTimeMillis ?? (span === undefined ? undefined : (opts.now ?? Date.now()) - span);
    const rows = await this.store.queryTimeseries({ entityType: 'dataset', aspect: datasetUsageStatistics.name, urn, startTimeMillis: start,
      limit: 10_000, order: 'asc' });
    const users = new Map<string, { count: number; userEmail: string | null }>();
    const fields = new Map<string, number>();
    let total = 0;
    const buckets = rows.map(({ value }) => {
      // Validated with its schema when it was ingested.
      const v = value as AspectValue<typeof datasetUsageStatistics>;
      total += v.totalSqlQueries ?? 0;
      for (const u of v.userCounts ?? []) {
        const cur = users.get(u.user) ?? { count: 0, userEmail: u.userEmail ?? null };
        cur.count += u.count ?? 0;
        users.set(u.user, cur);
      }
      for (const f of v.fieldCounts ?? []) fields.set(f.fieldPath, (fields.get(f.fieldPath) ?? 0) + (f.count ?? 0));
      const unit = v.eventGranularity?.unit;
      return {
        bucket: v.timestampMillis, duration: unit && ['DAY', 'WEEK', 'MONTH', 'YEAR'].includes(unit) ? unit : 'DAY', resource: urn,
        metrics: {
          uniqueUserCount: v.uniqueUserCount ?? null, totalSqlQueries: v.totalSqlQueries ?? null, topSqlQueries: v.topSqlQueries ?? null,
          users: (v.userCounts ?? []).map((u) => ({ user: u.user, count: u.count, userEmail: u.userEmail ?? null })),
          fields: (v.fieldCounts ?? []).map((f) => ({ fieldName: f.fieldPath, count: f.count })),
        },
      };
    });
    return {
      buckets,
      aggregations: {
        uniqueUserCount: users.size, totalSqlQueries: total,
        users: [...users].sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
          .map(([user, c]) => ({ user, count: c.count, userEmail: c.userEmail })),
        fields: [...fields].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([fieldName, count]) => ({ fieldName, count })),
      },
    };
  }

  /**
   * DataHub's truncateTimeseriesAspect. Rows strictly older than endTimeMillis go; a dry run only counts.
   * A real run deletes in batches, yielding between them so readers and writers interleave, then reclaims space.
   * The answer is a report when the run ends within timeoutSeconds, else the id of the task that goes on.
   */
  async truncate(r: TruncateRequest): Promise<string> {
    const idx = this.index(r.entityType, r.aspect);
    if (!Number.isFinite(r.endTimeMillis)) throw badRequest("Missing required parameter 'endTimeMillis'", { field: 'endTimeMillis' });
    const batchSize = r.batchSize ?? DEFAULT_BATCH;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1_000_000) throw badRequest(`batchSize must be between 1 and 1000000, got ${batchSize}`);
    if (r.timeoutSeconds !== undefined && !(r.timeoutSeconds >= 0)) throw badRequest(`timeoutSeconds must be ≥ 0, got ${r.timeoutSeconds}`);
    if (r.forceDeleteByQuery !== undefined && r.forceReindex !== undefined && r.forceDeleteByQuery === r.forceReindex) {
      throw badRequest('please only set forceReindex OR forceDeleteByQuery flags');
    }
    const [toDelete, total] = await Promise.all([
      this.store.countTimeseries(idx.entityType, idx.aspect, r.endTimeMillis),
      this.store.countTimeseries(idx.entityType, idx.aspect),
    ]);
    const pct = total === 0 ? '0.00' : ((toDelete / total) * 100).toFixed(2);
    // DataHub's choice of strategy: rebuild the index when forced or when more than half goes, else delete in place.
    // Here rebuilding means the engine rewrites the table so its size falls (PostgreSQL: VACUUM FULL, which locks
    // the table while it copies what remains); deleting in place leaves the space for reuse.
    const rewrite = r.forceReindex === true || (r.forceDeleteByQuery !== true && toDelete > Math.floor(total / 2));
    const strategy = rewrite ? 'Reindexing the aspect without the deleted records.' : 'Issuing a delete by query request.';
    const head = `Delete ${toDelete} out of ${total} rows (${pct}%). ${strategy}`;
    if (r.dryRun !== false) return `${head} This was a dry run. ${r.executeHint ?? 'Run with dryRun = false to execute.'}`;
    const task = this.start(idx, r.endTimeMillis, batchSize, total, rewrite);
    const timeoutMs = r.timeoutSeconds === undefined ? undefined : r.timeoutSeconds * 1000;
    const finished = await Promise.race([
      task.done.then(() => true),
      ...(timeoutMs === undefined ? [] : [new Promise<false>((res) => setTimeout(() => res(false), timeoutMs).unref())]),
    ]);
    if (!finished) return `${NODE}:${task.id}`;
    if (task.error) throw new Error(task.error);
    const ms = Number((task.finished! - task.started) / 1_000_000n);
    return `Deleted ${task.deleted} out of ${total} rows (${pct}%) in ${task.batches} batch(es) of up to ${batchSize} rows in ${ms} ms; ` +
      `${rewrite ? 'the table was rewritten' : 'the space was freed for reuse'}. Task ${NODE}:${task.id}.`;
  }

  private start(idx: TimeseriesIndex, endTimeMillis: number, batchSize: number, total: number, rewrite: boolean): Task {
    const task: Task = { id: this.nextTask++, started: process.hrtime.bigint(), total, deleted: 0, batches: 0, done: Promise.resolve() };
    task.done = (async () => {
      try {
        for (;;) {
          // A batch is deleted in statements of at most MAX_STATEMENT_ROWS, yielding between them.
          let inBatch = 0;
          for (;;) {
            const want = Math.min(MAX_STATEMENT_ROWS, batchSize - inBatch);
            const n = await this.store.deleteTimeseriesBefore(idx.entityType, idx.aspect, endTimeMillis, want);
            if (n) await this.committed();
            inBatch += n;
            await yieldToEventLoop();
            if (n < want || inBatch >= batchSize) break;
          }
          task.batches++;
          task.deleted += inBatch;
          if (inBatch < batchSize) break;
        }
        await this.store.reclaimTimeseriesSpace(idx.entityType, idx.aspect, rewrite);
      } catch (e) {
        task.error = (e as Error).message;
      } finally {
        task.finished = process.hrtime.bigint();
      }
    })();
    this.tasks.set(task.id, task);
    return task;
  }

  /** DataHub's getEsTaskStatus: `task` ("node:id") or `nodeId` + `taskId`. A JSON string, as DataHub answers. */
  taskStatus(params: { task?: string; nodeId?: string; taskId?: number }): string {
    let node: string;
    let id: number;
    if (params.task !== undefined) {
      const m = /^([a-zA-Z0-9-_]+):(\d+)$/.exec(params.task);
      if (!m || Number(m[2]) === 0) throw badRequest(`task '${params.task}' is not of the form <nodeId>:<taskId>`);
      [node, id] = [m[1]!, Number(m[2])];
      if (params.nodeId !== undefined && (params.nodeId !== node || (params.taskId !== undefined && params.taskId !== id))) {
        throw badRequest('task and nodeId + taskId name different tasks');
      }
    } else if (params.nodeId !== undefined && params.taskId !== undefined) {
      [node, id] = [params.nodeId, params.taskId];
    } else {
      throw badRequest('Please specify either Node ID + task ID OR composite task parameters');
    }
    const t = node === NODE ? this.tasks.get(id) : undefined;
    if (!t) return JSON.stringify({ error: `Could not get task status for ${node}:${id}` });
    const status: TaskStatus = {
      completed: t.finished !== undefined,
      taskId: `${NODE}:${t.id}`,
      status: { total: t.total, deleted: t.deleted, batches: t.batches, updated: 0, created: 0, version_conflicts: 0, noops: 0,
        retries: { bulk: 0, search: 0 }, throttled_millis: 0, requests_per_second: -1, throttled_until_millis: 0 },
      runTimeNanos: Number((t.finished ?? process.hrtime.bigint()) - t.started),
      ...(t.error ? { error: t.error } : {}),
    };
    return JSON.stringify(status);
  }

  /** Waits for a task (tests, the CLI). */
  async waitFor(taskId: string): Promise<void> {
    const t = this.tasks.get(Number(taskId.split(':')[1]));
    if (!t) throw notFound(`No task ${taskId}`);
    await t.done;
  }

  /** Applies retention: deletes what is older than each aspect's maximum age. */
  async cleanup(retention: Retention, opts: { dryRun: boolean; now?: number; onProgress?: (i: number, n: number, index: string) => void;
    /** Aborted: no further aspect is cleaned up (the timed job's lock was lost). */
    signal?: AbortSignal; }) {
    const now = opts.now ?? Date.now();
    const report: { indexName: string; cutoff: number; rows: number }[] = [];
    for (let i = 0; i < retention.length && !opts.signal?.aborted; i++) {
      const { index, maxAgeMs } = retention[i]!;
      const cutoff = now - maxAgeMs;
      opts.onProgress?.(i, retention.length, index.indexName);
      if (opts.dryRun) {
        report.push({ indexName: index.indexName, cutoff, rows: await this.store.countTimeseries(index.entityType, index.aspect, cutoff) });
      } else {
        const total = await this.store.countTimeseries(index.entityType, index.aspect);
        // Retention trims a little at a time: free the space for reuse, never lock the table to rewrite it.
        const task = this.start(index, cutoff, DEFAULT_BATCH, total, false);
        await task.done;
        if (task.error) throw new Error(task.error);
        report.push({ indexName: index.indexName, cutoff, rows: task.deleted });
      }
    }
    opts.onProgress?.(retention.length, retention.length, '');
    return report;
  }
}
