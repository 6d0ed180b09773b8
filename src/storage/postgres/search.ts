import type pg from 'pg';
import { SEARCH_COUNTS, SEARCH_DOCS, SEARCH_TERM_DOCS, SEARCH_TERMS, SEARCH_TEXT, SEARCH_VALUES } from '../schema.js';
import type { FacetOp } from '../facet-bitmaps.js';
import type { FacetIndex } from '../facet-index.js';
import {
  addCountDeltas, addRewriteDeltas, countable, countChanges, countStatement, distinctValues, docKeys, facetSteps, numeric, pageSteps, textDigest,
  textWords, valueChanges, type CountedDoc, type FacetRow, type PageRow,
} from '../search-sql.js';
import type { FacetCount, FacetSpec, SearchDoc, SearchDocQuery, SearchSort } from '../types.js';
import { prepared, type PostgresConnection } from './connection.js';

/** Filter-only searches matching at most this many documents are paged from the facet index's match set. */
const FEW_MATCHES = 20_000;

/** What a transaction changed of the search tables, for the facet index once it commits. */
export interface FacetChanges {
  ops: FacetOp[];
  move?: { from: number; to: number };
  /** Urns the transaction was to remove that had no document (FacetIndex.committed). */
  absent?: string[];
}

/**
 * Gives documents (field, value) pairs (migration 30): the terms not numbered yet are added first, in one order (two
 * transactions adding some of the same terms wait for each other rather than deadlock), then the pairs by the terms'
 * numbers, in a statement of its own so that it sees terms another transaction added and committed meanwhile. A term
 * no document holds any more is left in place (a later pair may take it again); the view joins only held terms.
 */
