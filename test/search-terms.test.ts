import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { numeric } from '../src/storage/search-sql.js';
import type { FacetCount, SearchCondition, SearchDoc, Store } from '../src/storage/types.js';
import { rng } from './support/random.js';
import { queryRows } from './support/db-dump.js';
import { forEachEngine, freshSharedDatabaseUrl, storeFor } from './support/engines.js';

/**
 * The search index's filter values against brute force, on both engines: random documents written, rewritten with
 * values that come and go, and deleted, one at a time and in batches; then every filter, facet count and sort by a
 * field's number is compared with what the documents last written say. On SQLite (migration 17: numbered terms and
 * (term, document) pairs) the terms are exactly the pairs some document holds, and a database at migration 16
 * upgrades in place to the same answers; on PostgreSQL (migration 30, the same layout) likewise from migration 25.
 */

const FIELDS = ['colour', 'size', 'shape', 'createdAt'];
const urnOf = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,terms_${i},PROD)`;

function randomDoc(i: number, r: () => number): SearchDoc {
  const pick = (n: number) => Math.floor(r() * n);
  const values: [string, string][] = [];
  const seen = new Set<string>();
  for (let k = pick(8); k > 0; k--) {
    const field = FIELDS[pick(FIELDS.length)]!;
    // Text values, numbers (some equal as numbers but not as text), a value shared by every field.
    const value = field === 'createdAt' ? String(pick(5) * 10) : field === 'size' ? ['1', '2', '10', '2.5', 'large'][pick(5)]! : ['red', 'green', 'blue', 'shared', `own_${i}`][pick(5)]!;
    if (seen.has(`${field}\0${value}`)) continue;
    seen.add(`${field}\0${value}`);
    values.push([field, value]);
  }
  return { urn: urnOf(i), entityType: pick(5) === 0 ? 'chart' : 'dataset', name: `terms ${i}`, text: `document ${i}`, sortName: `terms ${String(i).padStart(3, '0')}`,
    removed: pick(10) === 0, values };
}

/** What the documents say, by brute force. */
function expectedFilter(docs: ReadonlyMap<string, SearchDoc>, field: string, test: (v: string) => boolean): string[] {
  return [...docs.values()].filter((d) => !d.removed && d.values.some(([f, v]) => f === field && test(v))).map((d) => d.urn).sort();
}

function expectedFacet(docs: ReadonlyMap<string, SearchDoc>, field: string, match: (d: SearchDoc) => boolean): FacetCount[] {
  const n = new Map<string, number>();
  for (const d of docs.values()) if (!d.removed && match(d)) for (const [f, v] of d.values) if (f === field) n.set(v, (n.get(v) ?? 0) + 1);
  return [...n].map(([value, count]) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
}

const byValue = (rows: FacetCount[]) => [...rows].sort((a, b) => a.value.localeCompare(b.value));
const live = (extra: SearchCondition[]): SearchCondition => ({ all: [{ column: 'removed', value: false }, ...extra] });

/** Every answer that reads the filter values, compared with brute force. */
async function compare(store: Store, docs: ReadonlyMap<string, SearchDoc>): Promise<void> {
  const filtered = async (c: SearchCondition) => (await store.searchDocs({ terms: [], where: live([c]), sort: { by: 'name', descending: false }, start: 0, count: 1000 })).urns.sort();
  const cases: [SearchCondition, string, (v: string) => boolean][] = [
    [{ field: 'colour', op: 'EQUAL', values: ['red', 'shared'] }, 'colour', (v) => v === 'red' || v === 'shared'],
    [{ field: 'colour', op: 'START_WITH', values: ['own_1'] }, 'colour', (v) => v.startsWith('own_1')],
    [{ field: 'shape', op: 'CONTAIN', values: ['ee'] }, 'shape', (v) => v.includes('ee')],
    [{ field: 'size', op: 'GREATER_THAN', values: ['2'] }, 'size', (v) => numeric(v) !== null && numeric(v)! > 2],
    [{ field: 'size', op: 'LESS_THAN_OR_EQUAL_TO', values: ['2'] }, 'size', (v) => numeric(v) !== null && numeric(v)! <= 2],
    [{ field: 'createdAt', op: 'EXISTS', values: [] }, 'createdAt', () => true],
  ];
  for (const [condition, field, t] of cases) assert.deepEqual(await filtered(condition), expectedFilter(docs, field, t), JSON.stringify(condition));
  // Facets over all live documents, over the documents holding a value, and over those a word matches.
  const facets = async (where: SearchCondition, terms: string[] = []) =>
    (await store.searchFacets({ terms, where }, FIELDS.map((field) => ({ kind: 'field' as const, field })))).map(byValue);
  assert.deepEqual(await facets(live([])), FIELDS.map((f) => expectedFacet(docs, f, () => true)));
  assert.deepEqual(await facets(live([{ field: 'colour', op: 'EQUAL', values: ['shared'] }])),
    FIELDS.map((f) => expectedFacet(docs, f, (d) => d.values.some(([x, v]) => x === 'colour' && v === 'shared'))));
  assert.deepEqual(await facets(live([]), ['document']), FIELDS.map((f) => expectedFacet(docs, f, () => true)));
  // Sorted by a field's largest number, documents without one last (then by name).
  const sorted = (await store.searchDocs({ terms: [], where: live([]), sort: { by: 'field', field: 'createdAt', descending: true }, start: 0, count: 1000 })).urns;
  const key = (d: SearchDoc) => Math.max(-Infinity, ...d.values.filter(([f]) => f === 'createdAt').map(([, v]) => Number(v)));
  const expected = [...docs.values()].filter((d) => !d.removed)
    .sort((a, b) => (key(b) - key(a)) || (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0)).map((d) => d.urn);
  assert.deepEqual(sorted, expected);
}

/** SQLite: the terms are exactly the distinct (field, value) pairs documents hold, each once, with its number. */
function checkTerms(file: string, docs: ReadonlyMap<string, SearchDoc>): void {
  const db = new Database(file, { readonly: true });
  try {
    const terms = db.prepare(`SELECT field, value, num FROM almanac_search_terms ORDER BY field, value`).raw().all();
    const held = new Map<string, [string, string, number | null]>();
    for (const d of docs.values()) for (const [f, v] of d.values) held.set(`${f}\0${v}`, [f, v, numeric(v)]);
    assert.deepEqual(terms, [...held.keys()].sort().map((k) => held.get(k)!));
    const pairs = db.prepare(`SELECT d.urn, v.field, v.value FROM almanac_search_values v JOIN almanac_search_docs d ON d.id = v.doc_id
      ORDER BY 1, 2, 3`).raw().all();
    assert.deepEqual(pairs, [...docs.values()].flatMap((d) => d.values.map(([f, v]) => [d.urn, f, v]))
      .sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1)));
  } finally {
    db.close();
  }
}

/**
 * PostgreSQL (migration 30): the pairs are exactly the (document, field, value) the documents hold, each term held is
 * numbered once with its number, and the old table is gone (a view of its name reads the pairs).
 */
async function checkPgTerms(url: string, docs: ReadonlyMap<string, SearchDoc>): Promise<void> {
  const pairs = await queryRows(url, `SELECT d.urn, v.field, v.value FROM almanac_search_values v JOIN almanac_search_docs d ON d.id = v.doc_id
    ORDER BY d.urn COLLATE "C", v.field, v.value`);
  assert.deepEqual(pairs, [...docs.values()].flatMap((d) => d.values.map(([f, v]) => [d.urn, f, v]))
    .sort((a, b) => (a.join('\0') < b.join('\0') ? -1 : 1)));
  const held = new Map<string, [string, string, number | null]>();
  for (const d of docs.values()) for (const [f, v] of d.values) held.set(`${f}\0${v}`, [f, v, numeric(v)]);
  const terms = await queryRows(url, `SELECT t.field, t.value, t.num FROM almanac_search_terms t
    WHERE EXISTS (SELECT 1 FROM almanac_search_term_docs p WHERE p.term = t.id) ORDER BY 1, 2`);
  assert.deepEqual(terms, [...held.keys()].sort().map((k) => held.get(k)!));
  assert.deepEqual(await queryRows(url, `SELECT COUNT(*)::int FROM (SELECT field, value FROM almanac_search_terms GROUP BY 1, 2 HAVING COUNT(*) > 1) x`), [[0]]);
  assert.deepEqual(await queryRows(url, `SELECT table_type FROM information_schema.tables WHERE table_name = 'almanac_search_values'`), [['VIEW']]);
}

forEachEngine('search filter values', (ctx) => {
  let store: Store;
  const docs = new Map<string, SearchDoc>();
  let cleanup = async () => {};
  // A database in a file (the checks below open it beside the store).
  before(async () => {
    ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl(ctx.engine));
    store = await storeFor(ctx);
  });
  after(async () => { await store?.close(); await cleanup(); });

  test('filters, facets and sorts by a field read what the documents last written hold, after rewrites and deletions', async () => {
    const r = rng(17);
    for (let round = 0; round < 6; round++) {
      // Single writes, batches (a document twice in one batch: the last wins), deletions.
      for (let k = 0; k < 40; k++) {
        const d = randomDoc(Math.floor(r() * 60), r);
        await store.upsertSearchDocs([d]);
        docs.set(d.urn, d);
      }
      const batch = Array.from({ length: 30 }, () => randomDoc(Math.floor(r() * 60), r));
      await store.upsertSearchDocs(batch);
      for (const d of batch) docs.set(d.urn, d);
      const gone = [...docs.keys()].filter(() => r() < 0.15);
      await store.deleteSearchDocs(gone);
      for (const u of gone) docs.delete(u);
      await compare(store, docs);
      if (ctx.engine === 'sqlite') checkTerms(ctx.url.slice('sqlite:'.length), docs);
      else await checkPgTerms(ctx.url, docs);
    }
    assert.ok(docs.size > 20, `documents to compare (${docs.size})`);
  });

  if (ctx.engine === 'postgres') {
    test('PostgreSQL: a database at migration 25 (one row a value, text and all), a bulk load interrupted, upgrades in place to the same answers', async () => {
      await store.close();
      // The filter values as migrations 5 to 25 left them, and the definitions a bulk load interrupted after dropping
      // the table's key and index kept to build them again (the key's and index's rows: both would fail on the view).
      const c = new pg.Client({ connectionString: ctx.url });
      await c.connect();
      try {
        await c.query(`CREATE TABLE old_values (field TEXT COLLATE "C" NOT NULL, value TEXT COLLATE "C" NOT NULL, doc_id BIGINT NOT NULL,
            num DOUBLE PRECISION, CONSTRAINT almanac_search_values_pkey PRIMARY KEY (field, value, doc_id));
          INSERT INTO old_values SELECT field, value, doc_id, num FROM almanac_search_values;
          DROP VIEW almanac_search_values; DROP TABLE almanac_search_term_docs; DROP TABLE almanac_search_terms;
          ALTER TABLE old_values RENAME TO almanac_search_values;
          CREATE INDEX almanac_search_values_doc ON almanac_search_values (doc_id, field, num);
          INSERT INTO almanac_settings (key, value) VALUES
            ('deferred-index:almanac_search_values_pkey', 'ALTER TABLE almanac_search_values ADD CONSTRAINT almanac_search_values_pkey PRIMARY KEY (field, value, doc_id)'),
            ('deferred-index:almanac_search_values_doc', 'CREATE INDEX almanac_search_values_doc ON public.almanac_search_values USING btree (doc_id, field, num)');
          DELETE FROM almanac_migrations WHERE version = 30`);
        assert.deepEqual((await c.query(`SELECT COUNT(*)::int AS n FROM almanac_search_values`)).rows,
          [{ n: [...docs.values()].reduce((n, d) => n + d.values.length, 0) }]);
      } finally {
        await c.end();
      }
      store = await storeFor(ctx);
      await checkPgTerms(ctx.url, docs);
      await compare(store, docs);
      assert.deepEqual(await queryRows(ctx.url, `SELECT key FROM almanac_settings WHERE key LIKE 'deferred-index:%'`), []);
      // And it goes on being written as a new database is.
      const r = rng(99);
      for (let k = 0; k < 40; k++) {
        const d = randomDoc(Math.floor(r() * 60), r);
        await store.upsertSearchDocs([d]);
        docs.set(d.urn, d);
      }
      await store.deleteSearchDocs([...docs.keys()].slice(0, 5));
      for (const u of [...docs.keys()].slice(0, 5)) docs.delete(u);
      await checkPgTerms(ctx.url, docs);
      await compare(store, docs);
    });
  }

  if (ctx.engine === 'sqlite') {
    test('SQLite: written while a bulk load has the index by term dropped, terms left without documents are gone once it is built again', async () => {
      const file = ctx.url.slice('sqlite:'.length);
      const restore = await store.deferIndexes!(1_000_000);
      assert.notEqual(restore, null, 'the indexes were deferred');
      const names = () => { const db = new Database(file, { readonly: true }); try { return db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'almanac_search_term_docs_term'`).pluck().all(); } finally { db.close(); } };
      assert.deepEqual(names(), []);
      // Documents given values of their own, then rewritten and deleted: their own terms lose their last document.
      const r = rng(5);
      for (let k = 0; k < 30; k++) {
        const d = { ...randomDoc(100 + k, r), removed: false };
        const own = { ...d, values: [...d.values.filter(([f]) => f !== 'shape'), ['shape', `only_${k}`] as [string, string]] };
        await store.upsertSearchDocs([own]);
        docs.set(own.urn, own);
        if (k % 3 === 0) {
          await store.upsertSearchDocs([d]);
          docs.set(d.urn, d);
        } else if (k % 3 === 1) {
          await store.deleteSearchDocs([d.urn]);
          docs.delete(d.urn);
        }
      }
      const during = new Database(file, { readonly: true });
      const orphans = during.prepare(`SELECT COUNT(*) FROM almanac_search_terms WHERE value LIKE 'only_%'`).pluck().get();
      during.close();
      assert.equal(orphans, 30, 'while the index is dropped, the 20 terms that lost their documents are kept with the 10 still held');
      await restore!();
      assert.deepEqual(names(), ['almanac_search_term_docs_term']);
      checkTerms(file, docs);
      await compare(store, docs);
    });

    test('SQLite: a database at migration 16 (one row a value, text and all) upgrades in place to the same answers', async () => {
      await store.close();
      const file = ctx.url.slice('sqlite:'.length);
      // The filter values as migration 16 left them: a table of (field, value, doc_id, num) and its doc_id index.
      const db = new Database(file);
      db.exec(`CREATE TABLE old_values (field TEXT NOT NULL, value TEXT NOT NULL, doc_id BIGINT NOT NULL, num REAL,
          PRIMARY KEY (field, value, doc_id)) WITHOUT ROWID;
        INSERT INTO old_values SELECT field, value, doc_id, num FROM almanac_search_values;
        DROP VIEW almanac_search_values; DROP TABLE almanac_search_term_docs; DROP TABLE almanac_search_terms;
        ALTER TABLE old_values RENAME TO almanac_search_values;
        CREATE INDEX almanac_search_values_doc ON almanac_search_values (doc_id, field, num);
        DELETE FROM almanac_migrations WHERE version IN (17, 25)`);
      assert.equal(db.prepare(`SELECT COUNT(*) FROM almanac_search_values`).pluck().get(),
        [...docs.values()].reduce((n, d) => n + d.values.length, 0));
      db.close();
      store = await storeFor(ctx);
      checkTerms(file, docs);
      await compare(store, docs);
      // And it goes on being written as a new database is.
      const r = rng(99);
      for (let k = 0; k < 40; k++) {
        const d = randomDoc(Math.floor(r() * 60), r);
        await store.upsertSearchDocs([d]);
        docs.set(d.urn, d);
      }
      checkTerms(file, docs);
      await compare(store, docs);
    });
  }
});
