import { createHash } from 'node:crypto';
import { BITMAP_FIELDS, type PackedFacetDocs } from './facet-bitmaps.js';
import { FACET_SNAPSHOT_TABLE, SETTINGS_TABLE, type Dialect } from './schema.js';
import { SqlParams, type Statement } from './search-sql.js';
import type { IndexGuard } from './types.js';

/**
 * The facet structure (src/storage/facet-bitmaps.ts) saved in the database (migration 26), so that a start loads it
 * and follows the change log from the offset it covers rather than building it from the search tables (more than 20 s
 * of a worker's time at 1,000,000 generated datasets). In the database rather than in a file beside it: a backup, a
 * restore or a copy of the database carries the snapshot that matches its tables, and on PostgreSQL every server of
 * the database loads the same one (each then follows the log on its own).
 *
 * A snapshot is taken only when it is known exact, and used only when still so:
 * - its definition: the format and the fields held (BITMAP_FIELDS) — another version of Almanac builds afresh;
 * - its checksum (SHA-1 of everything before it) — a damaged snapshot is not loaded;
 * - `syncedTo`: the search consumer's offset it reflects (at least: an entry applied again is harmless, it is read
 *   back by urn). The log must still hold every entry after it (else a trim removed what changed: built afresh);
 * - the search index's rebuild count (`REBUILDS_KEY`), which every index write not driven by the log (a reindex's
 *   pages, a bulk load's key-order catch-up) moves on in its own transaction: a snapshot taken before such writes
 *   misses changes the log does not name, and is refused.
 */

/** The settings row counting the search index's writes not driven by the change log (reindex, bulk catch-up). */
export const REBUILDS_KEY = 'facets:search-rebuilds';
/** Why a start built the structure when nothing was saved yet (not a warning: the build saves one). */
export const NO_SNAPSHOT = 'there is none';
const NAME = 'search';
const MAGIC = 'ALMFACET';
export const SNAPSHOT_FORMAT = 1;
/** What a snapshot's structure holds: taken with another definition, it is not used. */
export const SNAPSHOT_DEFINITION = JSON.stringify({ format: SNAPSHOT_FORMAT, fields: [...BITMAP_FIELDS].sort() });
const DIGEST = 20;

export type Rows = (s: Statement) => Promise<Record<string, unknown>[]>;

/** A snapshot as stored: the offset it covers, the rebuild count it was taken at, its encoded structure. */
export interface StoredSnapshot {
  syncedTo: number;
  rebuilds: number;
  data: Uint8Array;
}

/** What a snapshot must agree with to be used. */
export interface SnapshotCheck {
  /** The rebuild count now. */
  rebuilds: number;
  /** The search consumer's offset now. */
  at: number;
  /** The log's first entry (null: empty). */
  firstSeq: number | null;
}

const SECTIONS = ['bytes', 'ends', 'fieldOf', 'typeOf', 'hashOf', 'startOf', 'lenOf', 'pool'] as const;
type Section = (typeof SECTIONS)[number];

/** The structure as one buffer: magic, header (JSON), 8-aligned sections, SHA-1 of all before it. */
export function encodeSnapshot(p: PackedFacetDocs): Uint8Array {
  const views: Record<Section, Uint8Array> = {
    bytes: new Uint8Array(p.bytes),
    ends: u8(p.ends), fieldOf: u8(p.fieldOf), typeOf: u8(p.typeOf), hashOf: u8(p.hashOf), startOf: u8(p.startOf), lenOf: u8(p.lenOf),
    pool: u8(p.pool.subarray(0, p.used)),
  };
  const header = Buffer.from(JSON.stringify({
    definition: SNAPSHOT_DEFINITION, types: p.types, fields: p.fields, values: p.values, used: p.used,
    wide: p.pool instanceof Uint32Array, sizes: SECTIONS.map((s) => views[s].byteLength),
  }));
  let total = align(MAGIC.length + 4 + header.byteLength);
  for (const s of SECTIONS) total += align(views[s].byteLength);
  const out = Buffer.alloc(total + DIGEST);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(header.byteLength, MAGIC.length);
  header.copy(out, MAGIC.length + 4);
  let at = align(MAGIC.length + 4 + header.byteLength);
  for (const s of SECTIONS) { out.set(views[s], at); at += align(views[s].byteLength); }
  createHash('sha1').update(out.subarray(0, total)).digest().copy(out, total);
  return out;
}

/**
 * The structure a snapshot holds (its arrays copied out of `data`, so they can be moved to another thread), or why it
 * cannot be used: damaged (checksum, layout) or of another definition.
 */
