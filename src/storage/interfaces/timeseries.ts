import type { SystemMetadata } from './system-metadata.js';

/** Time-series aspects (one table each): records and the store's part. */

export interface TimeseriesWrite {
  urn: string;
  entityType: string;
  aspect: string;
  timestampMillis: number;
  /** Upsert key parts beyond (urn, timestamp): '' when absent. */
  partition: string;
  granularity: string;
  messageId: string;
  value: unknown;
  /** JSON.stringify(value), when the caller has it already (see AspectWrite's). */
  json?: string;
  systemMetadata?: SystemMetadata | null;
  /** Who wrote it (the change log's actor); the system when absent. */
  actor?: string;
}

export interface TimeseriesRecord {
  urn: string;
  timestampMillis: number;
  value: unknown;
  systemMetadata: SystemMetadata | null;
}

export interface TimeseriesQuery {
  entityType: string;
  aspect: string;
  urn?: string;
  startTimeMillis?: number;
  endTimeMillis?: number;
  limit?: number;
  /** Newest first unless 'asc'. */
  order?: 'asc' | 'desc';
}

export interface TableSize {
  entityType: string;
  aspect: string;
  table: string;
  /** Table plus its indexes, as the engine measures them. */
  bytes: number;
}


/** A time-series row with its whole upsert key (timestamp, partition, granularity, message id). */
export interface TimeseriesRow {
  urn: string;
  timestampMillis: number;
  partition: string;
  granularity: string;
  messageId: string;
  value: unknown;
  systemMetadata: SystemMetadata | null;
}

/** Where a page of time-series rows starts: after the row with this key. */
export type TimeseriesRowKey = Pick<TimeseriesRow, 'urn' | 'timestampMillis' | 'partition' | 'granularity' | 'messageId'>;

export interface TimeseriesStore {
  // Time series
  upsertTimeseries(rows: TimeseriesWrite[]): Promise<void>;
  queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]>;
  countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number>;
  /** Deletes up to batchSize rows older than endTimeMillis; returns how many went. */
  deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): Promise<number>;
  deleteTimeseriesRange(urn: string, entityType: string, aspect: string, startTimeMillis?: number, endTimeMillis?: number, actor?: string): Promise<number>;
  /**
   * Gives the space of deleted rows back. `rewrite` asks for the table to be rebuilt smaller where the engine
   * needs that (PostgreSQL: VACUUM FULL, which locks the table while it copies the remaining rows).
   */
  reclaimTimeseriesSpace(entityType: string, aspect: string, rewrite: boolean): Promise<void>;
  timeseriesSizes(): Promise<TableSize[]>;
  /** Deletes the time-series rows written by this run; returns how many went. */
  deleteTimeseriesOfRun(runId: string, actor?: string): Promise<number>;
}
