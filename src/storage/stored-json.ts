import { deflateRaw, deflateRawSync, inflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';

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
