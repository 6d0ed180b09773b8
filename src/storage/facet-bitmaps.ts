import roaring from 'roaring';
import { numeric } from './search-sql.js';
import type { FacetCount, FacetSpec, SearchCondition } from './types.js';

const { RoaringBitmap32 } = roaring;
type Bitmap = InstanceType<typeof RoaringBitmap32>;

/**
 * Facet counts over large match sets, in memory, for both engines (as Lucene's doc values): each search document's
 * entity type, removal and the values of the facet fields, held as compressed bitmaps of document ids per value
 * (roaring) plus a packed per-document list of value ordinals. A match set (ids from the engine's text index, or the
 * documents a filter keeps) is counted by intersecting it with each value's bitmap, or, when it is small, by walking
 * its documents' ordinals. The structure mirrors the search tables exactly: the writer updates it right after each
 * commit that changed them (read-your-writes), other processes' writes are read back through the change log before a
 * count, and it is built from the tables in the background at start (counts come from SQL until it is ready).
 */

/**
 * The fields held in memory: DataHub's default facets, the browse fields and a few flags. Fields with many values a
 * document (column paths) or a value per document (timestamps) stay in SQL only: they would cost more memory than
 * the whole rest, and nobody counts facets over them.
 */
export const BITMAP_FIELDS: ReadonlySet<string> = new Set(['platform', 'origin', 'typeNames', 'tags', 'glossaryTerms', 'owners', 'domains',
  'container', 'platformInstance', 'browsePathV2', 'browsePaths', 'hasDescription', 'deprecated', 'parentNode', 'parentDomain', 'fieldTags',
  'fieldGlossaryTerms', 'editedFieldTags', 'editedFieldGlossaryTerms']);

/** A search document as the structure holds it: its values in BITMAP_FIELDS (others are ignored). */
export interface FacetDoc {
  id: number;
  urn: string;
  entityType: string;
  removed: boolean;
  values: readonly (readonly [string, string])[];
  /** Its name's and text's words (this process's writes on SQLite): what the word bitmaps (src/storage/word-bitmaps.ts) test. */
  text?: { name: string; body: string };
}

/** A change of the search tables made by this process, applied after its transaction commits. */
export type FacetOp = { set: FacetDoc } | { remove: number };

/** 32-bit FNV-1a of a urn: finds the ids of documents deleted by another process (their urn is all the log says). */
export function urnHash(urn: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < urn.length; i++) {
    h ^= urn.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0;
}

const MAX_ID = 0xffff_fffe;

/**
 * Counting one value's bitmap against the matches costs about this many times what counting one ordinal of one
 * match does, per 2^16 ids of the id range (one container each; measured at 1,000,000 documents of 12 values: all
 * of them walked in 33 ms where intersecting 8,000 values took 74 ms, 5 % of them in 3 ms against 161 ms). The cheaper
 * way is taken: few values (a type or platform facet) intersect, many walk.
 */
const CONTAINER_PER_ORDINAL = 300;

/** How many (document, value) pairs a build lays out between two turns of the event loop (finishLoadSteps). */
const FINISH_STEP = 500_000;

/**
 * The documents of a query's urn conditions (a lineage search's reached entities, a `urn` filter), looked up by urn in
 * the documents table for one evaluation: they let the bitmaps answer a query that names its urns.
 */
export type UrnDocs = ReadonlyMap<SearchCondition, Bitmap>;

/** A FacetDocs as pack() hands it to another thread. */
export interface PackedFacetDocs {
  types: string[];
  /** The fields that have values, and per value ordinal its field's index among them and its value. */
  fields: string[];
  fieldOf: Uint16Array<ArrayBuffer>;
  values: string[];
  /** The bitmaps serialized one after the other (all, removed, per type, per value ordinal), each ending at `ends[i]`. */
  bytes: ArrayBuffer;
  ends: Uint32Array<ArrayBuffer>;
  typeOf: Uint16Array<ArrayBuffer>;
  hashOf: Int32Array<ArrayBuffer>;
  startOf: Uint32Array<ArrayBuffer>;
  lenOf: Uint16Array<ArrayBuffer>;
  pool: Pool;
  used: number;
}

/**
 * The per-document ordinal lists: 16 bits an ordinal while there are at most 65,536 of them (at 100,000 generated
 * datasets, 1,272 ordinals and 17 values a document: the pool was 73 % of the structure at 32 bits), 32 beyond.
 */
