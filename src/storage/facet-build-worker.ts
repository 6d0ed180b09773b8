import { parentPort, workerData } from 'node:worker_threads';
import { loadFacetDocs, type FacetBuildResult, type FacetBuildWork, type FacetRows, type FacetSaveResult } from './facet-build.js';
import type { PackedFacetDocs } from './facet-bitmaps.js';
import { decodeSnapshot, encodeSnapshot, NO_SNAPSHOT, readSnapshot, staleness, writeSnapshot } from './facet-snapshot.js';
import type { Dialect } from './schema.js';

/**
 * A worker thread loading the facet structure (src/storage/facet-build.ts) from its saved snapshot
 * (src/storage/facet-snapshot.ts) when that still stands for the tables, else building it through a connection of
 * its own, in one read transaction, and saving it as the new snapshot after handing it over. What it hands to the
 * thread that started it has its buffers moved.
 */
const work = workerData as FacetBuildWork;
parentPort!.postMessage({ ready: true });

interface Connection {
  dialect: Dialect;
  rows: FacetRows;
  begin(): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

async function connect(): Promise<Connection> {
  const { databaseUrl } = work;
  if (databaseUrl.startsWith('sqlite:')) {
    const Database = (await import('better-sqlite3')).default;
    // Read-only unless it is to save a snapshot.
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: !work.save, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const stmt = (sql: string) => db.prepare(sql);
    return {
      dialect: 'sqlite',
      rows: async (s) => stmt(s.sql).all(...s.params) as Record<string, unknown>[],
      // A read transaction from the first read on: every page sees the same commit.
      begin: async () => { db.exec('BEGIN'); },
      commit: async () => { db.exec('COMMIT'); },
      close: async () => { db.close(); },
    };
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  return {
    dialect: 'postgres',
    rows: async (s) => (await client.query(s.sql, s.params as unknown[])).rows,
    begin: async () => { await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'); },
    commit: async () => { await client.query('COMMIT'); },
    close: async () => { await client.end().catch(() => {}); },
  };
}

async function run(): Promise<void> {
  const c = await connect();
  try {
    if (work.packed && work.save) {
      parentPort!.postMessage({ saved: await writeSnapshot(c.dialect, c.rows, { ...work.save, data: encodeSnapshot(work.packed) }) } satisfies FacetSaveResult);
      return;
    }
    let refused: string | undefined;
    if (work.load) {
      const stored = await readSnapshot(c.dialect, c.rows);
      if (!stored) refused = NO_SNAPSHOT;
      else {
        const decoded = decodeSnapshot(stored.data);
        refused = 'refused' in decoded ? decoded.refused : staleness(stored, work.load) ?? undefined;
        if (!refused) {
          const packed = decoded as PackedFacetDocs;
          parentPort!.postMessage({ packed, syncedTo: stored.syncedTo } satisfies FacetBuildResult, transferOf(packed));
          return;
        }
      }
    }
    await c.begin();
    const docs = await loadFacetDocs(c.dialect, c.rows);
    await c.commit();
    const { packed, transfer } = docs!.pack();
    // Encoded before the arrays are moved to the other thread; saved after it has them.
    const data = work.save ? encodeSnapshot(packed) : null;
    parentPort!.postMessage({ packed, refused } satisfies FacetBuildResult, transfer);
    if (data && work.save) {
      try {
        const saved = await writeSnapshot(c.dialect, c.rows, { ...work.save, data });
        parentPort!.postMessage({ saved } satisfies FacetSaveResult);
      } catch (e) {
        parentPort!.postMessage({ saveError: String(e) } satisfies FacetSaveResult);
      }
    }
  } finally {
    await c.close();
  }
}

function transferOf(p: PackedFacetDocs): ArrayBuffer[] {
  return [p.bytes, p.ends.buffer, p.fieldOf.buffer, p.typeOf.buffer, p.hashOf.buffer, p.startOf.buffer, p.lenOf.buffer, p.pool.buffer];
}

// Starts when the other thread says it listens (FACET_WORKER_GO): a snapshot's load answered so soon after the ready
// message that the answer came before its listener was attached, and was never seen (a start then counted every
// facet in SQL, each count first waiting for the load; about one start in ten at 20,000 datasets on PostgreSQL).
parentPort!.once('message', () => {
  run().catch((e: unknown) => parentPort!.postMessage({ error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) } satisfies FacetBuildResult));
});
