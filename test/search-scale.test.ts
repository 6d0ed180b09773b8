import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batches, rng } from '../bench/generate.js';
import { systemActor } from '../src/model/actor.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { nameKey, type SearchRequest } from '../src/services/search.js';
import { FTS_WORDS_FUNCTION } from '../src/storage/schema.js';
import { RANK_LIMIT } from '../src/storage/search-sql.js';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine } from './support/engines.js';

/**
 * Search over a catalog larger than RANK_LIMIT (issue 30), through the search service, against what the generated
 * catalog says by construction: exact names found first among thousands of names sharing their words, prefix names
 * right after, facet counts equal to counts over the generated datasets for each query shape, pages that neither
 * repeat nor skip, and (PostgreSQL) the words' B-tree equal to the text index after rewrites and deletions.
 */

const DATASETS = RANK_LIMIT + 1_000;
const NOUNS = ['payments', 'orders', 'customers', 'events', 'sessions', 'invoices', 'refunds', 'clicks'];
const QUALIFIERS = ['daily', 'eu', 'us', 'raw', 'clean', 'agg', 'hourly', 'v2'];
const PLATFORMS = ['hive', 'kafka', 'snowflake', 'mysql'];
const TAGS = Array.from({ length: 12 }, (_, i) => `urn:li:tag:t${i}`);

interface Generated { urn: string; name: string; platform: string; tags: string[]; view: boolean; quarterly: boolean; rare: boolean }

/** Names share their words: `orders_eu`, `orders_eu_17`, `eu_orders_17`…; each name is one dataset's. */
function generate(): Generated[] {
  const r = rng(30);
  const out: Generated[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < DATASETS; i++) {
    const noun = NOUNS[r.int(0, NOUNS.length - 1)]!;
    const qualifier = QUALIFIERS[r.int(0, QUALIFIERS.length - 1)]!;
    const shape = r.int(0, 3);
    const name = shape === 0 ? `${noun}_${qualifier}` : shape === 1 ? `${noun}_${qualifier}_${i}` : shape === 2 ? `${qualifier}_${noun}_${i}` : `${noun}${i}`;
    if (seen.has(nameKey(name))) continue;
    seen.add(nameKey(name));
    const platform = PLATFORMS[i % PLATFORMS.length]!;
    const tags = [...new Set([TAGS[r.int(0, TAGS.length - 1)]!, ...(r.int(0, 2) === 0 ? [TAGS[r.int(0, TAGS.length - 1)]!] : [])])];
    out.push({ urn: `urn:li:dataset:(urn:li:dataPlatform:${platform},db${i % 9}.sch.${name},PROD)`, name, platform: `urn:li:dataPlatform:${platform}`,
      tags, view: r.int(0, 4) === 0, quarterly: r.int(0, 19) === 0, rare: i === 4_321 });
  }
  // The dataset named exactly as the word every dataset mentions.
  out.push({ urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,prod.billing.payments,PROD)', name: 'payments', platform: 'urn:li:dataPlatform:hive',
    tags: [TAGS[0]!], view: false, quarterly: false, rare: false });
  return out;
}

function items(d: Generated): ChangeItem[] {
  const item = (aspect: string, value: unknown): ChangeItem => ({ urn: d.urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null });
  // Every description mentions payments and "everywhere"; one in twenty "quarterly"; one dataset "zyzzyva".
  const words = ['Reconciled with payments', 'everywhere', ...(d.quarterly ? ['quarterly'] : []), ...(d.rare ? ['zyzzyva'] : [])];
  return [
    item('datasetProperties', { name: d.name, description: `${words.join(' ')}.`, customProperties: {}, tags: [] }),
    item('globalTags', { tags: d.tags.map((tag) => ({ tag })) }),
    item('subTypes', { typeNames: [d.view ? 'View' : 'Table'] }),
  ];
}