type Pool = Uint16Array<ArrayBuffer> | Uint32Array<ArrayBuffer>;
const SMALL_ORDINALS = 0x1_0000;
const poolFor = (ordinals: number, n: number): Pool => (ordinals <= SMALL_ORDINALS ? new Uint16Array(n) : new Uint32Array(n));

export class FacetDocs {
  private readonly types: string[] = [];
  private readonly typeIds = new Map<string, number>();
  private readonly typeBits: Bitmap[] = [];
  readonly all = new RoaringBitmap32();
  private readonly removedBits = new RoaringBitmap32();
  /** field → value → ordinal; ordinals are never reused (a value whose documents all went keeps an empty bitmap). */
  private readonly ords = new Map<string, Map<string, number>>();
  private readonly ordValue: string[] = [];
  private readonly ordBits: Bitmap[] = [];
  // Per document (indexed by id): type ordinal + 1 (0: no document), urn hash, and its value ordinals in `pool`.
  private typeOf: Uint16Array<ArrayBuffer> = new Uint16Array(1024);
  private hashOf: Int32Array<ArrayBuffer> = new Int32Array(1024);
  private startOf: Uint32Array<ArrayBuffer> = new Uint32Array(1024);
  private lenOf: Uint16Array<ArrayBuffer> = new Uint16Array(1024);
  private pool: Pool = new Uint16Array(4096);
  private used = 0;
  private garbage = 0;

  get size(): number {
    return this.all.size;
  }

  private grow(id: number): void {
    if (id < this.typeOf.length) return;
    let n = this.typeOf.length;
    while (n <= id) n *= 2;
    const g = <T extends Uint16Array<ArrayBuffer> | Int32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>>(a: T, make: (n: number) => T): T => { const b = make(n); b.set(a); return b; };
    this.typeOf = g(this.typeOf, (k) => new Uint16Array(k));
    this.hashOf = g(this.hashOf, (k) => new Int32Array(k));
    this.startOf = g(this.startOf, (k) => new Uint32Array(k));
    this.lenOf = g(this.lenOf, (k) => new Uint16Array(k));
  }

  private typeOrdinal(t: string): number {
    let i = this.typeIds.get(t);
    if (i === undefined) {
      i = this.types.length;
      this.types.push(t);
      this.typeIds.set(t, i);
      this.typeBits.push(new RoaringBitmap32());
    }
    return i;
  }

  private ordinal(field: string, value: string): number {
    let m = this.ords.get(field);
    if (!m) this.ords.set(field, (m = new Map()));
    let o = m.get(value);
    if (o === undefined) {
      o = this.ordBits.length;
      // The 65,537th ordinal does not fit 16 bits: the lists move to 32.
      if (o === SMALL_ORDINALS && this.pool instanceof Uint16Array) this.pool = new Uint32Array(this.pool);
      m.set(value, o);
      this.ordValue.push(value);
      this.ordBits.push(new RoaringBitmap32());
    }
    return o;
  }

  has(id: number): boolean {
    return id < this.typeOf.length && this.typeOf[id] !== 0;
  }

  /** Whether ids are small enough for 32-bit bitmaps. */
  static fits(id: number): boolean {
    return Number.isInteger(id) && id >= 0 && id <= MAX_ID;
  }

  /** Removes a document (nothing when absent). */
  remove(id: number): void {
    if (!this.has(id)) return;
    this.typeBits[this.typeOf[id]! - 1]!.remove(id);
    this.all.remove(id);
    this.removedBits.remove(id);
    const s = this.startOf[id]!;
    const n = this.lenOf[id]!;
    for (let k = s; k < s + n; k++) this.ordBits[this.pool[k]!]!.remove(id);
    this.typeOf[id] = 0;
    this.lenOf[id] = 0;
    this.garbage += n;
  }

  /** Replaces documents (their whole state), adding each value's ids in one call per value. */
  setMany(docs: readonly FacetDoc[]): void {
    const adds = new Map<number, number[]>();
    for (const d of docs) {
      if (!FacetDocs.fits(d.id)) throw new Error(`search document id ${d.id} does not fit a 32-bit bitmap`);
      this.remove(d.id);
      this.grow(d.id);
      const t = this.typeOrdinal(d.entityType);
      this.typeOf[d.id] = t + 1;
      this.hashOf[d.id] = urnHash(d.urn);
      this.typeBits[t]!.add(d.id);
      this.all.add(d.id);
      if (d.removed) this.removedBits.add(d.id);
      const mine: number[] = [];
      for (const [f, v] of d.values) {
        if (!BITMAP_FIELDS.has(f)) continue;
        const o = this.ordinal(f, v);
        if (mine.includes(o)) continue;
        mine.push(o);
        let list = adds.get(o);
        if (!list) adds.set(o, (list = []));
        list.push(d.id);
      }
      this.place(d.id, mine);
    }
    for (const [o, ids] of adds) this.ordBits[o]!.addMany(ids);
  }

