import { type Dialect, SEARCH_FTS, SEARCH_WORDS } from '../schema.js';
import type { SearchCondition, SearchDocQuery } from '../types.js';
import { MAX_CHAR, SqlParams } from './params.js';

/** The words of a search: matching them in the engines' text indexes (FTS5, tsvector), with the FTS flags SQLite filters by. */

/**
 * SQLite's FTS rows carry the document's entity type and removal as words of a third column (`flags`), so that a
 * query's default conditions are answered inside the text index (user words only match the name and text).
 */
export function ftsFlags(entityType: string, removed: boolean): string {
  return `type${entityType.toLowerCase()} ${removed ? 'removed' : 'live'}`;
}

/** The top-level entity-type and removal conditions of a query, as FTS flag clauses. */
export function flagClauses(where: SearchCondition): { required: string[]; excluded: string[] } {
  const parts = 'all' in where ? where.all : [where];
  const required: string[] = [];
  const excluded: string[] = [];
  const types = (values: readonly string[]) => `{flags} : (${values.map((t) => `type${t.toLowerCase()}`).join(' OR ')})`;
  for (const c of parts) {
    const excludedTypes = excludedTypesOf(c);
    if (excludedTypes) {
      if (excludedTypes.length) excluded.push(types(excludedTypes));
      continue;
    }
    if (!('column' in c)) continue;
    if (c.column === 'removed') required.push(`{flags} : ${c.value ? 'removed' : 'live'}`);
    else if (c.column === 'entityType' && c.values.length) required.push(types(c.values));
  }
  return { required, excluded };
}

/** The entity types a `not (entity type in …)` condition leaves out, or undefined for any other condition. */
export function excludedTypesOf(c: SearchCondition): readonly string[] | undefined {
  return 'not' in c && 'column' in c.not && c.not.column === 'entityType' ? c.not.values : undefined;
}

/**
 * Terms are [a-z0-9]+ by construction; each must match the start of a word. In SQLite the query's flag clauses join
 * them, and `negated` asks for the documents those clauses hold for but the words do not match (FTS5's NOT).
 */
export function textQuery(dialect: Dialect, terms: readonly string[], where?: SearchCondition, negated = false): string {
  if (dialect === 'postgres') return terms.map((t) => `${t}:*`).join(' & ');
  const words = `{name body} : (${terms.map((t) => `"${t}"*`).join(' AND ')})`;
  const { required, excluded } = where ? flagClauses(where) : { required: [], excluded: [] };
  // FTS5's NOT is binary (left NOT right): each excluded set is taken out of what the rest matches.
  const without = (q: string) => excluded.reduce((acc, x) => `(${acc}) NOT (${x})`, q);
  if (negated) return `(${without(required.length ? required.join(' AND ') : '{flags} : (live OR removed)')}) NOT (${words})`;
  return without([words, ...required].join(' AND '));
}

/**
 * PostgreSQL: the ids of the documents that have, for every term, a word starting with it (as `term:*` in a tsquery),
 * each term a range of the words' B-tree read from the index alone.
 */
export function wordDocsSql(terms: readonly string[], p: SqlParams): string {
  return terms.map((t) => `SELECT w.doc_id FROM ${SEARCH_WORDS} w WHERE w.word >= ${p.add(t)} AND w.word < ${p.add(t + MAX_CHAR)}`).join(' INTERSECT ');
}

/**
 * PostgreSQL: whether document `d` has, for every term, a word starting with it, probed rather than listed: the words
 * that start with the term are found first (one index descent each, once for the statement), then each probe is one
 * descent a word. For walking documents in an order of the page's own, where most of them match (a probe of the
 * whole prefix range instead reads every entry of the range for each document).
 */
export function wordProbeSql(terms: readonly string[], p: SqlParams): string {
  return terms.map((t) => {
    const [from, to, to2] = [p.add(t), p.add(t + MAX_CHAR), p.add(t + MAX_CHAR)];
    const first = `SELECT min(w.word) FROM ${SEARCH_WORDS} w WHERE w.word >= ${from} AND w.word < ${to}`;
    const words = `ARRAY(WITH RECURSIVE l(word) AS (SELECT (${first}) UNION ALL
      SELECT (SELECT min(w.word) FROM ${SEARCH_WORDS} w WHERE w.word > l.word AND w.word < ${to2}) FROM l WHERE l.word IS NOT NULL)
      SELECT l.word FROM l WHERE l.word IS NOT NULL)`;
    return `EXISTS (SELECT 1 FROM ${SEARCH_WORDS} w WHERE w.word = ANY(${words}) AND w.doc_id = d.id)`;
  }).join(' AND ');
}

/** `unindexed`: SQLite must not drive the query from the matches (a unary + on the id), but walk another index. */
export function matchSql(q: SearchDocQuery, p: SqlParams, negated = false, unindexed = false): string {
  if (q.terms.length === 0) return '1 = 1';
  if (p.dialect === 'postgres') return `d.id ${negated ? 'NOT ' : ''}IN (${wordDocsSql(q.terms, p)})`;
  const t = p.add(textQuery(p.dialect, q.terms, q.where, negated));
  return `${unindexed ? '+' : ''}d.id IN (SELECT rowid FROM ${SEARCH_FTS} WHERE ${SEARCH_FTS} MATCH ${t})`;
}
