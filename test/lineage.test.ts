import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { buildSchema, print, validate } from 'graphql';
import { schemaSdl } from '../src/graphql/schema.js';
import { migrations } from '../src/storage/schema.js';
import { DEFAULT_MAX_HOPS, edgeInWindow, lineageRegistry, type LineageHit } from '../src/services/lineage.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappDocument, webappOperations } from './support/webapp.js';

// ---------------------------------------------------------------------------------------------------------------
// The fixture: a lineage graph of six hops with a cycle, through a data job, on three platforms.
//
//   K (kafka) → A (hive) → B (hive) → J (job) → C (snowflake) → D (snowflake) → E (snowflake) → A (the cycle)
//                            ↘ X (hive, soft-deleted)   ↘ J2 (job)   ↘ DB (dashboard) ↘ CH (chart) → DB
//                                                                    ↘ F1 (ML feature)

const ds = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const field = (dataset: string, fieldPath: string) => `urn:li:schemaField:(${dataset},${fieldPath})`;
const K = ds('kafka', 'events.raw');
const A = ds('hive', 'lake.raw_events');
const B = ds('hive', 'lake.clean_events');
const X = ds('hive', 'lake.tmp_events');
const C = ds('snowflake', 'dw.agg_events');
const D = ds('snowflake', 'dw.events_report');
const E = ds('snowflake', 'dw.events_archive');
const FLOW = 'urn:li:dataFlow:(airflow,events_pipeline,prod)';
const J = `urn:li:dataJob:(${FLOW},aggregate)`;
const J2 = `urn:li:dataJob:(${FLOW},publish)`;
const CH = 'urn:li:chart:(looker,events_chart)';
const DB = 'urn:li:dashboard:(looker,events_dashboard)';
const F1 = 'urn:li:mlFeature:(events,event_count)';
const ALICE = 'urn:li:corpuser:alice';
const BOB = 'urn:li:corpuser:bob';
const CAROL = 'urn:li:corpuser:carol';
const UNKNOWN = 'urn:li:corpuser:unknown';

const stamp = (time: number, actor: string) => ({ time, actor });
const changeStamps = { created: stamp(0, UNKNOWN), lastModified: stamp(0, UNKNOWN) };

/** [urn, aspect name, value]: what the test ingests, through the REST API. */
const FIXTURE: [string, string, object][] = [
  ...[K, A, B, X, C, D, E].map((u): [string, string, object] => [u, 'datasetProperties', { name: u.split(',')[1], customProperties: {} }]),
  [A, 'upstreamLineage', { upstreams: [
    { dataset: K, type: 'TRANSFORMED', created: stamp(1000, ALICE), auditStamp: stamp(2000, BOB) },
    { dataset: E, type: 'COPY', auditStamp: stamp(0, UNKNOWN) },
  ] }],
  [B, 'upstreamLineage', {
    upstreams: [{ dataset: A, type: 'TRANSFORMED', auditStamp: stamp(0, UNKNOWN) }],
    fineGrainedLineages: [
      { upstreamType: 'FIELD_SET', upstreams: [field(A, 'id')], downstreamType: 'FIELD', downstreams: [field(B, 'id')] },
      { upstreamType: 'DATASET', upstreams: [A], downstreamType: 'FIELD_SET', downstreams: [field(B, 'ts'), field(B, 'id')],
        transformOperation: 'COPY' },
    ],
  }],
  [X, 'upstreamLineage', { upstreams: [{ dataset: B, type: 'COPY', created: stamp(9000, ALICE), auditStamp: stamp(9000, ALICE) }] }],
  [X, 'status', { removed: true }],
  [FLOW, 'dataFlowInfo', { name: 'events_pipeline', customProperties: {} }],
  [J, 'dataJobInfo', { name: 'aggregate', type: 'COMMAND', customProperties: {} }],
  [J, 'dataJobInputOutput', {
    inputDatasets: [], outputDatasets: [],
    inputDatasetEdges: [{ destinationUrn: B, created: stamp(3000, ALICE), lastModified: stamp(4000, BOB) }],
    outputDatasetEdges: [{ destinationUrn: C }],
    fineGrainedLineages: [{ upstreamType: 'FIELD_SET', upstreams: [field(B, 'id')], downstreamType: 'FIELD', downstreams: [field(C, 'id')] }],
  }],
  [J2, 'dataJobInfo', { name: 'publish', type: 'COMMAND', customProperties: {} }],
  [J2, 'dataJobInputOutput', { inputDatasets: [], outputDatasets: [],
    inputDatajobEdges: [{ destinationUrn: J, created: stamp(5000, ALICE), lastModified: stamp(5500, ALICE) }] }],
  [D, 'upstreamLineage', { upstreams: [
    { dataset: C, type: 'TRANSFORMED', created: stamp(500, CAROL), auditStamp: stamp(500, CAROL), properties: { source: 'UI' } },
  ] }],
  [E, 'upstreamLineage', { upstreams: [{ dataset: D, type: 'COPY', created: stamp(7000, ALICE), auditStamp: stamp(8000, BOB) }] }],
  [CH, 'chartInfo', { title: 'Events', description: 'events per day', lastModified: changeStamps,
    inputEdges: [{ destinationUrn: D, created: stamp(6000, ALICE) }] }],
  [CH, 'inputFields', { fields: [{ schemaFieldUrn: field(D, 'total'), schemaField: { fieldPath: 'total', nativeDataType: 'int',
    type: { type: { 'com.linkedin.schema.NumberType': {} } }, nullable: false, recursive: false, isPartOfKey: false } }] }],
  [DB, 'dashboardInfo', { title: 'Events dashboard', description: '', lastModified: changeStamps, charts: [CH], datasets: [C] }],
  [F1, 'mlFeatureProperties', { sources: [C] }],
];