  private place(id: number, ordinals: readonly number[]): void {
    if (this.used + ordinals.length > this.pool.length) this.compact(ordinals.length);
    this.startOf[id] = this.used;
    this.lenOf[id] = ordinals.length;
    for (const o of ordinals) this.pool[this.used++] = o;
  }

  /** Drops the ordinal lists of replaced documents, growing the pool by half when it is mostly live. */
  private compact(room: number): void {
    const need = this.used - this.garbage + room;
    const n = need * 1.2 <= this.pool.length ? this.pool.length : Math.ceil(need * 1.5);
    const pool = poolFor(this.ordBits.length, n);
    let at = 0;
    for (const id of this.all.toUint32Array()) {
      const s = this.startOf[id]!;
      const len = this.lenOf[id]!;
      pool.set(this.pool.subarray(s, s + len), at);
      this.startOf[id] = at;
      at += len;
    }
    this.pool = pool;
    this.used = at;
    this.garbage = 0;
  }

  /** The ids of live documents whose urn hashes to one of `hashes` (candidates for a deletion seen in the log). */
  idsWithHash(hashes: ReadonlySet<number>): number[] {
    const out: number[] = [];
    for (const id of this.all.toUint32Array()) if (hashes.has(this.hashOf[id]!)) out.push(id);
    return out;
  }

  /** A build's page of one value's documents (finishLoad() then lays out the per-document lists). */
  loadValue(field: string, value: string, ids: readonly number[]): void {
    this.ordBits[this.ordinal(field, value)]!.addMany(ids as number[]);
  }

  /** Ends a build: values of ids that are no document dropped, each document's ordinal list laid out from the bitmaps. */
  finishLoad(): void {
    for (const _ of this.finishLoadSteps(Infinity));
  }

  /**
   * finishLoad() in steps of about `budget` (document, value) pairs, yielding between them: at a million documents of
   * a dozen values each it is seconds of work, which a start's build must not do in one turn of the event loop.
   */
  *finishLoadSteps(budget = FINISH_STEP): Generator<void> {
    let done = 0;
    const spent = (n: number) => { done += n; if (done < budget) return false; done = 0; return true; };
    // Ids of values that belong to no document (a build that raced a write) are dropped first.
    for (const b of this.ordBits) { b.andInPlace(this.all); if (spent(b.size)) yield; }
    this.lenOf.fill(0);
    const lists: Uint32Array[] = [];
    let total = 0;
    for (const b of this.ordBits) {
      const ids = b.toUint32Array();
      lists.push(ids);
      total += ids.length;
      for (let i = 0; i < ids.length; i++) this.lenOf[ids[i]!]!++;
      if (spent(ids.length)) yield;
    }
    const pool = poolFor(lists.length, Math.max(4096, Math.ceil(total * 1.25)));
    let at = 0;
    for (const id of this.all.toUint32Array()) { this.startOf[id] = at; at += this.lenOf[id]!; }
    if (spent(this.all.size)) yield;
    const fill = new Uint32Array(this.startOf);
    for (let o = 0; o < lists.length; o++) {
      const ids = lists[o]!;
      for (let i = 0; i < ids.length; i++) pool[fill[ids[i]!]!++] = o;
      if (spent(ids.length)) yield;
    }
    this.pool = pool;
    this.used = at;
    this.garbage = 0;
  }

  /** Memory held by the bitmaps and arrays (bytes), for the report. */
  bytes(): number {
    let b = this.all.getSerializationSizeInBytes('croaring') + this.removedBits.getSerializationSizeInBytes('croaring');
    for (const x of [...this.typeBits, ...this.ordBits]) b += x.getSerializationSizeInBytes('croaring') + 64;
    return b + this.typeOf.byteLength + this.hashOf.byteLength + this.startOf.byteLength + this.lenOf.byteLength + this.pool.byteLength;
  }

