import { SETTINGS_TABLE } from '../schema.js';
import type { PostgresConnection } from './connection.js';

/** The stored value of a setting, storing `value` first when the key is absent (first writer wins), on PostgreSQL. */
export async function getOrSetSetting(db: PostgresConnection, key: string, value: string): Promise<string> {
  for (;;) {
    const { rows } = await db.query(`WITH ins AS (INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ($1, $2)
      ON CONFLICT (key) DO NOTHING RETURNING value) SELECT value FROM ins UNION ALL
      SELECT value FROM ${SETTINGS_TABLE} WHERE key = $1 LIMIT 1`, [key, value]);
    // None when another server inserted the key at the same moment: the insert waited for its commit and did nothing,
    // and the statement's snapshot, taken before that commit, does not show its row. The next statement's does.
    if (rows[0]) return rows[0].value as string;
  }
}