/**
 * The same graph written out by hand, upstream → downstream, with each edge's stamps as DataHub 0.12.1 derives
 * them (upstreams: created and auditStamp; Edge records: created and lastModified; a time of 0 is no time).
 */
interface FixtureEdge { up: string; down: string; type: string; createdOn?: number; createdActor?: string; updatedOn?: number;
  updatedActor?: string; manual?: boolean }
const EDGES: FixtureEdge[] = [
  { up: K, down: A, type: 'DownstreamOf', createdOn: 1000, createdActor: ALICE, updatedOn: 2000, updatedActor: BOB },
  { up: E, down: A, type: 'DownstreamOf', updatedActor: UNKNOWN },
  { up: A, down: B, type: 'DownstreamOf', updatedActor: UNKNOWN },
  { up: B, down: X, type: 'DownstreamOf', createdOn: 9000, createdActor: ALICE, updatedOn: 9000, updatedActor: ALICE },
  { up: B, down: J, type: 'Consumes', createdOn: 3000, createdActor: ALICE, updatedOn: 4000, updatedActor: BOB },
  { up: J, down: C, type: 'Produces' },
  { up: J, down: J2, type: 'DownstreamOf', createdOn: 5000, createdActor: ALICE, updatedOn: 5500, updatedActor: ALICE },
  { up: C, down: D, type: 'DownstreamOf', createdOn: 500, createdActor: CAROL, updatedOn: 500, updatedActor: CAROL, manual: true },
  { up: D, down: E, type: 'DownstreamOf', createdOn: 7000, createdActor: ALICE, updatedOn: 8000, updatedActor: BOB },
  { up: D, down: CH, type: 'Consumes', createdOn: 6000, createdActor: ALICE },
  { up: CH, down: DB, type: 'Contains' },
  { up: C, down: DB, type: 'Consumes' },
  { up: C, down: F1, type: 'DerivedFrom' },
];
const REMOVED = new Set([X]);
const TYPE_OF: Record<string, string> = { dataset: 'DATASET', dataJob: 'DATA_JOB', chart: 'CHART', dashboard: 'DASHBOARD',
  mlFeature: 'MLFEATURE', dataFlow: 'DATA_FLOW' };
const typeOf = (u: string) => TYPE_OF[u.split(':')[2]!]!;

type Dir = 'UPSTREAM' | 'DOWNSTREAM';
type Window = { start: number; end: number } | undefined;

/** The DataHub 0.12.1 rule, written out again: a point of the edge in the window, or no points, or manual. */
function counts(e: FixtureEdge, w: Window): boolean {
  if (!w || e.manual) return true;
  if (!e.createdOn && !e.updatedOn) return true;
  const inside = (t?: number) => !!t && t >= w.start && t <= w.end;
  return inside(e.createdOn) || inside(e.updatedOn);
}

/** One step from `u`: [neighbour, edge], by the hand-written edges. */
function step(u: string, dir: Dir, w: Window): [string, FixtureEdge][] {
  return EDGES.filter((e) => (dir === 'DOWNSTREAM' ? e.up : e.down) === u && counts(e, w))
    .map((e) => [dir === 'DOWNSTREAM' ? e.down : e.up, e]);
}

interface Expected { urn: string; degree: number; edge: FixtureEdge; path: string[] }

/** Brute force: breadth-first over the hand-written edges, parents tried in urn order, at most `maxHops`. */
function bruteForce(start: string, dir: Dir, w?: Window, maxHops = Infinity): Expected[] {
  const reached = new Map<string, Expected>();
  const paths = new Map<string, string[]>([[start, [start]]]);
  let frontier = [start];
  for (let degree = 1; frontier.length && degree <= maxHops; degree++) {
    const next: string[] = [];
    for (const parent of [...frontier].sort()) {
      for (const [other, edge] of step(parent, dir, w).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
        if (paths.has(other)) continue;
        const p = [...paths.get(parent)!, other];
        paths.set(other, p);
        reached.set(other, { urn: other, degree, edge, path: p });
        next.push(other);
      }
    }
    frontier = next;
  }
  return [...reached.values()].sort((a, b) => a.degree - b.degree || (a.urn < b.urn ? -1 : a.urn > b.urn ? 1 : 0));
}

const actor = (u?: string) => (u ? { urn: u } : null);
function relationship(other: string, e: FixtureEdge) {
  return { type: e.type, degree: 1, createdOn: e.createdOn ?? null, createdActor: actor(e.createdActor), updatedOn: e.updatedOn ?? null,
    updatedActor: actor(e.updatedActor), isManual: !!e.manual, entity: { urn: other, type: typeOf(other) } };
}

/** What `lineage(input:)` must answer: the direct neighbours in urn order. */
function oneHop(u: string, dir: Dir, w?: Window) {
  const rels = bruteForce(u, dir, w, 1).sort((a, b) => (a.urn < b.urn ? -1 : 1)).map((h) => relationship(h.urn, h.edge));
  return { start: 0, count: rels.length, total: rels.length, filtered: 0, relationships: rels };
}

