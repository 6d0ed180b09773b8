import { type Dialect, SEARCH_COUNTS, SEARCH_DOCS, SEARCH_VALUES } from '../schema.js';
import type { FacetCount, FacetSpec, SearchDocQuery } from '../types.js';
import { allDocsStatement, countable, countsFilter, countStatement, countsWhere } from './counts.js';
import { conditionSql, SqlParams, type Statement, stmt, TYPE_COUNT_FIELD } from './params.js';
import { matchSql } from './text-match.js';

/** Counting a search's facets: per field value (or entity type) over the matching documents, by the cheapest plan. */

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