export function decodeSnapshot(data: Uint8Array): PackedFacetDocs | { refused: string } {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.byteLength < MAGIC.length + 4 + DIGEST || buf.toString('latin1', 0, MAGIC.length) !== MAGIC) return { refused: 'not a facet snapshot' };
  const total = buf.byteLength - DIGEST;
  if (!createHash('sha1').update(buf.subarray(0, total)).digest().equals(buf.subarray(total))) return { refused: 'its checksum does not match (damaged)' };
  try {
    const length = buf.readUInt32LE(MAGIC.length);
    const h = JSON.parse(buf.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + length)) as {
      definition: string; types: string[]; fields: string[]; values: string[]; used: number; wide: boolean; sizes: number[];
    };
    if (h.definition !== SNAPSHOT_DEFINITION) return { refused: `it was taken with another definition (${h.definition})` };
    let at = align(MAGIC.length + 4 + length);
    const part = {} as Record<Section, ArrayBuffer>;
    SECTIONS.forEach((s, i) => {
      const n = h.sizes[i]!;
      if (at + n > total) throw new Error('truncated');
      // A copy of its own (aligned, movable): the blob's buffer may be shared or unaligned.
      part[s] = buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + n) as ArrayBuffer;
      at += align(n);
    });
    const pool = h.wide ? new Uint32Array(part.pool) : new Uint16Array(part.pool);
    return {
      types: h.types, fields: h.fields, values: h.values, used: h.used,
      bytes: part.bytes, ends: new Uint32Array(part.ends), fieldOf: new Uint16Array(part.fieldOf), typeOf: new Uint16Array(part.typeOf),
      hashOf: new Int32Array(part.hashOf), startOf: new Uint32Array(part.startOf), lenOf: new Uint16Array(part.lenOf), pool,
    };
  } catch (e) {
    return { refused: `its layout is damaged (${(e as Error).message})` };
  }
}

/** Why a stored snapshot cannot stand for the tables now, or null when it can (its data checked by decodeSnapshot). */
export function staleness(s: Omit<StoredSnapshot, 'data'>, now: SnapshotCheck): string | null {
  if (s.rebuilds !== now.rebuilds) return 'the search index was rebuilt after it was taken (a reindex or a bulk load)';
  if (s.syncedTo > now.at) return `it covers the log up to ${s.syncedTo}, past the search index's offset ${now.at}`;
  if (s.syncedTo < now.at && (now.firstSeq === null || now.firstSeq > s.syncedTo + 1)) {
    return `the change log no longer holds the entries after its offset ${s.syncedTo} (trimmed)`;
  }
  return null;
}

/** The stored snapshot's offset and rebuild count, without its data, if there is one. */
export async function snapshotMeta(dialect: Dialect, rows: Rows): Promise<Omit<StoredSnapshot, 'data'> | null> {
  const p = new SqlParams(dialect);
  const [r] = await rows({ sql: `SELECT synced_to, rebuilds FROM ${FACET_SNAPSHOT_TABLE} WHERE name = ${p.add(NAME)}`, params: p.list });
  return r ? { syncedTo: Number(r.synced_to), rebuilds: Number(r.rebuilds) } : null;
}

/** The stored snapshot, if any. */
export async function readSnapshot(dialect: Dialect, rows: Rows): Promise<StoredSnapshot | null> {
  const p = new SqlParams(dialect);
  const [r] = await rows({ sql: `SELECT synced_to, rebuilds, data FROM ${FACET_SNAPSHOT_TABLE} WHERE name = ${p.add(NAME)}`, params: p.list });
  if (!r) return null;
  return { syncedTo: Number(r.synced_to), rebuilds: Number(r.rebuilds), data: r.data as Uint8Array };
}

/**
 * Stores a snapshot unless the one stored is newer: taken at a later rebuild count, or at the same count covering
 * more of the log (another server's, on PostgreSQL). True when stored.
 */
export async function writeSnapshot(dialect: Dialect, rows: Rows, s: StoredSnapshot): Promise<boolean> {
  const p = new SqlParams(dialect);
  const t = FACET_SNAPSHOT_TABLE;
  const data = Buffer.from(s.data.buffer, s.data.byteOffset, s.data.byteLength);
  const written = await rows({ sql: `INSERT INTO ${t} (name, synced_to, rebuilds, saved_on, data)
    VALUES (${p.add(NAME)}, ${p.add(s.syncedTo)}, ${p.add(s.rebuilds)}, ${p.add(Date.now())}, ${p.add(data)})
    ON CONFLICT (name) DO UPDATE SET synced_to = excluded.synced_to, rebuilds = excluded.rebuilds, saved_on = excluded.saved_on, data = excluded.data
    WHERE ${t}.rebuilds < excluded.rebuilds OR (${t}.rebuilds = excluded.rebuilds AND ${t}.synced_to <= excluded.synced_to)
    RETURNING name`, params: p.list });
  return written.length > 0;
}

/** The search index's rebuild count now (0 before the first). */
export async function readRebuilds(dialect: Dialect, rows: Rows): Promise<number> {
  const p = new SqlParams(dialect);
  const [r] = await rows({ sql: `SELECT value FROM ${SETTINGS_TABLE} WHERE key = ${p.add(REBUILDS_KEY)}`, params: p.list });
  return r ? Number(r.value) : 0;
}

/** Moves the rebuild count on, in the caller's transaction: the statement returns the new count (`value`). */
export function bumpRebuildsSql(dialect: Dialect): string {
  const next = dialect === 'sqlite' ? `CAST(CAST(${SETTINGS_TABLE}.value AS INTEGER) + 1 AS TEXT)` : `(${SETTINGS_TABLE}.value::bigint + 1)::text`;
  const key = dialect === 'sqlite' ? '?' : '$1';
  return `INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES (${key}, '1') ON CONFLICT (key) DO UPDATE SET value = ${next} RETURNING value`;
}

/** Whether an index update is written without the log driving it (no consumer's offset moves with it). */
export function rebuilding(guards: readonly IndexGuard[]): boolean {
  return guards.length > 0 && guards.every((g) => !('from' in g));
}

function u8(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function align(n: number): number {
  return Math.ceil(n / 8) * 8;
}
