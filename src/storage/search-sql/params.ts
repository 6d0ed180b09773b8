import { type Dialect, SEARCH_VALUES } from '../schema.js';
import type { SearchCondition } from '../types.js';

/**
 * The search index's SQL, written once for both engines: each statement is rendered with the engine's parameter
 * style and the few functions that differ (text matching, array parameters). Documents are aliased `d`, filter values
 * `v`. Parameters are added in the order they appear in the text, so build each statement left to right.
 */

/** The counts table's pseudo-field that counts documents per entity type (and so in all). */
export const TYPE_COUNT_FIELD = '_entityType';

export class SqlParams {
  readonly list: unknown[] = [];
  constructor(readonly dialect: Dialect) {}

  add(v: unknown): string {
    this.list.push(this.dialect === 'sqlite' && typeof v === 'boolean' ? (v ? 1 : 0) : v);
    return this.dialect === 'sqlite' ? '?' : `$${this.list.length}`;
  }

  /** `IN (…)` over a few text values. */
  in(values: readonly string[]): string {
    return this.dialect === 'sqlite' ? `IN (${values.map((v) => this.add(v)).join(', ')})` : `= ANY(${this.add([...values])}::text[])`;
  }

  /** `IN (…)` over any number of text values (one parameter either way). */
  inMany(values: readonly string[]): string {
    return this.dialect === 'sqlite' ? `IN (SELECT value FROM json_each(${this.add(JSON.stringify(values))}))` : this.in(values);
  }
}

/** The largest code point: `value < prefix + MAX_CHAR` holds for every value that starts with `prefix`. */
export const MAX_CHAR = '\u{10FFFF}';

function valueTest(c: Extract<SearchCondition, { field: string }>, p: SqlParams): string {
  const any = (parts: string[]) => (parts.length ? `(${parts.join(' OR ')})` : '1 = 0');
  switch (c.op) {
    case 'EXISTS': return '1 = 1';
    case 'EQUAL': return `v.value ${p.in(c.values)}`;
    case 'CONTAIN':
      return any(c.values.map((x) => (p.dialect === 'sqlite' ? `instr(v.value, ${p.add(x)}) > 0` : `strpos(v.value, ${p.add(x)}) > 0`)));
    case 'END_WITH':
      return any(c.values.map((x) => (p.dialect === 'sqlite' ? `substr(v.value, -${p.add(x.length)}) = ${p.add(x)}` : `right(v.value, ${p.add(x.length)}) = ${p.add(x)}`)));
    case 'START_WITH': return any(c.values.map((x) => `(v.value >= ${p.add(x)} AND v.value < ${p.add(x + MAX_CHAR)})`));
    case 'GREATER_THAN': return `v.num > ${p.add(Number(c.values[0]))}`;
    case 'GREATER_THAN_OR_EQUAL_TO': return `v.num >= ${p.add(Number(c.values[0]))}`;
    case 'LESS_THAN': return `v.num < ${p.add(Number(c.values[0]))}`;
    case 'LESS_THAN_OR_EQUAL_TO': return `v.num <= ${p.add(Number(c.values[0]))}`;
  }
}

export function conditionSql(c: SearchCondition, p: SqlParams): string {
  if ('all' in c) return c.all.length ? `(${c.all.map((x) => conditionSql(x, p)).join(' AND ')})` : '1 = 1';
  if ('any' in c) return c.any.length ? `(${c.any.map((x) => conditionSql(x, p)).join(' OR ')})` : '1 = 0';
  if ('not' in c) return `NOT ${conditionSql(c.not, p)}`;
  if ('column' in c) {
    if (c.column === 'removed') return `d.removed = ${p.add(c.value)}`;
    if (c.column === 'entityType') return `d.entity_type ${p.in(c.values)}`;
    return `d.urn ${p.inMany(c.values)}`;
  }
  return `d.id IN (SELECT v.doc_id FROM ${SEARCH_VALUES} v WHERE v.field = ${p.add(c.field)} AND ${valueTest(c, p)})`;
}

export interface Statement {
  sql: string;
  params: unknown[];
}

export const stmt = (p: SqlParams, sql: string): Statement => ({ sql, params: p.list });
