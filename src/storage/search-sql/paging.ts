import { type Dialect, NAME_WORDS_PG, SEARCH_DOCS, SEARCH_FTS, SEARCH_TEXT, SEARCH_VALUES } from '../schema.js';
import type { SearchCondition, SearchDocQuery, SearchSort } from '../types.js';
import { countable, DENSE_SHARE, flagsOnly } from './counts.js';
import { conditionSql, MAX_CHAR, SqlParams, type Statement, stmt } from './params.js';
import { flagClauses, matchSql, textQuery, wordDocsSql, wordProbeSql } from './text-match.js';

/** Paging a search's matches in its order: name tiers, then relevance or a static order, each page a few statements. */

/**
 * Relevance ranks every match (bm25 in SQLite, ts_rank in PostgreSQL), which costs in proportion to the matches:
 * above this many, the matches outside the name tiers are ordered by where they match (name, then text) and within
 * each by the length of the field (STATIC_ORDER; pageSteps).
 */
export const RANK_LIMIT = 5_000;

/**
 * A query's matches when the engine holds them already (the facet index's match set): every id, and on SQLite a
 * predicate on `d.id` answered from that set by a function of the connection. Walking an order's index then tests
 * each document in memory, where `d.id IN (text match)` would first read the words' whole doclists again and build
 * a temporary index of every match (at 50,000 documents, a page of two words found in all took 71 ms of that).
 */
export interface KnownMatches {
  ids(): readonly number[];
  predicate?: string;
  /** How many of them have every term in their name, where the engine knows without reading the text index. */
  named?(): number | undefined;
  /** SQLite: a predicate on `d.id` of those, where the engine knows them (as `named`). */
  namedPredicate?(): string | undefined;
}

/**
 * One page of the matching documents' urns in an order of names or of a field (pageSteps pages by relevance). `total`
 * is how many match and `all` how many documents there are: when matches are dense (DENSE_SHARE of all or more),
 * walking the name index until the page is full beats sorting them.
 */