const bucket = (d: number) => (d === 1 ? '1' : d === 2 ? '2' : '3+');
function degreeFacet(hits: Expected[]) {
  return { field: 'degree', displayName: 'Degree of Dependencies',
    aggregations: ['1', '2', '3+'].map((v) => ({ value: v, count: hits.filter((h) => bucket(h.degree) === v).length })) };
}

// ---------------------------------------------------------------------------------------------------------------
// The web app's documents

/**
 * Gaps of Almanac's schema outside lineage that the web app's lineage documents also touch (fields of other areas);
 * none of them may concern lineage. The list may only shrink.
 */
const OTHER_AREAS_GAPS = [
  /^Cannot query field "(health|uri|assertions|access|aspects|runs)" on type "Dataset"\./,
  /^Cannot query field "canEditEmbed" on type "EntityPrivileges"\./,
  /^Cannot query field "rawSchema" on type "GlossaryTermProperties"\./,
  /^Unknown type "(Access|Role)"\./,
  // Container.platform is nullable in Almanac, DataHub 0.12.1 says DataPlatform!.
  /^Fields "platform" conflict because they return conflicting types "DataPlatform!?" and "DataPlatform!?"\./,
];

// ---------------------------------------------------------------------------------------------------------------

test('the lineage model: each annotation gives its source one direction and its destination the other', () => {
  const reg = lineageRegistry();
  const specs = (t: string, d: Dir) => (reg.get(t)?.[d] ?? []).map((s) => `${s.direction} ${s.type} ${[...s.others].sort().join('|')}`).sort();
  assert.deepEqual(specs('dataset', 'UPSTREAM'), ['INCOMING Produces dataJob', 'OUTGOING DownstreamOf dataset']);
  assert.deepEqual(specs('dataset', 'DOWNSTREAM'), ['INCOMING Consumes chart|dashboard|dataJob|dataProcess', 'INCOMING DerivedFrom mlFeature|mlPrimaryKey',
    'INCOMING DownstreamOf dataset']);
  assert.deepEqual(specs('dataJob', 'UPSTREAM'), ['INCOMING UsedBy mlModel', 'OUTGOING Consumes dataset', 'OUTGOING DownstreamOf dataJob']);
  assert.deepEqual(specs('dataJob', 'DOWNSTREAM'), ['INCOMING DownstreamOf dataJob', 'INCOMING TrainedBy mlModel', 'OUTGOING Produces dataset']);
  assert.deepEqual(specs('chart', 'DOWNSTREAM'), ['INCOMING Contains dashboard']);
  assert.deepEqual(specs('mlModelGroup', 'UPSTREAM'), ['INCOMING MemberOf mlModel']);
  assert.equal(reg.get('dataFlow'), undefined, 'flows take no part in lineage (their jobs do)');
  assert.equal(reg.get('dataProcessInstance'), undefined, 'nor do runs, in DataHub 0.12.1');
  assert.equal(DEFAULT_MAX_HOPS, 1000);
});

test('the time window: a stamp inside it, no stamps, or a manual edge', () => {
  const e = (createdOn?: number, updatedOn?: number, manual?: boolean) => ({ source: K, type: 'DownstreamOf', destination: A, createdOn, updatedOn, manual });
  const w = { startTimeMillis: 100, endTimeMillis: 200 };
  assert.equal(edgeInWindow(e(150, 300), w), true);
  assert.equal(edgeInWindow(e(50, 150), w), true);
  assert.equal(edgeInWindow(e(50, 300), w), false, 'spanning the window without a stamp inside it: out, as DataHub 0.12.1 decides');
  assert.equal(edgeInWindow(e(300, 400), w), false);
  assert.equal(edgeInWindow(e(), w), true);
  assert.equal(edgeInWindow(e(0, 0), w), true);
  assert.equal(edgeInWindow(e(300, 400, true), w), true);
  assert.equal(edgeInWindow(e(300, 400), { startTimeMillis: 100 }), true, 'one end alone is no window');
});

