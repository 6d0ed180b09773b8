import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { MAX_OPERATION_NAMES } from '../src/http/metrics.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { parsePrometheusText, sampleValue, type Family } from './support/prometheus.js';
import { IN_CI } from './support/run-env.js';

/** Prometheus's command-line tool (Debian's prometheus package): its `check metrics` parses and lints a scrape. */
const PROMTOOL = '/usr/bin/promtool';

/**
 * Issue 34, metrics: GET /metrics over real HTTP, its text read by a strict Prometheus-format parser
 * (test/support/prometheus.ts), on both engines. Counts that the test's own requests decide are asserted exactly;
 * latencies only as present and consistent (speed is the bench's business).
 */
const SCRAPE_TOKEN = 'scrape-token-of-the-metrics-test-0123456789';
const enc = encodeURIComponent;

const proposal = (urn: string, aspectName: string, value: unknown) => ({ entityType: urn.slice('urn:li:'.length).split(':', 1)[0], entityUrn: urn,
  changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } });

/** The almanac_ families every server writes; PostgreSQL adds its pool's. */
const FAMILIES = [
  'almanac_cache_hits_total', 'almanac_cache_misses_total', 'almanac_changelog_consumer_lag', 'almanac_changelog_consumer_offset',
  'almanac_changelog_head', 'almanac_graphql_operation_duration_seconds', 'almanac_graphql_operations_total',
  'almanac_graphql_response_cache_answers', 'almanac_graphql_response_cache_bytes', 'almanac_http_request_duration_seconds',
  'almanac_http_requests_total', 'almanac_ingest_aspects_total', 'almanac_ingest_refusals_total', 'almanac_search_duration_seconds',
];
const POOL_FAMILIES = ['almanac_db_pool_connections', 'almanac_db_pool_idle_connections', 'almanac_db_pool_max_connections',
  'almanac_db_pool_waiting_requests'];

/** A family's samples as `name{labels} value` lines, sorted (compared whole). */
function lines(f: Family | undefined): string[] {
  assert.ok(f !== undefined, 'the family is written');
  return f.samples.map((s) => `${s.name}${JSON.stringify(s.labels)} ${s.value}`).sort();
}

