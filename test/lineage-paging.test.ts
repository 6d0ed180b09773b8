import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { rng } from './support/random.js';
import { lineagePaging } from '../src/graphql/resolvers/lineage.js';

/**
 * searchAcrossLineage and scrollAcrossLineage over random graphs, against brute force: a breadth-first walk over the
 * edges the test wrote, every reached entity listed by the search service in its order (one search over all of them,
 * as a search of a list of urns orders them), sorted by degree, then paged; the degree facet counted by hand and the
 * other facets those of a search over the results. A query without words pages each degree on its own
 * (src/graphql/resolvers/lineage.ts, pageByDegree): every page of every answer is compared, with degree filters,
 * entity types, other filters, skipped facets, and after edges are added and removed.
 */

const PLATFORMS = ['hive', 'kafka', 'snowflake'];
const ds = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${PLATFORMS[i % 3]},db.t${i},PROD)`;
const FLOW = 'urn:li:dataFlow:(airflow,pipe,prod)';
const job = (i: number) => `urn:li:dataJob:(${FLOW},job${i})`;
const DATASETS = 36;
const JOBS = 3;

type Dir = 'UPSTREAM' | 'DOWNSTREAM';
/** upstream → downstream. */
type Edge = [string, string];

const SEARCH = `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { start count total
  searchResults { entity { urn } degree paths { path { urn } } matchedFields { name value } }
  facets { field aggregations { value count } } } }`;
const SCROLL = `query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { nextScrollId count total
  searchResults { entity { urn } degree paths { path { urn } } } facets { field aggregations { value count } } } }`;

forEachEngine('lineage paging', (ctx) => {
  let t: TestApp;
  const r = rng(20261128);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  /** Each dataset's upstream datasets (as written), each job's inputs and outputs. */
  const upstreams = new Map<string, Set<string>>();
  const jobs = new Map<string, { inputs: string[]; outputs: string[] }>();
  const removed = new Set<string>();

  const put = (urn: string, aspect: string, value: unknown) => t.put(urn, aspect, value);
  const writeUpstreams = (d: string) => put(d, 'upstreamLineage', { upstreams: [...upstreams.get(d)!].map((u) => ({ dataset: u, type: 'TRANSFORMED' })) });

  before(async () => {
    t = await startApp(ctx);
    await put(FLOW, 'dataFlowInfo', { name: 'pipe', customProperties: {} });
    for (let i = 0; i < DATASETS; i++) {
      await put(ds(i), 'datasetProperties', { name: `t${i}`, customProperties: {} });
      if (r() < 0.3) await put(ds(i), 'globalTags', { tags: [{ tag: pick(['urn:li:tag:Gold', 'urn:li:tag:Raw']) }] });
      upstreams.set(ds(i), new Set());
    }
    // Edges mostly from earlier to later datasets (a few back: cycles), so that walks reach several degrees.
    for (let i = 1; i < DATASETS; i++) {
      const n = Math.floor(r() * 3);
      for (let k = 0; k < n; k++) upstreams.get(ds(i))!.add(ds(r() < 0.9 ? Math.floor(r() * i) : Math.floor(r() * DATASETS)));
      upstreams.get(ds(i))!.delete(ds(i));
      if (upstreams.get(ds(i))!.size) await writeUpstreams(ds(i));
    }
    for (let j = 0; j < JOBS; j++) {
      const io = { inputs: [ds(Math.floor(r() * DATASETS))], outputs: [ds(Math.floor(r() * DATASETS))] };
      jobs.set(job(j), io);
      await put(job(j), 'dataJobInfo', { name: `job${j}`, type: 'COMMAND', customProperties: {} });
      await put(job(j), 'dataJobInputOutput', { inputDatasets: io.inputs, outputDatasets: io.outputs });
    }
    for (const i of [5, 17]) { removed.add(ds(i)); await put(ds(i), 'status', { removed: true }); }
  });
  after(async () => t.close());

  const edges = (): Edge[] => [
    ...[...upstreams].flatMap(([d, ups]) => [...ups].map((u): Edge => [u, d])),
    ...[...jobs].flatMap(([j, io]) => [...io.inputs.map((u): Edge => [u, j]), ...io.outputs.map((d): Edge => [j, d])]),
  ];

  /** Breadth-first, parents in urn order, each entity at its smallest degree by the first parent that reaches it. */
  function bruteForce(start: string, dir: Dir, maxHops: number) {
    const all = edges();
    const paths = new Map<string, string[]>([[start, [start]]]);
    const hits: { urn: string; degree: number; path: string[] }[] = [];
    let frontier = [start];
    for (let degree = 1; frontier.length && degree <= maxHops; degree++) {
      const next: string[] = [];
      for (const parent of [...frontier].sort()) {
        const others = all.filter((e) => (dir === 'DOWNSTREAM' ? e[0] : e[1]) === parent).map((e) => (dir === 'DOWNSTREAM' ? e[1] : e[0])).sort();
        for (const other of others) {
          if (paths.has(other)) continue;
          const path = [...paths.get(parent)!, other];
          paths.set(other, path);
          hits.push({ urn: other, degree, path });
          next.push(other);
        }
      }
      frontier = next;
    }
    return hits;
  }

  const bucket = (d: number) => (d === 1 ? '1' : d === 2 ? '2' : '3+');

  type Case = { start: string; dir: Dir; degrees?: string[]; flat: boolean; types?: string[]; tag?: boolean; query: string; skipFacets: boolean };

  /** The whole answer, by brute force, then paged. */
  async function expected(c: Case) {
    const maxHops = !c.flat || !c.degrees ? 1000 : c.degrees.includes('3+') ? 1000 : c.degrees.includes('2') ? 2 : c.degrees.includes('1') ? 1 : 1000;
    const hits = bruteForce(c.start, c.dir, maxHops);
    const byUrn = new Map(hits.map((h) => [h.urn, h]));
    const filters = c.tag ? [[{ field: 'tags', values: ['urn:li:tag:Gold'] }]] : [];
    const entityTypes = c.types?.map((x) => (x === 'DATASET' ? 'dataset' : 'dataJob'));
    const search = (urns: string[], facets: boolean) => t.catalog.search.search({ query: c.query, entityTypes, filters, urns, start: 0,
      count: Math.max(urns.length, 1), facets: facets ? undefined : [] });
    const whole = hits.length ? await search(hits.map((h) => h.urn), false) : null;
    const matching = whole?.urns ?? [];
    const matched = whole?.matchedFields ?? new Map();
    const counts = new Map(['1', '2', '3+'].map((v) => [v, 0]));
    for (const u of matching) { const b = bucket(byUrn.get(u)!.degree); counts.set(b, counts.get(b)! + 1); }
    const kept = c.degrees ? matching.filter((u) => c.degrees!.includes(bucket(byUrn.get(u)!.degree))) : matching;
    const rank = new Map(kept.map((u, i) => [u, i]));
    const ordered = [...kept].sort((a, b) => byUrn.get(a)!.degree - byUrn.get(b)!.degree || rank.get(a)! - rank.get(b)!);
    let facets: { field: string; aggregations: { value: string; count: number }[] }[] = [];
    if (!c.skipFacets) {
      const facetUrns = c.degrees ? kept : hits.map((h) => h.urn);
      const res = facetUrns.length ? (await search(facetUrns, true)).facets : [];
      facets = [{ field: 'degree', aggregations: ['1', '2', '3+'].map((v) => ({ value: v, count: counts.get(v)! })) },
        ...res.map((f) => ({ field: f.field, aggregations: f.aggregations.map((a) => ({ value: a.value, count: a.count })) }))];
    }
    return { ordered, byUrn, facets, matched };
  }

  function input(c: Case) {
    const degree = c.degrees ? [{ field: 'degree', values: c.degrees }] : [];
    const tag = c.tag ? [{ field: 'tags', values: ['urn:li:tag:Gold'] }] : [];
    return { urn: c.start, direction: c.dir, query: c.query, ...(c.types ? { types: c.types } : {}),
      ...(c.flat ? { filters: [...degree, ...tag] } : { orFilters: [{ and: [...degree, ...tag] }] }),
      ...(c.skipFacets ? { searchFlags: { skipAggregates: true } } : {}) };
  }

  async function check(c: Case, label: string) {
    const want = await expected(c);
    const resultOf = (u: string) => ({ entity: { urn: u }, degree: want.byUrn.get(u)!.degree,
      paths: [{ path: want.byUrn.get(u)!.path.map((p) => ({ urn: p })) }] });
    const total = want.ordered.length;
    for (const count of [1, 3, 10]) {
      for (let start = 0; start <= total + 1; start += count) {
        const res = await t.graphql(SEARCH, { input: { ...input(c), start, count } });
        assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
        const page = want.ordered.slice(start, start + count);
        assert.deepEqual(res.body.data.searchAcrossLineage, { start, count: page.length, total, facets: want.facets,
          searchResults: page.map((u) => ({ ...resultOf(u),
            matchedFields: (want.matched.get(u) ?? []).map((m: { name: string; value: string }) => ({ name: m.name, value: m.value })) })) },
        `${label}: start ${start}, count ${count}`);
      }
    }
    // Scrolling through it all, three at a time.
    let scrollId: string | null = null;
    const seen: string[] = [];
    do {
      const res = await t.graphql(SCROLL, { input: { ...input({ ...c, flat: false }), count: 3, ...(scrollId ? { scrollId } : {}) } });
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      seen.push(...res.body.data.scrollAcrossLineage.searchResults.map((x: { entity: { urn: string } }) => x.entity.urn));
      scrollId = res.body.data.scrollAcrossLineage.nextScrollId;
    } while (scrollId);
    const scrolled = await expected({ ...c, flat: false });
    assert.deepEqual(seen, scrolled.ordered, `${label}: scrolled`);
  }

  const DEGREES = [undefined, ['1'], ['2'], ['1', '2'], ['3+'], ['1', '3+'], ['2', '3+'], ['1', '2', '3+']];

  async function randomCases(n: number, label: string) {
    for (let k = 0; k < n; k++) {
      const c: Case = { start: r() < 0.85 ? ds(Math.floor(r() * DATASETS)) : job(Math.floor(r() * JOBS)), dir: pick(['UPSTREAM', 'DOWNSTREAM'] as const),
        degrees: pick(DEGREES), flat: r() < 0.5, types: r() < 0.2 ? pick([['DATASET'], ['DATA_JOB']]) : undefined, tag: r() < 0.2,
        query: r() < 0.8 ? '*' : pick(['t1', 'job']), skipFacets: r() < 0.2 };
      await check(c, `${label} #${k} ${JSON.stringify(c)}`);
    }
  }

  // Every entity count paged by degree, then none (every match listed and sorted).
  const byDegreeFrom = lineagePaging.byDegreeFrom;
  after(() => { lineagePaging.byDegreeFrom = byDegreeFrom; });

  test('every page of random lineage searches is brute force paged', async () => {
    lineagePaging.byDegreeFrom = 0;
    await randomCases(24, 'random');
  });

  test('every page of random lineage searches is brute force paged, listing every match', async () => {
    lineagePaging.byDegreeFrom = Infinity;
    await randomCases(8, 'random, listed');
  });

  test('after edges are added and removed (read-your-writes), the pages follow', async () => {
    lineagePaging.byDegreeFrom = 0;
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 6; k++) {
        const d = ds(1 + Math.floor(r() * (DATASETS - 1)));
        const ups = upstreams.get(d)!;
        if (ups.size && r() < 0.5) ups.delete(pick([...ups]));
        else ups.add(ds(Math.floor(r() * DATASETS)));
        ups.delete(d);
        await writeUpstreams(d);
      }
      await randomCases(6, `round ${round}`);
    }
  });
});
