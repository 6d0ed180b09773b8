import { DEFERRED_INDEX_KEY, deferredIndexes } from '../deferred-indexes.js';
import { SEARCH_FTS, SEARCH_TERM_DOCS, SEARCH_TERMS, SETTINGS_TABLE } from '../schema.js';
import type { SqliteConnection } from './connection.js';
import { OPTIMIZE_ALL_TABLES, optimizePlanner } from './planner-statistics.js';

/** The indexes a bulk load drops while it writes and builds again at its end (src/storage/deferred-indexes.ts), on SQLite. */

/**
 * The full-text index's pending-terms buffer (FTS5's `hashsize`, 1 MiB by default) during a bulk catch-up: each time it
 * fills, FTS5 writes a segment and merges segments, reading them back. A 100,000-dataset catch-up with a page cache
 * scaled down as a million datasets would find it (25 MB) read 69 GB back from the OS, 40 GB with 64 MiB, and took
 * 13 % less CPU (2026-11-28, 2 cores; its peak RSS stayed at 600 MB). Set for the catch-up, the usual value put back
 * after it (or at the next start after a crash, with the deferred indexes: FTS5 keeps it in its own config table).
 */
const FTS_BULK_HASH = 64 * 1024 * 1024;
const FTS_USUAL_HASH = 1024 * 1024;
const ftsHashSize = (bytes: number) => `INSERT INTO ${SEARCH_FTS} (${SEARCH_FTS}, rank) VALUES ('hashsize', ${bytes})`;

/** Drops them, each one's definition kept in the settings table until it is built again. */
export function dropDeferredIndexes(c: SqliteConnection): void {
  c.db.transaction(() => {
    // Kept as what restoreIndexes runs for a name that is not an index: the usual setting put back.
    c.stmt(`INSERT OR IGNORE INTO ${SETTINGS_TABLE} (key, value) VALUES (?, ?)`).run(`${DEFERRED_INDEX_KEY}${SEARCH_FTS}`, ftsHashSize(FTS_USUAL_HASH));
    c.db.exec(ftsHashSize(FTS_BULK_HASH));
    for (const name of deferredIndexes('sqlite')) {
      const sql = c.stmt(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck().get(name) as string | undefined;
      if (!sql) continue;
      c.stmt(`INSERT OR IGNORE INTO ${SETTINGS_TABLE} (key, value) VALUES (?, ?)`).run(`${DEFERRED_INDEX_KEY}${name}`, sql);
      c.db.exec(`DROP INDEX ${name}`);
    }
  }).immediate();
}

/** Builds the indexes a bulk load dropped (deferIndexes), if any: after its catch-up, or at the next start after a crash. */
export function restoreIndexes(c: SqliteConnection): void {
  const rows = c.stmt(`SELECT key, value FROM ${SETTINGS_TABLE} WHERE key >= ? AND key < ?`)
    .all(DEFERRED_INDEX_KEY, `${DEFERRED_INDEX_KEY}\uffff`) as { key: string; value: string }[];
  if (rows.length === 0) return;
  c.db.transaction(() => {
    for (const r of rows) {
      const name = r.key.slice(DEFERRED_INDEX_KEY.length);
      // (The full-text index's setting: never an index, always put back.)
      if (!c.stmt(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`).get(name)) c.db.exec(r.value);
      c.stmt(`DELETE FROM ${SETTINGS_TABLE} WHERE key = ?`).run(r.key);
    }
    // The terms the catch-up left without a document (it could not tell without the index by term: SearchTerms.unlink).
    c.db.exec(`DELETE FROM ${SEARCH_TERMS} WHERE NOT EXISTS (SELECT 1 FROM ${SEARCH_TERM_DOCS} p WHERE p.term = ${SEARCH_TERMS}.id)`);
  }).immediate();
  // Every table, as the next start's open looks at them (the log and the text index's tables are written by a bulk
  // load but not read by it): their figures gathered here rather than before that start answers.
  optimizePlanner(c.db, OPTIMIZE_ALL_TABLES);
}