forEachEngine('search at scale (service)', (ctx) => {
  let t: TestApp;
  const data = generate();

  before(async () => {
    t = await startApp(ctx);
    for (const b of batches(data.flatMap(items), 1_500)) await t.catalog.entities.ingest(b, systemActor());
  });
  after(async () => t.close());

  const search = (req: SearchRequest) => t.catalog.search.search({ facets: [], ...req });

  test('the exact names of 100 random datasets each find that dataset first, the names starting with it next, shortest first', async () => {
    const r = rng(7);
    for (let k = 0; k < 100; k++) {
      const d = data[r.int(0, data.length - 2)]!;
      const key = nameKey(d.name);
      const prefixed = data.filter((x) => x !== d && nameKey(x.name).startsWith(key)).map((x) => ({ urn: x.urn, key: nameKey(x.name) }))
        .sort((a, b) => a.key.length - b.key.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      const found = await search({ query: d.name, count: 1 + Math.min(prefixed.length, 20) });
      assert.equal(found.urns[0], d.urn, `"${d.name}" (${found.total} matches)`);
      assert.deepEqual(found.urns.slice(1), prefixed.slice(0, 20).map((x) => x.urn), `"${d.name}": the names starting with it next`);
    }
  });

  test('"payments", mentioned by every dataset: the dataset named so first, then the names starting with it', async () => {
    const found = await search({ query: 'payments', count: 5 });
    assert.equal(found.total, data.length);
    assert.ok(found.total > RANK_LIMIT, `more matches than RANK_LIMIT (${found.total})`);
    const prefixed = data.filter((x) => x.name !== 'payments' && nameKey(x.name).startsWith('payments'))
      .sort((a, b) => nameKey(a.name).length - nameKey(b.name).length || (nameKey(a.name) < nameKey(b.name) ? -1 : 1));
    assert.deepEqual(found.urns, [data[data.length - 1]!.urn, ...prefixed.slice(0, 4).map((x) => x.urn)]);
  });

  test('facet counts equal counts over the generated datasets, for every query shape', async () => {
    const named = (w: string) => (d: Generated) => d.name.split('_').some((x) => x.startsWith(w));
    const shapes: { query: string; text: (d: Generated) => boolean; clauses?: { field: string; values: string[] }[] }[] = [
      { query: '*', text: () => true },
      { query: 'everywhere', text: () => true },
      { query: 'quarterly', text: (d) => d.quarterly },
      { query: 'zyzzyva', text: (d) => d.rare },
      { query: 'orders', text: named('orders') },
      { query: '*', text: () => true, clauses: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }, { field: 'tags', values: [TAGS[3]!] }] },
      { query: 'everywhere', text: () => true, clauses: [{ field: 'typeNames', values: ['View'] }] },
      { query: 'orders', text: named('orders'), clauses: [{ field: 'platform', values: ['urn:li:dataPlatform:kafka', 'urn:li:dataPlatform:mysql'] }] },
    ];
    const valuesOf = (d: Generated, field: string) =>
      field === 'platform' ? [d.platform] : field === 'tags' ? d.tags : field === 'typeNames' ? [d.view ? 'View' : 'Table'] : ['DATASET'];
    const facets = ['platform', 'tags', 'typeNames', '_entityType'];
    for (const { query, text, clauses = [] } of shapes) {
      const what = `${query} ${JSON.stringify(clauses)}`;
      const got = await t.catalog.search.search({ query, filters: clauses.length ? [clauses] : [], count: 0, facets });
      // A facet's own clauses do not narrow its counts (as in DataHub): each counted over the other clauses' matches.
      const over = (skip?: string) => data.filter((d) => text(d) && clauses.every((c) => c.field === skip || c.values.some((v) => valuesOf(d, c.field).includes(v))));
      assert.equal(got.total, over().length, `${what}: total`);
      for (const field of facets) {
        const n = new Map<string, number>();
        for (const d of over(field)) for (const v of valuesOf(d, field)) n.set(v, (n.get(v) ?? 0) + 1);
        const want = [...n].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([value, count]) => ({ value, count }));
        const gotCounts = (got.facets.find((f) => f.field === field)?.aggregations ?? []).map((a) => ({ value: a.value, count: a.count }));
        assert.deepEqual(gotCounts, want, `${what}: facet ${field}`);
      }
    }
  });

  test('pages of a search matching every dataset neither repeat nor skip, and agree with one whole page', async () => {
    for (const query of ['everywhere', 'payments', 'orders']) {
      const whole = await search({ query, count: 10_000 });
      assert.equal(whole.urns.length, whole.total, `${query}: every match listed`);
      assert.equal(new Set(whole.urns).size, whole.total, `${query}: no duplicates`);
      const pages: string[] = [];
      for (let start = 0; start < whole.total; start += 613) {
        const page = await search({ query, start, count: 613 });
        assert.equal(page.total, whole.total, `${query}: the total does not depend on the page`);
        pages.push(...page.urns);
      }
      assert.deepEqual(pages, whole.urns, `${query}: pages in order`);
      if (query === 'everywhere') assert.deepEqual(new Set(whole.urns), new Set(data.map((d) => d.urn)));
    }
  });

  test('pages tested against the facet index\'s match set are the pages the text index matches in SQL, in every order', async () => {
    const facets = (t.catalog.store as unknown as { facets: { matchSet: (...a: unknown[]) => Promise<unknown> } }).facets;
    const fromSet = facets.matchSet;
    const requests: SearchRequest[] = [];
    // `sch` is in every name (the urn's `db3.sch.…`): its name matches are walked; `payments d` pages text-only matches (walked) after name matches beyond the tiers.
    for (const query of ['everywhere', 'payments', 'orders', 'orders eu', 'quarterly', 'zyzzyva', 'eu', 'sch', 'sch everywhere', 'payments d']) {
      for (const sort of [undefined, { field: 'name' }, { field: 'name', order: 'DESCENDING' }]) {
        for (const start of [0, 37, 2_000, DATASETS - 20]) requests.push({ query, start, count: 25, ...(sort ? { sort } : {}) });
      }
      requests.push({ query, filters: [[{ field: 'platform', values: ['urn:li:dataPlatform:kafka'] }]], count: 30 });
    }
    const answers = async () => Promise.all(requests.map(async (r) => {
      const { total, urns } = await t.catalog.search.search({ ...r, facets: ['platform'] });
      return { total, urns };
    }));
    const withSet = await answers();
    assert.ok(withSet.some((a) => a.total > DATASETS / 2), 'some queries match most datasets (their pages walk an index)');
    // The same searches with no match set at hand: every page matched by the text index again.
    facets.matchSet = async () => null;
    try {
      const inSql = await answers();
      requests.forEach((r, i) => assert.deepEqual(withSet[i], inSql[i], JSON.stringify(r)));
    } finally {
      facets.matchSet = fromSet;
    }
  });

  test('the number of words a document is written with is what migration 15 counts from the text index', async () => {
    const store = t.catalog.store as unknown as { query?(sql: string): Promise<{ rows: Record<string, unknown>[] }>; db?: { prepare(sql: string): { all(): Record<string, unknown>[] } } };
    const sql = ctx.engine === 'postgres'
      ? `SELECT COUNT(*) AS n, COUNT(*) FILTER (WHERE d.text_words = (SELECT COALESCE(SUM(COALESCE(array_length(x.positions, 1), 1)), 0) FROM unnest(t.tsv) x)) AS same
          FROM almanac_search_docs d JOIN almanac_search_text t ON t.doc_id = d.id`
      : `SELECT COUNT(*) AS n, SUM(d.text_words = ${FTS_WORDS_FUNCTION}(s.sz)) AS same FROM almanac_search_docs d JOIN almanac_search_fts_docsize s ON s.id = d.id`;
    const [row] = ctx.engine === 'postgres' ? (await store.query!(sql)).rows : store.db!.prepare(sql).all();
    assert.ok(Number(row!.n) > DATASETS, 'every document counted');
    assert.equal(Number(row!.same), Number(row!.n));
  });

  // PostgreSQL only: SQLite matches words in FTS5, which has no word table of its own to follow.
  if (ctx.engine === 'postgres') test('the words index follows the text index through rewrites, deletions and truncation (PostgreSQL)', async () => {
    const changed = data.slice(0, 200);
    for (const d of changed) d.rare = true;
    await t.catalog.entities.ingest(changed.flatMap(items), systemActor());
    await t.catalog.entities.ingest(data.slice(200, 210).map((d) => ({ urn: d.urn, entityType: 'dataset', aspect: 'datasetProperties', changeType: 'DELETE',
      value: null, systemMetadata: null })), systemActor());
    const store = t.catalog.store as unknown as { query(sql: string): Promise<{ rows: { n: string }[] }> };
    const diff = async (sql: string) => Number((await store.query(sql)).rows[0]!.n);
    const fromText = `SELECT x.word, t.doc_id FROM almanac_search_text t CROSS JOIN unnest(tsvector_to_array(t.tsv)) AS x(word)`;
    assert.equal(await diff(`SELECT COUNT(*) AS n FROM (${fromText} EXCEPT SELECT word, doc_id FROM almanac_search_words) x`), 0, 'no word missing');
    assert.equal(await diff(`SELECT COUNT(*) AS n FROM (SELECT word, doc_id FROM almanac_search_words EXCEPT ${fromText}) x`), 0, 'no word left over');
    assert.equal((await search({ query: 'zyzzyva', count: 0 })).total, 201);
    // Emptied with the text table (as a rebuild of the index would): nothing left behind.
    await store.query('TRUNCATE almanac_search_text');
    assert.equal(await diff('SELECT COUNT(*) AS n FROM almanac_search_words'), 0, 'emptied with the text table');
  });
});
