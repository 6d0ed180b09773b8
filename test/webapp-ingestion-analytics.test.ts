import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { AnalyticsService } from '../src/services/analytics.js';
import { AuthorizedOperations } from '../src/services/authorized-operations.js';
import { MANAGED_INGESTION_UNAVAILABLE } from '../src/services/ingestion.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * DataHub 0.12.1's web app on its ingestion and analytics pages: ingestion sources and secrets stored, listed,
 * updated and deleted through the web app's own operations (execution refused with a clear error); usage events
 * posted to /track (and /auth/track, as DataHub's frontend forwards them) counted into the analytics charts and
 * recorded as recent views and searches; the metadata charts and highlights counted from a small catalog.
 */

const ds = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const ORDERS = ds('hive', 'sales.orders');
const CUSTOMERS = ds('hive', 'sales.customers');
const CLICKS = ds('kafka', 'clicks');
const GONE = ds('kafka', 'gone');
const DEV_ORDERS = 'urn:li:dataset:(urn:li:dataPlatform:hive,sales.orders,DEV)';
const FINANCE = 'urn:li:domain:finance';
const REVENUE = 'urn:li:glossaryTerm:Revenue';
const PII = 'urn:li:tag:PII';
const ROOT = 'urn:li:corpuser:datahub';

/** The analytics clock: Wednesday 18 November 2026, noon UTC. */
const NOW = Date.UTC(2026, 10, 18, 12);
const at = (day: number, hour: number) => Date.UTC(2026, 10, day, hour);

async function seed(t: TestApp) {
  const items: [string, string, unknown][] = [
    [FINANCE, 'domainProperties', { name: 'Finance', description: 'Money' }],
    [REVENUE, 'glossaryTermInfo', { name: 'Revenue', definition: 'Income', termSource: 'INTERNAL' }],
    [PII, 'tagProperties', { name: 'PII' }],
    [ORDERS, 'datasetProperties', { name: 'orders', description: 'All orders', customProperties: {} }],
    [ORDERS, 'ownership', { owners: [{ owner: 'urn:li:corpuser:alice', type: 'DATAOWNER' }], lastModified: { time: 0, actor: ROOT } }],
    [ORDERS, 'globalTags', { tags: [{ tag: PII }] }],
    [ORDERS, 'domains', { domains: [FINANCE] }],
    [CUSTOMERS, 'datasetProperties', { name: 'customers', customProperties: {} }],
    [CUSTOMERS, 'glossaryTerms', { terms: [{ urn: REVENUE }], auditStamp: { time: 0, actor: ROOT } }],
    [CUSTOMERS, 'domains', { domains: [FINANCE] }],
    [CLICKS, 'datasetProperties', { name: 'clicks', customProperties: {} }],
    [GONE, 'status', { removed: true }],
    [GONE, 'domains', { domains: [FINANCE] }],
    [DEV_ORDERS, 'datasetProperties', { name: 'orders', customProperties: {} }],
  ];
  await t.catalog.entities.ingest(items.map(([urn, aspect, value]) => ({
    urn, entityType: urn.split(':')[2]!, aspect, changeType: 'UPSERT' as const, value, systemMetadata: null })), systemActor());
}

/** The response body without its (empty) extensions. */
const bodyOf = (r: { body: any }) => {
  const { extensions: _extensions, ...rest } = r.body;
  return rest;
};
const errorOf = (body: any) => ({ message: body.errors?.[0]?.message, code: body.errors?.[0]?.extensions?.code });

forEachEngine('web app: ingestion sources, secrets, usage events and analytics', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx, { systemClientSecret: 'frontend-secret' });
    t.catalog.analytics = new AnalyticsService(t.catalog.store, t.catalog.search, { now: () => NOW });
    // The transports reach the analytics through the authorized wrapper, built over the service it replaces.
    t.catalog.authorized.operations = new AuthorizedOperations({ timeseries: t.catalog.timeseries, analytics: t.catalog.analytics }, t.catalog.policies);
    await seed(t);
  });
  after(async () => t.close());

  const recipe = JSON.stringify({ source: { type: 'mysql', config: { host_port: 'db:3306', password: '${MYSQL_PASSWORD}' } } });
  const input = (name: string, interval: string) => ({ type: 'mysql', name, schedule: { interval, timezone: 'Europe/Paris' },
    config: { recipe, executorId: 'default', debugMode: false, extraArgs: [{ key: 'extra_pip_requirements', value: '["pymysql"]' }] } });

  test('sources: created, listed newest first, read with their runs, updated, deleted', async () => {
    const first = await t.graphql(webappText('createIngestionSource'), { input: input('Orders DB', '0 0 * * *') });
    const firstUrn = first.body.data.createIngestionSource as string;
    assert.match(firstUrn, /^urn:li:dataHubIngestionSource:[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 5));
    const second = await t.graphql(webappText('createIngestionSource'), { input: { type: 'hive', name: 'Lake', config: { recipe: '{}', executorId: 'default' } } });
    const secondUrn = second.body.data.createIngestionSource as string;

    // A run an executor reported for the first source (execution requests arrive through the ingestion API).
    const run = (id: string, requestedAt: number, status: string) => [
      { urn: `urn:li:dataHubExecutionRequest:${id}`, entityType: 'dataHubExecutionRequest', aspect: 'dataHubExecutionRequestInput', changeType: 'UPSERT' as const,
        value: { task: 'RUN_INGEST', args: { recipe }, executorId: 'default', source: { type: 'SCHEDULED_INGESTION_SOURCE', ingestionSource: firstUrn }, requestedAt },
        systemMetadata: null },
      { urn: `urn:li:dataHubExecutionRequest:${id}`, entityType: 'dataHubExecutionRequest', aspect: 'dataHubExecutionRequestResult', changeType: 'UPSERT' as const,
        value: { status, startTimeMs: requestedAt + 10, durationMs: 5000, report: `run ${id}`,
          structuredReport: { type: 'INGESTION_REPORT', serializedValue: '{"ok":true}', contentType: 'application/json' } }, systemMetadata: null },
    ];
    await t.catalog.entities.ingest([...run('r1', 1_000, 'SUCCESS'), ...run('r2', 2_000, 'FAILURE')], systemActor());

    const source = (urn: string, name: string, type: string, extra: object) => ({ urn, name, type, platform: null, ...extra });
    const firstExpected = (runs: object) => source(firstUrn, 'Orders DB', 'mysql', {
      config: { recipe, version: null, executorId: 'default', debugMode: false, extraArgs: [{ key: 'extra_pip_requirements', value: '["pymysql"]' }] },
      schedule: { interval: '0 0 * * *', timezone: 'Europe/Paris' }, executions: runs });
    const listRun = (id: string, requestedAt: number, status: string) => ({ urn: `urn:li:dataHubExecutionRequest:${id}`, id, input: { requestedAt },
      result: { status, startTimeMs: requestedAt + 10, durationMs: 5000 } });
    const list = await t.graphql(webappText('listIngestionSources'), { input: { start: 0, count: 25 } });
    assert.deepEqual(bodyOf(list), { data: { listIngestionSources: { start: 0, count: 2, total: 2, ingestionSources: [
      source(secondUrn, 'Lake', 'hive', { config: { recipe: '{}', version: null, executorId: 'default', debugMode: null, extraArgs: null }, schedule: null,
        executions: { start: 0, count: 0, total: 0, executionRequests: [] } }),
      firstExpected({ start: 0, count: 1, total: 2, executionRequests: [listRun('r2', 2_000, 'FAILURE')] }),
    ] } } });
    const filtered = await t.graphql(webappText('listIngestionSources'), { input: { start: 0, count: 25, query: 'orders' } });
    assert.deepEqual(filtered.body.data.listIngestionSources.ingestionSources.map((s: any) => s.urn), [firstUrn]);

    const got = await t.graphql(webappText('getIngestionSource'), { urn: firstUrn, runStart: 0, runCount: 5 });
    const getRun = (id: string, requestedAt: number, status: string) => ({ ...listRun(id, requestedAt, status),
      input: { requestedAt, source: { type: 'SCHEDULED_INGESTION_SOURCE' } } });
    assert.deepEqual(bodyOf(got), { data: { ingestionSource: firstExpected({ start: 0, count: 2, total: 2,
      executionRequests: [getRun('r2', 2_000, 'FAILURE'), getRun('r1', 1_000, 'SUCCESS')] }) } });

    const exec = await t.graphql(webappText('getIngestionExecutionRequest'), { urn: 'urn:li:dataHubExecutionRequest:r1' });
    assert.deepEqual(bodyOf(exec), { data: { executionRequest: { urn: 'urn:li:dataHubExecutionRequest:r1', id: 'r1',
      input: { source: { type: 'SCHEDULED_INGESTION_SOURCE' }, arguments: [{ key: 'recipe', value: recipe }] },
      result: { status: 'SUCCESS', startTimeMs: 1_010, durationMs: 5000, report: 'run r1', structuredReport: { type: 'INGESTION_REPORT', serializedValue: '{"ok":true}' } } } } });
    assert.deepEqual(bodyOf(await t.graphql(webappText('getIngestionExecutionRequest'), { urn: 'urn:li:dataHubExecutionRequest:none' })),
      { data: { executionRequest: null } });

    const updated = await t.graphql(webappText('updateIngestionSource'), { urn: firstUrn, input: input('Orders DB (prod)', '0 6 * * *') });
    assert.deepEqual(bodyOf(updated), { data: { updateIngestionSource: firstUrn } });
    const after1 = await t.graphql(webappText('getIngestionSource'), { urn: firstUrn, runStart: 0, runCount: 1 });
    assert.equal(after1.body.data.ingestionSource.name, 'Orders DB (prod)');
    assert.deepEqual(after1.body.data.ingestionSource.schedule, { interval: '0 6 * * *', timezone: 'Europe/Paris' });
    assert.equal(after1.body.data.ingestionSource.executions.count, 1);

    assert.deepEqual(bodyOf(await t.graphql(webappText('deleteIngestionSource'), { urn: secondUrn })), { data: { deleteIngestionSource: secondUrn } });
    assert.deepEqual(bodyOf(await t.graphql(webappText('getIngestionSource'), { urn: secondUrn })), { data: { ingestionSource: null } });
    // Almanac's rule: an operation on a source that does not exist fails with NOT_FOUND and writes nothing.
    for (const [op, vars] of [['deleteIngestionSource', { urn: secondUrn }], ['updateIngestionSource', { urn: secondUrn, input: input('x', '* * * * *') }]] as const) {
      const r = await t.graphql(webappText(op), vars);
      assert.equal(errorOf(r.body).code, 404, op);
    }
    assert.equal(await t.catalog.entities.exists(secondUrn), false);
    assert.equal((await t.graphql(webappText('listIngestionSources'), { input: { start: 0, count: 25 } })).body.data.listIngestionSources.total, 1);
  });

  test('secrets: stored encrypted, listed without values, refused twice, deleted', async () => {
    const created = await t.graphql(webappText('createSecret'), { input: { name: 'MYSQL_PASSWORD', value: 's3cr3t-value', description: 'The DB password' } });
    assert.deepEqual(bodyOf(created), { data: { createSecret: 'urn:li:dataHubSecret:MYSQL_PASSWORD' } });
    await new Promise((r) => setTimeout(r, 5));
    await t.graphql(webappText('createSecret'), { input: { name: 'API_KEY', value: 'k' } });

    const stored = (await t.catalog.entities.getLatest('urn:li:dataHubSecret:MYSQL_PASSWORD')).get('dataHubSecretValue')!.value as any;
    assert.equal(stored.name, 'MYSQL_PASSWORD');
    assert.ok(!JSON.stringify(stored).includes('s3cr3t'), 'the value is not stored in plain text');
    assert.equal(t.catalog.ingestion.decrypt(stored.value), 's3cr3t-value');
    assert.equal(stored.created.actor, ROOT);

    const list = await t.graphql(webappText('listSecrets'), { input: { start: 0, count: 10 } });
    assert.deepEqual(bodyOf(list), { data: { listSecrets: { start: 0, count: 2, total: 2, secrets: [
      { urn: 'urn:li:dataHubSecret:API_KEY', name: 'API_KEY', description: null },
      { urn: 'urn:li:dataHubSecret:MYSQL_PASSWORD', name: 'MYSQL_PASSWORD', description: 'The DB password' },
    ] } } });
    const queried = await t.graphql(webappText('listSecrets'), { input: { start: 0, count: 10, query: 'password' } });
    assert.deepEqual(queried.body.data.listSecrets.secrets.map((s: any) => s.name), ['MYSQL_PASSWORD']);

    const again = await t.graphql(webappText('createSecret'), { input: { name: 'MYSQL_PASSWORD', value: 'other' } });
    assert.deepEqual(errorOf(again.body), { message: 'This Secret already exists: urn:li:dataHubSecret:MYSQL_PASSWORD', code: 409 });
    assert.equal(t.catalog.ingestion.decrypt(((await t.catalog.entities.getLatest('urn:li:dataHubSecret:MYSQL_PASSWORD'))
      .get('dataHubSecretValue')!.value as any).value), 's3cr3t-value');
    assert.equal(errorOf((await t.graphql(webappText('createSecret'), { input: { name: 'bad name', value: 'v' } })).body).code, 400);

    assert.deepEqual(bodyOf(await t.graphql(webappText('deleteSecret'), { urn: 'urn:li:dataHubSecret:API_KEY' })),
      { data: { deleteSecret: 'urn:li:dataHubSecret:API_KEY' } });
    assert.equal(errorOf((await t.graphql(webappText('deleteSecret'), { urn: 'urn:li:dataHubSecret:API_KEY' })).body).code, 404);
    assert.equal((await t.graphql(webappText('listSecrets'), { input: { start: 0, count: 10 } })).body.data.listSecrets.total, 1);
  });

  test('running, testing and cancelling answer that managed ingestion is not available', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['createIngestionExecutionRequest', { input: { ingestionSourceUrn: 'urn:li:dataHubIngestionSource:x' } }],
      ['cancelIngestionExecutionRequest', { input: { ingestionSourceUrn: 'urn:li:dataHubIngestionSource:x', executionRequestUrn: 'urn:li:dataHubExecutionRequest:y' } }],
      ['createTestConnectionRequest', { input: { recipe: '{}', version: '0.12.1' } }],
    ];
    for (const [op, vars] of calls) {
      const r = await t.graphql(webappText(op), vars);
      assert.deepEqual(r.body.data, { [op]: null }, op);
      assert.deepEqual(errorOf(r.body), { message: MANAGED_INGESTION_UNAVAILABLE, code: 400 }, op);
    }
  });

  test('a user without MANAGE_INGESTION or MANAGE_SECRETS is refused', async () => {
    const token = await t.tokenFor('jdoe');
    const headers = { authorization: `Bearer ${token}` };
    for (const [op, vars] of [['listIngestionSources', { input: { start: 0, count: 5 } }], ['listSecrets', { input: { start: 0, count: 5 } }],
      ['createSecret', { input: { name: 'X', value: 'v' } }], ['createIngestionExecutionRequest', { input: { ingestionSourceUrn: 'urn:li:dataHubIngestionSource:x' } }],
      ['rollbackIngestion', { input: { runId: 'run-1' } }],
    ] as const) {
      const r = await t.graphql(webappText(op), vars, headers);
      assert.equal(errorOf(r.body).code, 403, op);
    }
    assert.equal(await t.catalog.entities.exists('urn:li:dataHubSecret:X'), false);
  });

  const track = (event: object, headers: Record<string, string> = t.auth, url = '/track') =>
    t.app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: event });
  const base = (browserId: string, timestamp: number) => ({ actorUrn: ROOT, timestamp, date: new Date(timestamp).toString(), userAgent: 'test', browserId });

  test('the web app\'s events are accepted, stored, and counted into the usage charts', async () => {
    const events = [
      { type: 'PageViewEvent', originPath: '/', ...base('b3', at(4, 15)) },
      { type: 'SearchEvent', query: 'orders', pageNumber: 1, originPath: '/search', ...base('b1', at(17, 9)) },
      { type: 'SearchEvent', query: 'orders', pageNumber: 1, originPath: '/search', ...base('b2', at(18, 9)) },
      { type: 'SearchEvent', query: 'customers', pageNumber: 1, originPath: '/search', ...base('b1', at(18, 10)) },
      { type: 'EntityViewEvent', entityType: 'DATASET', entityUrn: ORDERS, ...base('b1', at(18, 10)) },
      { type: 'EntityViewEvent', entityType: 'DATASET', entityUrn: ORDERS, ...base('b2', at(18, 10)) },
      { type: 'EntityViewEvent', entityType: 'DATASET', entityUrn: CUSTOMERS, ...base('b2', at(18, 11)) },
      { type: 'EntitySectionViewEvent', entityType: 'DATASET', entityUrn: ORDERS, section: 'Schema', ...base('b1', at(18, 10)) },
      { type: 'EntitySectionViewEvent', entityType: 'DATASET', entityUrn: ORDERS, section: 'Schema', ...base('b2', at(18, 10)) },
      { type: 'EntitySectionViewEvent', entityType: 'DATASET', entityUrn: ORDERS, section: 'Lineage', ...base('b2', at(18, 10)) },
      { type: 'EntityActionEvent', entityType: 'DATASET', entityUrn: ORDERS, actionType: 'UpdateDescription', ...base('b1', at(18, 11)) },
      // Too old for the trailing week (counted in the monthly and weekly charts).
      { type: 'SearchEvent', query: 'ancient', pageNumber: 1, originPath: '/search', ...base('b3', at(4, 16)) },
    ];
    for (const e of events) {
      const r = await track(e);
      assert.equal(r.statusCode, 200, r.body);
    }
    // DataHub's frontend forwards an event to /auth/track with the system client's credentials, for the user it names.
    const forwarded = await track({ type: 'EntityActionEvent', entityType: 'DATASET', entityUrn: CUSTOMERS, actionType: 'UpdateTags', ...base('b2', at(18, 11)),
      actorUrn: 'urn:li:corpuser:alice' }, { authorization: 'Basic __datahub_system:frontend-secret' }, '/auth/track');
    assert.equal(forwarded.statusCode, 200, forwarded.body);

    const charts = await t.graphql(webappText('getAnalyticsCharts'));
    const day = (d: number) => new Date(Date.UTC(2026, 10, d)).toISOString();
    const datasetCell = (urn: string, name: string) => ({ value: name, linkParams: { searchParams: null, entityProfileParams: { urn, type: 'DATASET' } } });
    const queryCell = (q: string) => ({ value: q, linkParams: { searchParams: { types: null, query: q, filters: null }, entityProfileParams: null } });
    const countCell = (n: number) => ({ value: String(n), linkParams: null });
    assert.deepEqual(charts.body.data.getAnalyticsCharts[0], {
      groupId: 'DataHubUsageAnalytics', title: 'DataHub Usage Analytics', charts: [
        { title: 'Weekly Active Users', lines: [{ name: 'total', data: [{ x: day(2), y: 1 }, { x: day(9), y: 0 }, { x: day(16), y: 2 }] }],
          dateRange: { start: String(Date.UTC(2026, 8, 14)), end: String(Date.UTC(2026, 10, 23) - 1) }, interval: 'WEEK' },
        { title: 'Monthly Active Users', lines: [{ name: 'total', data: [{ x: new Date(Date.UTC(2026, 10, 1)).toISOString(), y: 3 }] }],
          dateRange: { start: String(Date.UTC(2025, 11, 1)), end: String(Date.UTC(2026, 11, 1) - 1) }, interval: 'MONTH' },
        { title: 'Searches Last Week', lines: [{ name: 'total', data: [{ x: day(17), y: 1 }, { x: day(18), y: 2 }] }],
          dateRange: { start: String(Date.UTC(2026, 10, 12)), end: String(Date.UTC(2026, 10, 19) - 1) }, interval: 'DAY' },
        { title: 'Top Search Queries', columns: ['Query', 'Count'], rows: [
          { values: ['orders', '2'], cells: [queryCell('orders'), countCell(2)] },
          { values: ['customers', '1'], cells: [queryCell('customers'), countCell(1)] }] },
        { title: 'Section Views across Entity Types', bars: [{ name: 'DATASET', segments: [{ label: 'Schema', value: 2 }, { label: 'Lineage', value: 1 }] }] },
        { title: 'Actions by Entity Type', bars: [{ name: 'DATASET', segments: [{ label: 'UpdateDescription', value: 1 }, { label: 'UpdateTags', value: 1 }] }] },
        { title: 'Top Viewed Dataset', columns: ['Dataset', '#Views'], rows: [
          { values: [ORDERS, '2'], cells: [datasetCell(ORDERS, 'sales.orders'), countCell(2)] },
          { values: [CUSTOMERS, '1'], cells: [datasetCell(CUSTOMERS, 'sales.customers'), countCell(1)] }] },
      ] });
  });

  test('views and searches from /track show in the recommendations', async () => {
    const r = await track({ type: 'SearchResultsViewEvent', query: 'revenue', total: 3, entityTypes: [], filterFields: [], filterCount: 0,
      filterMode: 'all', searchVersion: 'v2', ...base('b1', at(18, 11)) });
    assert.equal(r.statusCode, 200);
    // A search that found nothing is not remembered, as DataHub's recent searches leave those out.
    await track({ type: 'SearchResultsViewEvent', query: 'nothing here', total: 0, ...base('b1', at(18, 11)) });
    const views = await t.catalog.store.recentActivity(ROOT, 'view', 10);
    assert.deepEqual(views.map((v) => v.value), [CUSTOMERS, ORDERS]);
    const bar = await t.graphql(webappText('listRecommendations', 'recommendations.graphql'), { input: { userUrn: ROOT,
      requestContext: { scenario: 'SEARCH_BAR', searchRequestContext: { query: '' } }, limit: 1 } });
    assert.deepEqual(bar.body.data.listRecommendations.modules.map((m: any) => [m.moduleId, m.content.map((c: any) => c.value)]),
      [['RecentSearches', ['revenue']]]);
    // Alice's forwarded event is hers: nothing of it is recorded as root's.
    assert.deepEqual(await t.catalog.store.recentActivity('urn:li:corpuser:alice', 'view', 10), []);
  });

  test('malformed events are refused; an event needs credentials', async () => {
    const answer = (r: { statusCode: number; body: string }) => [r.statusCode, r.body ? JSON.parse(r.body) : r.body];
    const noType = { status: 400, code: 'BAD_REQUEST', field: 'type', message: 'A usage event needs a type (the event name, e.g. EntityViewEvent)' };
    assert.deepEqual(answer(await track({ query: 'no type' })), [400, noType]);
    assert.deepEqual(answer(await track({ type: 'Bad Type!' })), [400, noType]);
    assert.deepEqual(answer(await track({ type: 'PageViewEvent', pad: 'x'.repeat(20_000) })),
      [400, { status: 400, code: 'BAD_REQUEST', message: 'A usage event may be at most 16384 characters of JSON' }]);
    const anon = await t.app.inject({ method: 'POST', url: '/track', payload: { type: 'PageViewEvent' } });
    assert.deepEqual(answer(anon), [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Unauthorized to perform this action.' }]);
  });

  test('the data landscape charts, the filtered charts and the highlights are counted from the catalog', async () => {
    // Platforms are named by their display names: Hive and Kafka are among DataHub's built-in platforms (seeded at start, issue 29).
    const charts = await t.graphql(webappText('getAnalyticsCharts'));
    const bar = (name: string, label: string, value: number) => ({ name, segments: [{ label, value }] });
    assert.deepEqual(charts.body.data.getAnalyticsCharts[1], { groupId: 'GlobalMetadataAnalytics', title: 'Data Landscape Summary', charts: [
      { title: 'Entities per Domain', bars: [{ name: 'Finance', segments: [{ label: 'Hive', value: 2 }] }] },
      { title: 'Entities per Platform', bars: [bar('Hive', 'Count', 3), bar('Kafka', 'Count', 1)] },
      { title: 'Entities per Term', bars: [bar('Revenue', 'Count', 1)] },
      { title: 'Entities per Environment', bars: [bar('PROD', 'Count', 3), bar('DEV', 'Count', 1)] },
    ] });

    const filtered = await t.graphql(webappText('getMetadataAnalyticsCharts'), { input: { entityType: 'DATASET', domain: FINANCE, query: '*' } });
    assert.deepEqual(bodyOf(filtered), { data: { getMetadataAnalyticsCharts: [{ groupId: 'FilteredMetadataAnalytics', title: '', charts: [
      { title: 'Entities by Platform', bars: [bar('Hive', '#Entities', 2)] },
      { title: 'Entities by Term', bars: [bar('Revenue', '#Entities', 1)] },
    ] }] } });
    const all = await t.graphql(webappText('getMetadataAnalyticsCharts'), { input: { query: 'orders' } });
    assert.deepEqual(all.body.data.getMetadataAnalyticsCharts[0].charts, [
      { title: 'Entities by Domain', bars: [bar('Finance', '#Entities', 1)] },
      { title: 'Entities by Platform', bars: [bar('Hive', '#Entities', 2)] },
      { title: 'Entities by Environment', bars: [bar('DEV', '#Entities', 1), bar('PROD', '#Entities', 1)] },
    ]);

    const highlights = await t.graphql(webappText('getHighlights'));
    assert.deepEqual(bodyOf(highlights), { data: { getHighlights: [
      // This week (11–18 Nov, noon): browsers b1 and b2; the week before: b3.
      { value: 2, title: 'Weekly Active Users', body: '100.00% increase from last week' },
      // Since 18 October: b1, b2, b3; nobody the month before, so no change is told.
      { value: 3, title: 'Monthly Active Users', body: '' },
      { value: 4, title: 'Datasets', body: '25.00% have owners, 25.00% have tags, 25.00% have glossary terms, 25.00% have description, 50.00% have domain assigned!' },
      { value: 1, title: 'Domains', body: '0.00% have owners, 0.00% have tags, 0.00% have glossary terms, 100.00% have description!' },
    ] } });
    assert.deepEqual(bodyOf(await t.graphql(webappText('isAnalyticsEnabled'))), { data: { isAnalyticsEnabled: true } });
  });

  // Last: it adds datasets the counts above do not expect.
  test('rollbackIngestion undoes a run from the runId stored with its aspects', async () => {
    const KEPT = ds('mysql', 'shop.kept');
    const NEW = ds('mysql', 'shop.new');
    const meta = (runId: string) => ({ runId, lastObserved: 1_000 });
    const write = (runId: string, items: [string, string, unknown][]) => t.catalog.entities.ingest(items.map(([urn, aspect, value]) => ({
      urn, entityType: 'dataset', aspect, changeType: 'UPSERT' as const, value, systemMetadata: meta(runId) })), systemActor());
    await write('run-0', [[KEPT, 'datasetProperties', { description: 'v1', customProperties: {} }]]);
    await write('run-a', [
      [KEPT, 'datasetProperties', { description: 'v2', customProperties: {} }],
      [KEPT, 'globalTags', { tags: [{ tag: PII }] }],
      [KEPT, 'datasetProfile', { timestampMillis: 5_000, rowCount: 10 }],
      [NEW, 'datasetProperties', { description: 'brand new', customProperties: {} }],
      [NEW, 'globalTags', { tags: [{ tag: PII }] }],
    ]);
    // A later run changed the tags again: that change stays.
    await write('run-b', [[KEPT, 'globalTags', { tags: [] }]]);
    await t.catalog.entities.ingest([
      { urn: 'urn:li:dataHubExecutionRequest:run-a', entityType: 'dataHubExecutionRequest', aspect: 'dataHubExecutionRequestResult', changeType: 'UPSERT',
        value: { status: 'SUCCESS', startTimeMs: 1, durationMs: 2 }, systemMetadata: null }], systemActor());
    const search = async () => (await t.graphql('{ searchAcrossEntities(input: { query: "*", types: [DATASET], start: 0, count: 50, '
      + 'orFilters: [{ and: [{ field: "platform", values: ["urn:li:dataPlatform:mysql"] }] }] }) { searchResults { entity { urn } } } }'))
      .body.data.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn).sort();
    assert.deepEqual(await search(), [NEW, KEPT].sort());
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 1);

    const r = await t.graphql(webappText('rollbackIngestion'), { input: { runId: 'run-a' } });
    assert.deepEqual(bodyOf(r), { data: { rollbackIngestion: 'true' } });

    const latest = async (urn: string) => Object.fromEntries([...(await t.catalog.entities.getLatest(urn))]
      .filter(([a]) => a !== 'datasetKey').map(([a, rec]) => [a, { value: rec.value, runId: rec.systemMetadata?.runId ?? null }]));
    assert.deepEqual(await latest(KEPT), {
      datasetProperties: { value: { description: 'v1', customProperties: {} }, runId: 'run-0' },
      globalTags: { value: { tags: [] }, runId: 'run-b' },
    });
    assert.deepEqual(await latest(NEW), { status: { value: { removed: true }, runId: 'no-run-id-provided' } });
    assert.deepEqual(await search(), [KEPT]);
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 0);
    assert.equal(((await t.catalog.entities.getLatest('urn:li:dataHubExecutionRequest:run-a')).get('dataHubExecutionRequestResult')!.value as any).status,
      'ROLLED_BACK');

    // Nothing left of run-a: a second rollback changes nothing.
    assert.deepEqual(bodyOf(await t.graphql(webappText('rollbackIngestion'), { input: { runId: 'run-a' } })), { data: { rollbackIngestion: 'true' } });
    assert.deepEqual(await latest(KEPT), {
      datasetProperties: { value: { description: 'v1', customProperties: {} }, runId: 'run-0' },
      globalTags: { value: { tags: [] }, runId: 'run-b' },
    });
    const refused = await t.graphql(webappText('rollbackIngestion'), { input: { runId: 'no-run-id-provided' } });
    assert.equal(errorOf(refused.body).code, 400);
  });
});
