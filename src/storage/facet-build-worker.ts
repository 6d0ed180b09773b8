import { parentPort, workerData } from 'node:worker_threads';
import { loadFacetDocs, type FacetBuildResult, type FacetBuildWork, type FacetRows } from './facet-build.js';
import type { FacetDocs } from './facet-bitmaps.js';
import type { Dialect } from './schema.js';

/**
 * A worker thread building the facet structure (src/storage/facet-build.ts) through a read connection of its own, in
 * one read transaction, and handing it to the thread that started it, its buffers moved.
 */
const { databaseUrl } = workerData as FacetBuildWork;
parentPort!.postMessage({ ready: true });

async function build(): Promise<ReturnType<FacetDocs['pack']>> {
  if (databaseUrl.startsWith('sqlite:')) {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      // A read transaction from the first read on: every page sees the same commit.
      db.exec('BEGIN');
      const docs = await loadFacetDocs('sqlite', async (s) => db.prepare(s.sql).all(...s.params) as Record<string, unknown>[]);
      db.exec('COMMIT');
      return docs!.pack();
    } finally {
      db.close();
    }
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const rows: FacetRows = async (s) => (await client.query(s.sql, s.params as unknown[])).rows;
    const docs = await loadFacetDocs('postgres' satisfies Dialect, rows);
    await client.query('COMMIT');
    return docs!.pack();
  } finally {
    await client.end().catch(() => {});
  }
}

build().then(({ packed, transfer }) => parentPort!.postMessage({ packed } satisfies FacetBuildResult, transfer), (e: unknown) => parentPort!.postMessage({ error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) } satisfies FacetBuildResult));
