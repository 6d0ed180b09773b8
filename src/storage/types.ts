/**
 * The storage interface: one contract, one implementation per engine (sqlite.ts, postgres.ts).
 * Values cross this boundary as parsed JSON; no SQL or driver type leaves the storage folder.
 */
export * from './interfaces/aspects.js';
export * from './interfaces/change-log.js';
export * from './interfaces/export.js';
export * from './interfaces/relationships.js';
export * from './interfaces/search.js';
export * from './interfaces/system-metadata.js';
export * from './interfaces/timeseries.js';
export * from './interfaces/usage.js';

import type { AspectStore } from './interfaces/aspects.js';
import type { ChangeLogStore } from './interfaces/change-log.js';
import type { ExportStore } from './interfaces/export.js';
import type { RelationshipStore } from './interfaces/relationships.js';
import type { SearchStore } from './interfaces/search.js';
import type { TimeseriesStore } from './interfaces/timeseries.js';
import type { UsageStore } from './interfaces/usage.js';

/** Read replicas as /health and /metrics show them (src/storage/postgres-replicas.ts). */
export interface ReadReplicas {
  status: { name: string; up: boolean; lagBytes: number | null; lagSeconds: number | null }[];
  stats: { replica: number; primaryFallback: number; retriedOnPrimary: number };
}

/** A connection pool's state: connections open, of which idle; callers waiting for one; the pool's limit. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** The whole store: each concern's part (src/storage/interfaces/), and what the engine as a whole does. */
export interface Store extends AspectStore, TimeseriesStore, SearchStore, RelationshipStore, ChangeLogStore, UsageStore, ExportStore {
  readonly engine: 'sqlite' | 'postgres';
  /** Applies pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's use now, where the engine has one (PostgreSQL; SQLite has none): read by the metrics. */
  connections?(): PoolUse;
  /** PostgreSQL with DATABASE_READ_URL: each read replica's state and lag, and where reads went. */
  readReplicas?(): ReadReplicas | undefined;

  // Settings (signing key and the like)
  /** Returns the stored value, storing `value` first when the key is absent (first writer wins). */
  getOrSetSetting(key: string, value: string): Promise<string>;

  /**
   * Runs `fn` unless a process (this one included) is running the job of that name on this database now; true when
   * it ran. PostgreSQL: a session advisory lock held on a connection of its own for the run. If that connection is
   * lost (a database restart), so is the lock: `lost` aborts, `fn` must stop at once (another server may take the job
   * now), and runExclusive rejects with a "database unavailable" error once `fn` returns — the job is run again only
   * under its lock taken anew. SQLite: runs it (`lost` never aborts).
   */
  runExclusive(job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean>;
}
