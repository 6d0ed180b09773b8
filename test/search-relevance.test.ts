import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { batches, catalogProposals, rng, type Proposal } from '../bench/generate.js';
import { systemActor } from '../src/model/actor.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { nameKey, words } from '../src/services/search.js';
import { RANK_LIMIT, textWords } from '../src/storage/search-sql.js';
import type { SearchCondition, SearchDoc, Store } from '../src/storage/types.js';
import { forEachEngine, storeFor } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * Relevance at any size (issue 30): a document named exactly as the query comes first, then those whose name starts
 * with it (shortest first), then the rest by relevance — also when more documents match than RANK_LIMIT, where the
 * rest comes as the other name matches, then the text-only matches, each by BM25's static part (the shorter name, the
 * fewer words first), never by name alone. Checked against a brute-force order.
 */

const ds = (name: string, platform = 'hive') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;

/** A document as the search service builds one: name words, keys, sort name. */
function doc(urn: string, display: string, text: string, opts: { qualified?: string; removed?: boolean; entityType?: string } = {}): SearchDoc {
  const qualified = opts.qualified ?? display;
  return {
    urn, entityType: opts.entityType ?? 'dataset', removed: opts.removed ?? false,
    name: words(qualified === display ? display : `${qualified} ${display}`).join(' '), text: words(text).join(' '),
    sortName: display.toLowerCase(), nameKey: nameKey(display),
    ...(nameKey(qualified) !== nameKey(display) ? { qualifiedKey: nameKey(qualified) } : {}), values: [],
  };
}

/**
 * The order the rules give, by brute force: tiers exactly, then the other name matches (ranked, as a set; above
 * RANK_LIMIT by the length of the name), then the text-only matches by their number of words.
 */
function expected(docs: readonly SearchDoc[], terms: readonly string[], keep: (d: SearchDoc) => boolean, ranked: boolean) {
  const key = terms.join(' ');
  const hasAll = (ws: string[]) => terms.every((t) => ws.some((w) => w.startsWith(t)));
  const matches = docs.filter((d) => keep(d) && hasAll([...d.name.split(' '), ...d.text.split(' ')]));
  // Exact names, then exact urn names, by urn; then names starting with the query, shortest first, then by name
  // (the test's names of that tier are distinct: the engine's last tie-break, the order of indexing, is not needed).
  const tier = (d: SearchDoc) => (d.nameKey === key ? 0 : d.nameKey!.startsWith(key) ? 2 : d.qualifiedKey === key ? 1 : 3);
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const tiers = matches.filter((d) => tier(d) < 3).sort((a, b) => tier(a) - tier(b)
    || (tier(a) === 2 ? a.nameKey!.length - b.nameKey!.length || cmp(a.nameKey!, b.nameKey!) : cmp(a.urn, b.urn))).map((d) => d.urn);
  const rest = matches.filter((d) => tier(d) === 3);
  if (ranked) return { total: matches.length, tiers, named: rest.map((d) => d.urn), namedInOrder: false, textOnly: [] as string[] };
  // Ties by name, then in the order of indexing (the documents' order here).
  const order = new Map(docs.map((d, i) => [d, i]));
  const then = (a: SearchDoc, b: SearchDoc) => cmp(a.sortName, b.sortName) || order.get(a)! - order.get(b)!;
  // More name matches than RANK_LIMIT come by the length of the name (fewer are ranked: compared as a set).
  const named = rest.filter((d) => hasAll(d.name.split(' ')));
  if (named.length > RANK_LIMIT) named.sort((a, b) => a.nameKey!.length - b.nameKey!.length || then(a, b));
  // The text-only matches by their number of words, fewest first.
  const textOnly = rest.filter((d) => !hasAll(d.name.split(' '))).sort((a, b) => textWords(a) - textWords(b) || then(a, b));
  return { total: matches.length, tiers, named: named.map((d) => d.urn), namedInOrder: named.length > RANK_LIMIT, textOnly: textOnly.map((d) => d.urn) };
}