forEachEngine('metrics', (ctx) => {
  let t: TestApp;
  let base: string;
  const get = (url: string, headers: Record<string, string> = {}) => fetch(`${base}${url}`, { headers });
  const post = (url: string, body: unknown, headers: Record<string, string> = t.auth) =>
    fetch(`${base}${url}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const scrape = async () => {
    const res = await get('/metrics', { authorization: `Bearer ${SCRAPE_TOKEN}` });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    return parsePrometheusText(text);
  };

  before(async () => {
    // No follower: nothing catches the indexes up behind the test's back (the lag test counts on it).
    t = await startApp(ctx, { metricsToken: SCRAPE_TOKEN }, { follow: false });
    base = await t.listen();
  });
  after(async () => t.close());

  test('after some requests, an ingest with one refusal and a search: the exact counts, families and types', async () => {
    const dataset = 'urn:li:dataset:(urn:li:dataPlatform:hive,metrics.orders,PROD)';
    // Three aspects in one batch, then one refused (an aspect tags do not have), then reads and a search.
    let res = await post('/aspects?action=ingestProposalBatch', { proposals: [
      proposal(dataset, 'datasetProperties', { name: 'orders', description: 'metrics test', customProperties: {} }),
      proposal('urn:li:tag:metrics', 'tagProperties', { name: 'metrics' }),
      proposal(dataset, 'status', { removed: false }),
    ] });
    assert.equal(res.status, 200, await res.text());
    res = await post('/aspects?action=ingestProposal', { proposal: proposal('urn:li:tag:metrics', 'datasetProperties', { customProperties: {} }) });
    assert.deepEqual({ status: res.status, body: await res.json() }, { status: 422, body: { status: 422, code: 'UNPROCESSABLE',
      message: "Aspect 'datasetProperties' is not an aspect of entity type 'tag'", urn: 'urn:li:tag:metrics', aspect: 'datasetProperties' } });
    for (let i = 0; i < 2; i++) assert.equal((await get(`/aspects/${enc(dataset)}?aspect=status`, t.auth)).status, 200);
    assert.equal((await get(`/aspects/${enc('urn:li:tag:absent')}?aspect=tagProperties`, t.auth)).status, 404);
    res = await post('/api/graphql', { operationName: 'metricsSearch',
      query: 'query metricsSearch { search(input: { type: DATASET, query: "orders", start: 0, count: 10 }) { total } }' });
    assert.deepEqual(await res.json(), { data: { search: { total: 1 } }, extensions: {} });
    res = await post('/api/graphql', { query: '{ me { corpUser { urn } } }' });
    assert.equal(res.status, 200);

    const m = await scrape();
    const own = [...m.keys()].filter((n) => n.startsWith('almanac_')).sort();
    assert.deepEqual(own, [...FAMILIES, ...(ctx.engine === 'postgres' ? POOL_FAMILIES : [])].sort());
    // Process metrics (prom-client's collectDefaultMetrics).
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      assert.ok(m.has(name), `process metric ${name} is written`);
    }
    const types = Object.fromEntries([...m.values()].filter((f) => f.name.startsWith('almanac_')).map((f) => [f.name, f.type]));
    assert.deepEqual(types, {
      almanac_cache_hits_total: 'counter', almanac_cache_misses_total: 'counter', almanac_changelog_consumer_lag: 'gauge',
      almanac_changelog_consumer_offset: 'gauge', almanac_changelog_head: 'gauge', almanac_graphql_operation_duration_seconds: 'histogram',
      almanac_graphql_operations_total: 'counter', almanac_graphql_response_cache_answers: 'gauge', almanac_graphql_response_cache_bytes: 'gauge',
      almanac_http_request_duration_seconds: 'histogram', almanac_http_requests_total: 'counter', almanac_ingest_aspects_total: 'counter',
      almanac_ingest_refusals_total: 'counter', almanac_search_duration_seconds: 'histogram',
      ...(ctx.engine === 'postgres' ? { almanac_db_pool_connections: 'gauge', almanac_db_pool_idle_connections: 'gauge',
        almanac_db_pool_max_connections: 'gauge', almanac_db_pool_waiting_requests: 'gauge' } : {}),
    });

    // By route pattern (never the urn in the path) and status; Rest.li actions by their action. The scrape itself is
    // counted once answered (the next scrape shows it).
    const route = (method: string, r: string, status: number, n: number) =>
      `almanac_http_requests_total${JSON.stringify({ method, route: r, status: String(status) })} ${n}`;
    assert.deepEqual(lines(m.get('almanac_http_requests_total')), [
      route('GET', '/aspects/*', 200, 2), route('GET', '/aspects/*', 404, 1), route('POST', '/api/graphql', 200, 2),
      route('POST', '/aspects?action=ingestProposal', 422, 1), route('POST', '/aspects?action=ingestProposalBatch', 200, 1),
    ].sort());
    // The histogram counts the same requests.
    const histogramCounts = m.get('almanac_http_request_duration_seconds')!.samples.filter((s) => s.name.endsWith('_count'))
      .map((s) => route(s.labels.method!, s.labels.route!, Number(s.labels.status), s.value).replace('_total', '_duration'));
    assert.deepEqual(histogramCounts.sort(), lines(m.get('almanac_http_requests_total')).map((l) => l.replace('_total', '_duration')));

    assert.deepEqual(lines(m.get('almanac_ingest_aspects_total')), ['almanac_ingest_aspects_total{} 3']);
    assert.deepEqual(lines(m.get('almanac_ingest_refusals_total')), ['almanac_ingest_refusals_total{"code":"UNPROCESSABLE"} 1']);
    assert.deepEqual(lines(m.get('almanac_graphql_operations_total')), [
      'almanac_graphql_operations_total{"operation":"anonymous"} 1', 'almanac_graphql_operations_total{"operation":"metricsSearch"} 1']);
    assert.equal(sampleValue(m, 'almanac_search_duration_seconds', 'almanac_search_duration_seconds_count'), 1);

    // Every write was applied by the indexes before its request answered: no lag, offsets at the head.
    const head = await t.catalog.store.lastChangeSeq();
    assert.deepEqual(lines(m.get('almanac_changelog_head')), [`almanac_changelog_head{} ${head}`]);
    assert.deepEqual(lines(m.get('almanac_changelog_consumer_lag')), [
      'almanac_changelog_consumer_lag{"consumer":"relationships"} 0', 'almanac_changelog_consumer_lag{"consumer":"search"} 0']);
    assert.deepEqual(lines(m.get('almanac_changelog_consumer_offset')), [
      `almanac_changelog_consumer_offset{"consumer":"relationships"} ${head}`, `almanac_changelog_consumer_offset{"consumer":"search"} ${head}`]);

    // The caches: one series per cache; the GraphQL answers were looked up twice and found neither time.
    assert.deepEqual(m.get('almanac_cache_hits_total')!.samples.map((s) => s.labels.cache).sort(), ['graphql_responses', 'policies', 'tokens']);
    assert.equal(sampleValue(m, 'almanac_cache_hits_total', 'almanac_cache_hits_total', { cache: 'graphql_responses' }), 0);
    assert.equal(sampleValue(m, 'almanac_cache_misses_total', 'almanac_cache_misses_total', { cache: 'graphql_responses' }), 2);
    assert.equal(sampleValue(m, 'almanac_graphql_response_cache_answers', 'almanac_graphql_response_cache_answers'), 1);

    if (ctx.engine === 'postgres') {
      const pool = Object.fromEntries(POOL_FAMILIES.map((f) => [f, sampleValue(m, f, f)]));
      assert.equal(pool.almanac_db_pool_max_connections, 10);
      // Requests wait while the pool opens a connection for them (the scrape's own reads may): not a fixed number.
      assert.ok(Number.isInteger(pool.almanac_db_pool_waiting_requests) && pool.almanac_db_pool_waiting_requests! >= 0, `pool: ${JSON.stringify(pool)}`);
      const total = pool.almanac_db_pool_connections ?? -1;
      const idle = pool.almanac_db_pool_idle_connections ?? -1;
      assert.ok(total >= 1 && total <= 10 && idle >= 0 && idle <= total, `pool: ${JSON.stringify(pool)}`);
    }

    // The next scrape counts the first one, and a repeated GraphQL answer as a cache hit.
    res = await post('/api/graphql', { query: '{ me { corpUser { urn } } }' });
    assert.equal(res.status, 200);
    const again = await scrape();
    assert.equal(sampleValue(again, 'almanac_http_requests_total', 'almanac_http_requests_total', { method: 'GET', route: '/metrics', status: '200' }), 1);
    assert.equal(sampleValue(again, 'almanac_cache_hits_total', 'almanac_cache_hits_total', { cache: 'graphql_responses' }), 1);
    assert.equal(sampleValue(again, 'almanac_graphql_operations_total', 'almanac_graphql_operations_total', { operation: 'anonymous' }), 2);
  });

  test('Prometheus\'s own parser reads the scrape: promtool check metrics finds no error, and lints only prom-client\'s process gauges', async (c) => {
    if (!existsSync(PROMTOOL)) {
      if (IN_CI) assert.fail(`${PROMTOOL} is required in CI (apt-get install prometheus)`);
      c.skip(`${PROMTOOL} is missing`);
      return;
    }
    const res = await get('/metrics', { authorization: `Bearer ${SCRAPE_TOKEN}` });
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: await res.text(), encoding: 'utf8' });
    // Exit 1 is text Prometheus cannot parse; 3 is lint. prom-client's own handle gauges end in _total, which its
    // lint rule reserves for counters: those three, and nothing of Almanac's.
    assert.deepEqual({ status: checked.status, lint: (checked.stdout + checked.stderr).trim().split('\n').sort() }, {
      status: 3,
      lint: ['nodejs_active_handles_total non-counter metrics should not have "_total" suffix',
        'nodejs_active_requests_total non-counter metrics should not have "_total" suffix',
        'nodejs_active_resources_total non-counter metrics should not have "_total" suffix'],
    });
  });

  test('a consumer behind the log shows its lag, and 0 once it has caught up', async () => {
    const before = await scrape();
    assert.equal(sampleValue(before, 'almanac_changelog_consumer_lag', 'almanac_changelog_consumer_lag', { consumer: 'search' }), 0);
    const head0 = await t.catalog.store.lastChangeSeq();
    // Straight through the store: committed and logged, not yet applied by the indexes (as after a crash, or another
    // server's write before this one reads it).
    await t.catalog.store.writeAspects([{ urn: 'urn:li:tag:lagging', entityType: 'tag', aspect: 'tagProperties', value: { name: 'lagging' },
      systemMetadata: null, actor: 'urn:li:corpuser:datahub', time: Date.now() }], 20);
    const head1 = await t.catalog.store.lastChangeSeq();
    assert.ok(head1 > head0, 'the write was logged');
    const behind = await scrape();
    assert.equal(sampleValue(behind, 'almanac_changelog_head', 'almanac_changelog_head'), head1);
    for (const consumer of ['search', 'relationships']) {
      assert.equal(sampleValue(behind, 'almanac_changelog_consumer_lag', 'almanac_changelog_consumer_lag', { consumer }), head1 - head0, consumer);
    }
    await t.catalog.changeLog.catchUpIndexes();
    const caught = await scrape();
    assert.deepEqual(lines(caught.get('almanac_changelog_consumer_lag')), [
      'almanac_changelog_consumer_lag{"consumer":"relationships"} 0', 'almanac_changelog_consumer_lag{"consumer":"search"} 0']);
  });

  test('who may read: the scrape token or VIEW_METRICS; 401 without credentials, 403 without the privilege', async () => {
    // Counted from here on (other tests scrape too): a scrape counts once answered, so the next one shows it.
    const metricsRoute = (m: Map<string, Family>) => new Map(m.get('almanac_http_requests_total')!.samples
      .filter((s) => s.labels.route === '/metrics').map((s) => [s.labels.status!, s.value]));
    const before = metricsRoute(await scrape());
    const unauthenticated = { status: 401, body: { status: 401, code: 'UNAUTHENTICATED', message: 'Unauthorized to perform this action.' } };
    const answer = async (res: Response) => ({ status: res.status, body: await res.json() });
    assert.deepEqual(await answer(await get('/metrics')), unauthenticated);
    assert.deepEqual(await answer(await get('/metrics', { authorization: `Bearer ${SCRAPE_TOKEN}x` })), unauthenticated);
    assert.deepEqual(await answer(await get('/metrics', { authorization: 'Basic c2NyYXBlOnRva2Vu' })), unauthenticated);
    const alice = await t.tokenFor('alice');
    assert.deepEqual(await answer(await get('/metrics', { authorization: `Bearer ${alice}` })), { status: 403, body: { status: 403,
      code: 'FORBIDDEN', message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' } });
    // The root user holds VIEW_METRICS (so do administrators); the scrape token needs no user.
    const root = await get('/metrics', t.auth);
    assert.equal(root.status, 200);
    assert.ok(parsePrometheusText(await root.text()).has('almanac_http_requests_total'), 'the root user reads the metrics');
    // Refusals are requests too, counted by status on the /metrics route: since `before`, its own scrape, root's and
    // the refusals above.
    const after = metricsRoute(await scrape());
    assert.deepEqual([...after].map(([status, n]) => `${status} ${n - (before.get(status) ?? 0)}`).sort(), ['200 2', '401 3', '403 1']);
  });

  test(`GraphQL operation names: the first ${MAX_OPERATION_NAMES} seen, then "other"; names that are not GraphQL names are "other"`, async () => {
    const names = Array.from({ length: MAX_OPERATION_NAMES + 3 }, (_, i) => `op${i}`);
    for (const name of names) {
      const res = await post('/api/graphql', { operationName: name, query: `query ${name} { me { corpUser { urn } } }` });
      assert.equal(res.status, 200);
    }
    const res = await post('/api/graphql', { operationName: 'not a name', query: '{ me { corpUser { urn } } }' });
    assert.equal(res.status, 200);
    const m = await scrape();
    const ops = new Map(m.get('almanac_graphql_operations_total')!.samples.map((s) => [s.labels.operation!, s.value]));
    // Two names were seen by the first test (metricsSearch, and anonymous which is not a name).
    const counted = [...ops.keys()].filter((k) => k !== 'other' && k !== 'anonymous');
    assert.equal(counted.length, MAX_OPERATION_NAMES);
    assert.equal(ops.get('metricsSearch'), 1);
    assert.equal(ops.get('op0'), 1);
    assert.equal(ops.get(`op${MAX_OPERATION_NAMES - 2}`), 1);
    assert.equal(ops.has(`op${MAX_OPERATION_NAMES - 1}`), false);
    assert.equal(ops.get('other'), 4 + 1);
  });

  test('a webhook is a consumer too: its lag grows while nothing delivers, and its series goes with it', async () => {
    let res = await post('/api/webhooks', { url: 'http://127.0.0.1:9/unused', entityTypes: ['tag'] });
    const created = await res.json() as { id: string };
    assert.equal(res.status, 201, JSON.stringify(created));
    const consumer = `webhook:${created.id}`;
    const lag = (m: Map<string, Family>, c: string) => sampleValue(m, 'almanac_changelog_consumer_lag', 'almanac_changelog_consumer_lag', { consumer: c });
    assert.equal(lag(await scrape(), consumer), 0, 'registered at the head');
    const head0 = await t.catalog.store.lastChangeSeq();
    // This server runs no dispatcher (`serve` starts it): the entry stays undelivered.
    await t.put('urn:li:tag:hooked', 'tagProperties', { name: 'hooked' });
    // The indexes apply a write right after it answers (their lag is shown until then).
    await t.catalog.changeLog.catchUpIndexes();
    const head1 = await t.catalog.store.lastChangeSeq();
    const m = await scrape();
    assert.deepEqual([lag(m, consumer), lag(m, 'search'), lag(m, 'relationships')], [head1 - head0, 0, 0]);
    assert.ok(head1 > head0, 'the write was logged');
    res = await fetch(`${base}/api/webhooks/${created.id}`, { method: 'DELETE', headers: t.auth });
    assert.equal(res.status, 204);
    assert.deepEqual(lines((await scrape()).get('almanac_changelog_consumer_lag')), [
      'almanac_changelog_consumer_lag{"consumer":"relationships"} 0', 'almanac_changelog_consumer_lag{"consumer":"search"} 0']);
  });
});

forEachEngine('metrics turned off', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx, { metrics: false, metricsToken: SCRAPE_TOKEN });
  });
  after(async () => t.close());

  test('ALMANAC_METRICS=false: no /metrics route, requests still served', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${SCRAPE_TOKEN}` } });
    assert.equal(res.statusCode, 404);
    await t.put('urn:li:tag:off', 'tagProperties', { name: 'off' });
  });
});

