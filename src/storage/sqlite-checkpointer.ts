import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Moves WAL checkpoints of a busy SQLite database off the main thread. SQLite checkpoints in the connection whose
 * commit crossed `wal_autocheckpoint`: that commit then copies the WAL back into the database file and syncs it, a few
 * milliseconds of the event loop every few hundred writes (12–18 % of a write's cost in `npm run bench -- write`).
 * Once the WAL has grown past `START_BYTES` (a catalog being written to, not a test's few rows), a worker thread with
 * its own connection runs a PASSIVE checkpoint (it never blocks a writer or a reader) whenever the database changed,
 * and the main connection keeps a far higher threshold as a bound in case the worker falls behind or stops.
 */
const START_BYTES = 2 * 1024 * 1024;
/** How often the WAL's size is looked at before the worker runs, and how often the worker looks for changes. */
const WATCH_MS = 250;
const CHECKPOINT_MS = 50;
/** Pages; SQLite's default is 1000. */
const MAIN_THRESHOLD_WHILE_WORKER_RUNS = 20_000;
const MAIN_THRESHOLD = 1000;

// Plain CommonJS so that the worker needs no TypeScript loader: it opens the file, and checkpoints when another
// connection committed (PRAGMA data_version moves) until told to stop.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
let seen = -1;
const timer = setInterval(() => {
  try {
    const v = db.pragma('data_version', { simple: true });
    if (v === seen) return;
    seen = v;
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message || e) });
  }
}, workerData.everyMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export class SqliteCheckpointer {
  private worker: Worker | null = null;
  private readonly watch: NodeJS.Timeout;
  private stopped = false;

  /** `setThreshold(pages)`: sets the main connection's `wal_autocheckpoint`. */
  constructor(private readonly file: string, private readonly setThreshold: (pages: number) => void) {
    this.watch = setInterval(() => this.look(), WATCH_MS);
    this.watch.unref();
  }

  private look(): void {
    if (this.worker || this.stopped) return;
    let size = 0;
    try { size = fs.statSync(`${this.file}-wal`).size; } catch { return; }
    if (size < START_BYTES) return;
    clearInterval(this.watch);
    const worker = new Worker(WORKER_SOURCE, { eval: true,
      workerData: { file: this.file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), everyMs: CHECKPOINT_MS } });
    worker.unref();
    // A worker that fails leaves checkpoints to the main connection, as before it started.
    const fallBack = () => { if (this.worker === worker) { this.worker = null; if (!this.stopped) this.setThreshold(MAIN_THRESHOLD); } };
    worker.on('message', (m: { error?: string }) => { if (m.error) void worker.terminate(); });
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    this.worker = worker;
    this.setThreshold(MAIN_THRESHOLD_WHILE_WORKER_RUNS);
  }

  /** Stops the worker (its connection closed) before the main connection closes and checkpoints the rest itself. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.watch);
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('stop');
    const timer = setTimeout(() => void worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
