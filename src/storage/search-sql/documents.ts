import { createHash } from 'node:crypto';
import type { SearchDoc } from '../types.js';
import { TYPE_COUNT_FIELD } from './params.js';

/** Writing documents' rows: what the engines store of each document, and keeping the counts table in step with them. */

/**
 * A digest of what a document's text index holds (name, text, and on SQLite the flag words): a rewrite whose digest
 * is the stored one leaves the text index alone (most aspects change filter values only, and a text index rewrite
 * re-tokenises the whole document, every column of a schema included).
 */
export function textDigest(...parts: string[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('base64url');
}

/** A document's number of words (name and text), as stored: what large match sets are ordered by (migration 15). */
export function textWords(d: SearchDoc): number {
  return spaceSeparated(d.name) + spaceSeparated(d.text);
}

/**
 * The runs of characters other than a space in a text: its words as `text.split(' ').filter(Boolean)` finds them,
 * counted without making them (that split of every document's text was 9 % of a bulk load's index writes).
 */
function spaceSeparated(text: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const space = text.charCodeAt(i) === 32;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** A document's name keys as stored: [name_key, qualified_key]. */
export function docKeys(d: SearchDoc): [string, string | null] {
  const name = d.nameKey ?? d.sortName.split(/[^a-z0-9]+/).filter(Boolean).join(' ');
  return [name, d.qualifiedKey && d.qualifiedKey !== name ? d.qualifiedKey : null];
}

export interface CountedDoc {
  entityType: string;
  removed: boolean;
  values: readonly (readonly [string, string])[];
}

/** Adds what replacing `before` by `after` (either absent) changes in the counts table, keyed for a stable order. */
export function addCountDeltas(deltas: Map<string, number>, before: CountedDoc | undefined, after: CountedDoc | undefined): void {
  const add = (d: CountedDoc, sign: number) => {
    const bump = (key: string) => deltas.set(key, (deltas.get(key) ?? 0) + sign);
    bump(countKey(TYPE_COUNT_FIELD, d.removed, d.entityType, d.entityType));
    for (const [field, value] of d.values) bump(countKey(field, d.removed, d.entityType, value));
  };
  if (before) add(before, -1);
  if (after) add(after, 1);
}

/**
 * What adding new documents changes in the counts table, gathered by the number of each (field, value)'s term (a
 * number a pair, as the engine's terms give them) and added to the deltas once (addTo): the same as addCountDeltas of
 * each document with nothing before it, without a string key a value of every document.
 */
export class NewDocCounts {
  /** By removal and entity type (`0dataset`): the documents, and each term's count. */
  private readonly groups = new Map<string, { entityType: string; removed: boolean; docs: number; terms: Map<number, number> }>();
  private readonly pairs = new Map<number, readonly [string, string]>();

  /** A new document: its distinct values and their terms' numbers, in step. */
  add(entityType: string, removed: boolean, values: readonly (readonly [string, string])[], terms: readonly number[]): void {
    const k = `${removed ? '1' : '0'}${entityType}`;
    let g = this.groups.get(k);
    if (!g) this.groups.set(k, (g = { entityType, removed, docs: 0, terms: new Map() }));
    g.docs++;
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i]!;
      g.terms.set(t, (g.terms.get(t) ?? 0) + 1);
      if (!this.pairs.has(t)) this.pairs.set(t, values[i]!);
    }
  }

  addTo(deltas: Map<string, number>): void {
    const bump = (key: string, n: number) => deltas.set(key, (deltas.get(key) ?? 0) + n);
    for (const g of this.groups.values()) {
      bump(countKey(TYPE_COUNT_FIELD, g.removed, g.entityType, g.entityType), g.docs);
      for (const [t, n] of g.terms) {
        const [field, value] = this.pairs.get(t)!;
        bump(countKey(field, g.removed, g.entityType, value), n);
      }
    }
  }
}

/**
 * addCountDeltas for a document rewritten in place: when its entity type and removal are unchanged, only the values
 * that went and came move the counts (a new description moves none).
 */
export function addRewriteDeltas(deltas: Map<string, number>, before: CountedDoc | undefined, after: CountedDoc,
  changes: { gone: readonly (readonly [string, string])[]; added: readonly (readonly [string, string])[] }): void {
  if (!before || before.entityType !== after.entityType || before.removed !== after.removed) {
    addCountDeltas(deltas, before, after);
    return;
  }
  const move = (values: readonly (readonly [string, string])[], sign: number) => {
    for (const [field, value] of values) {
      const key = countKey(field, after.removed, after.entityType, value);
      deltas.set(key, (deltas.get(key) ?? 0) + sign);
    }
  };
  move(changes.gone, -1);
  move(changes.added, 1);
}

/** The changed counts in key order (so concurrent writers lock rows in one order), unchanged ones dropped. */
export function countChanges(deltas: Map<string, number>): { field: string; removed: boolean; entityType: string; value: string; n: number }[] {
  return [...deltas].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, n]) => {
    const i = key.indexOf('\u0000');
    const j = key.indexOf('\u0000', i + 2);
    return { field: key.slice(0, i), removed: key[i + 1] === '1', entityType: key.slice(i + 2, j), value: key.slice(j + 1), n };
  });
}

/**
 * A row of the counts table as a key: field, removal, entity type and value, NUL-separated. Fields and entity types
 * are names of Almanac's own (never holding a NUL), so the value, last, is whatever follows the second separator.
 * (Built and split by hand: JSON keys were a tenth of a bulk load's index writes.)
 */
function countKey(field: string, removed: boolean, entityType: string, value: string): string {
  return `${field}\u0000${removed ? '1' : '0'}${entityType}\u0000${value}`;
}

/** A filter value as a number where it reads as one (range conditions compare these). */
export function numeric(value: string): number | null {
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** A (field, value) pair as one string key. */
export const termKey = (field: string, value: string): string => `${field}\u0000${value}`;

/** Each (field, value) of a document once. */
export function distinctValues(doc: SearchDoc): (readonly [string, string])[] {
  const seen = new Set<string>();
  return doc.values.filter(([f, v]) => {
    const k = `${f}\u0000${v}`;
    return !seen.has(k) && !!seen.add(k);
  });
}

/**
 * What rewriting a document's filter values changes: the pairs to delete and to insert. A new description changes
 * the text, rarely the values, so most rewrites touch no value row at all.
 */
export function valueChanges(before: readonly (readonly [string, string])[], after: readonly (readonly [string, string])[]):
  { gone: (readonly [string, string])[]; added: (readonly [string, string])[] } {
  // A new document (or one that loses every value) needs no keys: what the sets would give, the other side whole. A
  // bulk load writes new documents only (these keys: 3 % of the main thread's CPU in a 100,000-dataset index phase).
  if (before.length === 0) return { gone: [], added: [...after] };
  if (after.length === 0) return { gone: [...before], added: [] };
  const key = ([f, v]: readonly [string, string]) => `${f}\u0000${v}`;
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  return { gone: before.filter((x) => !has.has(key(x))), added: after.filter((x) => !had.has(key(x))) };
}
