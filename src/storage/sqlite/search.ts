import { DEFERRED_INDEX_KEY, SEARCH_COUNTS, SEARCH_DOCS, SEARCH_FTS, SEARCH_TERM_DOCS, SEARCH_TERM_INDEX, SEARCH_TERMS, SETTINGS_TABLE } from '../schema.js';
import type { FacetOp } from '../facet-bitmaps.js';
import type { FacetIndex } from '../facet-index.js';
import {
  addCountDeltas, addRewriteDeltas, allDocsStatement, NewDocCounts, countable, countChanges, countStatement, distinctValues, docKeys, facetSteps, ftsFlags, numeric,
  pageSteps, termKey, textDigest, textWords, valueChanges, type CountedDoc, type FacetRow, type PageRow, type Statement,
} from '../search-sql.js';
import type { FacetCount, FacetSpec, SearchDoc, SearchDocQuery, SearchSort } from '../types.js';
import type { SqliteConnection } from './connection.js';
import { optimizePlanner } from './planner-statistics.js';

/** Whether a document id is in the match set of the search running (SqliteSearch.matched). */
const MATCHED_FUNCTION = 'almanac_search_matched';
/** Whether a document id is among those matches that have every query term in their name (SqliteSearch.named). */
const NAMED_FUNCTION = 'almanac_search_named';

type MatchSet = NonNullable<Awaited<ReturnType<FacetIndex['matchSet']>>>;

/** `1,20,300` as numbers: into a Uint32Array (what bitmaps are built from directly) unless an id does not fit one. */
export function idList(joined: string): ArrayLike<number> {
  const out = new Uint32Array((joined.length + 1) >> 1);
  let k = 0;
  let v = 0;
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    if (c === 44) {
      out[k++] = v;
      v = 0;
    } else {
      v = v * 10 + (c - 48);
      if (c < 48 || c > 57 || v > 0xffffffff) return joined.split(',').map(Number);
    }
  }
  out[k++] = v;
  return out.subarray(0, k);
}

/**
 * The search index on SQLite: documents, their FTS5 text and filter values, the facet counts, and the in-memory facet
 * index (src/storage/facet-index.ts) told of each transaction's changes once it commits.
 */
export class SqliteSearch {
  /** A write transaction's changes for the facet index. */
  private facetOps: FacetOp[] = [];
  /** Urns the transaction was to remove that had no document (FacetIndex.committed). */
  private absent: string[] = [];
  /** The full-text changes of the documents a call writes or removes, made at its end (writeText). */
  private textOps: ({ id: number; remove: true } | { id: number; text: [string, string, string] })[] = [];
  /** Search documents written since the planner's statistics were last refreshed. */
  private docsSinceOptimize = 0;

  /** The match set a search's page statements test documents against (MATCHED_FUNCTION), set while they run. */
  private matched: MatchSet | null = null;
  /** Those of `matched` with every term in their name, when the facet index knows them (set while a page runs). */
  private named: MatchSet | null = null;

  constructor(private readonly c: SqliteConnection, private readonly facets: FacetIndex) {
    c.db.function(MATCHED_FUNCTION, { directOnly: true }, (id: unknown) => (this.matched?.has(Number(id)) ? 1 : 0));
    c.db.function(NAMED_FUNCTION, { directOnly: true }, (id: unknown) => (this.named?.has(Number(id)) ? 1 : 0));
  }

  upsertSearchDocs(docs: SearchDoc[]): void {
    this.withFacets(() => this.c.db.transaction(() => this.writeSearchDocs(docs)).immediate());
  }

