import type { EntityRow } from './aspects.js';
import type { TimeseriesRow, TimeseriesRowKey } from './timeseries.js';

/** Export and backup (src/services/export.ts, src/services/backup.ts): the store's part. */
export interface ExportStore {
  /**
   * Entities after a urn (from the first when absent), of the given types (all when absent), at most `limit`, ordered
   * by urn compared byte by byte — the same order on both engines, so that an export is the same file from either.
   */
  entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]>;
  /**
   * Rows of one time-series aspect of these entities (`urns` in the order entitiesAfter gives), ordered by urn then key (timestamp, then partition, granularity
   * and message id compared byte by byte), after `after`, at most `limit`; only those at or after `sinceMillis`
   * (their timestampMillis) when given.
   */
  timeseriesRowsAfter(q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number;
    limit: number }): Promise<TimeseriesRow[]>;
  /**
   * Copies the whole database into a new file while it keeps serving (SQLite's online backup API, in one step: the copy
   * is the database as of one moment). `file` must not exist. PostgreSQL has no such copy here (pg_dump does it):
   * throws.
   */
  backupTo(file: string): Promise<{ pages: number }>;
}