  /**
   * The structure as plain data for another thread (a build in a worker: src/storage/facet-build.ts): the bitmaps
   * serialized into one buffer, the per-document arrays as they are. Every ArrayBuffer listed in `transfer` is moved,
   * not copied; this FacetDocs must not be used afterwards.
   */
  pack(): { packed: PackedFacetDocs; transfer: ArrayBuffer[] } {
    if (this.garbage) this.compact(0);
    const bitmaps = [this.all, this.removedBits, ...this.typeBits, ...this.ordBits];
    const ends = new Uint32Array(bitmaps.length);
    let total = 0;
    bitmaps.forEach((b, i) => { total += b.getSerializationSizeInBytes('croaring'); ends[i] = total; });
    const bytes = new ArrayBuffer(total);
    bitmaps.forEach((b, i) => { const from = i ? ends[i - 1]! : 0; b.serialize('croaring', new Uint8Array(bytes, from, ends[i]! - from)); });
    const fields = [...this.ords.keys()];
    const fieldOf = new Uint16Array(this.ordBits.length);
    fields.forEach((f, k) => { for (const o of this.ords.get(f)!.values()) fieldOf[o] = k; });
    const arrays = { typeOf: this.typeOf, hashOf: this.hashOf, startOf: this.startOf, lenOf: this.lenOf, pool: this.pool };
    const packed: PackedFacetDocs = { types: this.types, fields, fieldOf, values: this.ordValue, bytes, ends, used: this.used, ...arrays };
    return { packed, transfer: [bytes, ends.buffer, fieldOf.buffer, ...Object.values(arrays).map((a) => a.buffer)] };
  }

