import type { Worker } from 'node:worker_threads';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { recordsOf, type DecodedAnswer } from '../src/services/record-decoding.js';
import { startModuleWorker } from '../src/storage/module-workers.js';
import { decodedItems } from './support.js';

/**
 * The scale benchmark's datasets generated, decoded and checked in a worker thread (bench/generate-worker.ts), a range
 * at a time, handed over as the decoding workers hand a file's records to `almanac ingest`: the load's thread only
 * writes them. Generating them there cost about a third of its time (a CPU profile of a 100,000-dataset load,
 * 2026-11-28: the generator's functions 19 s of its 58 in the writes).
 */
export class GeneratedBatches {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (r: { items: ChangeItem[]; proposals: number }) => void; reject: (e: Error) => void }>();

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: ({ id: number; proposals: number } & DecodedAnswer) | { id: number; error: string }) => {
      const job = this.waiting.get(m.id);
      if (!job) return;
      this.waiting.delete(m.id);
      if ('error' in m) job.reject(new Error(`generating worker: ${m.error}`));
      else job.resolve({ items: decodedItems(recordsOf(m)), proposals: m.proposals });
    });
    const fail = (e: Error) => {
      for (const job of this.waiting.values()) job.reject(e);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`generating worker exited (${code})`)));
  }

  /** A worker generating from `datasets` datasets in all; null if it does not start. */
  static async start(datasets: number): Promise<GeneratedBatches | null> {
    const w = await startModuleWorker(import.meta.url, 'generate-worker', { datasets });
    return w ? new GeneratedBatches(w) : null;
  }

  /** Datasets `from` to `to` (not included), with the extras the generator adds among them, decoded. */
  range(from: number, to: number): Promise<{ items: ChangeItem[]; proposals: number }> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, from, to });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