describe('metrics configuration', () => {
  test('ALMANAC_METRICS_TOKEN: at least 32 characters, no spaces; ALMANAC_METRICS: a boolean, on by default', () => {
    assert.equal(loadConfig({}).metrics, true);
    assert.equal(loadConfig({}).metricsToken, undefined);
    assert.equal(loadConfig({ ALMANAC_METRICS: 'false' }).metrics, false);
    assert.equal(loadConfig({ ALMANAC_METRICS_TOKEN: SCRAPE_TOKEN }).metricsToken, SCRAPE_TOKEN);
    assert.throws(() => loadConfig({ ALMANAC_METRICS_TOKEN: 'short' }), (e: Error) => e instanceof ConfigError
      && e.message === 'ALMANAC_METRICS_TOKEN must be at least 32 characters long');
    assert.throws(() => loadConfig({ ALMANAC_METRICS_TOKEN: `${SCRAPE_TOKEN} ${SCRAPE_TOKEN}` }), (e: Error) => e instanceof ConfigError
      && e.message === 'ALMANAC_METRICS_TOKEN must not contain spaces');
    assert.throws(() => loadConfig({ ALMANAC_METRICS: 'maybe' }), (e: Error) => e instanceof ConfigError
      && e.message === "ALMANAC_METRICS must be true or false, got 'maybe'");
  });
});

