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

/** `PRAGMA optimize`'s default mask: ANALYZE the tables this connection used whose size moved since their figures. */
const OPTIMIZE_DEFAULT = 0xfffe;
/** Its mask bits: only list what it would do; look at every table, not only those used. */
const OPTIMIZE_LIST_ONLY = 0x1;
export const OPTIMIZE_ALL_TABLES = 0x10002;

/**
 * `PRAGMA optimize` (as SQLite advises: at open, and as tables grow), without the full-text page table, whose figure
 * is set instead (above). Its ANALYZE reads every page of it, as the table has no index to sample: 2.5 s at a million
 * datasets, which the first start after a bulk load paid (optimize looks at every table at open, `OPTIMIZE_ALL_TABLES`)
 * before answering; and with its figure set large, optimize took a small table as one that had shrunk and read it
 * again at every start.
 */
export function optimizePlanner(db: Database.Database, mask = OPTIMIZE_DEFAULT): void {
  for (const sql of plannedAnalyses(db, mask)) db.exec(sql);
  setFtsPagesEstimate(db);
}

/** The ANALYZE statements optimizePlanner runs with this mask (optimize's own choice, the full-text page table left out). */
export function plannedAnalyses(db: Database.Database, mask = OPTIMIZE_DEFAULT): string[] {
  const pages = `"${SEARCH_FTS}_data"`;
  return (db.pragma(`optimize = ${mask | OPTIMIZE_LIST_ONLY}`) as { optimize: string }[]).map((r) => r.optimize)
    .filter((sql) => !sql.endsWith(`.${pages}`) && !sql.endsWith(` ${pages}`));
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