forEachEngine('search relevance (store)', (ctx) => {
  let store: Store;
  const docs: SearchDoc[] = [];
  const live: SearchCondition = { all: [{ column: 'removed', value: false }] };
  const datasetsOnly: SearchCondition = { all: [{ column: 'entityType', values: ['dataset'] }, { column: 'removed', value: false }] };

  before(async () => {
    store = await storeFor(ctx);
    // More documents than RANK_LIMIT mention payments; names are everything else, sorted to put them ahead alphabetically.
    for (let i = 0; i < RANK_LIMIT + 1_200; i++) {
      const noun = ['accounts', 'orders', 'ledger', 'invoices'][i % 4]!;
      // One in six names payments inside the name (not at its start): name matches outside the tiers.
      const display = i % 6 === 0 ? `a_${noun}_payments_${i}` : `a_${noun}_${i}`;
      docs.push(doc(ds(`db${i % 7}.sch.${display}`), display, `The ${noun} table, reconciled with payments daily.`,
        { qualified: `db${i % 7}.sch.${display}` }));
    }
    docs.push(
      doc(ds('payments'), 'payments', 'All payments.'),
      doc(ds('payments', 'snowflake'), 'Payments', 'Payments again, another platform: a second exact name.'),
      doc(ds('payments_daily'), 'payments_daily', 'Daily payments.'),
      doc(ds('payments_v2'), 'payments_v2', 'Payments, version two.'),
      doc(ds('PaymentsHistory'), 'PaymentsHistory', 'Every payment ever made.'),
      doc(ds('payments daily report'), 'payments daily report', 'A report.'),
      doc(ds('prod.finance.payments'), 'fin_pay', 'The finance payments table.', { qualified: 'prod.finance.payments' }),
      doc(ds('gone.payments'), 'payments', 'A removed payments table.', { removed: true }),
      doc(ds('calendar'), 'calendar', 'The schedule of loads.'),
      doc('urn:li:chart:(looker,payments)', 'payments', 'A chart of payments.', { entityType: 'chart' }),
    );
    // SQLite writes synchronously: yielding between batches lets the other engine's suite connect meanwhile.
    for (const b of batches(docs, 500)) {
      await store.upsertSearchDocs(b);
      await new Promise(setImmediate);
    }
  });
  after(async () => store.close());

  const page = async (terms: string[], where: SearchCondition, start: number, count: number) =>
    store.searchDocs({ terms, where, sort: { by: 'relevance' }, start, count });

  /** The whole order, and pages of it across the segments' borders, against the brute-force order. */
  async function check(terms: string[], where: SearchCondition, keep: (d: SearchDoc) => boolean) {
    const full = await page(terms, where, 0, 100_000);
    const want = expected(docs, terms, keep, full.total <= RANK_LIMIT);
    assert.equal(full.total, want.total, 'total');
    assert.equal(full.urns.length, want.total, 'every match listed once');
    assert.equal(new Set(full.urns).size, full.urns.length, 'no duplicates');
    const t = want.tiers.length;
    const n = want.named.length;
    assert.deepEqual(full.urns.slice(0, t), want.tiers, 'the name tiers first, in order');
    if (want.namedInOrder) assert.deepEqual(full.urns.slice(t, t + n), want.named, 'then the other name matches, shortest name first');
    else assert.deepEqual(full.urns.slice(t, t + n).sort(), [...want.named].sort(), 'then the other name matches');
    assert.deepEqual(full.urns.slice(t + n), want.textOnly, 'then the text-only matches, fewest words first');
    for (const [start, count] of [[0, 1], [0, 10], [t - 1, 3], [t, 5], [t + n - 2, 4], [t + n, 7], [want.total - 3, 10], [want.total, 5], [3, 2_000]]) {
      if (start! < 0) continue;
      const got = await page(terms, where, start!, count!);
      assert.deepEqual(got, { total: want.total, urns: full.urns.slice(start!, start! + count!) }, `page ${start}+${count}`);
    }
    return full;
  }

  test('above RANK_LIMIT: exact names, then prefixes, then other name matches, then text-only matches by length', async () => {
    const full = await check(['payments'], live, (d) => !d.removed);
    assert.ok(full.total > RANK_LIMIT, `more matches than RANK_LIMIT (${full.total})`);
    assert.deepEqual(full.urns.slice(0, 7), ['urn:li:chart:(looker,payments)', ds('payments'), ds('payments', 'snowflake'),
      ds('payments_v2'), ds('payments_daily'), ds('PaymentsHistory'), ds('payments daily report')]);
    const datasets = await check(['payments'], datasetsOnly, (d) => !d.removed && d.entityType === 'dataset');
    assert.deepEqual(datasets.urns.slice(0, 3), [ds('payments'), ds('payments', 'snowflake'), ds('payments_v2')]);
  });

  test('more name matches than RANK_LIMIT outside the tiers: shortest name first, then the text-only matches', async () => {
    // Every generated document's urn names its schema `sch`; one document says "schedule" in its text only.
    const full = await check(['sch'], live, (d) => !d.removed);
    assert.ok(full.total > RANK_LIMIT + 1, `more name matches than RANK_LIMIT (${full.total})`);
    assert.equal(full.urns[full.total - 1], ds('calendar'), 'the text-only match last');
  });

  test('several words and a qualified name find the exact name first', async () => {
    const two = await check(['payments', 'daily'], live, (d) => !d.removed);
    assert.deepEqual(two.urns.slice(0, 2), [ds('payments_daily'), ds('payments daily report')]);
    const qualified = await check(['prod', 'finance', 'payments'], live, (d) => !d.removed);
    assert.deepEqual(qualified.urns, [ds('prod.finance.payments')]);
    const generated = docs[1_234]!;
    const byName = await check(generated.nameKey!.split(' '), live, (d) => !d.removed);
    assert.equal(byName.urns[0], generated.urn);
    const byQualified = await check(generated.qualifiedKey!.split(' '), live, (d) => !d.removed);
    assert.equal(byQualified.urns[0], generated.urn);
  });

  test('below RANK_LIMIT: the name tiers, then the rest by relevance', async () => {
    const full = await check(['ledger'], live, (d) => !d.removed);
    assert.ok(full.total <= RANK_LIMIT, `ranked (${full.total})`);
    await check(['invoices', 'payments'], live, (d) => !d.removed);
  });
});

