import type { Worker } from 'node:worker_threads';
import { BITMAP_FIELDS, FacetDocs, type FacetDoc, type PackedFacetDocs } from './facet-bitmaps.js';
import type { SnapshotCheck } from './facet-snapshot.js';
import { startModuleWorker } from './module-workers.js';
import { SEARCH_DOCS, SEARCH_VALUES, type Dialect } from './schema.js';
import { SqlParams, type Statement } from './search-sql.js';

/**
 * Builds a FacetDocs from the search tables: in the main thread a page at a time between requests (an in-memory
 * SQLite database, or when no worker can start), or whole in a worker thread with a connection of its own
 * (src/storage/facet-build-worker.ts) that hands the finished structure over (its arrays moved, not copied). At
 * 1,000,000 generated datasets the build is about ten seconds of work, which in the main thread slowed every request
 * made meanwhile (point reads p50 8–10 ms instead of ~1); in a worker the main thread pays only the hand-over.
 */

const DOC_PAGE = 5_000;
const VALUE_PAGE = 25_000;

/** What a build reads through: a statement's rows. */
export type FacetRows = (s: Statement) => Promise<Record<string, unknown>[]>;

/**
 * The structure from the tables. `between`: called between pages (the main thread yields there); a build that is no
 * longer wanted returns false from it, and this then returns null.
 */
export async function loadFacetDocs(dialect: Dialect, rows: FacetRows, between: () => Promise<boolean> = async () => true): Promise<FacetDocs | null> {
  const docs = new FacetDocs();
  for (let after = 0; ;) {
    const p = new SqlParams(dialect);
    const page = await rows({ sql: `SELECT id, urn, entity_type, removed FROM ${SEARCH_DOCS} WHERE id > ${p.add(after)}
      ORDER BY id LIMIT ${p.add(DOC_PAGE)}`, params: p.list });
    docs.setMany(page.map(docOf));
    if (page.length < DOC_PAGE) break;
    after = Number(page[page.length - 1]!.id);
    if (!(await between())) return null;
  }
  for (const field of BITMAP_FIELDS) {
    let cursor: [string, number] | null = null;
    for (;;) {
      if (!(await between())) return null;
      // A page of (value, id) pairs in key order, handed over grouped by value: one JSON array of ids a value
      // rather than a row a pair (several times quicker to read).
      const p = new SqlParams(dialect);
      let page = `SELECT value, doc_id FROM ${SEARCH_VALUES} WHERE field = ${p.add(field)}`;
      if (cursor) page += ` AND (value, doc_id) > (${p.add(cursor[0])}, ${p.add(cursor[1])})`;
      page += ` ORDER BY value, doc_id LIMIT ${p.add(VALUE_PAGE)}`;
      const agg = dialect === 'sqlite' ? 'json_group_array(doc_id)' : 'json_agg(doc_id)';
      const read = await rows({ sql: `SELECT value, ${agg} AS ids, COUNT(*) AS n, MAX(doc_id) AS last FROM (${page}) p
        GROUP BY value ORDER BY value`, params: p.list });
      let n = 0;
      for (const r of read) {
        const ids = (typeof r.ids === 'string' ? JSON.parse(r.ids) : r.ids) as number[];
        docs.loadValue(field, r.value as string, ids);
        n += Number(r.n);
      }
      if (n < VALUE_PAGE) break;
      const last = read[read.length - 1]!;
      cursor = [last.value as string, Number(last.last)];
    }
  }
  for (const _ of docs.finishLoadSteps()) if (!(await between())) return null;
  return docs;
}

export function docOf(r: Record<string, unknown>): FacetDoc {
  return { id: Number(r.id), urn: r.urn as string, entityType: r.entity_type as string, removed: r.removed === true || r.removed === 1, values: [] };
}

