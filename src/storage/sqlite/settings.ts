import { SETTINGS_TABLE } from '../schema.js';
import type { SqliteConnection } from './connection.js';

/** The stored value of a setting, storing `value` first when the key is absent (first writer wins), on SQLite. */
export function getOrSetSetting(c: SqliteConnection, key: string, value: string): string {
  c.stmt(`INSERT OR IGNORE INTO ${SETTINGS_TABLE} (key, value) VALUES (?, ?)`).run(key, value);
  return c.stmt(`SELECT value FROM ${SETTINGS_TABLE} WHERE key = ?`).pluck().get(key) as string;
}