describe('the Prometheus text parser (test support) is strict', () => {
  const ok = '# HELP a_total A counter.\n# TYPE a_total counter\na_total{x="1", y="q\\"uote\\\\",} 2\n\n'
    + '# TYPE h histogram\nh_bucket{le="0.1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 0.3\nh_count 2\n';
  test('reads families, labels with escapes, histograms', () => {
    const m = parsePrometheusText(ok);
    assert.deepEqual([...m.values()], [
      { name: 'a_total', help: 'A counter.', type: 'counter', samples: [{ name: 'a_total', labels: { x: '1', y: 'q"uote\\' }, value: 2 }] },
      { name: 'h', help: '', type: 'histogram', samples: [{ name: 'h_bucket', labels: { le: '0.1' }, value: 1 },
        { name: 'h_bucket', labels: { le: '+Inf' }, value: 2 }, { name: 'h_sum', labels: {}, value: 0.3 }, { name: 'h_count', labels: {}, value: 2 }] },
    ]);
  });
  test('refuses what the format does not allow', () => {
    const bad: [string, RegExp][] = [
      ['a 1', /does not end with a line break/],
      ['a{x="1"} one\n', /invalid value/],
      ['a{x="1} 1\n', /unterminated value/],
      ['a{x="1",x="2"} 1\n', /given twice/],
      ['a{1x="1"} 1\n', /invalid label name/],
      ['a{x="\\t"} 1\n', /invalid escape/],
      ['a 1\na 2\n', /written twice/],
      ['# TYPE a counter\n# TYPE a counter\na 1\n', /second TYPE/],
      ['# TYPE a wrong\n', /unknown type/],
      ['a 1\nb 1\na{x="1"} 1\n', /after other families/],
      ['# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\n', /not cumulative/],
      ['# TYPE h histogram\nh_bucket{le="1"} 1\nh_count 1\n', /no \+Inf bucket/],
      ['# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 3\n', /is not the \+Inf bucket/],
      ['a\n', /a sample without a value/],
      ['a 1 2 3\n', /expected a value and an optional timestamp/],
      ['a 1 1.5\n', /invalid timestamp/],
    ];
    for (const [text, why] of bad) assert.throws(() => parsePrometheusText(text), why, JSON.stringify(text));
  });
});