async function linkTerms(c: pg.PoolClient, added: readonly (readonly [string, string, number])[]): Promise<void> {
  const terms = new Map<string, readonly [string, string]>();
  for (const [f, v] of added) terms.set(`${f}\0${v}`, [f, v]);
  const sorted = [...terms.values()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  await c.query(prepared(`INSERT INTO ${SEARCH_TERMS} (field, value, num) SELECT * FROM UNNEST($1::text[], $2::text[], $3::float8[]) AS g(field, value, num)
    WHERE NOT EXISTS (SELECT 1 FROM ${SEARCH_TERMS} t WHERE t.field = g.field AND t.value = g.value) ON CONFLICT (field, value) DO NOTHING`,
  [sorted.map((x) => x[0]), sorted.map((x) => x[1]), sorted.map((x) => numeric(x[1]))]));
  await c.query(prepared(`INSERT INTO ${SEARCH_TERM_DOCS} (doc_id, term) SELECT g.doc_id, t.id FROM UNNEST($1::text[], $2::text[], $3::int[]) AS g(field, value, doc_id)
    JOIN ${SEARCH_TERMS} t ON t.field = g.field AND t.value = g.value`, [added.map((x) => x[0]), added.map((x) => x[1]), added.map((x) => x[2])]));
}

/**
 * The search index on PostgreSQL: documents, their tsvector text and filter values, the facet counts, and the
 * in-memory facet index (src/storage/facet-index.ts) given each transaction's changes (`facetTx`, by connection).
 */
export class PostgresSearch {
  constructor(private readonly db: PostgresConnection, private readonly facets: FacetIndex,
    private readonly facetTx: ReadonlyMap<pg.PoolClient, FacetChanges>) {}

  async upsertSearchDocs(docs: SearchDoc[]): Promise<void> {
    if (docs.length) await this.db.tx((c) => this.writeSearchDocs(c, docs));
  }

  /**
   * Writes documents, inside a write transaction, in a fixed number of set-based statements whatever their number:
   * their rows locked in urn order (concurrent indexers cannot deadlock), new ones inserted, filter values rewritten by
   * difference, and the words rewritten only where the text's digest changed.
   */
  async writeSearchDocs(c: pg.PoolClient, docs: readonly SearchDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const byUrn = new Map(docs.map((d) => [d.urn, d]));
    const sorted = [...byUrn.values()].sort((a, b) => (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
    const urns = sorted.map((d) => d.urn);
    const digests = new Map(sorted.map((d) => [d.urn, textDigest(d.name, d.text)]));
    const lock = (list: string[]) => c.query(prepared(`SELECT id, urn, entity_type, removed, text_digest FROM ${SEARCH_DOCS}
      WHERE urn = ANY($1) ORDER BY urn COLLATE "C" FOR UPDATE`, [list]));
    const held = new Map((await lock(urns)).rows.map((r) => [r.urn as string, r]));
    const ids = new Map([...held].map(([urn, r]) => [urn, Number(r.id)]));
    const fresh = sorted.filter((d) => !held.has(d.urn));
    if (fresh.length) {
      const { rows } = await c.query(prepared(`INSERT INTO ${SEARCH_DOCS} (urn, entity_type, removed, sort_name, text_digest, name_key, qualified_key, text_words)
        SELECT * FROM UNNEST($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[]) ON CONFLICT (urn) DO NOTHING RETURNING id, urn`,
      [fresh.map((d) => d.urn), fresh.map((d) => d.entityType), fresh.map((d) => d.removed), fresh.map((d) => d.sortName), fresh.map((d) => digests.get(d.urn)),
        fresh.map((d) => docKeys(d)[0]), fresh.map((d) => docKeys(d)[1]), fresh.map(textWords)]));
      for (const r of rows) ids.set(r.urn as string, Number(r.id));
      // Inserted meanwhile by a writer outside the index's consumer lock: taken as existing documents.
      const raced = fresh.filter((d) => !ids.has(d.urn)).map((d) => d.urn);
      if (raced.length) for (const r of (await lock(raced)).rows) { held.set(r.urn as string, r); ids.set(r.urn as string, Number(r.id)); }
    }
    const kept = sorted.filter((d) => held.has(d.urn));
    const oldValues = new Map<number, (readonly [string, string])[]>();
    if (kept.length) {
      await c.query(prepared(`UPDATE ${SEARCH_DOCS} d SET entity_type = u.entity_type, removed = u.removed, sort_name = u.sort_name, text_digest = u.digest,
          name_key = u.name_key, qualified_key = u.qualified_key, text_words = u.text_words
        FROM UNNEST($1::bigint[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])
          AS u(id, entity_type, removed, sort_name, digest, name_key, qualified_key, text_words) WHERE d.id = u.id`,
      [kept.map((d) => ids.get(d.urn)), kept.map((d) => d.entityType), kept.map((d) => d.removed), kept.map((d) => d.sortName), kept.map((d) => digests.get(d.urn)),
        kept.map((d) => docKeys(d)[0]), kept.map((d) => docKeys(d)[1]), kept.map(textWords)]));
      const { rows } = await c.query(prepared(`SELECT doc_id, field, value FROM ${SEARCH_VALUES} WHERE doc_id = ANY($1)`, [kept.map((d) => ids.get(d.urn))]));
      for (const r of rows) {
        const id = Number(r.doc_id);
        if (!oldValues.has(id)) oldValues.set(id, []);
        oldValues.get(id)!.push([r.field as string, r.value as string]);
      }
    }
    const rewritten = sorted.filter((d) => held.get(d.urn)?.text_digest !== digests.get(d.urn));
    if (rewritten.length) {
      await c.query(prepared(`INSERT INTO ${SEARCH_TEXT} (doc_id, tsv)
        SELECT id, setweight(to_tsvector('simple', name), 'A') || setweight(to_tsvector('simple', body), 'B')
        FROM UNNEST($1::bigint[], $2::text[], $3::text[]) AS u(id, name, body)
        ON CONFLICT (doc_id) DO UPDATE SET tsv = excluded.tsv`, [rewritten.map((d) => ids.get(d.urn)), rewritten.map((d) => d.name), rewritten.map((d) => d.text)]));
    }
    const deltas = new Map<string, number>();
    const gone: [string, string, number][] = [];
    const added: [string, string, number][] = [];
    for (const d of sorted) {
      const id = ids.get(d.urn)!;
      const row = held.get(d.urn);
      const old: CountedDoc | undefined = row ? { entityType: row.entity_type, removed: row.removed, values: oldValues.get(id) ?? [] } : undefined;
      const values = distinctValues(d);
      const changes = valueChanges(old?.values ?? [], values);
      for (const [f, v] of changes.gone) gone.push([f, v, id]);
      for (const [f, v] of changes.added) added.push([f, v, id]);
      addRewriteDeltas(deltas, old, { entityType: d.entityType, removed: d.removed, values }, changes);
      this.facetTx.get(c)?.ops.push({ set: { id, urn: d.urn, entityType: d.entityType, removed: d.removed, values } });
    }
    if (gone.length) {
      await c.query(prepared(`DELETE FROM ${SEARCH_TERM_DOCS} p USING UNNEST($1::text[], $2::text[], $3::int[]) AS g(field, value, doc_id), ${SEARCH_TERMS} t
        WHERE t.field = g.field AND t.value = g.value AND p.term = t.id AND p.doc_id = g.doc_id`, [gone.map((x) => x[0]), gone.map((x) => x[1]), gone.map((x) => x[2])]));
    }
    if (added.length) await linkTerms(c, added);
    await this.applyCounts(c, deltas);
  }

  /** Locks a document's row, removes its filter values and returns what the counts held for it. */
  private async takeSearchDoc(c: pg.PoolClient, urn: string): Promise<{ id: number; doc: CountedDoc } | undefined> {
    const row = (await c.query(`SELECT id, entity_type, removed FROM ${SEARCH_DOCS} WHERE urn = $1 FOR UPDATE`, [urn])).rows[0];
    if (!row) return undefined;
    const id = Number(row.id);
    const values = (await c.query(`DELETE FROM ${SEARCH_TERM_DOCS} p USING ${SEARCH_TERMS} t WHERE p.doc_id = $1 AND t.id = p.term
      RETURNING t.field, t.value`, [id])).rows
      .map((r) => [r.field as string, r.value as string] as const);
    return { id, doc: { entityType: row.entity_type, removed: row.removed, values } };
  }

  private async applyCounts(c: pg.PoolClient, deltas: Map<string, number>): Promise<void> {
    const changes = countChanges(deltas);
    if (changes.length === 0) return;
    const cols = [changes.map((x) => x.field), changes.map((x) => x.removed), changes.map((x) => x.entityType), changes.map((x) => x.value)];
    await c.query(prepared(`INSERT INTO ${SEARCH_COUNTS} AS t (field, removed, entity_type, value, n)
      SELECT * FROM UNNEST($1::text[], $2::boolean[], $3::text[], $4::text[], $5::bigint[])
      ON CONFLICT (field, removed, entity_type, value) DO UPDATE SET n = t.n + excluded.n`, [...cols, changes.map((x) => x.n)]));
    await c.query(prepared(`DELETE FROM ${SEARCH_COUNTS} WHERE n <= 0 AND (field, removed, entity_type, value) IN
      (SELECT * FROM UNNEST($1::text[], $2::boolean[], $3::text[], $4::text[]))`, cols));
  }

  /** Runs inside a write transaction. */
  async removeSearchDocs(c: pg.PoolClient, urns: readonly string[]): Promise<void> {
    const deltas = new Map<string, number>();
    for (const u of [...urns].sort()) {
      const old = await this.takeSearchDoc(c, u);
      if (!old) {
        const changes = this.facetTx.get(c);
        if (changes) (changes.absent ??= []).push(u);
        continue;
      }
      await c.query(`DELETE FROM ${SEARCH_DOCS} WHERE id = $1`, [old.id]);
      await c.query(`DELETE FROM ${SEARCH_TEXT} WHERE doc_id = $1`, [old.id]);
      this.facetTx.get(c)?.ops.push({ remove: old.id });
      addCountDeltas(deltas, old.doc, undefined);
    }
    await this.applyCounts(c, deltas);
  }

  async deleteSearchDocs(urns: readonly string[]): Promise<void> {
    if (urns.length) await this.db.tx((c) => this.removeSearchDocs(c, urns));
  }

  async searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }) {
    const counted = countStatement('postgres', q);
    // The total from the facet index's match set when it has one (kept for the facets that follow): counting words
    // or filter values in SQL joins every match with the documents (at 100,000 documents, a word in all: 170 ms).
    const set = countable(q) ? null : await this.facets.matchSet({ terms: q.terms, where: q.where }, q.facetsFollow);
    const total = set?.size ?? Number((await this.db.query(counted.sql, counted.params)).rows[0].n);
    if (q.count === 0 || total === 0) return { total, urns: [] };
    if (set && q.terms.length === 0 && q.sort.by !== 'field' && total <= FEW_MATCHES) {
      // Filters that leave few documents: those documents sorted, rather than the filters joined in SQL.
      const dir = q.sort.by === 'name' && q.sort.descending ? 'DESC' : 'ASC';
      const { rows } = await this.db.query(`SELECT urn FROM ${SEARCH_DOCS} WHERE id = ANY($1::bigint[]) ORDER BY sort_name ${dir}, urn ${dir}
        LIMIT $2 OFFSET $3`, [set.toArray(), q.count, q.start]);
      return { total, urns: rows.map((r) => r.urn as string) };
    }
    const steps = pageSteps('postgres', q, total, Number.POSITIVE_INFINITY, set ? { ids: () => Array.from(set.toArray()) } : undefined);
    let step = steps.next();
    while (!step.done) {
      const rows = await Promise.all(step.value.map(async (s) => (await this.db.query(s.sql, s.params)).rows as PageRow[]));
      step = steps.next(rows);
    }
    return { total, urns: step.value };
  }

  async searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    return this.facets.count(q, facets, (specs) => this.sqlFacets(q, specs, matches));
  }

  private async sqlFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]> {
    const steps = facetSteps('postgres', q, facets, matches);
    let step = steps.next();
    while (!step.done) {
      const rows = await Promise.all(step.value.map(async (s) => (await this.db.query(s.sql, s.params)).rows as FacetRow[]));
      step = steps.next(rows);
    }
    return step.value;
  }

  async countSearchDocs(upTo?: number): Promise<number> {
    const from = upTo === undefined ? SEARCH_DOCS : `(SELECT 1 FROM ${SEARCH_DOCS} LIMIT ${Math.floor(upTo)}) t`;
    return (await this.db.query(`SELECT COUNT(*)::int AS n FROM ${from}`)).rows[0].n as number;
  }
}
