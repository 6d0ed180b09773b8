import type Database from 'better-sqlite3';
import { SEARCH_FTS } from '../schema.js';

/**
 * The row count the planner is given for the full-text index's page table (FTS5's `_data`, one row a page of the
 * index). FTS5 reaches that table only by rowid; when a merge drops a segment it runs `DELETE … WHERE id >= ? AND
 * id <= ?`, and the planner answers that by scanning the whole table if it believes the table tiny. ANALYZE records it
 * with 2 rows on a new database (`PRAGMA optimize` at open) and `optimize` never looks at it again, so every merge read
 * the whole index: a bulk load's catch-up grew with the square of the catalog (a million datasets: 770 MB/s read back
 * from the OS, 81 % of the main thread in those scans; 100,000 synthetic documents: 25 GB read and 2.3× the CPU
 * against 0.7 GB; 2026-11-28). Any large figure gives the rowid range plan; the index's other tables have keys the
 * planner uses whatever their figures.
 */
const FTS_PAGES_ESTIMATE = '1000000';

/** `PRAGMA optimize` (as SQLite advises: at open, and as tables grow), then the full-text page table's figure set again. */
export function optimizePlanner(db: Database.Database, mask?: number): void {
  db.pragma(mask === undefined ? 'optimize' : `optimize = ${mask}`);
  setFtsPagesEstimate(db);
}

/**
 * Gives the full-text page table its figure (above) where ANALYZE recorded another, and reloads the statistics. A figure
 * is read when a statement is prepared, and FTS5 prepares its statements once a connection, at their first use: the
 * store's open runs this before anything reaches the index.
 */
export function setFtsPagesEstimate(db: Database.Database): void {
  const hasStats = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'`).get();
  if (!hasStats) return;
  const table = `${SEARCH_FTS}_data`;
  const current = db.prepare(`SELECT stat FROM sqlite_stat1 WHERE tbl = ? AND idx IS NULL`).pluck().get(table);
  // (No figure: the planner assumes a large table, as it should.)
  if (current === undefined || current === FTS_PAGES_ESTIMATE) return;
  db.prepare(`UPDATE sqlite_stat1 SET stat = ? WHERE tbl = ? AND idx IS NULL`).run(FTS_PAGES_ESTIMATE, table);
  db.exec('ANALYZE sqlite_schema');
}
