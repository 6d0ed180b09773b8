import type Database from 'better-sqlite3';
import type { OwnEntries } from '../change-log.js';

/** What each concern of the SQLite store works through: the one connection and its prepared statements. */
export interface SqliteConnection {
  readonly db: Database.Database;
  /** A prepared statement, cached by its SQL text; each text is always used in the same mode. */
  stmt(sql: string): Database.Statement;
  readonly sizes: TableSizes;
  /** The log entries this connection's writes append (the store's; none for a reader's connection). */
  readonly own?: OwnEntries;
}

/**
 * The time-series tables' sizes as dbstat measured them. Measuring walks every page of a b-tree, so a table's figure
 * is kept until that table changes (writes through this store) or the database changes under us (another process:
 * PRAGMA data_version).
 */
export class TableSizes {
  private readonly cache = new Map<string, number>();
  private dataVersion = -1;

  changed(table: string): void {
    this.cache.delete(table);
  }

  /** The figures still true at the database's `dataVersion`. */
  current(dataVersion: number): Map<string, number> {
    if (dataVersion !== this.dataVersion) {
      this.cache.clear();
      this.dataVersion = dataVersion;
    }
    return this.cache;
  }
}