function pageStatement(dialect: Dialect, q: SearchDocQuery & { sort: SearchSort; start: number; count: number }, total: number, all: number,
  known?: KnownMatches): Statement {
  const p = new SqlParams(dialect);
  const dir = (desc: boolean) => (desc ? 'DESC' : 'ASC');
  const walkNames = dialect === 'sqlite' && q.sort.by !== 'field' && total >= all * DENSE_SHARE;
  let where: string;
  if (known?.predicate && !walkNames && !countable(q)) {
    // SQLite, sparse matches known (words and condition together): looked up by id, then sorted. A field condition
    // in SQL indexes every document with the value first (at 200,000 documents, platform and tag: ~20 ms of CPU).
    where = `d.id IN (SELECT value FROM json_each(${p.add(JSON.stringify(known.ids()))}))`;
  } else {
    const matched = walkNames && known?.predicate && q.terms.length ? known.predicate : matchSql(q, p, false, walkNames);
    where = `${matched} AND ${conditionSql(q.where, p)}`;
  }
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
function tierPage(dialect: Dialect, q: SearchDocQuery, key: string, tier: Tier, offset: number, limit: number, known?: KnownMatches): Statement {
  const p = new SqlParams(dialect);
  const where = `${tierTest(tier, key, p)} AND ${conditionOrMatched(q, p, known)}`;
  if (tier !== 'prefix') return stmt(p, `SELECT d.urn FROM ${tierDocs(dialect, tier)} WHERE ${where} ORDER BY d.urn LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
  return stmt(p, `SELECT d.urn FROM (SELECT d.id, length(d.name_key) AS len, d.name_key AS name_key FROM ${tierDocs(dialect, tier)} WHERE ${where}
      ORDER BY 2, 3, 1 LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}) t
    JOIN ${SEARCH_DOCS} d ON d.id = t.id ORDER BY t.len, t.name_key, t.id`);
}

function tierCount(dialect: Dialect, q: SearchDocQuery, key: string, tier: Tier, known?: KnownMatches): Statement {
  const p = new SqlParams(dialect);
  return stmt(p, `SELECT COUNT(*) AS n FROM ${tierDocs(dialect, tier)} WHERE ${tierTest(tier, key, p)} AND ${conditionOrMatched(q, p, known)}`);
}

/**
 * The query's condition on `d`, or, where the matches are known (SQLite: the facet index's match set, words and
 * condition together), the test against them: a field condition in SQL (`d.id IN (values of the field)`) builds a
 * temporary index of every document with the value first, in proportion to the catalog (at 200,000 documents,
 * a platform's 33,000), where a name tier or a ranked page tests a handful. Used where every document tested
 * matches the words already (the tiers: their names hold every term; ranked pages: joined to the words' match).
 */
function conditionOrMatched(q: SearchDocQuery, p: SqlParams, known?: KnownMatches): string {
  return known?.predicate ?? conditionSql(q.where, p);
}

/**
 * The matches of one part outside the name tiers, by the engine's relevance (bm25, ts_rank) then name. `ids`
 * (PostgreSQL, part 'all'): every match's id, known already (at most RANK_LIMIT of them), looked up by id rather than
 * found again in the words' index: the planner cannot tell how many documents a prefix range holds and, guessing
 * thousands for a word in one document, ranked the whole text table before joining (at 20,000 documents, 480 ms
 * against 0.3).
 */
function rankedPage(dialect: Dialect, q: SearchDocQuery, key: string | null, part: Part, offset: number, limit: number,
  known?: KnownMatches): Statement {
  const p = new SqlParams(dialect);
  if (dialect === 'sqlite') {
    // Joining the FTS table (rather than IN) lets bm25 see the match; the name column weighs ten times the text.
    // With the matches known, the MATCH holds the words alone: bm25 counts the documents of every phrase of it (its
    // IDF), and the removal flag's phrase is in nearly all (at 200,000 documents, ~10 ms a page for one match). The
    // flags' column weighs nothing, so the order is the same.
    const flags = known?.predicate ? { all: [] } : q.where;
    return stmt(p, `SELECT d.urn FROM ${SEARCH_FTS} f JOIN ${SEARCH_DOCS} d ON d.id = f.rowid
      WHERE ${SEARCH_FTS} MATCH ${p.add(partQuery(dialect, q.terms, part, flags))} AND ${conditionOrMatched(q, p, known)}${notTierSql(key, p)}
      ORDER BY bm25(${SEARCH_FTS}, 10.0, 1.0, 0.0), d.sort_name, d.urn LIMIT ${p.add(limit)} OFFSET ${p.add(offset)}`);
  }
  // The matches from the words' index; their text (at most RANK_LIMIT of them) read for the rank.
  return stmt(p, `SELECT d.urn FROM ${SEARCH_DOCS} d JOIN ${SEARCH_TEXT} t ON t.doc_id = d.id
    WHERE ${known && part === 'all' ? `d.id = ANY(${p.add(known.ids())}::bigint[])` : partMatchSql(q, p, part)} AND ${conditionSql(q.where, p)}${notTierSql(key, p)}
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
function staticPage(dialect: Dialect, q: SearchDocQuery, key: string | null, part: Part, by: StaticOrder, walk: boolean, offset: number, limit: number,
  known?: KnownMatches): Statement {
  const p = new SqlParams(dialect);
  const { index, order } = STATIC_ORDER[by];
  // Walking: the index's order is the page's (its leading removal column fixed by the query's condition).
  // PostgreSQL always walks (its planner chooses the index) and probes each document's words (wordProbeSql).
  const docs = walk && p.dialect === 'sqlite' ? `${SEARCH_DOCS} d INDEXED BY ${index}` : `${SEARCH_DOCS} d`;
  // Walking with the matches known (SQLite), each document is tested in memory: against the match set, or, by name,
  // against its documents with every term in the name where the engine knows them (KnownMatches.namedPredicate).
  const named = walk && part !== 'all' && known?.predicate ? known.namedPredicate?.() : undefined;
  const matched = walk && part === 'all' && known?.predicate ? known.predicate
    : named ? (part === 'name' ? named : `${known!.predicate!} AND NOT ${named}`)
    : partMatchSql(q, p, part, walk || p.dialect === 'postgres');
  return stmt(p, `SELECT d.urn FROM ${docs} WHERE ${matched}
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
 * documents there are; `known`, the matches where the engine holds them already.
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
export function* pageSteps(dialect: Dialect, q: SearchDocQuery & { sort: SearchSort; start: number; count: number }, total: number, all: number,
  known?: KnownMatches): Generator<Statement[], string[], PageRow[][]> {
  const urnsOf = (rows: PageRow[][]) => rows.flat().map((r) => r.urn!);
  if (q.sort.by !== 'relevance' || q.terms.length === 0) return urnsOf(yield [pageStatement(dialect, q, total, all, known)]);
  const key = q.nameKey ?? q.terms.join(' ');
  const ranked = total <= RANK_LIMIT;
  const end = Math.min(q.start + q.count, total);
  const urns: string[] = [];
  let sizes: number[];
  if (q.start === 0) {
    // A first page needs no counts when the tiers fill it; otherwise each tier returned less than asked: all of it.
    const rows = yield TIERS.map((tier) => tierPage(dialect, q, key, tier, 0, end, known));
    urns.push(...urnsOf(rows).slice(0, end));
    if (urns.length === end) return urns;
    sizes = rows.map((r) => r.length);
  } else {
    sizes = (yield TIERS.map((tier) => tierCount(dialect, q, key, tier, known))).map((r) => Number(r[0]!.n));
  }
  const tiers = Math.min(total, sizes.reduce((a, b) => a + b, 0));
  // The name matches are counted as far as deciding how to page them needs (at most RANK_LIMIT past the tiers), and
  // whole only when the page reaches past them: a word in many names is not counted for a first page.
  let named = total;
  const knownNamed = ranked ? undefined : known?.named?.();
  if (knownNamed !== undefined) named = Math.min(total, Math.max(tiers, knownNamed));
  else if (!ranked) {
    const cap = tiers + RANK_LIMIT + 1;
    named = Number((yield [nameCount(dialect, q, cap)])[0]![0]!.n);
    if (named >= cap && end > cap) named = Number((yield [nameCount(dialect, q)])[0]![0]!.n);
    else if (named >= cap) named = total; // more than the page needs: what follows them is not reached
    named = Math.min(total, Math.max(tiers, named));
  }
  const walk = (size: number) => dialect === 'sqlite' && size >= all * DENSE_SHARE;
  const segments: { size: number; page: (offset: number, limit: number) => Statement }[] = q.start === 0 ? [{ size: tiers, page: () => { throw new Error('paged'); } }]
    : TIERS.map((tier, i) => ({ size: sizes[i]!, page: (o: number, l: number) => tierPage(dialect, q, key, tier, o, l, known) }));
  // The tiers are left out of what follows where there are any (a text-only match is in none: they match in the name).
  const outside = tiers > 0 ? key : null;
  if (ranked) segments.push({ size: total - tiers, page: (o, l) => rankedPage(dialect, q, outside, 'all', o, l, known) });
  else {
    const others = named - tiers;
    segments.push({ size: others, page: others <= RANK_LIMIT
      ? (o, l) => rankedPage(dialect, q, outside, 'name', o, l, known)
      : (o, l) => staticPage(dialect, q, outside, 'name', 'nameLength', walk(others), o, l, known) });
    // With no name match outside the tiers, "in the text only" is "outside the tiers": no second text condition.
    segments.push({ size: total - named, page: others === 0
      ? (o, l) => staticPage(dialect, q, outside, 'all', 'textWords', walk(total - named), o, l, known)
      : (o, l) => staticPage(dialect, q, null, 'textOnly', 'textWords', walk(total - named), o, l, known) });
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