forEachEngine('search relevance (app)', (ctx) => {
  let t: TestApp;
  const names = new Map<string, string>();
  const PAYMENTS = 5_100;

  before(async () => {
    t = await startApp(ctx);
    // The benchmark's generated catalog, and many small datasets that all mention payments.
    const proposals: Proposal[] = [...catalogProposals({ datasets: 300, seed: 7 })];
    for (const p of proposals) if (p.entityType === 'dataset' && p.aspectName === 'datasetProperties') names.set(p.entityUrn, JSON.parse(p.aspect.value).name);
    for (const b of batches(proposals, 500)) await t.catalog.entities.ingest(b.map(changeFromProposal), systemActor());
    const small = (urn: string, name: string, description: string) => ({ urn, entityType: 'dataset', aspect: 'datasetProperties',
      changeType: 'UPSERT' as const, value: { name, description, customProperties: {}, tags: [] }, systemMetadata: null });
    const items = [small(ds('prod.billing.payments', 'postgres'), 'payments', 'Every payment.'),
      small(ds('prod.billing.payments_daily', 'postgres'), 'payments_daily', 'Payments per day.'),
      ...Array.from({ length: PAYMENTS }, (_, i) => small(ds(`prod.misc.aaa_${i}`, 'postgres'), `aaa_${i}`, `Table ${i}, which mentions payments.`))];
    for (const b of batches(items, 500)) await t.catalog.entities.ingest(b, systemActor());
  });
  after(async () => t.close());

  const gql = async (query: string, start = 0, count = 10) => {
    const res = await t.graphql(`query($q: String!, $s: Int, $c: Int) { searchAcrossEntities(input: { query: $q, start: $s, count: $c }) {
      start count total searchResults { entity { urn } } } }`, { q: query, s: start, c: count });
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const r = res.body.data.searchAcrossEntities;
    return { total: r.total as number, urns: r.searchResults.map((x: any) => x.entity.urn as string) };
  };
  const rest = async (input: string, start = 0, count = 10) => {
    const res = await t.app.inject({ method: 'POST', url: '/entities?action=search', headers: t.auth, payload: { entity: 'dataset', input, start, count } });
    assert.equal(res.statusCode, 200, res.body);
    const v = res.json().value;
    return { total: v.numEntities as number, urns: v.entities.map((e: any) => e.entity as string) };
  };

  test('the exact names of 100 random generated datasets each find that dataset first (GraphQL and REST)', async () => {
    const all = [...names].filter(([urn]) => urn.includes(',warehouse.'));
    const r = rng(30);
    const picked = Array.from({ length: 100 }, () => all[r.int(0, all.length - 1)]!);
    for (const [i, [urn, name]] of picked.entries()) {
      assert.equal((await gql(name)).urns[0], urn, `GraphQL "${name}"`);
      if (i % 10 === 0) assert.equal((await rest(name)).urns[0], urn, `REST "${name}"`);
    }
  });

  test('"payments" among thousands of datasets mentioning it: the dataset named so first, then its prefixes; pages agree', async () => {
    const first = await gql('payments', 0, 10);
    assert.ok(first.total > RANK_LIMIT, `more matches than RANK_LIMIT (${first.total})`);
    const prefixed = [...names].filter(([, n]) => n.startsWith('payments_')).map(([u, n]) => [u, nameKey(n)] as const);
    const tierOne = [[ds('prod.billing.payments_daily', 'postgres'), 'payments daily'] as const, ...prefixed]
      .sort((a, b) => a[1].length - b[1].length || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : a[0] < b[0] ? -1 : 1)).map(([u]) => u);
    const head = await gql('payments', 0, 1 + tierOne.length);
    assert.deepEqual(head.urns, [ds('prod.billing.payments', 'postgres'), ...tierOne]);
    assert.deepEqual((await rest('payments', 0, 3)).urns, head.urns.slice(0, 3));
    // Pages across the tiers' border and far into the text-only matches repeat and skip nothing.
    const pages: string[] = [];
    for (let start = 0; start < 600; start += 37) pages.push(...(await gql('payments', start, 37)).urns);
    const whole = await gql('payments', 0, 600);
    assert.deepEqual(pages.slice(0, 600), whole.urns);
    assert.equal(new Set(whole.urns).size, 600, 'no duplicates');
    assert.equal(whole.total, first.total, 'the total does not depend on the page');
  });
});
