import { stat } from 'node:fs/promises';
import path from 'node:path';
import { AlmanacError, badRequest, conflict } from '../errors.js';
import { openStore } from '../storage/index.js';

/**
 * `almanac backup`: a consistent copy of a SQLite catalog, made while servers go on using it (SQLite's online backup
 * API, through the store). A PostgreSQL catalog is backed up with PostgreSQL's own tools; PG_DUMP_ADVICE says how.
 */
export const PG_DUMP_ADVICE = 'almanac backup copies SQLite databases; back a PostgreSQL catalog up with pg_dump (a consistent copy '
  + 'while servers keep writing) and restore it into an empty database with pg_restore:\n'
  + '  pg_dump --format=custom --file=almanac.dump "$DATABASE_URL"\n'
  + '  pg_restore --no-owner --dbname="$EMPTY_DATABASE_URL" almanac.dump';

/** Whether `almanac backup` copies this database itself (SQLite on a file), rather than leaving it to pg_dump. */
export function backsUpItself(databaseUrl: string): boolean {
  return databaseUrl.startsWith('sqlite:');
}

export interface BackupResult {
  pages: number;
  bytes: number;
  ms: number;
}

/** Copies the SQLite database `databaseUrl` names into `file`, a new file (never over an existing one). */
export async function backupDatabase(databaseUrl: string, file: string): Promise<BackupResult> {
  if (!backsUpItself(databaseUrl)) throw badRequest(PG_DUMP_ADVICE);
  const source = databaseUrl.slice('sqlite:'.length);
  if (source === ':memory:' || source === '') throw badRequest('DATABASE_URL names an in-memory database: there is nothing on disk to back up');
  // Checked before the store opens: opening creates a database where there is none.
  await stat(source).catch(() => { throw badRequest(`${source}: no such database file (DATABASE_URL=${databaseUrl})`); });
  if (await stat(file).then(() => true, () => false)) throw conflict(`${file} exists; a backup is written to a new file`);
  await stat(path.dirname(path.resolve(file))).catch(() => { throw badRequest(`${path.dirname(file)}: no such folder`); });
  const started = Date.now();
  const store = await openStore(databaseUrl);
  try {
    const { pages } = await store.backupTo(file);
    return { pages, bytes: (await stat(file)).size, ms: Date.now() - started };
  } catch (e) {
    if (e instanceof AlmanacError) throw e;
    throw badRequest(`the backup to ${file} failed: ${(e as Error).message}`);
  } finally {
    await store.close();
  }
}
