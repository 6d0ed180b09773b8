import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../storage/module-workers.js';
import type { IndexUpdate } from '../storage/types.js';

/** One step's computation asked of the worker: each index's entities (src/changelog/index-worker.ts). */
export interface IndexWork {
  id: number;
  steps: { consumer: string; urns: readonly string[] }[];
}
export type IndexWorkResult = { id: number; update: IndexUpdate } | { id: number; error: string };

/**
 * A worker thread that computes index updates (search documents, edges) from the database itself, for the indexes the
 * catalog registers under the names 'search' and 'relationships': a bulk load's catch-up applies step k in the main
 * thread while the worker reads and computes step k + 1 on the other core.
 */
export class IndexWorker {
  private next = 1;
  /** Steps computed. */
  computed = 0;
  private readonly waiting = new Map<number, { resolve: (u: IndexUpdate) => void; reject: (e: Error) => void }>();
  private failed: Error | null = null;
  private exited = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: IndexWorkResult) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if ('error' in m) w.reject(new Error(`index worker: ${m.error}`));
      else {
        this.computed++;
        w.resolve(m.update);
      }
    });
    const fail = (e: Error) => {
      this.failed = e;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      this.exited = true;
      fail(new Error(`index worker exited (${code})`));
    });
  }

  /** Starts a worker reading the database `databaseUrl` names; null if it cannot start (the caller computes itself). */
  static async start(databaseUrl: string): Promise<IndexWorker | null> {
    const worker = await startModuleWorker(import.meta.url, 'index-worker', { databaseUrl });
    return worker ? new IndexWorker(worker) : null;
  }

  /** Whether it can still compute (it has neither failed nor ended). */
  get alive(): boolean {
    return this.failed === null;
  }

  /** The update of each index for its entities, computed from what the database holds when the worker reads it. */
  compute(steps: IndexWork['steps']): Promise<IndexUpdate> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, steps } satisfies IndexWork);
    });
  }

  /** Closes the worker's connection and ends it (at once, if it has not ended within a few seconds). */
  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('close');
    const timer = setTimeout(() => void this.worker.terminate(), 5000);
    await exited;
    clearTimeout(timer);
  }
}
