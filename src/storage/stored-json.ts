import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';

/**
 * How SQLite keeps large JSON values (aspect values, change-log values, time-series events): PostgreSQL compresses
 * large text itself (TOAST), SQLite does not, and a dataset's schema alone is 5–20 kB of repetitive JSON that deflate
 * shrinks about seven times. Values of COMPRESS_FROM characters or more are stored as a BLOB: one format byte, then
 * the raw-deflated UTF-8 text; smaller ones stay TEXT (SQL that reads small values, such as a status aspect's
 * `removed`, keeps working, and rows written before this format read as they always did).
 */
export type StoredJson = string | Buffer;

/** Below this many characters a value stays text: compressing it saves little and costs a zlib call. */
export const COMPRESS_FROM = 512;
/** The first byte of a compressed value: raw deflate of UTF-8 text, no dictionary. */
const DEFLATE_FORMAT = 1;
/** Fast compression: level 1 gives about 7× on schemas, within a few percent of the default level, at half its CPU. */
const LEVEL = 1;

const deflateAsync = promisify(deflateRaw);

function framed(body: Buffer): Buffer {
  const out = Buffer.allocUnsafe(body.length + 1);
  out[0] = DEFLATE_FORMAT;
  body.copy(out, 1);
  return out;
}

/** The stored form of a JSON text. */
export function storeJson(text: string): StoredJson {
  return text.length < COMPRESS_FROM ? text : framed(deflateRawSync(text, { level: LEVEL }));
}

/** storeJson on libuv's thread pool, off the event loop's thread: a large batch compresses on the other cores. */
export async function storeJsonAsync(text: string): Promise<StoredJson> {
  return text.length < COMPRESS_FROM ? text : framed(await deflateAsync(text, { level: LEVEL }));
}

// Plain CommonJS, so that the worker needs no TypeScript loader. It answers each batch with its compressed values
// (each framed as storeJson frames it) packed in one buffer, handed over without a copy.
const COMPRESSOR_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { deflateRawSync } = require('node:zlib');
parentPort.on('message', ({ id, texts }) => {
  try {
    const bodies = texts.map((t) => deflateRawSync(t, { level: workerData.level }));
    const out = Buffer.allocUnsafeSlow(bodies.reduce((n, b) => n + b.length + 1, 0));
    const ends = [];
    let at = 0;
    for (const b of bodies) {
      out[at++] = workerData.format;
      b.copy(out, at);
      at += b.length;
      ends.push(at);
    }
    parentPort.postMessage({ id, buffer: out.buffer, ends }, [out.buffer]);
  } catch (e) {
    parentPort.postMessage({ id, error: String(e && e.message || e) });
  }
});
`;

/**
 * A worker thread that compresses a batch of values in one message each way: the zlib stream each storeJsonAsync
 * creates costs the event loop's thread some 40 µs a value (a bulk load's 12 a dataset), about what compressing a
 * few kB takes; a whole batch sent at once costs it a copy of its text and takes the compression to the other core.
 * Started at the first batch, and left running (unreferenced while idle: it keeps no process alive).
 */
class Compressor {
  private readonly worker: Worker;
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (v: Buffer[]) => void; reject: (e: Error) => void }>();
  failed = false;

  constructor() {
    this.worker = new Worker(COMPRESSOR_SOURCE, { eval: true, workerData: { level: LEVEL, format: DEFLATE_FORMAT } });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; buffer: ArrayBuffer; ends: number[] } | { id: number; error: string }) => {
      const w = this.waiting.get(m.id)!;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      if ('error' in m) return w.reject(new Error(m.error));
      const all = Buffer.from(m.buffer);
      let at = 0;
      w.resolve(m.ends.map((end) => all.subarray(at, (at = end))));
    });
    const fail = (e: Error) => {
      this.failed = true;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('the compression worker exited')));
  }

  compress(texts: readonly string[]): Promise<Buffer[]> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      // Referenced while it has work: a process waiting for nothing else must not end meanwhile.
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }
}

let compressor: Compressor | null = null;

/**
 * storeJson of many texts, the large ones compressed together in a worker thread (Compressor); the same stored forms
 * storeJson gives. Each compressed value is a view of one buffer per batch.
 */
export async function storeJsonBatch(texts: readonly string[]): Promise<StoredJson[]> {
  const large = texts.filter((t) => t.length >= COMPRESS_FROM);
  if (large.length === 0) return [...texts];
  if (!compressor || compressor.failed) compressor = new Compressor();
  let stored: Buffer[];
  try {
    stored = await compressor.compress(large);
  } catch {
    // A worker that failed (it could not start, it died): the thread pool, as before.
    stored = await Promise.all(large.map(async (t) => (await storeJsonAsync(t)) as Buffer));
  }
  let i = 0;
  return texts.map((t) => (t.length >= COMPRESS_FROM ? stored[i++]! : t));
}

/** The JSON text of a stored value. */
export function readJson(stored: StoredJson): string {
  if (typeof stored === 'string') return stored;
  if (stored[0] !== DEFLATE_FORMAT) throw new Error(`stored JSON in an unknown format (${stored[0]})`);
  return inflateRawSync(stored.subarray(1)).toString('utf8');
}

export const readJsonOrNull = (stored: StoredJson | null | undefined): string | null => (stored == null ? null : readJson(stored));

/** Whether two stored values are the same bytes (then they hold the same text). */
export function sameStored(a: StoredJson, b: StoredJson): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.equals(b);
}
