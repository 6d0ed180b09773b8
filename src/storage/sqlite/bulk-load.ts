import { DEFERRED_INDEX_KEY, deferredIndexes } from '../deferred-indexes.js';
import { SETTINGS_TABLE } from '../schema.js';
import type { SqliteConnection } from './connection.js';

/** The indexes a bulk load drops while it writes and builds again at its end (src/storage/deferred-indexes.ts), on SQLite. */

/** Drops them, each one's definition kept in the settings table until it is built again. */
export function dropDeferredIndexes(c: SqliteConnection): void {
  c.db.transaction(() => {
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
      if (!c.stmt(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`).get(name)) c.db.exec(r.value);
      c.stmt(`DELETE FROM ${SETTINGS_TABLE} WHERE key = ?`).run(r.key);
    }
  }).immediate();
  c.db.pragma('optimize');
}
