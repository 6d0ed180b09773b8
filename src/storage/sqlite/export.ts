import fs from 'node:fs';
import { ENTITY_TABLE } from '../schema.js';
import type { EntityRow } from '../types.js';
import type { SqliteConnection } from './connection.js';

/** Export and backup on SQLite (src/services/export.ts, backup.ts). */

/** Entities in byte order of their urns (SQLite's own), after a urn, of some types, at most `limit`. */
export function entitiesAfter(c: SqliteConnection, q: { after?: string; entityTypes?: readonly string[]; limit: number }): EntityRow[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.after !== undefined) { where.push('urn > ?'); params.push(q.after); }
  if (q.entityTypes) { where.push(`entity_type IN (${q.entityTypes.map(() => '?').join(',')})`); params.push(...q.entityTypes); }
  return c.stmt(`SELECT urn, entity_type AS entityType FROM ${ENTITY_TABLE}${where.length ? ' WHERE ' + where.join(' AND ') : ''}
    ORDER BY urn LIMIT ?`).all(...params, q.limit) as EntityRow[];
}

/** A copy of the database as of one moment, in a new file. */
export async function backupTo(c: SqliteConnection, file: string): Promise<{ pages: number }> {
  // Made here, owner-only (it holds what the database holds) and never over an existing file ('wx').
  fs.closeSync(fs.openSync(file, 'wx', 0o600));
  try {
    // The first step only opens the backup (and learns the size); the second copies every page under one read
    // transaction, so the copy is the database as of that moment. WAL mode lets the server go on writing meanwhile;
    // in smaller steps, each write by another connection would restart the copy.
    const { totalPages } = await c.db.backup(file, { progress: () => 0x7fffffff });
    return { pages: totalPages };
  } catch (e) {
    fs.rmSync(file, { force: true });
    throw e;
  }
}
