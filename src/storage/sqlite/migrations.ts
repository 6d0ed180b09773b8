import { timeseriesLogStatements } from '../change-log.js';
import { MIGRATIONS_TABLE, migrations, timeseriesTableNames, timeseriesTableStatements } from '../schema.js';
import { restoreIndexes } from './bulk-load.js';
import type { SqliteConnection } from './connection.js';
import { OPTIMIZE_ALL_TABLES, optimizePlanner, setFtsPagesEstimate } from './planner-statistics.js';

/**
 * Applies the migrations not applied yet and makes the time-series tables the registry names (in one transaction),
 * then builds the indexes an interrupted bulk load left dropped and gathers the planner's missing statistics.
 */
export function migrate(c: SqliteConnection): void {
  const db = c.db;
  setFtsPagesEstimate(db);
  db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_on INTEGER NOT NULL)`);
  const done = new Set(c.stmt(`SELECT version FROM ${MIGRATIONS_TABLE}`).pluck().all() as number[]);
  const apply = db.transaction(() => {
    for (const m of migrations('sqlite')) {
      if (done.has(m.version)) continue;
      for (const s of m.statements) db.exec(s);
      c.stmt(`INSERT INTO ${MIGRATIONS_TABLE} (version, applied_on) VALUES (?, ?)`).run(m.version, Date.now());
    }
    for (const s of timeseriesTableStatements('sqlite')) db.exec(s);
    // Migration 18: each time-series row keeps the offset of the log entry that wrote it, which names it for its values.
    for (const t of timeseriesTableNames()) {
      const columns = c.stmt(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[];
      if (!columns.includes('log_seq')) db.exec(`ALTER TABLE ${t} ADD COLUMN log_seq INTEGER`);
      for (const s of timeseriesLogStatements(t)) db.exec(s);
    }
  });
  apply.immediate();
  restoreIndexes(c);
  // Gathers statistics the planner lacks (on a new or upgraded database), as SQLite advises at open.
  optimizePlanner(db, OPTIMIZE_ALL_TABLES);
}
