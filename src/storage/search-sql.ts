import { createHash } from 'node:crypto';
import { NAME_WORDS_PG, SEARCH_COUNTS, SEARCH_DOCS, SEARCH_FTS, SEARCH_TEXT, SEARCH_VALUES, SEARCH_WORDS, type Dialect } from './schema.js';
import type { FacetCount, FacetSpec, SearchCondition, SearchDoc, SearchDocQuery, SearchSort } from './types.js';

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
const MAX_CHAR = '\u{10FFFF}';

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

/**
 * SQLite's FTS rows carry the document's entity type and removal as words of a third column (`flags`), so that a
 * query's default conditions are answered inside the text index (user words only match the name and text).
 */
export function ftsFlags(entityType: string, removed: boolean): string {
  return `type${entityType.toLowerCase()} ${removed ? 'removed' : 'live'}`;
}

/** The top-level entity-type and removal conditions of a query, as FTS flag clauses. */
function flagClauses(where: SearchCondition): { required: string[]; excluded: string[] } {
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
function excludedTypesOf(c: SearchCondition): readonly string[] | undefined {
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
function wordProbeSql(terms: readonly string[], p: SqlParams): string {
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
function matchSql(q: SearchDocQuery, p: SqlParams, negated = false, unindexed = false): string {
  if (q.terms.length === 0) return '1 = 1';
  if (p.dialect === 'postgres') return `d.id ${negated ? 'NOT ' : ''}IN (${wordDocsSql(q.terms, p)})`;
  const t = p.add(textQuery(p.dialect, q.terms, q.where, negated));
  return `${unindexed ? '+' : ''}d.id IN (SELECT rowid FROM ${SEARCH_FTS} WHERE ${SEARCH_FTS} MATCH ${t})`;
}

/** Matches this dense are paged by walking an index in the page's order (about 1/share rows read per result). */
export const DENSE_SHARE = 0.05;

/** Whether every condition of the query is answered by the FTS flags (then counting needs no other table). */
function flagsOnly(where: SearchCondition): boolean {
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

function countsFilter(k: Countable, p: SqlParams): string {
  let w = '';
  if (k.removed !== undefined) w += ` AND removed = ${p.add(k.removed)}`;
  if (k.types) w += ` AND entity_type ${p.in(k.types)}`;
  if (k.excludedTypes?.length) w += ` AND NOT entity_type ${p.in(k.excludedTypes)}`;
  return w;
}

function countsWhere(field: string, k: Countable, p: SqlParams): string {
  return `field = ${p.add(field)}${countsFilter(k, p)}`;
}

export interface Statement {
  sql: string;
  params: unknown[];
}

const stmt = (p: SqlParams, sql: string): Statement => ({ sql, params: p.list });

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

/**
 * Relevance ranks every match (bm25 in SQLite, ts_rank in PostgreSQL), which costs in proportion to the matches:
 * above this many, the matches outside the name tiers are ordered by where they match (name, then text) and within
 * each by the length of the field (STATIC_ORDER; pageSteps).
 */
export const RANK_LIMIT = 5_000;

/**
 * One page of the matching documents' urns in an order of names or of a field (pageSteps pages by relevance). `total`
 * is how many match and `all` how many documents there are: when matches are dense (DENSE_SHARE of all or more),
 * walking the name index until the page is full beats sorting them.
 */
function pageStatement(dialect: Dialect, q: SearchDocQuery & { sort: SearchSort; start: number; count: number }, total: number, all: number): Statement {
  const p = new SqlParams(dialect);
  const dir = (desc: boolean) => (desc ? 'DESC' : 'ASC');
  const walkNames = dialect === 'sqlite' && q.sort.by !== 'field' && total >= all * DENSE_SHARE;
  const where = `${matchSql(q, p, false, walkNames)} AND ${conditionSql(q.where, p)}`;
  let order: string;
  if (q.sort.by === 'field') {
    order = `(SELECT MAX(v.num) FROM ${SEARCH_VALUES} v WHERE v.doc_id = d.id AND v.field = ${p.add(q.sort.field)}) ${dir(q.sort.descending)} NULLS LAST, d.sort_name, d.urn`;
  } else {
    const desc = q.sort.by === 'name' && q.sort.descending;
    order = `d.sort_name ${dir(desc)}, d.urn ${dir(desc)}`;
  }
  return stmt(p, `SELECT d.urn FROM ${SEARCH_DOCS} d WHERE ${where} ORDER BY ${order} LIMIT ${p.add(q.count)} OFFSET ${p.add(q.start)}`);
}

/** A row of a paging statement: a urn of the page, or a count. */
export type PageRow = { urn?: string; n?: number | string };

/**
 * Which words of a document a query's terms must match: anywhere (name or text), in the name, or in the text but not
 * the name. Names: SQLite's FTS name column; on PostgreSQL, the words of the name keys (partMatchSql).
 */
type Part = 'all' | 'name' | 'textOnly';

/** SQLite only (PostgreSQL matches names on their own index: partMatchSql). */
function partQuery(dialect: Dialect, terms: readonly string[], part: Part, where: SearchCondition): string {
  const anywhere = textQuery(dialect, terms, where);
  const named = `{name} : (${terms.map((t) => `"${t}"*`).join(' AND ')})`;
  if (part === 'all') return anywhere;
  if (part === 'textOnly') return `(${anywhere}) NOT (${named})`;
  // As textQuery, the words asked of the name column alone.
  const { required, excluded } = flagClauses(where);
  return excluded.reduce((acc, x) => `(${acc}) NOT (${x})`, [named, ...required].join(' AND '));
}

/**
 * The documents whose `part` matches the query's terms. PostgreSQL tests names on the words of the name keys (an
 * index of their own): those words are among the document's, so "in the name" implies a match.
 */
function partMatchSql(q: SearchDocQuery, p: SqlParams, part: Part, unindexed = false): string {
  if (p.dialect === 'postgres') {
    const tq = textQuery(p.dialect, q.terms);
    const named = () => `${NAME_WORDS_PG.replaceAll('name_key', 'd.name_key').replaceAll('qualified_key', 'd.qualified_key')} @@ to_tsquery('simple', ${p.add(tq)})`;
    if (part === 'name') return named();
    // Walking an order (unindexed): each document probed; otherwise the matches listed.
    const anywhere = unindexed ? wordProbeSql(q.terms, p) : `d.id IN (${wordDocsSql(q.terms, p)})`;
    return part === 'all' ? anywhere : `${anywhere} AND NOT ${named()}`;
  }
  const t = p.add(partQuery(p.dialect, q.terms, part, q.where));
  return `${unindexed ? '+' : ''}d.id IN (SELECT rowid FROM ${SEARCH_FTS} WHERE ${SEARCH_FTS} MATCH ${t})`;
}

/**
 * The name tiers, each a statement's predicate on the documents' name keys (they partition the documents that a
 * name-key index finds): the documents named exactly as the query; those whose urn's name is exactly the query
 * (`db.schema.payments`) and whose name does not start with it; those whose name starts with the query, shortest
 * first. Their names hold every term, so they are among the matches: no text index is read to find them.
 */
const TIERS = ['exact', 'qualified', 'prefix'] as const;
type Tier = typeof TIERS[number];

function tierTest(tier: Tier, key: string, p: SqlParams): string {
  if (tier === 'exact') return `d.name_key = ${p.add(key)}`;
  if (tier === 'prefix') return `d.name_key > ${p.add(key)} AND d.name_key < ${p.add(key + MAX_CHAR)}`;
  return `d.qualified_key = ${p.add(key)} AND NOT (d.name_key >= ${p.add(key)} AND d.name_key < ${p.add(key + MAX_CHAR)})`;
}

/**
 * The documents table for a tier's statement. SQLite's planner is told to read the name-key index: its statistics
 * are sampled (analysis_limit), and at 100,000 documents it took the removal column of the sort index for the better
 * choice and scanned the table (60–260 ms for a prefix that no name has, against under 1 ms on the index).
 */
function tierDocs(dialect: Dialect, tier: Tier): string {
  if (dialect !== 'sqlite') return `${SEARCH_DOCS} d`;
  return `${SEARCH_DOCS} d INDEXED BY ${SEARCH_DOCS}_${tier === 'qualified' ? 'qualified_key' : 'name_key'}`;
}

/** ` AND` outside every tier (a document without keys is in none); nothing when there is no tier to leave out (null). */
function notTierSql(key: string | null, p: SqlParams): string {
  if (key === null) return '';
  return ` AND NOT COALESCE(d.name_key >= ${p.add(key)} AND d.name_key < ${p.add(key + MAX_CHAR)}, ${p.dialect === 'sqlite' ? '0' : 'false'})
    AND NOT COALESCE(d.qualified_key = ${p.add(key)}, ${p.dialect === 'sqlite' ? '0' : 'false'})`;
}

/**
 * A page of one tier. Prefixes: the shortest first, then by name and by id (the order of indexing), all read from
 * the name-key index (with removal and type beside the key) before the page's urns are looked up.
 */
function tierPage(dialect: Dialect, q: SearchDocQuery, key: string, tier: Tier, offset: number, limit: number): Statement {
  const p = new SqlParams(dialect);
  const where = `${tierTest(tier, key, p)} AND ${conditionSql(q.where, p)}`;
  if (tier !== 'prefix') return stmt(p, `SELECT d.urn FROM ${tierDocs(dialect, tier)} WHERE ${where} ORDER BY d.urn LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
  return stmt(p, `SELECT d.urn FROM (SELECT d.id, length(d.name_key) AS len, d.name_key AS name_key FROM ${tierDocs(dialect, tier)} WHERE ${where}
      ORDER BY 2, 3, 1 LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}) t
    JOIN ${SEARCH_DOCS} d ON d.id = t.id ORDER BY t.len, t.name_key, t.id`);
}

function tierCount(dialect: Dialect, q: SearchDocQuery, key: string, tier: Tier): Statement {
  const p = new SqlParams(dialect);
  return stmt(p, `SELECT COUNT(*) AS n FROM ${tierDocs(dialect, tier)} WHERE ${tierTest(tier, key, p)} AND ${conditionSql(q.where, p)}`);
}

/** The matches of one part outside the name tiers, by the engine's relevance (bm25, ts_rank) then name. */
function rankedPage(dialect: Dialect, q: SearchDocQuery, key: string | null, part: Part, offset: number, limit: number): Statement {
  const p = new SqlParams(dialect);
  if (dialect === 'sqlite') {
    // Joining the FTS table (rather than IN) lets bm25 see the match; the name column weighs ten times the text.
    return stmt(p, `SELECT d.urn FROM ${SEARCH_FTS} f JOIN ${SEARCH_DOCS} d ON d.id = f.rowid
      WHERE ${SEARCH_FTS} MATCH ${p.add(partQuery(dialect, q.terms, part, q.where))} AND ${conditionSql(q.where, p)}${notTierSql(key, p)}
      ORDER BY bm25(${SEARCH_FTS}, 10.0, 1.0, 0.0), d.sort_name, d.urn LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
  }
  // The matches from the words' index; their text (at most RANK_LIMIT of them) read for the rank.
  return stmt(p, `SELECT d.urn FROM ${SEARCH_DOCS} d JOIN ${SEARCH_TEXT} t ON t.doc_id = d.id
    WHERE ${partMatchSql(q, p, part)} AND ${conditionSql(q.where, p)}${notTierSql(key, p)}
    ORDER BY ts_rank(t.tsv, to_tsquery('simple', ${p.add(textQuery(dialect, q.terms))})) DESC, d.sort_name, d.urn LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
}

/**
 * Too many matches to rank: the static half of BM25 instead. With the word found once, a shorter field ranks higher,
 * so name matches come by the length of the name and text matches by the document's number of words (fewest
 * first), ties by name. Each order is an index: dense matches (SQLite) are found by walking it, not sorted.
 */
type StaticOrder = 'nameLength' | 'textWords';

const STATIC_ORDER: Record<StaticOrder, { index: string; order: string }> = {
  nameLength: { index: `${SEARCH_DOCS}_name_length`, order: 'length(d.name_key), d.sort_name, d.id' },
  textWords: { index: `${SEARCH_DOCS}_text_words`, order: 'd.text_words, d.sort_name, d.id' },
};

/** The matches of one part outside the name tiers in a static order (STATIC_ORDER). */
function staticPage(dialect: Dialect, q: SearchDocQuery, key: string | null, part: Part, by: StaticOrder, walk: boolean, offset: number, limit: number): Statement {
  const p = new SqlParams(dialect);
  const { index, order } = STATIC_ORDER[by];
  // Walking: the index's order is the page's (its leading removal column fixed by the query's condition).
  // PostgreSQL always walks (its planner chooses the index) and probes each document's words (wordProbeSql).
  const docs = walk && p.dialect === 'sqlite' ? `${SEARCH_DOCS} d INDEXED BY ${index}` : `${SEARCH_DOCS} d`;
  return stmt(p, `SELECT d.urn FROM ${docs} WHERE ${partMatchSql(q, p, part, walk || p.dialect === 'postgres')}
    AND ${conditionSql(q.where, p)}${notTierSql(key, p)} ORDER BY ${order} LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
}

/** How many documents match the terms in their names; with `cap`, counting stops there. */
function nameCount(dialect: Dialect, q: SearchDocQuery, cap?: number): Statement {
  const p = new SqlParams(dialect);
  const capped = (from: string) => (cap === undefined ? `SELECT COUNT(*) AS n ${from}` : `SELECT COUNT(*) AS n FROM (SELECT 1 ${from} LIMIT ${p.add(cap)}) c`);
  if (dialect === 'sqlite' && flagsOnly(q.where) && countable({ terms: [], where: q.where })) {
    return stmt(p, capped(`FROM ${SEARCH_FTS} WHERE ${SEARCH_FTS} MATCH ${p.add(partQuery(dialect, q.terms, 'name', q.where))}`));
  }
  // The cap's parameter comes last in the text: added after the conditions'.
  const from = `FROM ${SEARCH_DOCS} d WHERE ${partMatchSql(q, p, 'name')} AND ${conditionSql(q.where, p)}`;
  return stmt(p, capped(from));
}

/**
 * One page of the matching documents' urns, as steps (each `yield` hands the engine statements to run, in one read
 * transaction where the engine has one, and receives their rows). `total` is how many match and `all` how many
 * documents there are.
 *
 * By relevance, a query's matches come in segments, each paged by a statement of its own: first the name tiers (the
 * documents named exactly as the query, then those whose urn's name is the query, then those whose name starts with
 * it), counted from the name-key indexes (a first page needs no count unless the tiers leave room); then the other
 * matches by relevance (bm25, ts_rank). Ranking costs in proportion to the matches, so above RANK_LIMIT
 * the rest comes as the other documents that match in their names (ranked if they are few, else shortest name first),
 * then those that match in their text only, fewest words first (STATIC_ORDER) — walking that order's index when they
 * are dense, so that a word found in every document still answers within the latency target. The segments partition the matches: pages across them neither
 * repeat nor skip a document, and the total is unchanged.
 */
export function* pageSteps(dialect: Dialect, q: SearchDocQuery & { sort: SearchSort; start: number; count: number }, total: number, all: number):
  Generator<Statement[], string[], PageRow[][]> {
  const urnsOf = (rows: PageRow[][]) => rows.flat().map((r) => r.urn!);
  if (q.sort.by !== 'relevance' || q.terms.length === 0) return urnsOf(yield [pageStatement(dialect, q, total, all)]);
  const key = q.nameKey ?? q.terms.join(' ');
  const ranked = total <= RANK_LIMIT;
  const end = Math.min(q.start + q.count, total);
  const urns: string[] = [];
  let sizes: number[];
  if (q.start === 0) {
    // A first page needs no counts when the tiers fill it; otherwise each tier returned less than asked: all of it.
    const rows = yield TIERS.map((tier) => tierPage(dialect, q, key, tier, 0, end));
    urns.push(...urnsOf(rows).slice(0, end));
    if (urns.length === end) return urns;
    sizes = rows.map((r) => r.length);
  } else {
    sizes = (yield TIERS.map((tier) => tierCount(dialect, q, key, tier))).map((r) => Number(r[0]!.n));
  }
  const tiers = Math.min(total, sizes.reduce((a, b) => a + b, 0));
  // The name matches are counted as far as deciding how to page them needs (at most RANK_LIMIT past the tiers), and
  // whole only when the page reaches past them: a word in many names is not counted for a first page.
  let named = total;
  if (!ranked) {
    const cap = tiers + RANK_LIMIT + 1;
    named = Number((yield [nameCount(dialect, q, cap)])[0]![0]!.n);
    if (named >= cap && end > cap) named = Number((yield [nameCount(dialect, q)])[0]![0]!.n);
    else if (named >= cap) named = total; // more than the page needs: what follows them is not reached
    named = Math.min(total, Math.max(tiers, named));
  }
  const walk = (size: number) => dialect === 'sqlite' && size >= all * DENSE_SHARE;
  const segments: { size: number; page: (offset: number, limit: number) => Statement }[] = q.start === 0 ? [{ size: tiers, page: () => { throw new Error('paged'); } }]
    : TIERS.map((tier, i) => ({ size: sizes[i]!, page: (o: number, l: number) => tierPage(dialect, q, key, tier, o, l) }));
  // The tiers are left out of what follows where there are any (a text-only match is in none: they match in the name).
  const outside = tiers > 0 ? key : null;
  if (ranked) segments.push({ size: total - tiers, page: (o, l) => rankedPage(dialect, q, outside, 'all', o, l) });
  else {
    const others = named - tiers;
    segments.push({ size: others, page: others <= RANK_LIMIT
      ? (o, l) => rankedPage(dialect, q, outside, 'name', o, l)
      : (o, l) => staticPage(dialect, q, outside, 'name', 'nameLength', walk(others), o, l) });
    // With no name match outside the tiers, "in the text only" is "outside the tiers": no second text condition.
    segments.push({ size: total - named, page: others === 0
      ? (o, l) => staticPage(dialect, q, outside, 'all', 'textWords', walk(total - named), o, l)
      : (o, l) => staticPage(dialect, q, null, 'textOnly', 'textWords', walk(total - named), o, l) });
  }
  const out: Statement[] = [];
  let at = 0;
  for (const s of segments) {
    const from = Math.max(q.start + urns.length, at);
    const to = Math.min(end, at + s.size);
    if (to > from) out.push(s.page(from - at, to - from));
    at += s.size;
  }
  return out.length ? [...urns, ...urnsOf(yield out)] : urns;
}

/** A document's number of words (name and text), as stored: what large match sets are ordered by (migration 15). */
export function textWords(d: SearchDoc): number {
  return `${d.name} ${d.text}`.split(' ').filter(Boolean).length;
}

/** A document's name keys as stored: [name_key, qualified_key]. */
export function docKeys(d: SearchDoc): [string, string | null] {
  const name = d.nameKey ?? d.sortName.split(/[^a-z0-9]+/).filter(Boolean).join(' ');
  return [name, d.qualifiedKey && d.qualifiedKey !== name ? d.qualifiedKey : null];
}

/**
 * How facets are counted over the matching documents. `probe` reads every value of the facet fields in order and
 * probes each against the matches (cost in proportion to the catalog); `seek` looks up the values of each match
 * (cost in proportion to the matches). `complement` counts the documents that do NOT match the text instead and
 * subtracts them from the counts table's figures: for a word found in most documents, that set is the small one.
 */
export interface FacetPlan {
  scan: 'probe' | 'seek';
  complement: boolean;
}

/**
 * Looking up one match's values and grouping them costs about as much as probing a hundred value rows (measured at
 * 100,000 datasets with 20 columns each): seek below this share of the catalog, probe above.
 */
const SEEK_SHARE = 0.05;

/**
 * The cheapest exact plan given how many documents match (`matches`), how many satisfy the query without its text
 * (`base`, when the counts table knows it) and how many documents there are (`all`).
 */
export function facetPlan(matches: number, base: number | null, all: number): FacetPlan {
  if (base !== null && matches > base / 2) return { complement: true, scan: base - matches <= all * SEEK_SHARE ? 'seek' : 'probe' };
  return { complement: false, scan: matches <= all * SEEK_SHARE ? 'seek' : 'probe' };
}

/** The query without its words: what the complement plan subtracts from. */
export const withoutText = (q: SearchDocQuery): SearchDocQuery => ({ terms: [], where: q.where });

/** The matching (or, negated, the non-matching) documents' ids, as a subquery. */
function candidates(q: SearchDocQuery, p: SqlParams, negated: boolean): string {
  return `SELECT d.id FROM ${SEARCH_DOCS} d WHERE ${matchSql(q, p, negated)} AND ${conditionSql(q.where, p)}`;
}

/**
 * Values of the given fields among the candidates, grouped by `group` (columns of v and d). `fieldTest` is called
 * where its text goes, so that its parameters fall in place. SQLite's planner is told
 * which way to go: CROSS JOIN fixes the candidates as the outer loop (seek), a unary + keeps it off the doc_id index
 * (probe). PostgreSQL chooses by itself.
 */
function valuesOver(q: SearchDocQuery, p: SqlParams, plan: FacetPlan, fieldTest: () => string, cols: string, group: string): string {
  // The documents table is joined only when a column of it is grouped by (the entity type).
  const docs = cols.includes('d.') ? ` JOIN ${SEARCH_DOCS} d ON d.id = v.doc_id` : '';
  if (p.dialect === 'sqlite' && plan.scan === 'seek') {
    const cands = candidates(q, p, plan.complement);
    return `WITH c(id) AS (${cands}) SELECT ${cols}, COUNT(*) AS n FROM c CROSS JOIN ${SEARCH_VALUES} v ON v.doc_id = c.id${docs}
      WHERE ${fieldTest()} GROUP BY ${group}`;
  }
  const head = `SELECT ${cols}, COUNT(*) AS n FROM ${SEARCH_VALUES} v${docs} WHERE ${fieldTest()}`;
  return `${head} AND ${p.dialect === 'sqlite' ? '+' : ''}v.doc_id IN (${candidates(q, p, plan.complement)}) GROUP BY ${group}`;
}

/** A facet statement and which of the requested facets each of its rows counts for. */
export interface FacetStatement extends Statement {
  /** Index of the facet spec the rows belong to, or, for a statement over several fields, each field's index. */
  target: number | ReadonlyMap<string, number>;
}

/**
 * The statements that count the given facets: one over all plain fields together, and one per entity-type facet
 * (two when another field nests under the type). Rows are (field, value, n) for the shared statement, (value, n)
 * per type, or (value, sub, n) under types. Counts are of distinct documents: a document has each (field, value)
 * once. A query without words or field conditions reads the counts table; `plan` says how to count the others
 * (with `complement`, the statements count the documents the words do NOT match).
 */
export function facetStatements(dialect: Dialect, q: SearchDocQuery, specs: readonly FacetSpec[], plan: FacetPlan = { scan: 'probe', complement: false }): FacetStatement[] {
  const k = countable(q);
  const out: FacetStatement[] = [];
  const fields = new Map<string, number>();
  specs.forEach((f, i) => { if (f.kind === 'field') fields.set(f.field, i); });
  if (fields.size) {
    const p = new SqlParams(dialect);
    const names = [...fields.keys()];
    out.push({ ...(k
      ? stmt(p, `SELECT field, value, SUM(n) AS n FROM ${SEARCH_COUNTS} WHERE field ${p.in(names)}${countsFilter(k, p)} GROUP BY field, value`)
      : stmt(p, valuesOver(q, p, plan, () => `v.field ${p.in(names)}`, 'v.field AS field, v.value AS value', 'v.field, v.value'))), target: fields });
  }
  specs.forEach((f, i) => {
    if (f.kind === 'field') return;
    const p = new SqlParams(dialect);
    out.push({ ...(k
      ? stmt(p, `SELECT entity_type AS value, SUM(n) AS n FROM ${SEARCH_COUNTS} WHERE ${countsWhere(TYPE_COUNT_FIELD, k, p)} GROUP BY entity_type`)
      : stmt(p, `SELECT d.entity_type AS value, COUNT(*) AS n FROM ${SEARCH_DOCS} d
          WHERE ${matchSql(q, p, plan.complement)} AND ${conditionSql(q.where, p)} GROUP BY d.entity_type`)), target: i });
    if (f.kind !== 'entityTypeThen') return;
    const p2 = new SqlParams(dialect);
    out.push({ ...(k
      ? stmt(p2, `SELECT entity_type AS value, value AS sub, SUM(n) AS n FROM ${SEARCH_COUNTS} WHERE ${countsWhere(f.field, k, p2)} GROUP BY entity_type, value`)
      : stmt(p2, valuesOver(q, p2, plan, () => `v.field = ${p2.add(f.field)}`, 'd.entity_type AS value, v.value AS sub', 'd.entity_type, v.value'))), target: i });
  });
  return out;
}

/**
 * Counting facets, written once for both engines as steps: each `yield` hands the engine statements to run (in one
 * read transaction where the engine has one) and receives their rows. First how many documents match (unless the
 * caller already counted them: `matches`) and, for a query with words, how many would without them; then the plan's
 * statements.
 */
export function* facetSteps(dialect: Dialect, q: SearchDocQuery, specs: readonly FacetSpec[], matches?: number): Generator<Statement[], FacetCount[][], FacetRow[][]> {
  if (countable(q)) {
    const statements = facetStatements(dialect, q, specs);
    const rows = yield statements;
    return facetResults(specs.length, statements.map((statement, i) => ({ statement, rows: rows[i]! })));
  }
  const baseKnown = q.terms.length > 0 && countable(withoutText(q)) !== null;
  const sized = [allDocsStatement(dialect), ...(baseKnown ? [countStatement(dialect, withoutText(q))] : []),
    ...(matches === undefined ? [countStatement(dialect, q)] : [])];
  const n = (yield sized).map((r) => Number(r[0]!.n));
  const plan = facetPlan(matches ?? n[n.length - 1]!, baseKnown ? n[1]! : null, n[0]!);
  const statements = facetStatements(dialect, q, specs, plan);
  const base = plan.complement ? facetStatements(dialect, withoutText(q), specs) : [];
  const rows = yield [...statements, ...base];
  const counted = facetResults(specs.length, statements.map((statement, i) => ({ statement, rows: rows[i]! })));
  if (!plan.complement) return counted;
  const all = facetResults(specs.length, base.map((statement, i) => ({ statement, rows: rows[statements.length + i]! })));
  return subtractFacets(all, counted);
}

/** base − complement, per facet value: the counts of the documents the words match. */
export function subtractFacets(base: FacetCount[][], complement: FacetCount[][]): FacetCount[][] {
  const key = (c: FacetCount) => `${c.value}\u0000${c.sub ?? ''}`;
  return base.map((rows, i) => {
    const minus = new Map((complement[i] ?? []).map((c) => [key(c), c.count]));
    return rows.map((c) => ({ ...c, count: c.count - (minus.get(key(c)) ?? 0) })).filter((c) => c.count > 0);
  });
}

/** Spreads the rows of facet statements over the requested facets. */
export function facetResults(count: number, results: readonly { statement: FacetStatement; rows: readonly FacetRow[] }[]): FacetCount[][] {
  const out: FacetCount[][] = Array.from({ length: count }, () => []);
  for (const { statement, rows } of results) {
    for (const r of rows) {
      const i = typeof statement.target === 'number' ? statement.target : statement.target.get(r.field!);
      if (i !== undefined) out[i]!.push(facetRow(r));
    }
  }
  return out;
}

export type FacetRow = { field?: string; value: string; sub?: string; n: number | string };

/** A row of a facet statement as a count. */
export function facetRow(r: FacetRow): FacetCount {
  return r.sub === undefined ? { value: r.value, count: Number(r.n) } : { value: r.value, sub: r.sub, count: Number(r.n) };
}

// ---------------------------------------------------------------------------------------------------------------
// Keeping the counts table in step with the documents

export interface CountedDoc {
  entityType: string;
  removed: boolean;
  values: readonly (readonly [string, string])[];
}

/** Adds what replacing `before` by `after` (either absent) changes in the counts table, keyed for a stable order. */
export function addCountDeltas(deltas: Map<string, number>, before: CountedDoc | undefined, after: CountedDoc | undefined): void {
  const add = (d: CountedDoc, sign: number) => {
    for (const [field, value] of [[TYPE_COUNT_FIELD, d.entityType] as const, ...d.values]) {
      const key = JSON.stringify([field, d.removed, d.entityType, value]);
      deltas.set(key, (deltas.get(key) ?? 0) + sign);
    }
  };
  if (before) add(before, -1);
  if (after) add(after, 1);
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
      const key = JSON.stringify([field, after.removed, after.entityType, value]);
      deltas.set(key, (deltas.get(key) ?? 0) + sign);
    }
  };
  move(changes.gone, -1);
  move(changes.added, 1);
}

/** The changed counts in key order (so concurrent writers lock rows in one order), unchanged ones dropped. */
export function countChanges(deltas: Map<string, number>): { field: string; removed: boolean; entityType: string; value: string; n: number }[] {
  return [...deltas].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, n]) => {
    const [field, removed, entityType, value] = JSON.parse(key) as [string, boolean, string, string];
    return { field, removed, entityType, value, n };
  });
}

/** A filter value as a number where it reads as one (range conditions compare these). */
export function numeric(value: string): number | null {
  if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Each (field, value) of a document once. */
/**
 * What rewriting a document's filter values changes: the pairs to delete and to insert. A new description changes
 * the text, rarely the values, so most rewrites touch no value row at all.
 */
export function valueChanges(before: readonly (readonly [string, string])[], after: readonly (readonly [string, string])[]):
  { gone: (readonly [string, string])[]; added: (readonly [string, string])[] } {
  const key = ([f, v]: readonly [string, string]) => `${f}\u0000${v}`;
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  return { gone: before.filter((x) => !has.has(key(x))), added: after.filter((x) => !had.has(key(x))) };
}

export function distinctValues(doc: SearchDoc): (readonly [string, string])[] {
  const seen = new Set<string>();
  return doc.values.filter(([f, v]) => {
    const k = `${f}\u0000${v}`;
    return !seen.has(k) && !!seen.add(k);
  });
}
