import { SETTINGS_TABLE } from '../schema.js';
import type { PostgresConnection } from './connection.js';

/** The stored value of a setting, storing `value` first when the key is absent (first writer wins), on PostgreSQL. */
export async function getOrSetSetting(db: PostgresConnection, key: string, value: string): Promise<string> {
  const { rows } = await db.query(`WITH ins AS (INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ($1, $2)
    ON CONFLICT (key) DO NOTHING RETURNING value) SELECT value FROM ins UNION ALL
    SELECT value FROM ${SETTINGS_TABLE} WHERE key = $1 LIMIT 1`, [key, value]);
  return rows[0].value as string;
}