  /** A structure from pack()'s data (the arrays are taken over, not copied). */
  static unpack(p: PackedFacetDocs): FacetDocs {
    const d = new FacetDocs();
    const bitmap = (i: number) => RoaringBitmap32.deserialize(new Uint8Array(p.bytes, i ? p.ends[i - 1]! : 0, p.ends[i]! - (i ? p.ends[i - 1]! : 0)), 'croaring');
    d.all.orInPlace(bitmap(0));
    d.removedBits.orInPlace(bitmap(1));
    p.types.forEach((t, i) => { d.typeIds.set(t, i); d.types.push(t); d.typeBits.push(bitmap(2 + i)); });
    const fieldMaps = p.fields.map((f) => { const m = new Map<string, number>(); d.ords.set(f, m); return m; });
    for (let o = 0; o < p.values.length; o++) {
      fieldMaps[p.fieldOf[o]!]!.set(p.values[o]!, o);
      d.ordValue.push(p.values[o]!);
      d.ordBits.push(bitmap(2 + p.types.length + o));
    }
    d.typeOf = p.typeOf;
    d.hashOf = p.hashOf;
    d.startOf = p.startOf;
    d.lenOf = p.lenOf;
    d.pool = p.pool;
    d.used = p.used;
    return d;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Reading

  /** Whether a condition can be answered here (no urn lists, no field held in SQL only, no empty text test). */
  answers(c: SearchCondition, urnDocs?: UrnDocs): boolean {
    if ('all' in c) return c.all.every((x) => this.answers(x, urnDocs));
    if ('any' in c) return c.any.every((x) => this.answers(x, urnDocs));
    if ('not' in c) return this.answers(c.not, urnDocs);
    if ('column' in c) return c.column !== 'urn' || urnDocs?.has(c) === true;
    if (!BITMAP_FIELDS.has(c.field)) return false;
    return !((c.op === 'CONTAIN' || c.op === 'START_WITH' || c.op === 'END_WITH') && c.values.some((v) => v === ''));
  }

  /** The documents a condition keeps, as SQL's conditionSql would (call answers() first). A new bitmap. */
  evaluate(c: SearchCondition, urnDocs?: UrnDocs): Bitmap {
    if ('all' in c) {
      if (c.all.length === 0) return this.all.clone();
      const parts = c.all.map((x) => this.evaluate(x, urnDocs)).sort((a, b) => a.size - b.size);
      const out = parts[0]!;
      for (const p of parts.slice(1)) out.andInPlace(p);
      return out;
    }
    if ('any' in c) return c.any.length ? RoaringBitmap32.orMany(c.any.map((x) => this.evaluate(x, urnDocs))) : new RoaringBitmap32();
    if ('not' in c) return RoaringBitmap32.andNot(this.all, this.evaluate(c.not, urnDocs));
    if ('column' in c) {
      if (c.column === 'removed') return c.value ? this.removedBits.clone() : RoaringBitmap32.andNot(this.all, this.removedBits);
      if (c.column === 'entityType') {
        return RoaringBitmap32.orMany(c.values.flatMap((t) => { const i = this.typeIds.get(t); return i === undefined ? [] : [this.typeBits[i]!]; }));
      }
      const ids = urnDocs?.get(c);
      if (!ids) throw new Error('urn conditions are answered in SQL unless their documents were looked up');
      // (A document deleted since the lookup is not in `all` any more.)
      return RoaringBitmap32.and(ids, this.all);
    }
    const values = this.ords.get(c.field) ?? new Map<string, number>();
    let test: (v: string) => boolean;
    const n = () => Number(c.values[0]);
    switch (c.op) {
      case 'EXISTS': test = () => true; break;
      case 'EQUAL': {
        const bits = c.values.flatMap((v) => { const o = values.get(v); return o === undefined ? [] : [this.ordBits[o]!]; });
        return RoaringBitmap32.orMany(bits);
      }
      case 'CONTAIN': test = (v) => c.values.some((x) => v.includes(x)); break;
      case 'START_WITH': test = (v) => c.values.some((x) => v.startsWith(x)); break;
      case 'END_WITH': test = (v) => c.values.some((x) => v.endsWith(x)); break;
      case 'GREATER_THAN': test = (v) => { const x = numeric(v); return x !== null && x > n(); }; break;
      case 'GREATER_THAN_OR_EQUAL_TO': test = (v) => { const x = numeric(v); return x !== null && x >= n(); }; break;
      case 'LESS_THAN': test = (v) => { const x = numeric(v); return x !== null && x < n(); }; break;
      case 'LESS_THAN_OR_EQUAL_TO': test = (v) => { const x = numeric(v); return x !== null && x <= n(); }; break;
    }
    const bits: Bitmap[] = [];
    for (const [v, o] of values) if (test(v)) bits.push(this.ordBits[o]!);
    return RoaringBitmap32.orMany(bits);
  }

  /** Whether every facet asked for is held here. */
  covers(spec: FacetSpec): boolean {
    return spec.kind === 'entityType' || BITMAP_FIELDS.has(spec.field);
  }

  /** The facet counts of the documents in `m`, as facetSteps gives them (counts above zero; rows in no set order). */
  count(m: Bitmap, specs: readonly FacetSpec[]): FacetCount[][] {
    const fields = specs.flatMap((s) => (s.kind === 'field' ? [s.field] : []));
    const values = fields.reduce((n, f) => n + (this.ords.get(f)?.size ?? 0), 0);
    const chunks = Math.floor(Math.max(0, m.maximum()) / 65536) + 1;
    const perDoc = this.all.size ? (this.used - this.garbage) / this.all.size : 0;
    const walked = m.size * perDoc < values * chunks * CONTAINER_PER_ORDINAL ? this.walk(m) : null;
    const typeRows = (): FacetCount[] => this.types.flatMap((t, i) => {
      const n = m.andCardinality(this.typeBits[i]!);
      return n > 0 ? [{ value: t, count: n }] : [];
    });
    return specs.map((s) => {
      if (s.kind === 'entityType') return typeRows();
      const values = this.ords.get(s.field) ?? new Map<string, number>();
      if (s.kind === 'field') {
        const out: FacetCount[] = [];
        for (const [v, o] of values) {
          const n = walked ? walked[o]! : m.andCardinality(this.ordBits[o]!);
          if (n > 0) out.push({ value: v, count: n });
        }
        return out;
      }
      const out = typeRows();
      for (const row of [...out]) {
        const mt = RoaringBitmap32.and(m, this.typeBits[this.typeIds.get(row.value)!]!);
        for (const [v, o] of values) {
          const n = mt.andCardinality(this.ordBits[o]!);
          if (n > 0) out.push({ value: row.value, sub: v, count: n });
        }
      }
      return out;
    });
  }

  /** Counts of every ordinal among the documents of `m`, by walking their ordinal lists. */
  private walk(m: Bitmap): Uint32Array {
    const counts = new Uint32Array(this.ordBits.length);
    const ids = m.toUint32Array();
    const { startOf, lenOf, pool } = this;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const s = startOf[id]!;
      const e = s + lenOf[id]!;
      for (let k = s; k < e; k++) counts[pool[k]!]!++;
    }
    return counts;
  }
}

export { RoaringBitmap32 };
export type { Bitmap };
