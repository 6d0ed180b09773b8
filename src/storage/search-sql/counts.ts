import { type Dialect, SEARCH_COUNTS, SEARCH_DOCS, SEARCH_FTS } from '../schema.js';
import type { SearchCondition, SearchDocQuery } from '../types.js';
import { conditionSql, SqlParams, type Statement, stmt, TYPE_COUNT_FIELD } from './params.js';
import { excludedTypesOf, matchSql, textQuery } from './text-match.js';

/** Counting the documents a search matches: from the counts table where it answers the query, else from the matches. */

/** Matches this dense are paged by walking an index in the page's order (about 1/share rows read per result). */
export const DENSE_SHARE = 0.05;

/** Whether every condition of the query is answered by the FTS flags (then counting needs no other table). */
export function flagsOnly(where: SearchCondition): boolean {
  const parts = 'all' in where ? where.all : [where];
  return parts.every((c) => excludedTypesOf(c) !== undefined || ('column' in c && c.column !== 'urn'));
}

/**
 * The query's filter when it is nothing but entity types and removal (no text, no field condition): then totals
 * and facets come from the counts table, whatever the size of the catalog.
 */
export function countable(q: SearchDocQuery): Countable | null {
  if (q.terms.length) return null;
  const parts = 'all' in q.where ? q.where.all : [q.where];
  const out: { types?: readonly string[]; removed?: boolean; excludedTypes?: readonly string[] } = {};
  for (const c of parts) {
    const excluded = excludedTypesOf(c);
    if (excluded) {
      if (out.excludedTypes) return null;
      out.excludedTypes = excluded;
      continue;
    }
    if (!('column' in c) || c.column === 'urn') return null;
    if (c.column === 'removed') {
      if (out.removed !== undefined && out.removed !== c.value) return null;
      out.removed = c.value;
    } else {
      if (out.types) return null;
      out.types = c.values;
    }
  }
  return out;
}

/** A query the counts table answers: entity types kept or left out, and removal. */
type Countable = { types?: readonly string[]; removed?: boolean; excludedTypes?: readonly string[] };

export function countsFilter(k: Countable, p: SqlParams): string {
  let w = '';
  if (k.removed !== undefined) w += ` AND removed = ${p.add(k.removed)}`;
  if (k.types) w += ` AND entity_type ${p.in(k.types)}`;
  if (k.excludedTypes?.length) w += ` AND NOT entity_type ${p.in(k.excludedTypes)}`;
  return w;
}

export function countsWhere(field: string, k: Countable, p: SqlParams): string {
  return `field = ${p.add(field)}${countsFilter(k, p)}`;
}
/** How many documents the index holds (from the counts table). */
export const allDocsStatement = (dialect: Dialect): Statement => countStatement(dialect, { terms: [], where: { all: [] } });

export function countStatement(dialect: Dialect, q: SearchDocQuery): Statement {
  const p = new SqlParams(dialect);
  const k = countable(q);
  if (k) return stmt(p, `SELECT COALESCE(SUM(n), 0) AS n FROM ${SEARCH_COUNTS} WHERE ${countsWhere(TYPE_COUNT_FIELD, k, p)}`);
  if (dialect === 'sqlite' && flagsOnly(q.where) && countable({ terms: [], where: q.where })) {
    return stmt(p, `SELECT COUNT(*) AS n FROM ${SEARCH_FTS} WHERE ${SEARCH_FTS} MATCH ${p.add(textQuery(dialect, q.terms, q.where))}`);
  }
  return stmt(p, `SELECT COUNT(*) AS n FROM ${SEARCH_DOCS} d WHERE ${matchSql(q, p)} AND ${conditionSql(q.where, p)}`);
}