  /** Inside a write transaction. */
  writeSearchDocs(docs: readonly SearchDoc[]): void {
    {
      const deltas = new Map<string, number>();
      const insertDoc = this.c.stmt(`INSERT INTO ${SEARCH_DOCS} (urn, entity_type, removed, sort_name, text_digest, name_key, qualified_key, text_words)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
      const updateDoc = this.c.stmt(`UPDATE ${SEARCH_DOCS} SET entity_type = ?, removed = ?, sort_name = ?, text_digest = ?, name_key = ?,
        qualified_key = ?, text_words = ? WHERE id = ?`);
      const terms = new SearchTerms(this.c);
      // New documents' counts, by term number (a bulk load writes new documents only: a string key per value was most
      // of what counting cost), added to the deltas once for the call.
      const fresh = new NewDocCounts();
      this.textOps = [];
      for (const d of docs) {
        const flags = ftsFlags(d.entityType, d.removed);
        const digest = textDigest(d.name, d.text, flags);
        const old = this.takeSearchDoc(d.urn, terms, true);
        if (!old) {
          // Each (field, value) once, by its term's number, in the order distinctValues keeps.
          const { values, ids } = terms.distinct(d.values);
          const id = Number(insertDoc.run(d.urn, d.entityType, d.removed ? 1 : 0, d.sortName, digest, ...docKeys(d), textWords(d)).lastInsertRowid);
          this.textOps.push({ id, text: [d.name, d.text, flags] });
          terms.linkIds(ids, id);
          fresh.add(d.entityType, d.removed, values, ids);
          this.facetOps.push({ set: { id, urn: d.urn, entityType: d.entityType, removed: d.removed, values, text: { name: d.name, body: d.text } } });
          continue;
        }
        const values = distinctValues(d);
        const id = old.id;
        updateDoc.run(d.entityType, d.removed ? 1 : 0, d.sortName, digest, ...docKeys(d), textWords(d), id);
        if (old.textDigest !== digest) {
          this.textOps.push({ id, remove: true });
          this.textOps.push({ id, text: [d.name, d.text, flags] });
        }
        const changes = valueChanges(old.doc.values, values);
        for (const [field, value] of changes.gone) terms.unlink(old.terms.get(termKey(field, value))!, id);
        terms.link(changes.added, id);
        addRewriteDeltas(deltas, old.doc, { entityType: d.entityType, removed: d.removed, values }, changes);
        this.facetOps.push({ set: { id, urn: d.urn, entityType: d.entityType, removed: d.removed, values, text: { name: d.name, body: d.text } } });
      }
      fresh.addTo(deltas);
      this.applyCounts(deltas);
      this.writeText();
    }
    // Search plans depend on how selective each index is, which changes as the catalog grows.
    this.docsSinceOptimize += docs.length;
    if (this.docsSinceOptimize >= 20_000) {
      this.docsSinceOptimize = 0;
      // Not while a bulk load has the search indexes dropped: building them again ends with this (restoreIndexes), and
      // meanwhile its statements look rows up by key whatever the figures (each run cost a third of a second at 50,000
      // datasets, and a million-dataset catch-up would run it fifty times).
      if (!termIndexDeferred(this.c)) optimizePlanner(this.c.db);
    }
  }

  /**
   * Removes a document's text and values (unless kept, to be rewritten by difference: the values by what changed,
   * the text if its digest did), keeping its row and id; returns what the counts held for it.
   */
  private takeSearchDoc(urn: string, terms: SearchTerms, keep = false):
    { id: number; doc: CountedDoc; textDigest: string | null; terms: Map<string, number> } | undefined {
    const row = this.c.stmt(`SELECT id, entity_type, removed, text_digest FROM ${SEARCH_DOCS} WHERE urn = ?`).get(urn) as
      { id: number; entity_type: string; removed: number; text_digest: string | null } | undefined;
    if (!row) return undefined;
    const held = this.c.stmt(`SELECT t.field, t.value, t.id FROM ${SEARCH_TERM_DOCS} p JOIN ${SEARCH_TERMS} t ON t.id = p.term
      WHERE p.doc_id = ?`).raw().all(row.id) as [string, string, number][];
    const values = held.map(([field, value]) => [field, value] as const);
    if (!keep) {
      this.textOps.push({ id: row.id, remove: true });
      for (const [, , term] of held) terms.unlink(term, row.id);
    }
    return { id: row.id, doc: { entityType: row.entity_type, removed: row.removed === 1, values }, textDigest: row.text_digest,
      terms: new Map(held.map(([field, value, term]) => [termKey(field, value), term])) };
  }

  /**
   * Writes the full-text changes a call collected, last and in rowid order. FTS5 writes its pending terms out as a new
   * segment whenever a statement that may need undoing on its own starts in the transaction (its xSavepoint), or a
   * rowid is not above the last one written: interleaved with each document's other statements, every document
   * became a segment of its own, and merging those segments was most of a bulk load's indexing; written together,
   * a call's documents make one.
   */
  private writeText(): void {
    const ops = this.textOps;
    this.textOps = [];
    if (ops.length === 0) return;
    // Stable: a rowid's removal stays before its new text.
    ops.sort((a, b) => a.id - b.id);
    const insert = this.c.stmt(`INSERT INTO ${SEARCH_FTS} (rowid, name, body, flags) VALUES (?, ?, ?, ?)`);
    const remove = this.c.stmt(`DELETE FROM ${SEARCH_FTS} WHERE rowid = ?`);
    for (const op of ops) {
      if ('remove' in op) remove.run(op.id);
      else insert.run(op.id, ...op.text);
    }
  }

  private applyCounts(deltas: Map<string, number>): void {
    const bump = this.c.stmt(`INSERT INTO ${SEARCH_COUNTS} (field, removed, entity_type, value, n) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (field, removed, entity_type, value) DO UPDATE SET n = n + excluded.n`);
    const drop = this.c.stmt(`DELETE FROM ${SEARCH_COUNTS} WHERE field = ? AND removed = ? AND entity_type = ? AND value = ? AND n <= 0`);
    for (const c of countChanges(deltas)) {
      bump.run(c.field, c.removed ? 1 : 0, c.entityType, c.value, c.n);
      if (c.n < 0) drop.run(c.field, c.removed ? 1 : 0, c.entityType, c.value);
    }
  }

  /** Runs inside a write transaction. */
  removeSearchDocs(urns: readonly string[]): void {
    const deltas = new Map<string, number>();
    const terms = new SearchTerms(this.c);
    this.textOps = [];
    for (const u of urns) {
      const old = this.takeSearchDoc(u, terms);
      if (!old) {
        this.absent.push(u);
        continue;
      }
      this.c.stmt(`DELETE FROM ${SEARCH_DOCS} WHERE id = ?`).run(old.id);
      addCountDeltas(deltas, old.doc, undefined);
      this.facetOps.push({ remove: old.id });
    }
    this.applyCounts(deltas);
    this.writeText();
  }

  deleteSearchDocs(urns: readonly string[]): void {
    this.withFacets(() => this.c.db.transaction(() => this.removeSearchDocs(urns)).immediate());
  }

  run(s: Statement): unknown[] {
    return this.c.stmt(s.sql).all(...s.params);
  }

  /**
   * The ids a statement selects (one column), as one string that SQLite joins and this parses: handing each of
   * thousands of rows to JavaScript costs more than reading them (at 50,000 bench datasets, the 50,000 matches of
   * 'customer id' took 53 ms of CPU as rows, 32–46 as one string).
   */
  ids(s: Statement): ArrayLike<number> {
    const joined = this.c.stmt(`WITH t(id) AS (${s.sql}) SELECT group_concat(id) FROM t`).pluck().get(...s.params) as string | null;
    return joined ? idList(joined) : [];
  }

  async searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }) {
    // The total from the facet index's match set when it has one (its facets then reuse it; a page walking an index
    // tests documents against it rather than matching the words again). Its matches are read whole whatever their
    // number, as counting them in SQL would.
    // A field condition too: its matches from the bitmaps rather than from SQL (see pageSteps).
    const set = q.terms.length || q.facetsFollow || !countable(q) ? await this.facets.matchSet({ terms: q.terms, where: q.where }, q.facetsFollow) : null;
    // One read transaction: the total and the page see the same documents.
    return this.c.db.transaction(() => {
      const total = set?.size ?? Number((this.run(countStatement('sqlite', q))[0] as { n: number }).n);
      if (q.count === 0 || total === 0) return { total, urns: [] };
      const all = Number((this.run(allDocsStatement('sqlite'))[0] as { n: number }).n);
      // The named matches, computed once when paging asks (from the facet index's kept word bitmaps).
      let named: MatchSet | null | undefined;
      const namedSet = () => (named === undefined ? (named = set && this.facets.namedSet(q.terms, set)) : named);
      const steps = pageSteps('sqlite', q, total, all, set
        ? { ids: () => Array.from(set.toArray()), predicate: `${MATCHED_FUNCTION}(d.id)`, named: () => namedSet()?.size,
          namedPredicate: () => { this.named = namedSet(); return this.named ? `${NAMED_FUNCTION}(d.id)` : undefined; } }
        : undefined);
      this.matched = set;
      try {
        let step = steps.next();
        while (!step.done) step = steps.next(step.value.map((s) => this.run(s) as PageRow[]));
        return { total, urns: step.value };
      } finally {
        this.matched = null;
        this.named = null;
      }
    }).deferred();
  }

  async searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    return this.facets.count(q, facets, async (specs) => this.sqlFacets(q, specs, matches));
  }

  private sqlFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): FacetCount[][] {
    return this.c.db.transaction(() => {
      const steps = facetSteps('sqlite', q, facets, matches);
      let step = steps.next();
      while (!step.done) step = steps.next(step.value.map((s) => this.run(s) as FacetRow[]));
      return step.value;
    }).deferred();
  }

  countSearchDocs(upTo?: number): number {
    const from = upTo === undefined ? SEARCH_DOCS : `(SELECT 1 FROM ${SEARCH_DOCS} LIMIT ${Math.floor(upTo)})`;
    return this.c.stmt(`SELECT COUNT(*) FROM ${from}`).pluck().get() as number;
  }

  /**
   * Runs a write transaction that may change the search tables, then hands what it changed to the facet index (after
   * the commit; nothing on a rollback). Inside another transaction, the outer one hands them over.
   */
  withFacets<T>(tx: () => T, move?: { from: number; to: number }): T {
    if (this.c.db.inTransaction) return tx();
    this.facetOps = [];
    this.absent = [];
    try {
      const r = tx();
      this.facets.committed(this.facetOps, r === false ? undefined : move, this.absent);
      return r;
    } finally {
      this.facetOps = [];
      this.absent = [];
    }
  }
}

/** Whether a bulk load has the index of the filter values' pairs by term dropped (src/storage/sqlite/bulk-load.ts). */
function termIndexDeferred(c: SqliteConnection): boolean {
  return c.stmt(`SELECT 1 FROM ${SETTINGS_TABLE} WHERE key = ?`).get(`${DEFERRED_INDEX_KEY}${SEARCH_TERM_INDEX}`) !== undefined;
}

/**
 * The terms' statements, their texts built once: each is looked up by its text once per term of every document
 * written, and a text built anew is hashed anew.
 */
const TERM_SQL = {
  link: `INSERT INTO ${SEARCH_TERM_DOCS} (doc_id, term) SELECT ?, value FROM json_each(?)`,
  unlink: `DELETE FROM ${SEARCH_TERM_DOCS} WHERE term = ? AND doc_id = ?`,
  held: `SELECT 1 FROM ${SEARCH_TERM_DOCS} WHERE term = ? LIMIT 1`,
  remove: `DELETE FROM ${SEARCH_TERMS} WHERE id = ? RETURNING field, value`,
  find: `SELECT id FROM ${SEARCH_TERMS} WHERE field = ? AND value = ?`,
  add: `INSERT INTO ${SEARCH_TERMS} (field, value, num) VALUES (?, ?, ?)`,
};

/**
 * The filter values' terms (migration 17) within one write transaction: each (field, value) numbered once, the
 * numbers found here kept for the rest of the transaction, and a term no document has any more deleted (so that the
 * terms are always exactly the values some document has, whichever path wrote them).
 */
class SearchTerms {
  private readonly ids = new Map<string, Map<string, number>>();
  private termIndexDeferred: boolean | undefined;

  constructor(private readonly c: SqliteConnection) {}

  /** Gives the document these (field, value) pairs, numbering the new ones. */
  link(values: readonly (readonly [string, string])[], doc: number): void {
    this.linkIds(values.map(([field, value]) => this.id(field, value)), doc);
  }

  /** Gives the document these terms (numbered by distinct: each once). */
  linkIds(ids: readonly number[], doc: number): void {
    if (ids.length === 0) return;
    // One statement a document, its terms in key order (the table is keyed by document; migration 25): a third of
    // the CPU of a statement a pair.
    this.c.stmt(TERM_SQL.link).run(doc, JSON.stringify([...ids].sort((a, b) => a - b)));
  }

  /**
   * Each (field, value) of these once, in the order of their first occurrence (as distinctValues keeps them), with
   * their terms' numbers (the new ones numbered now, in that order).
   */
  distinct(pairs: readonly (readonly [string, string])[]): { values: (readonly [string, string])[]; ids: number[] } {
    const values: (readonly [string, string])[] = [];
    const ids: number[] = [];
    const seen = new Set<number>();
    for (const pair of pairs) {
      const id = this.id(pair[0], pair[1]);
      if (seen.has(id)) continue;
      seen.add(id);
      values.push(pair);
      ids.push(id);
    }
    return { values, ids };
  }

  /**
   * Takes a term from the document, and deletes the term if no document has it any more. While a bulk load has the
   * index by term dropped, whether another document holds it would be a scan: the terms left without documents are
   * deleted when the index is built again (src/storage/sqlite/bulk-load.ts restoreIndexes).
   */
  unlink(term: number, doc: number): void {
    this.c.stmt(TERM_SQL.unlink).run(term, doc);
    this.termIndexDeferred ??= termIndexDeferred(this.c);
    if (this.termIndexDeferred) return;
    if (this.c.stmt(TERM_SQL.held).get(term) !== undefined) return;
    const gone = this.c.stmt(TERM_SQL.remove).raw().get(term) as [string, string] | undefined;
    if (gone) this.ids.get(gone[0])?.delete(gone[1]);
  }

  private id(field: string, value: string): number {
    // By field, then value: no key string made for each value of every document (a bulk load looks up millions).
    let byValue = this.ids.get(field);
    if (!byValue) this.ids.set(field, (byValue = new Map()));
    let id = byValue.get(value);
    if (id === undefined) {
      id = this.c.stmt(TERM_SQL.find).pluck().get(field, value) as number | undefined;
      id ??= Number(this.c.stmt(TERM_SQL.add).run(field, value, numeric(value)).lastInsertRowid);
      byValue.set(value, id);
    }
    return id;
  }
}