/** What the worker is told: the database (`sqlite:<file>` or a PostgreSQL URL), and what to do with a snapshot. */
export interface FacetBuildWork {
  databaseUrl: string;
  /** Load the saved snapshot when it agrees with this (else build). */
  load?: SnapshotCheck;
  /** Save what it builds as the snapshot of this offset and rebuild count. */
  save?: { syncedTo: number; rebuilds: number };
  /** Nothing to load or build: save this structure (a copy of a serving one) as `save` says. */
  packed?: PackedFacetDocs;
}

/**
 * What the worker answers first: the structure — loaded from the snapshot (`syncedTo`: the offset it covers) or built
 * (`refused`: why the snapshot was not used, when one was to be loaded) — or why it could not; then, when it saves
 * what it built, a second message once saved.
 */
export type FacetBuildResult = { packed: PackedFacetDocs; syncedTo?: number; refused?: string } | { error: string };
export type FacetSaveResult = { saved: boolean } | { saveError: string };

/** What a worker handed over. */
export interface WorkerFacets {
  docs: FacetDocs;
  /** Loaded from the snapshot: the offset it covers. */
  syncedTo?: number;
  refused?: string;
  /** Settles once the worker saved what it built (or gave up); true when saved. */
  saved: Promise<boolean>;
}

/** Posted to a facet worker once its answer's listeners are attached: it starts its work then. */
const FACET_WORKER_GO = 'go';

/**
 * The structure loaded or built in a worker thread from the database `databaseUrl` names (a build: one read
 * transaction, a consistent snapshot taken after this call), or null when no worker could start or `stop` ended it.
 * Rejects with the worker's error.
 */
export async function buildFacetDocsInWorker(databaseUrl: string, stop: AbortSignal, snapshot: Omit<FacetBuildWork, 'databaseUrl'> = {}): Promise<WorkerFacets | null> {
  const worker: Worker | null = await startModuleWorker(import.meta.url, 'facet-build-worker', { databaseUrl, ...snapshot } satisfies FacetBuildWork);
  if (!worker) return null;
  let keep = false;
  try {
    const result = await new Promise<FacetBuildResult | null>((resolve, reject) => {
      if (stop.aborted) resolve(null);
      stop.addEventListener('abort', () => resolve(null), { once: true });
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the facet build's worker exited (${code}) before answering`)));
      worker.postMessage(FACET_WORKER_GO);
    });
    if (result === null) return null;
    if ('error' in result) throw new Error(`facet build in a worker: ${result.error}`);
    const docs = FacetDocs.unpack(result.packed);
    const saves = snapshot.save !== undefined && result.syncedTo === undefined;
    // The worker goes on to save what it built: left running until it says so (or stopped with the build).
    const saved = !saves ? Promise.resolve(false) : new Promise<boolean>((resolve) => {
      worker.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
      worker.once('message', (m: FacetSaveResult) => resolve('saved' in m && m.saved));
      worker.once('error', () => resolve(false));
      worker.once('exit', () => resolve(false));
      stop.addEventListener('abort', () => resolve(false), { once: true });
    }).finally(() => void worker.terminate());
    keep = saves;
    return { docs, syncedTo: result.syncedTo, refused: result.refused, saved };
  } finally {
    if (!keep) void worker.terminate();
  }
}

/**
 * Saves a serving structure as the snapshot from a worker thread (encoding and writing a large one takes the better
 * part of a second): this thread only packs it and copies its arrays into the worker's start. True when stored.
 */
export async function saveFacetDocsInWorker(databaseUrl: string, docs: FacetDocs, save: { syncedTo: number; rebuilds: number }): Promise<boolean> {
  const worker: Worker | null = await startModuleWorker(import.meta.url, 'facet-build-worker', { databaseUrl, save, packed: docs.pack().packed } satisfies FacetBuildWork);
  if (!worker) return false;
  try {
    return await new Promise<boolean>((resolve) => {
      worker.once('message', (m: FacetSaveResult) => resolve('saved' in m && m.saved));
      worker.once('error', () => resolve(false));
      worker.once('exit', () => resolve(false));
      worker.postMessage(FACET_WORKER_GO);
    });
  } finally {
    void worker.terminate();
  }
}