forEachEngine('lineage', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    for (const [urn, aspectName, value] of FIXTURE) {
      const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth, payload: { proposal: {
        entityType: urn.split(':')[2], entityUrn: urn, changeType: 'UPSERT', aspectName,
        aspect: { value: JSON.stringify(value), contentType: 'application/json' } } } });
      assert.equal(res.statusCode, 200, `${urn} ${aspectName}: ${res.body}`);
    }
  });
  after(async () => t.close());

  const read = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.graphql(query, variables);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  const LINEAGE_FIELDS = `start count total filtered relationships { type degree createdOn createdActor { urn } updatedOn
    updatedActor { urn } isManual entity { urn type } }`;
  const ONE_HOP = `query($urn: String!, $start: Long, $end: Long) { entity(urn: $urn) { urn ... on EntityWithRelationships {
    upstream: lineage(input: { direction: UPSTREAM, startTimeMillis: $start, endTimeMillis: $end }) { ${LINEAGE_FIELDS} }
    downstream: lineage(input: { direction: DOWNSTREAM, startTimeMillis: $start, endTimeMillis: $end }) { ${LINEAGE_FIELDS} } } } }`;

  test('the relationship index keeps each lineage edge with its stamps, from upstreams and from Edge records', async () => {
    assert.deepEqual((await t.catalog.store.relationships({ urn: A, direction: 'OUTGOING', types: ['DownstreamOf'], start: 0, count: 10 })).edges, [
      { source: A, type: 'DownstreamOf', destination: K, createdOn: 1000, createdActor: ALICE, updatedOn: 2000, updatedActor: BOB },
      { source: A, type: 'DownstreamOf', destination: E, updatedActor: UNKNOWN },
    ].sort((a, b) => (a.destination < b.destination ? -1 : 1)));
    assert.deepEqual((await t.catalog.store.relationships({ urn: J, direction: 'OUTGOING', types: ['Consumes', 'Produces'], start: 0, count: 10 })).edges, [
      { source: J, type: 'Consumes', destination: B, createdOn: 3000, createdActor: ALICE, updatedOn: 4000, updatedActor: BOB },
      { source: J, type: 'Produces', destination: C },
    ]);
    assert.deepEqual((await t.catalog.store.relationships({ urn: D, direction: 'OUTGOING', types: ['DownstreamOf'], start: 0, count: 10 })).edges,
      [{ source: D, type: 'DownstreamOf', destination: C, createdOn: 500, createdActor: CAROL, updatedOn: 500, updatedActor: CAROL, manual: true }]);
  });

  test('after migration 6 empties the index, the next start derives every edge again, stamps included', async () => {
    const six = migrations(ctx.engine).find((m) => m.version === 6)!;
    assert.ok(six.statements.some((st) => /^DELETE FROM almanac_relationships$/.test(st)), 'the index is emptied');
    const all = [...new Set(FIXTURE.map(([u]) => u))];
    const edgesNow = async () => (await Promise.all(all.map(async (u) =>
      (await t.catalog.store.relationships({ urn: u, direction: 'OUTGOING', start: 0, count: 100 })).edges))).flat();
    const before = await edgesNow();
    const everything = (await t.catalog.store.listEntities({ count: 100_000 })).map((r) => r.urn);
    const edges = await t.catalog.store.countRelationships();
    assert.ok(edges >= before.length, `every edge counted (${edges})`);
    assert.deepEqual([await t.catalog.store.countRelationships(1), await t.catalog.store.countRelationships(3), await t.catalog.store.countRelationships(edges + 5)],
      [1, 3, edges], 'counted up to a bound (what a start asks: whether there are any)');
    await t.catalog.store.replaceRelationships(everything, []);
    assert.deepEqual([await t.catalog.store.countRelationships(), await t.catalog.store.countRelationships(1)], [0, 0]);
    await t.catalog.changeLog.rebuildIfEmpty('relationships', () => t.catalog.store.countRelationships());
    assert.deepEqual(await edgesNow(), before);
    assert.ok(before.some((e) => e.createdOn === 1000 && e.updatedActor === BOB && e.destination === K), JSON.stringify(before));
  });

  test('lineage(input:) of every entity of the fixture, both ways: one hop, through jobs, charts, dashboards and features', async () => {
    for (const u of [K, A, B, X, C, D, E, J, J2, CH, DB, F1, FLOW]) {
      const data = await read(ONE_HOP, { urn: u });
      assert.deepEqual(data, { entity: { urn: u, upstream: oneHop(u, 'UPSTREAM'), downstream: oneHop(u, 'DOWNSTREAM') } }, u);
    }
    // Spelled out for two of them, so that the brute force is not the only witness.
    const c = await read(ONE_HOP, { urn: C });
    assert.deepEqual(c.entity.upstream.relationships.map((r: any) => [r.type, r.entity.urn]), [['Produces', J]]);
    assert.deepEqual(c.entity.downstream.relationships.map((r: any) => [r.type, r.entity.urn]),
      [['Consumes', DB], ['DownstreamOf', D], ['DerivedFrom', F1]]);
    const flow = await read(ONE_HOP, { urn: FLOW });
    assert.deepEqual(flow.entity.upstream, { start: 0, count: 0, total: 0, filtered: 0, relationships: [] });
  });

  test('lineage(input:) pages, and follows only edges inside a time window', async () => {
    const page = await read(`{ entity(urn: "${C}") { ... on Dataset { lineage(input: { direction: DOWNSTREAM, start: 1, count: 1 }) {
      start count total filtered relationships { entity { urn } } } } } }`);
    assert.deepEqual(page, { entity: { lineage: { start: 1, count: 1, total: 3, filtered: 0, relationships: [{ entity: { urn: D } }] } } });
    const w = { start: 1500, end: 6500 };
    for (const u of [A, B, D, J, J2]) {
      const data = await read(ONE_HOP, { urn: u, start: w.start, end: w.end });
      assert.deepEqual(data, { entity: { urn: u, upstream: oneHop(u, 'UPSTREAM', w), downstream: oneHop(u, 'DOWNSTREAM', w) } }, u);
    }
    // D's edge to E (7000–8000) is outside; its manual edge to C (500) is followed all the same.
    const d = await read(ONE_HOP, { urn: D, start: w.start, end: w.end });
    assert.deepEqual(d.entity.downstream.relationships.map((r: any) => r.entity.urn), [CH]);
    assert.deepEqual(d.entity.upstream.relationships.map((r: any) => [r.entity.urn, r.isManual]), [[C, true]]);
  });

  test('the walk: smallest degrees, one shortest path each, round the cycle without hanging, within the hop limit and the cap', async () => {
    for (const [start, dir] of [[K, 'DOWNSTREAM'], [E, 'UPSTREAM'], [A, 'DOWNSTREAM'], [DB, 'UPSTREAM'], [J2, 'UPSTREAM']] as const) {
      const walk = await t.catalog.lineage.walk(start, dir);
      assert.equal(walk.truncated, false);
      assert.deepEqual(walk.hits.map((h) => ({ urn: h.urn, degree: h.degree, path: h.path })),
        bruteForce(start, dir).map((h) => ({ urn: h.urn, degree: h.degree, path: h.path })), `${start} ${dir}`);
    }
    // From A downstream the walk comes back to A through E: A is the start, never a result.
    const round = await t.catalog.lineage.walk(A, 'DOWNSTREAM');
    assert.deepEqual(round.hits.map((h) => [h.urn, h.degree]), [[B, 1], [J, 2], [X, 2], [C, 3], [J2, 3], [DB, 4], [D, 4], [F1, 4], [CH, 5], [E, 5]]
      .sort((a, b) => (a[1] as number) - (b[1] as number) || (a[0]! < b[0]! ? -1 : 1)));
    const two = await t.catalog.lineage.walk(K, 'DOWNSTREAM', { maxHops: 2 });
    assert.deepEqual(two.hits.map((h) => [h.urn, h.degree]), [[A, 1], [B, 2]]);
    const capped = await t.catalog.lineage.walk(K, 'DOWNSTREAM', { maxEntities: 3 });
    assert.deepEqual([capped.truncated, capped.hits.map((h) => h.urn)], [true, [A, B, J]]);
    const windowed = await t.catalog.lineage.walk(K, 'DOWNSTREAM', { window: { startTimeMillis: 1500, endTimeMillis: 6500 } });
    assert.deepEqual(windowed.hits.map((h) => [h.urn, h.degree]), bruteForce(K, 'DOWNSTREAM', { start: 1500, end: 6500 }).map((h) => [h.urn, h.degree]));
    // K → A was created at 1000 and updated at 2000: a window between the two holds neither, so nothing is reached.
    assert.deepEqual((await t.catalog.lineage.walk(K, 'DOWNSTREAM', { window: { startTimeMillis: 1200, endTimeMillis: 1800 } })).hits, []);
    // Without stamps (a lineage search): the same entities, degrees and paths, each edge its ends and type alone; a
    // time window still reads the stamps it needs.
    const bare = (h: LineageHit) => ({ ...h, edge: { source: h.edge.source, type: h.edge.type, destination: h.edge.destination } });
    for (const start of [K, A, DB]) {
      for (const dir of ['UPSTREAM', 'DOWNSTREAM'] as const) {
        assert.deepEqual((await t.catalog.lineage.walk(start, dir, { stamps: false })).hits, (await t.catalog.lineage.walk(start, dir)).hits.map(bare),
          `${start} ${dir} without stamps`);
      }
    }
    assert.deepEqual((await t.catalog.lineage.walk(K, 'DOWNSTREAM', { stamps: false, window: { startTimeMillis: 1200, endTimeMillis: 1800 } })).hits, []);
    assert.deepEqual((await t.catalog.lineage.walk(K, 'DOWNSTREAM', { stamps: false, window: { startTimeMillis: 1500, endTimeMillis: 6500 } })).hits,
      windowed.hits);
  });

  const SEARCH = `query($input: SearchAcrossLineageInput!) { searchAcrossLineage(input: $input) { start count total
    searchResults { entity { urn type } degree paths { path { urn } } matchedFields { name value } insights { text } }
    facets { field displayName aggregations { value count } } } }`;

  /**
   * The expected results: reached, not soft-deleted, by degree then in the search service's own order, each with the
   * fields the service says the query matched.
   */
  async function expectedOrder(hits: Expected[], query = '*', entityTypes?: string[]) {
    const live = hits.filter((h) => !REMOVED.has(h.urn));
    const res = await t.catalog.search.search({ query, entityTypes, urns: live.map((h) => h.urn), start: 0, count: live.length, facets: [] });
    const rank = new Map(res.urns.map((u, i) => [u, i]));
    return live.filter((h) => rank.has(h.urn)).sort((a, b) => a.degree - b.degree || rank.get(a.urn)! - rank.get(b.urn)!)
      .map((h) => ({ ...h, matched: (res.matchedFields.get(h.urn) ?? []).map((m) => ({ name: m.name, value: m.value })) }));
  }
  const resultOf = (h: Expected & { matched?: { name: string; value: string }[] }) => ({ entity: { urn: h.urn, type: typeOf(h.urn) },
    degree: h.degree, paths: [{ path: h.path.map((urn) => ({ urn })) }], matchedFields: h.matched ?? [], insights: [] });

  test('searchAcrossLineage: everything downstream of the kafka topic, nearest first, with paths and the degree facet', async () => {
    const hits = bruteForce(K, 'DOWNSTREAM');
    const expected = await expectedOrder(hits);
    assert.equal(expected.length, 10, 'X is soft-deleted');
    const names = new Map(Object.entries({ K, A, B, C, D, E, J, J2, CH, DB, F1 }).map(([n, u]) => [u, n]));
    // The order spelled out, not only the search service's: by degree, then by the service's ranking.
    assert.deepEqual(expected.map((h) => `${names.get(h.urn)}@${h.degree}`),
      ['A@1', 'B@2', 'J@3', 'C@4', 'J2@4', 'D@5', 'F1@5', 'DB@5', 'E@6', 'CH@6']);
    const data = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', query: '*', start: 0, count: 100 } });
    const r = data.searchAcrossLineage;
    assert.deepEqual({ ...r, facets: r.facets.slice(0, 1) }, { start: 0, count: 10, total: 10, searchResults: expected.map(resultOf),
      facets: [degreeFacet(expected)] });
    assert.deepEqual(degreeFacet(expected).aggregations, [{ value: '1', count: 1 }, { value: '2', count: 1 }, { value: '3+', count: 8 }]);
    // The other facets count the same ten entities.
    const types = r.facets.find((f: any) => f.field === '_entityType');
    assert.notEqual(types, undefined, 'an _entityType facet');
    assert.equal(types.aggregations.reduce((s: number, a: any) => s + a.count, 0), 10);
  });

  test('searchAcrossLineage: upstream of the archive, round the cycle back to the topic', async () => {
    const expected = await expectedOrder(bruteForce(E, 'UPSTREAM'));
    assert.deepEqual(expected.map((h) => [h.urn, h.degree]), [[D, 1], [C, 2], [J, 3], [B, 4], [A, 5], [K, 6]]);
    const data = await read(SEARCH, { input: { urn: E, direction: 'UPSTREAM', count: 100 } });
    assert.deepEqual({ ...data.searchAcrossLineage, facets: data.searchAcrossLineage.facets.slice(0, 1) },
      { start: 0, count: 6, total: 6, searchResults: expected.map(resultOf), facets: [degreeFacet(expected)] });
  });

  test('searchAcrossLineage: a degree filter narrows the results, not its own facet; types and query narrow both', async () => {
    const all = await expectedOrder(bruteForce(K, 'DOWNSTREAM'));
    const near = all.filter((h) => h.degree <= 2);
    const data = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', query: '*',
      orFilters: [{ and: [{ field: 'degree', values: ['1', '2'] }] }] } });
    assert.deepEqual({ ...data.searchAcrossLineage, facets: data.searchAcrossLineage.facets.slice(0, 1) },
      { start: 0, count: 2, total: 2, searchResults: near.map(resultOf), facets: [degreeFacet(all)] });
    const far = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', filters: [{ field: 'degree', values: ['3+'] }], count: 3 } });
    assert.deepEqual([far.searchAcrossLineage.total, far.searchAcrossLineage.searchResults.map((x: any) => x.degree)], [8, [3, 4, 4]]);
    // "agg" finds the job (aggregate) and the table (agg_events): 3 and 4 hops away.
    const agg = await expectedOrder(bruteForce(K, 'DOWNSTREAM'), 'agg', ['dataset', 'dataJob']);
    assert.deepEqual(agg.map((h) => h.urn), [J, C]);
    assert.ok(agg.every((h) => h.matched.length > 0), 'the service says where "agg" matched');
    const found = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', query: 'agg', types: ['DATASET', 'DATA_JOB'] } });
    assert.deepEqual({ ...found.searchAcrossLineage, facets: found.searchAcrossLineage.facets.slice(0, 1) },
      { start: 0, count: 2, total: 2, searchResults: agg.map(resultOf), facets: [degreeFacet(agg)] });
    const charts = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', types: ['CHART', 'DASHBOARD'] } });
    assert.deepEqual(charts.searchAcrossLineage.searchResults.map((x: any) => [x.entity.urn, x.degree]), [[DB, 5], [CH, 6]]);
  });

  test('searchAcrossLineage walks as far as its flat degree filters allow (DataHub 0.12.1), scrollAcrossLineage as far as its orFilters do', async () => {
    const all = await expectedOrder(bruteForce(K, 'DOWNSTREAM'));
    const within = (n: number) => all.filter((h) => h.degree <= n);
    // Flat filters without "3+": one or two hops walked, and the degree facet counts what was reached.
    for (const [values, hops] of [[['1'], 1], [['2'], 2], [['1', '2'], 2]] as const) {
      const data = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', query: '*', filters: [{ field: 'degree', values }] } });
      const kept = within(hops).filter((h) => (values as readonly string[]).includes(String(h.degree)));
      assert.deepEqual({ ...data.searchAcrossLineage, facets: data.searchAcrossLineage.facets.slice(0, 1) },
        { start: 0, count: kept.length, total: kept.length, searchResults: kept.map(resultOf), facets: [degreeFacet(within(hops))] }, values.join());
    }
    // The same values in orFilters leave searchAcrossLineage's walk whole (its facet counts every degree) …
    const or = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', query: '*', orFilters: [{ and: [{ field: 'degree', values: ['1'] }] }] } });
    assert.deepEqual(or.searchAcrossLineage.facets.slice(0, 1), [degreeFacet(all)]);
    // … and bound scrollAcrossLineage's.
    const scroll = await read(`query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { count total
      searchResults { entity { urn } degree } facets { field displayName aggregations { value count } } } }`,
    { input: { urn: K, direction: 'DOWNSTREAM', query: '*', orFilters: [{ and: [{ field: 'degree', values: ['1'] }] }] } });
    assert.deepEqual({ ...scroll.scrollAcrossLineage, facets: scroll.scrollAcrossLineage.facets.slice(0, 1) },
      { count: 1, total: 1, searchResults: within(1).map((h) => ({ entity: { urn: h.urn }, degree: h.degree })), facets: [degreeFacet(within(1))] });
  });

  test('searchAcrossLineage: a time window, and paging', async () => {
    const w = { start: 1500, end: 6500 };
    const expected = await expectedOrder(bruteForce(K, 'DOWNSTREAM', w));
    assert.ok(!expected.some((h) => h.urn === E), 'D → E is stamped 7000–8000');
    const names = new Map(Object.entries({ K, A, B, C, D, E, J, J2, CH, DB, F1 }).map(([n, u]) => [u, n]));
    assert.deepEqual(expected.map((h) => `${names.get(h.urn)}@${h.degree}`), ['A@1', 'B@2', 'J@3', 'C@4', 'J2@4', 'D@5', 'F1@5', 'DB@5', 'CH@6']);
    const data = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', startTimeMillis: w.start, endTimeMillis: w.end, count: 100 } });
    assert.deepEqual(data.searchAcrossLineage.searchResults, expected.map(resultOf));
    const page = await read(SEARCH, { input: { urn: K, direction: 'DOWNSTREAM', start: 3, count: 2 } });
    const all = await expectedOrder(bruteForce(K, 'DOWNSTREAM'));
    assert.deepEqual([page.searchAcrossLineage.start, page.searchAcrossLineage.count, page.searchAcrossLineage.total,
      page.searchAcrossLineage.searchResults], [3, 2, 10, all.slice(3, 5).map(resultOf)]);
  });

  test('scrollAcrossLineage: pages of two return each entity exactly once, in the search order', async () => {
    const expected = await expectedOrder(bruteForce(K, 'DOWNSTREAM'));
    const seen: string[] = [];
    let scrollId: string | null = null;
    let pages = 0;
    do {
      const data: any = await read(`query($input: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $input) { nextScrollId count total
        searchResults { entity { urn } degree } facets { field aggregations { value count } } } }`,
      { input: { urn: K, direction: 'DOWNSTREAM', count: 2, ...(scrollId ? { scrollId } : {}) } });
      const r = data.scrollAcrossLineage;
      assert.equal(r.total, 10);
      assert.deepEqual(r.facets[0], { field: 'degree', aggregations: degreeFacet(expected).aggregations });
      seen.push(...r.searchResults.map((x: any) => x.entity.urn));
      scrollId = r.nextScrollId;
      pages++;
      assert.ok(pages <= 5, 'no more pages than results / 2');
    } while (scrollId);
    assert.equal(pages, 5);
    assert.deepEqual(seen, expected.map((h) => h.urn));
    assert.equal(new Set(seen).size, seen.length);
    const bad = await t.graphql(`{ scrollAcrossLineage(input: { urn: "${K}", direction: DOWNSTREAM, scrollId: "nonsense" }) { count } }`);
    assert.match(bad.body.errors[0].message, /Invalid scrollId/);
    const noUrn = await t.graphql(`{ searchAcrossLineage(input: { direction: DOWNSTREAM }) { total } }`);
    assert.match(noUrn.body.errors[0].message, /urn is required/);
  });

  test('fine-grained lineage: a dataset\'s and a job\'s column-level lineage, a chart\'s input fields', async () => {
    const data = await read(`{
      b: dataset(urn: "${B}") { fineGrainedLineages { upstreams { urn path } downstreams { urn path } } }
      k: dataset(urn: "${K}") { fineGrainedLineages { upstreams { urn path } } }
      j: dataJob(urn: "${J}") { inputOutput { fineGrainedLineages { upstreams { urn path } downstreams { urn path } } } }
      ch: chart(urn: "${CH}") { inputFields { fields { schemaFieldUrn schemaField { fieldPath nativeDataType } } } }
    }`);
    assert.deepEqual(data, {
      b: { fineGrainedLineages: [
        { upstreams: [{ urn: A, path: 'id' }], downstreams: [{ urn: B, path: 'id' }] },
        // A whole-dataset upstream is not a column: left out, as DataHub 0.12.1 maps it.
        { upstreams: [], downstreams: [{ urn: B, path: 'ts' }, { urn: B, path: 'id' }] },
      ] },
      k: { fineGrainedLineages: null },
      j: { inputOutput: { fineGrainedLineages: [{ upstreams: [{ urn: B, path: 'id' }], downstreams: [{ urn: C, path: 'id' }] }] } },
      ch: { inputFields: { fields: [{ schemaFieldUrn: field(D, 'total'), schemaField: { fieldPath: 'total', nativeDataType: 'int' } }] } },
    });
  });

  test('the web app\'s lineage documents: valid but for other areas\' gaps, and served with real data', async () => {
    const names = [...new Set(webappOperations().map((o) => o.name))];
    const document = (name: string) => webappDocument(name);
    const schema = buildSchema(schemaSdl());
    // Every operation that reads lineage: a lineage field, a search across lineage, or column-level lineage.
    const lineageOps = names.filter((n) => /\blineage\(|AcrossLineage|fineGrainedLineages/.test(print(document(n))));
    assert.deepEqual(lineageOps.filter((n) => ['getEntityLineage', 'getLineageCounts', 'searchAcrossLineage',
      'getDownloadScrollAcrossLineageResults', 'getDataFlow'].includes(n)).sort(),
    ['getDataFlow', 'getDownloadScrollAcrossLineageResults', 'getEntityLineage', 'getLineageCounts', 'searchAcrossLineage']);
    for (const n of lineageOps) {
      const errors = validate(schema, document(n)).map((e) => e.message).filter((m) => !OTHER_AREAS_GAPS.some((g) => g.test(m)));
      assert.deepEqual(errors, [], n);
    }
    const counts = print(document('getLineageCounts'));
    for (const u of [A, C, J, CH, DB, FLOW]) {
      const data = await read(counts, { urn: u });
      const [up, down] = [oneHop(u, 'UPSTREAM'), oneHop(u, 'DOWNSTREAM')];
      assert.deepEqual(data, { entity: { urn: u, type: typeOf(u), upstream: { filtered: 0, total: up.total },
        downstream: { filtered: 0, total: down.total } } }, u);
    }
    const windowed = await read(counts, { urn: D, startTimeMillis: 1500, endTimeMillis: 6500, excludeUpstream: true });
    assert.deepEqual(windowed, { entity: { urn: D, type: 'DATASET', downstream: { filtered: 0, total: 1 } } });
    const flow = await read(print(document('getDataFlow')), { urn: FLOW });
    assert.deepEqual([flow.dataFlow.upstream, flow.dataFlow.downstream], [
      { start: 0, count: 0, total: 0, filtered: 0 }, { start: 0, count: 0, total: 0, filtered: 0 }]);
    // Lineage edits, and the app configuration that turns impact analysis on.
    for (const n of ['updateLineage', 'appConfig']) {
      const errors = validate(schema, document(n)).map((e) => e.message).filter((m) => !/Config|analyticsConfig|Privileges/.test(m));
      assert.deepEqual(errors, [], n);
    }
    assert.deepEqual(await read('{ appConfig { lineageConfig { supportsImpactAnalysis } } }'), { appConfig: { lineageConfig: { supportsImpactAnalysis: true } } });
  });

  // Last: it changes the fixture.
  test('updateLineage writes each edge into the aspect that owns it, stamped as drawn by hand; removals break the cycle', async () => {
    const before = Date.now();
    const edge = (upstreamUrn: string, downstreamUrn: string) => ({ upstreamUrn, downstreamUrn });
    const done = await t.graphql('mutation($input: UpdateLineageInput!) { updateLineage(input: $input) }', { input: {
      edgesToAdd: [edge(K, C), edge(K, CH), edge(B, DB), edge(C, J2), edge(J2, E)],
      edgesToRemove: [edge(E, A), edge(CH, DB)],
    } });
    assert.deepEqual(done.body.data, { updateLineage: true }, JSON.stringify(done.body.errors));
    const up = async (u: string) => (await read(ONE_HOP, { urn: u })).entity.upstream.relationships
      .map((r: any) => [r.type, r.entity.urn, r.isManual, r.createdActor?.urn ?? null, r.createdOn != null && r.createdOn >= before]);
    const ROOT = 'urn:li:corpuser:datahub';
    assert.deepEqual(await up(C), [['Produces', J, false, null, false], ['DownstreamOf', K, true, ROOT, true]]);
    assert.deepEqual(await up(A), [['DownstreamOf', K, false, ALICE, false]]);
    assert.deepEqual(await up(CH), [['Consumes', K, true, ROOT, true], ['Consumes', D, false, ALICE, false]]
      .sort((a, b) => (a[1]! < b[1]! ? -1 : 1)));
    assert.deepEqual(await up(DB), [['Consumes', B, true, ROOT, true], ['Consumes', C, false, null, false]]);
    assert.deepEqual(await up(J2), [['DownstreamOf', J, false, ALICE, false], ['Consumes', C, true, ROOT, true]]);
    assert.deepEqual(await up(E), [['Produces', J2, true, ROOT, true], ['DownstreamOf', D, false, ALICE, false]]);
    // Stored as DataHub's UI writes it: an Upstream of type TRANSFORMED, an Edge with created, lastModified and source UI.
    const lineageOfC = (await t.catalog.entities.getAspect(C, 'upstreamLineage'))!.value as any;
    assert.deepEqual({ ...lineageOfC.upstreams[0], created: null, auditStamp: null },
      { dataset: K, type: 'TRANSFORMED', created: null, auditStamp: null, properties: { source: 'UI' } });
    const io = (await t.catalog.entities.getAspect(J2, 'dataJobInputOutput'))!.value as any;
    assert.deepEqual(io.outputDatasetEdges.map((e: any) => [e.destinationUrn, e.sourceUrn, e.properties, e.created.actor]), [[E, J2, { source: 'UI' }, ROOT]]);
    // Without the cycle, the archive's upstream walk stops at the topic the long way round no more: E ← J2 ← C ← K.
    const walk = await t.catalog.lineage.walk(E, 'UPSTREAM');
    assert.deepEqual(walk.hits.filter((h) => h.urn === K).map((h) => h.path), [[E, J2, C, K]]);
    // A job cannot feed a chart; a downstream that does not exist is refused.
    const wrong = await t.graphql(`mutation { updateLineage(input: { edgesToAdd: [{ upstreamUrn: "${J}", downstreamUrn: "${CH}" }], edgesToRemove: [] }) }`);
    assert.match(wrong.body.errors[0].message, /must be dataset urns/);
    const missing = await t.graphql(`mutation { updateLineage(input: { edgesToAdd: [{ upstreamUrn: "${K}", downstreamUrn: "${ds('hive', 'nowhere')}" }], edgesToRemove: [] }) }`);
    assert.ok(missing.body.errors?.length, 'refused');
  });
});
