import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * browseV2, browse and browsePaths as DataHub 0.12.1 serves them, over a fixture ingested through the REST API: two
 * environments, four platforms (one with a platform instance, one whose names split at `/`), nested containers with
 * browsePathsV2, datasets without any browse path (their default paths derived), a dataset with two legacy paths,
 * a data flow with jobs, an ML model, and soft-deleted datasets that no count may include. Every expected count is
 * computed here from the fixture's own description of where each entity sits.
 */

const D = '\u241f';
const C_WH = 'urn:li:container:wh';
const C_SALES = 'urn:li:container:sales';
const C_MKT = 'urn:li:container:mkt';
const C_SNOW = 'urn:li:container:snowdb';
const INST = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:snowflake,acme)';
const FLOW = 'urn:li:dataFlow:(airflow,etl_daily,prod)';
const VIEW = 'urn:li:dataHubView:browse-dev-only';
const ds = (platform: string, name: string, env = 'PROD') => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${env})`;

/** One fixture entity: its aspects, and (the expectation) where it sits in both browse trees. */
interface Fx {
  urn: string;
  type: 'dataset' | 'container' | 'dataFlow' | 'dataJob' | 'mlModel';
  platform: string;
  origin?: string;
  removed?: boolean;
  /** browsePathsV2 steps (urn, else id), sent or derived. */
  v2: string[];
  /** Legacy browse paths, sent or derived (none for types DataHub keeps none for). */
  legacy: string[];
  aspects: Record<string, unknown>;
}

const pathV2 = (...steps: string[]) => ({ path: steps.map((s) => (s.startsWith('urn:') ? { id: s, urn: s } : { id: s })) });
const status = (removed = false) => ({ removed });

function dataset(platform: string, name: string, env: string, v2: string[], legacy: string[], aspects: Record<string, unknown> = {}, removed = false): Fx {
  return { urn: ds(platform, name, env), type: 'dataset', platform: `urn:li:dataPlatform:${platform}`, origin: env, removed, v2, legacy,
    aspects: { datasetProperties: { name: name.split(/[./]/).pop(), customProperties: {} }, status: status(removed), ...aspects } };
}

const FIXTURE: Fx[] = [
  { urn: C_WH, type: 'container', platform: 'urn:li:dataPlatform:hive', v2: [], legacy: [],
    aspects: { containerProperties: { name: 'warehouse', customProperties: {} }, dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' }, browsePathsV2: pathV2() } },
  { urn: C_SALES, type: 'container', platform: 'urn:li:dataPlatform:hive', v2: [C_WH], legacy: [],
    aspects: { containerProperties: { name: 'sales', customProperties: {} }, dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' },
      container: { container: C_WH }, browsePathsV2: pathV2(C_WH) } },
  { urn: C_MKT, type: 'container', platform: 'urn:li:dataPlatform:hive', v2: [C_WH], legacy: [],
    aspects: { containerProperties: { name: 'marketing', customProperties: {} }, dataPlatformInstance: { platform: 'urn:li:dataPlatform:hive' },
      container: { container: C_WH }, browsePathsV2: pathV2(C_WH) } },
  { urn: C_SNOW, type: 'container', platform: 'urn:li:dataPlatform:snowflake', v2: [INST], legacy: [],
    aspects: { containerProperties: { name: 'analytics', customProperties: {} }, dataPlatformInstance: { platform: 'urn:li:dataPlatform:snowflake', instance: INST },
      browsePathsV2: pathV2(INST) } },
  // Datasets whose connector sent browsePathsV2 (the legacy path is DataHub's default).
  dataset('hive', 'warehouse.sales.orders', 'PROD', [C_WH, C_SALES], ['/prod/hive/warehouse/sales'], { browsePathsV2: pathV2(C_WH, C_SALES), container: { container: C_SALES } }),
  dataset('hive', 'warehouse.sales.customers', 'PROD', [C_WH, C_SALES], ['/prod/hive/warehouse/sales'], { browsePathsV2: pathV2(C_WH, C_SALES), container: { container: C_SALES } }),
  dataset('hive', 'warehouse.sales.refunds', 'PROD', [C_WH, C_SALES], ['/prod/hive/warehouse/sales'], { browsePathsV2: pathV2(C_WH, C_SALES) }, true),
  dataset('hive', 'warehouse.overview', 'PROD', [C_WH], ['/prod/hive/warehouse'], { browsePathsV2: pathV2(C_WH), container: { container: C_WH } }),
  dataset('hive', 'warehouse.mkt.campaigns', 'PROD', [C_WH, C_MKT], ['/prod/hive/warehouse/mkt'], { browsePathsV2: pathV2(C_WH, C_MKT) }),
  dataset('hive', 'warehouse.sales.orders', 'DEV', [C_WH, C_SALES], ['/dev/hive/warehouse/sales'], { browsePathsV2: pathV2(C_WH, C_SALES) }),
  dataset('snowflake', 'analytics.public.revenue', 'PROD', [INST, C_SNOW], ['/prod/snowflake/analytics/public'],
    { browsePathsV2: pathV2(INST, C_SNOW), dataPlatformInstance: { platform: 'urn:li:dataPlatform:snowflake', instance: INST } }),
  dataset('hive', 'scratch_tmp', 'PROD', ['scratch'], ['/prod/hive'], { browsePathsV2: pathV2('scratch') }),
  // Two legacy paths sent; one browsePathsV2.
  dataset('hive', 'shared_dim', 'PROD', [C_WH, C_SALES], ['/prod/hive/warehouse/sales', '/prod/hive/warehouse/mkt'],
    { browsePathsV2: pathV2(C_WH, C_SALES), browsePaths: { paths: ['/prod/hive/warehouse/sales', '/prod/hive/warehouse/mkt'] } }),
  // No browse path of any kind: both derived from the name (lower case, its last part left out, "Default" without parts).
  dataset('hive', 'db1.schema1.t1', 'DEV', ['db1', 'schema1'], ['/dev/hive/db1/schema1']),
  dataset('hive', 'db1.schema1.t2', 'DEV', ['db1', 'schema1'], ['/dev/hive/db1/schema1']),
  dataset('hive', 'DB1.Other.T3', 'DEV', ['db1', 'other'], ['/dev/hive/db1/other']),
  dataset('kafka', 'topic_a', 'PROD', ['Default'], ['/prod/kafka']),
  dataset('kafka', 'events.clicks', 'PROD', ['events'], ['/prod/kafka/events']),
  dataset('kafka', 'events.gone', 'PROD', ['events'], ['/prod/kafka/events'], {}, true),
  // s3 names split at "/" (its dataPlatformInfo, ingested first, says so).
  dataset('s3', 'bucket/raw/file.csv', 'PROD', ['bucket', 'raw'], ['/prod/s3/bucket/raw']),
  { urn: FLOW, type: 'dataFlow', platform: 'urn:li:dataPlatform:airflow', v2: ['Default'], legacy: ['/airflow/prod'],
    aspects: { dataFlowInfo: { name: 'etl_daily', customProperties: {} } } },
  ...['extract', 'load'].map((job): Fx => ({ urn: `urn:li:dataJob:(${FLOW},${job})`, type: 'dataJob', platform: 'urn:li:dataPlatform:airflow',
    v2: [FLOW], legacy: ['/airflow/prod'], aspects: { dataJobInfo: { name: job, type: 'COMMAND', customProperties: {} } } })),
  { urn: 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)', type: 'mlModel', platform: 'urn:li:dataPlatform:sagemaker', origin: 'PROD',
    v2: ['Default'], legacy: [''], aspects: { status: status() } },
];

// ---------------------------------------------------------------------------------------------------------------
// Expectations, by brute force over the fixture

type Pred = (e: Fx) => boolean;
const live = (type: Fx['type'], pred: Pred = () => true) => FIXTURE.filter((e) => e.type === type && !e.removed && pred(e));
const byCount = (a: { name: string; count: number }, b: { name: string; count: number }) =>
  b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function expectV2(type: Fx['type'], at: string[], pred?: Pred) {
  const under = live(type, pred).filter((e) => e.v2.length > at.length && at.every((s, i) => e.v2[i] === s));
  const names = [...new Set(under.map((e) => e.v2[at.length]!))];
  const groups = names.map((name) => {
    const members = under.filter((e) => e.v2[at.length] === name);
    return { name, count: members.length, hasSubGroups: members.some((e) => e.v2.length > at.length + 1) };
  }).sort(byCount);
  return { groups, totalNumEntities: under.length };
}

function expectLegacy(type: Fx['type'], at: string[], pred?: Pred) {
  const steps = (p: string) => p.split('/').filter(Boolean);
  const through = (e: Fx, name?: string) => e.legacy.some((p) => {
    const s = steps(p);
    return s.length > at.length && at.every((x, i) => s[i] === x) && (name === undefined || s[at.length] === name);
  });
  const entities = live(type, pred);
  const under = entities.filter((e) => through(e));
  const names = [...new Set(under.flatMap((e) => e.legacy.map(steps).filter((s) => s.length > at.length && at.every((x, i) => s[i] === x)).map((s) => s[at.length]!)))];
  const groups = names.map((name) => ({ name, count: under.filter((e) => through(e, name)).length })).sort(byCount);
  const here = entities.filter((e) => e.legacy.some((p) => p === (at.length ? `/${at.join('/')}` : ''))).map((e) => e.urn)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return { groups, here, totalNumEntities: under.length };
}

// ---------------------------------------------------------------------------------------------------------------
// The web app's documents, with the fragments they spread (from whichever file defines them)

const V2_QUERY = `query($input: BrowseV2Input!) { browseV2(input: $input) { groups { name count hasSubGroups entity { urn type } }
  start count total metadata { path totalNumEntities } } }`;
const LEGACY_QUERY = `query($input: BrowseInput!) { browse(input: $input) { entities { urn type } groups { name count }
  start count total metadata { path totalNumEntities } } }`;

const entityRef = (name: string) => {
  if (!name.startsWith('urn:li:')) return null;
  const type = name.startsWith('urn:li:container:') ? 'CONTAINER' : name.startsWith('urn:li:dataFlow:') ? 'DATA_FLOW' : 'DATA_PLATFORM_INSTANCE';
  return { urn: name, type };
};
const refOf = (urn: string) => ({ urn, type: urn.startsWith('urn:li:dataset:') ? 'DATASET' : urn.startsWith('urn:li:dataJob:') ? 'DATA_JOB'
  : urn.startsWith('urn:li:dataFlow:') ? 'DATA_FLOW' : 'MLMODEL' });

forEachEngine('browse', (ctx) => {
  let t: TestApp;

  const put = (urn: string, aspectName: string, value: unknown) => t.put(urn, aspectName, value);

  before(async () => {
    t = await startApp(ctx);
    await put('urn:li:dataPlatform:s3', 'dataPlatformInfo', { name: 's3', type: 'OBJECT_STORE', datasetNameDelimiter: '/' });
    for (const e of FIXTURE) for (const [name, value] of Object.entries(e.aspects)) await put(e.urn, name, value);
    const stamp = { time: 1700000000000, actor: 'urn:li:corpuser:datahub' };
    // A view of DEV entities of another type: browseV2 takes its filter, not its entity types (as DataHub does).
    await put(VIEW, 'dataHubViewInfo', { name: 'Dev only', type: 'GLOBAL', created: stamp, lastModified: stamp,
      definition: { entityTypes: ['CHART'], filter: { or: [{ and: [{ field: 'origin', value: 'DEV', values: ['DEV'], condition: 'EQUAL' }] }] } } });
  });
  after(async () => t.close());

  const gql = async (query: string, variables: Record<string, unknown>) => {
    const res = await t.graphql(query, variables);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const v2 = async (input: Record<string, unknown>) => (await gql(V2_QUERY, { input })).browseV2;
  const legacy = async (input: Record<string, unknown>) => (await gql(LEGACY_QUERY, { input })).browse;

  /** The whole browseV2 answer the fixture implies. */
  const wantV2 = (type: Fx['type'], at: string[], opts: { pred?: Pred; start?: number; count?: number } = {}) => {
    const e = expectV2(type, at, opts.pred);
    const start = opts.start ?? 0;
    const count = opts.count ?? 10;
    return { groups: e.groups.slice(start, start + count).map((g) => ({ ...g, entity: entityRef(g.name) })), start, count,
      total: e.groups.length, metadata: { path: at, totalNumEntities: e.totalNumEntities } };
  };

  test('browseV2 at the top: one group per first step, counted, soft-deleted entities left out', async () => {
    const got = await v2({ type: 'DATASET', path: [], start: 0, count: 20 });
    assert.deepEqual(got, wantV2('dataset', [], { count: 20 }));
    // The numbers themselves, read off the fixture: warehouse holds 6 live datasets (refunds is soft-deleted).
    assert.deepEqual(got.groups.map((g: any) => [g.name, g.count, g.hasSubGroups]), [
      [C_WH, 6, true], ['db1', 3, true], ['Default', 1, false], ['bucket', 1, true], ['events', 1, false], ['scratch', 1, false], [INST, 1, true]]);
    assert.equal(got.metadata.totalNumEntities, 14);
  });

  test('browseV2 one level down: containers as groups with their entity; entities at the path itself are not counted', async () => {
    assert.deepEqual(await v2({ type: 'DATASET', path: [C_WH] }), {
      groups: [{ name: C_SALES, count: 4, hasSubGroups: false, entity: { urn: C_SALES, type: 'CONTAINER' } },
        { name: C_MKT, count: 1, hasSubGroups: false, entity: { urn: C_MKT, type: 'CONTAINER' } }],
      start: 0, count: 10, total: 2, metadata: { path: [C_WH], totalNumEntities: 5 } });
    assert.deepEqual(await v2({ type: 'DATASET', path: ['db1'] }), wantV2('dataset', ['db1']));
    assert.deepEqual(await v2({ type: 'DATASET', path: [INST] }), wantV2('dataset', [INST]));
    assert.deepEqual(await v2({ type: 'DATASET', path: [C_WH, C_SALES] }), wantV2('dataset', [C_WH, C_SALES]));
    assert.deepEqual(await v2({ type: 'DATASET', path: ['nowhere'] }), wantV2('dataset', ['nowhere']));
  });

  test('browseV2 pages through the groups: total is the number of groups, count the page size asked for', async () => {
    const pages = [];
    for (let start = 0; start < 7; start += 3) {
      const page = await v2({ type: 'DATASET', start, count: 3 });
      assert.deepEqual(page, wantV2('dataset', [], { start, count: 3 }));
      pages.push(...page.groups.map((g: any) => g.name));
    }
    assert.deepEqual(pages, expectV2('dataset', []).groups.map((g) => g.name));
    assert.deepEqual(await v2({ type: 'DATASET', start: 50, count: 3 }), wantV2('dataset', [], { start: 50, count: 3 }));
  });

  test('browseV2 honours orFilters (the sidebar\'s environment and platform), negation, the query and other entity types', async () => {
    const prodHive = [{ and: [{ field: 'origin', values: ['PROD'] }, { field: 'platform', values: ['urn:li:dataPlatform:hive'] }] }];
    const isProdHive: Pred = (e) => e.origin === 'PROD' && e.platform === 'urn:li:dataPlatform:hive';
    assert.deepEqual(await v2({ type: 'DATASET', orFilters: prodHive }), wantV2('dataset', [], { pred: isProdHive }));
    assert.deepEqual(await v2({ type: 'DATASET', path: [C_WH], orFilters: prodHive }), wantV2('dataset', [C_WH], { pred: isProdHive }));
    // OR of two groups; a negated clause.
    const devOrKafka = [{ and: [{ field: 'origin', values: ['DEV'] }] }, { and: [{ field: 'platform', values: ['urn:li:dataPlatform:kafka'] }] }];
    assert.deepEqual(await v2({ type: 'DATASET', orFilters: devOrKafka }),
      wantV2('dataset', [], { pred: (e) => e.origin === 'DEV' || e.platform === 'urn:li:dataPlatform:kafka' }));
    assert.deepEqual(await v2({ type: 'DATASET', orFilters: [{ and: [{ field: 'origin', values: ['PROD'], negated: true }] }] }),
      wantV2('dataset', [], { pred: (e) => e.origin !== 'PROD' }));
    // The query narrows the entities counted.
    assert.deepEqual(await v2({ type: 'DATASET', query: 'orders' }), wantV2('dataset', [], { pred: (e) => e.urn.includes('orders') }));
    // A removed filter brings soft-deleted entities back, as in DataHub.
    const withRemoved = await v2({ type: 'DATASET', path: [C_WH], orFilters: [{ and: [{ field: 'removed', values: ['true'] }] }] });
    assert.deepEqual(withRemoved.groups.map((g: any) => [g.name, g.count]), [[C_SALES, 1]]);
    // Data jobs sit under their flow; the flow itself in "Default".
    assert.deepEqual(await v2({ type: 'DATA_JOB' }), wantV2('dataJob', []));
    assert.deepEqual((await v2({ type: 'DATA_JOB' })).groups, [{ name: FLOW, count: 2, hasSubGroups: false, entity: { urn: FLOW, type: 'DATA_FLOW' } }]);
    assert.deepEqual(await v2({ type: 'DATA_FLOW' }), wantV2('dataFlow', []));
    assert.deepEqual(await v2({ type: 'CONTAINER' }), wantV2('container', []));
  });

  test('browseV2 with a view applies its filter but keeps the browsed type', async () => {
    assert.deepEqual(await v2({ type: 'DATASET', viewUrn: VIEW }), wantV2('dataset', [], { pred: (e) => e.origin === 'DEV' }));
    const missing = await t.graphql(V2_QUERY, { input: { type: 'DATASET', viewUrn: 'urn:li:dataHubView:none' } });
    assert.ok(missing.body.errors?.length, 'an unknown view is an error');
  });

  test('the web app\'s browseV2 document, verbatim, as the sidebar sends it', async () => {
    const doc = webappText('getBrowseResultsV2');
    const data = await gql(doc, { input: { type: 'DATASET', path: [], start: 0, count: 5,
      orFilters: [{ and: [{ field: 'origin', values: ['PROD'] }, { field: 'platform', values: ['urn:li:dataPlatform:snowflake'] }] }], query: '*' } });
    assert.deepEqual(data, { browseV2: {
      groups: [{ name: INST, count: 1, hasSubGroups: true, entity: { urn: INST, type: 'DATA_PLATFORM_INSTANCE',
        platform: { name: 'snowflake', properties: { displayName: 'Snowflake' } }, instanceId: 'acme' } }],
      start: 0, count: 5, total: 1, metadata: { path: [], totalNumEntities: 1 } } });
    const inner = await gql(doc, { input: { type: 'DATASET', path: [C_WH], start: 0, count: 5 } });
    assert.deepEqual(inner, { browseV2: {
      groups: [{ name: C_SALES, count: 4, hasSubGroups: false, entity: { urn: C_SALES, type: 'CONTAINER', properties: { name: 'sales' } } },
        { name: C_MKT, count: 1, hasSubGroups: false, entity: { urn: C_MKT, type: 'CONTAINER', properties: { name: 'marketing' } } }],
      start: 0, count: 5, total: 2, metadata: { path: [C_WH], totalNumEntities: 5 } } });
    const jobs = await gql(doc, { input: { type: 'DATA_JOB', path: [], start: 0, count: 5 } });
    assert.deepEqual(jobs, { browseV2: {
      groups: [{ name: FLOW, count: 2, hasSubGroups: false, entity: { urn: FLOW, type: 'DATA_FLOW', properties: { name: 'etl_daily' } } }],
      start: 0, count: 5, total: 1, metadata: { path: [], totalNumEntities: 2 } } });
  });

  /** The whole legacy browse answer the fixture implies (groups first, then the entities at the path, paged together). */
  const wantLegacy = (type: Fx['type'], at: string[], opts: { pred?: Pred; start?: number; count?: number } = {}) => {
    const e = expectLegacy(type, at, opts.pred);
    const start = opts.start ?? 0;
    const count = opts.count ?? 10;
    const all = [...e.groups.map((g) => ({ group: g })), ...e.here.map((urn) => ({ urn }))].slice(start, start + count);
    return { entities: all.flatMap((x) => ('urn' in x ? [refOf(x.urn!)] : [])), groups: all.flatMap((x) => ('group' in x ? [x.group!] : [])),
      start, count, total: e.groups.length + e.here.length, metadata: { path: at, totalNumEntities: e.totalNumEntities } };
  };

  test('legacy browse: groups by path step (an entity with two paths counted once per group), then the entities at the path', async () => {
    assert.deepEqual(await legacy({ type: 'DATASET' }), wantLegacy('dataset', []));
    assert.deepEqual((await legacy({ type: 'DATASET' })).groups, [{ name: 'prod', count: 10 }, { name: 'dev', count: 4 }]);
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod'] }), wantLegacy('dataset', ['prod']));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod', 'hive'] }), wantLegacy('dataset', ['prod', 'hive']));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod', 'hive', 'warehouse'] }), {
      entities: [refOf(ds('hive', 'warehouse.overview'))],
      groups: [{ name: 'sales', count: 3 }, { name: 'mkt', count: 2 }],
      start: 0, count: 10, total: 3, metadata: { path: ['prod', 'hive', 'warehouse'], totalNumEntities: 4 } });
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod', 'hive', 'warehouse'] }), wantLegacy('dataset', ['prod', 'hive', 'warehouse']));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod', 'hive', 'warehouse', 'sales'] }), wantLegacy('dataset', ['prod', 'hive', 'warehouse', 'sales']));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod', 's3', 'bucket', 'raw'] }), wantLegacy('dataset', ['prod', 's3', 'bucket', 'raw']));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['dev', 'hive', 'db1'] }), wantLegacy('dataset', ['dev', 'hive', 'db1']));
    assert.deepEqual(await legacy({ type: 'DATA_JOB', path: ['airflow', 'prod'] }), wantLegacy('dataJob', ['airflow', 'prod']));
    assert.deepEqual(await legacy({ type: 'DATA_FLOW' }), wantLegacy('dataFlow', []));
    // Types DataHub has no default rule for sit at the top, as entities.
    assert.deepEqual(await legacy({ type: 'MLMODEL' }), wantLegacy('mlModel', []));
  });

  test('legacy browse pages groups then entities together, and takes the type\'s filters', async () => {
    const at = ['prod', 'hive', 'warehouse', 'sales'];
    const seen: string[] = [];
    for (let start = 0; start < 4; start += 2) {
      const page = await legacy({ type: 'DATASET', path: at, start, count: 2 });
      assert.deepEqual(page, wantLegacy('dataset', at, { start, count: 2 }));
      seen.push(...page.entities.map((e: any) => e.urn));
    }
    assert.deepEqual(seen, expectLegacy('dataset', at).here);
    const mixed = ['prod', 'hive'];
    assert.deepEqual(await legacy({ type: 'DATASET', path: mixed, start: 0, count: 1 }), wantLegacy('dataset', mixed, { start: 0, count: 1 }));
    assert.deepEqual(await legacy({ type: 'DATASET', path: mixed, start: 1, count: 1 }), wantLegacy('dataset', mixed, { start: 1, count: 1 }));
    // filters (DataHub's legacy browse reads `filters`, the first value of each), by its dataset facets.
    assert.deepEqual(await legacy({ type: 'DATASET', filters: [{ field: 'origin', values: ['DEV'] }] }),
      wantLegacy('dataset', [], { pred: (e) => e.origin === 'DEV' }));
    assert.deepEqual(await legacy({ type: 'DATASET', path: ['prod'], filters: [{ field: 'platform', value: 'urn:li:dataPlatform:kafka' }] }),
      wantLegacy('dataset', ['prod'], { pred: (e) => e.platform === 'urn:li:dataPlatform:kafka' }));
    const bad = await t.graphql(LEGACY_QUERY, { input: { type: 'DATASET', filters: [{ field: 'tags', values: ['x'] }] } });
    assert.match(JSON.stringify(bad.body.errors), /Unrecognized facet with name tags/);
    const notBrowsable = await t.graphql(LEGACY_QUERY, { input: { type: 'CONTAINER' } });
    assert.ok(notBrowsable.body.errors?.length, 'DataHub 0.12.1 has no legacy browse for containers');
  });

  test('browsePaths: sent paths, else DataHub\'s default for the type (split at the platform\'s delimiter); none for other types', async () => {
    const paths = async (type: string, urn: string) => (await gql('query($i: BrowsePathsInput!) { browsePaths(input: $i) { path } }',
      { i: { type, urn } })).browsePaths;
    assert.deepEqual(await paths('DATASET', ds('hive', 'shared_dim')), [{ path: ['prod', 'hive', 'warehouse', 'sales'] }, { path: ['prod', 'hive', 'warehouse', 'mkt'] }]);
    assert.deepEqual(await paths('DATASET', ds('hive', 'DB1.Other.T3', 'DEV')), [{ path: ['dev', 'hive', 'db1', 'other'] }]);
    assert.deepEqual(await paths('DATASET', ds('s3', 'bucket/raw/file.csv')), [{ path: ['prod', 's3', 'bucket', 'raw'] }]);
    assert.deepEqual(await paths('DATASET', ds('kafka', 'topic_a')), [{ path: ['prod', 'kafka'] }]);
    assert.deepEqual(await paths('DATA_JOB', `urn:li:dataJob:(${FLOW},load)`), [{ path: ['airflow', 'prod'] }]);
    assert.deepEqual(await paths('MLMODEL', 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)'), [{ path: [] }]);
    assert.deepEqual(await paths('CONTAINER', C_WH), []);
    assert.deepEqual(await paths('DATASET', ds('hive', 'never_ingested')), []);
    // The same paths on the entity itself.
    const onEntity = await gql('query($u: String!) { dataset(urn: $u) { browsePaths { path } } }', { u: ds('s3', 'bucket/raw/file.csv') });
    assert.deepEqual(onEntity, { dataset: { browsePaths: [{ path: ['prod', 's3', 'bucket', 'raw'] }] } });
    // The web app's document, verbatim.
    assert.deepEqual(await gql(webappText('getBrowsePaths'), { input: { type: 'DATASET', urn: ds('hive', 'warehouse.sales.orders') } }),
      { browsePaths: [{ path: ['prod', 'hive', 'warehouse', 'sales'] }] });
  });

  test('the web app\'s legacy browse document, verbatim', async () => {
    const data = await gql(webappText('getBrowseResults'), { input: { type: 'DATASET', path: ['prod', 'kafka'], start: 0, count: 10 } });
    const topic = ds('kafka', 'topic_a');
    // Kafka is one of DataHub's built-in platforms (seeded at start, issue 29): described, though no ingestion run wrote it.
    const kafka = { type: 'MESSAGE_BROKER', displayName: 'Kafka', datasetNameDelimiter: '.', logoUrl: '/assets/platforms/kafkalogo.png' };
    assert.deepEqual(data, { browse: {
      entities: [{ urn: topic, type: 'DATASET', name: 'topic_a', origin: 'PROD', properties: { name: 'topic_a', description: null },
        editableProperties: null,
        platform: { urn: 'urn:li:dataPlatform:kafka', type: 'DATA_PLATFORM', lastIngested: null, name: 'kafka',
          properties: kafka, displayName: 'Kafka', info: kafka },
        ownership: null, globalTags: null, glossaryTerms: null, subTypes: null, domain: null, dataProduct: { relationships: [] } }],
      groups: [{ name: 'events', count: 1 }], start: 0, count: 10, total: 2, metadata: { path: ['prod', 'kafka'], totalNumEntities: 1 } } });
  });
});
