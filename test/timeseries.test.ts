import assert from 'node:assert/strict';
import { systemActor } from '../src/model/actor.js';
import { after, before, test } from 'node:test';
import { parseRetention } from '../src/config.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const ROLLBACK = 'urn:li:dataset:(urn:li:dataPlatform:test_rollback,rollback_test_dataset,TEST)';
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const ORDERS = 'urn:li:dataset:(urn:li:dataPlatform:redshift,dev.public.orders,PROD)';
const DAY = 86_400_000;
/** The eleventh rollback profile (rowCount 2000): ten rollback profiles are older. */
const CUT = 1651647600000;

test('retention settings parse per aspect, and refuse what is not a time-series aspect', () => {
  assert.deepEqual(parseRetention('datasetProfile:90d, operation:12h').map((r) => [r.index.indexName, r.maxAgeMs]),
    [['dataset_datasetprofileaspect_v1', 90 * DAY], ['dataset_operationaspect_v1', 12 * 3_600_000]]);
  assert.deepEqual(parseRetention(''), []);
  assert.throws(() => parseRetention('schemaMetadata:3d'), /'schemaMetadata' is not a time-series aspect/);
  assert.throws(() => parseRetention('datasetProfile:soon'), /is not <aspect>:<number><m\|h\|d\|w>/);
});

forEachEngine('time series', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json', 'demo-profiles.json', 'test_timeseries_rollback.json',
      'redshift_usages_golden.json', 'trino_usages_golden.json');
  });
  after(async () => t.close());

  const op = (action: string, payload: unknown = {}, headers = t.auth) =>
    t.app.inject({ method: 'POST', url: `/gms/operations?action=${action}`, headers, payload: payload as object });
  const sizes = async () => (await op('getIndexSizes')).json().value.indexSizes as { aspectName: string; sizeMb: number; indexName: string; entityName: string }[];

  test('a profile alone makes a dataset exist', async () => {
    const res = await t.graphql(`{ dataset(urn: "${ROLLBACK}") { urn } }`);
    assert.deepEqual(res.body, { data: { dataset: { urn: ROLLBACK } }, extensions: {} });
  });

  test('datasetProfiles: newest first, limited, within a time range', async () => {
    const res = await t.graphql(`{ dataset(urn: "${ROLLBACK}") {
      latest: datasetProfiles(limit: 2) { timestampMillis rowCount columnCount fieldProfiles { fieldPath uniqueCount nullProportion min max mean } partitionSpec { type partition } }
      range: datasetProfiles(startTimeMillis: ${CUT}, endTimeMillis: ${CUT + DAY}) { timestampMillis rowCount } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const d = res.body.data.dataset;
    assert.deepEqual(d.latest.map((p: any) => [p.timestampMillis, p.rowCount]), [[1653289200000, 100], [1653202800000, 200]]);
    assert.deepEqual(d.latest[0].partitionSpec, { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' });
    assert.equal(d.latest[0].columnCount, 1);
    assert.equal(d.latest[0].fieldProfiles[0].fieldPath, 'test_column');
    assert.deepEqual(d.range, [{ timestampMillis: CUT + DAY, rowCount: 1900 }, { timestampMillis: CUT, rowCount: 2000 }]);
  });

  test('operations, with the empty filter the SDK always sends', async () => {
    const res = await t.graphql(`{ dataset(urn: "${ORDERS}") { operations(filter: { and: [] }, limit: 10) {
      timestampMillis operationType actor lastUpdatedTimestamp numAffectedRows } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.equal(res.body.data.dataset.operations.length, 1);
    assert.equal(res.body.data.dataset.operations[0].operationType, 'DELETE');
    assert.equal(res.body.data.dataset.operations[0].timestampMillis, 1631664000000);
  });

  test('operations(filter:) keeps the events its clauses hold for, before the limit', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,ops_filtered,PROD)';
    const ops = [['INSERT', 'DATA_PROCESS', 10], ['DELETE', 'MANUAL', 20], ['INSERT', 'MANUAL', 30], ['UPDATE', 'DATA_PROCESS', 40]] as const;
    await t.catalog.entities.ingest(ops.map(([operationType, sourceType, at]) => ({ urn, entityType: 'dataset', aspect: 'operation',
      changeType: 'UPSERT' as const, systemMetadata: null, value: { timestampMillis: 1_700_000_000_000 + at, lastUpdatedTimestamp: at,
        operationType, sourceType, partitionSpec: { type: 'PARTITION', partition: `p${at}` } } })), systemActor());
    const read = async (filter: string, limit = 10) => {
      const res = await t.graphql(`{ dataset(urn: "${urn}") { operations(filter: ${filter}, limit: ${limit}) { lastUpdatedTimestamp } } }`);
      assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      return res.body.data.dataset.operations.map((o: { lastUpdatedTimestamp: number }) => o.lastUpdatedTimestamp);
    };
    assert.deepEqual(await read('{ and: [{ field: "operationType", values: ["INSERT"] }] }'), [30, 10]);
    assert.deepEqual(await read('{ and: [{ field: "operationType", values: ["INSERT"] }] }', 1), [30]);
    assert.deepEqual(await read('{ and: [{ field: "operationType", values: ["INSERT"], negated: true }, { field: "sourceType", values: ["DATA_PROCESS"] }] }'), [40]);
    assert.deepEqual(await read('{ or: [{ and: [{ field: "sourceType", values: ["MANUAL"] }] }, { and: [{ field: "lastUpdatedTimestamp", condition: GREATER_THAN, values: ["35"] }] }] }'), [40, 30, 20]);
    assert.deepEqual(await read('{ and: [{ field: "partition", values: ["p20"] }] }'), [20]);
    const bad = await t.graphql(`{ dataset(urn: "${urn}") { operations(filter: { and: [{ field: "lastUpdatedTimestamp", condition: LESS_THAN, values: ["soon"] }] }) { lastUpdatedTimestamp } } }`);
    assert.equal(bad.body.errors[0].extensions.type, 'BAD_REQUEST');
  });

  test('usageStats over all time; statsSummary over the last 30 days', async () => {
    const res = await t.graphql(`{ dataset(urn: "${ORDERS}") { usageStats(range: ALL) { buckets { bucket duration metrics { totalSqlQueries uniqueUserCount } }
      aggregations { uniqueUserCount totalSqlQueries users { user { urn } count } fields { fieldName count } } }
      statsSummary { queryCountLast30Days uniqueUserCountLast30Days topUsersLast30Days { urn } } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const u = res.body.data.dataset.usageStats;
    assert.deepEqual(u.buckets.map((b: any) => [b.bucket, b.duration]), [[1631577600000, 'DAY']]);
    assert.equal(u.aggregations.uniqueUserCount, 1);
    // The samples are from 2021: nothing in the last 30 days.
    assert.deepEqual(res.body.data.dataset.statsSummary, { queryCountLast30Days: 0, uniqueUserCountLast30Days: 0, topUsersLast30Days: [] });
    await t.catalog.entities.ingest([1, 2].map((n) => ({ urn: ORDERS, entityType: 'dataset', aspect: 'datasetUsageStatistics', changeType: 'UPSERT' as const,
      systemMetadata: null, value: { timestampMillis: Date.now() - n * DAY, eventGranularity: { unit: 'DAY', multiple: 1 }, totalSqlQueries: 5 * n, uniqueUserCount: 2,
        userCounts: [{ user: 'urn:li:corpuser:ann', count: 4 * n }, { user: 'urn:li:corpuser:bo', count: n }] } })), { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const now = await t.graphql(`{ dataset(urn: "${ORDERS}") { statsSummary { queryCountLast30Days uniqueUserCountLast30Days topUsersLast30Days { urn } } } }`);
    assert.deepEqual(now.body.data.dataset.statsSummary, { queryCountLast30Days: 15, uniqueUserCountLast30Days: 2,
      topUsersLast30Days: [{ urn: 'urn:li:corpuser:ann' }, { urn: 'urn:li:corpuser:bo' }] });
  });

  test('reportOperation writes an operation the reads see', async () => {
    const res = await t.graphql(`mutation { reportOperation(input: { urn: "${HDFS}", operationType: INSERT, sourceType: DATA_PROCESS,
      numAffectedRows: 42, timestampMillis: 1700000000000, customProperties: [{ key: "job", value: "nightly" }] }) }`);
    assert.deepEqual(res.body, { data: { reportOperation: 'true' }, extensions: {} });
    const read = await t.graphql(`{ dataset(urn: "${HDFS}") { operations { timestampMillis operationType sourceType numAffectedRows actor customProperties { key value } } } }`);
    assert.deepEqual(read.body.data.dataset.operations, [{ timestampMillis: 1700000000000, operationType: 'INSERT', sourceType: 'DATA_PROCESS',
      numAffectedRows: 42, actor: 'urn:li:corpuser:datahub', customProperties: [{ key: 'job', value: 'nightly' }] }]);
    const missing = await t.graphql('mutation { reportOperation(input: { urn: "urn:li:dataset:(urn:li:dataPlatform:x,nope,PROD)", operationType: INSERT, sourceType: MANUAL }) }');
    assert.equal(missing.body.errors[0].extensions.code, 404);
  });

  test('getIndexSizes lists every time-series index, lower-case names, positive sizes where there is data', async () => {
    const res = await op('getIndexSizes');
    assert.equal(res.statusCode, 200);
    const list = res.json().value.indexSizes;
    assert.deepEqual(Object.keys(res.json()), ['value']);
    assert.deepEqual(Object.keys(res.json().value), ['indexSizes']);
    assert.deepEqual(list.map((s: any) => [s.indexName, s.entityName, s.aspectName]).sort(), [
      ['assertion_assertionruneventaspect_v1', 'assertion', 'assertionrunevent'],
      ['chart_chartusagestatisticsaspect_v1', 'chart', 'chartusagestatistics'],
      ['dashboard_dashboardusagestatisticsaspect_v1', 'dashboard', 'dashboardusagestatistics'],
      ['datajob_datahubingestioncheckpointaspect_v1', 'datajob', 'datahubingestioncheckpoint'],
      ['datajob_datahubingestionrunsummaryaspect_v1', 'datajob', 'datahubingestionrunsummary'],
      ['dataprocessinstance_dataprocessinstanceruneventaspect_v1', 'dataprocessinstance', 'dataprocessinstancerunevent'],
      ['dataset_datasetprofileaspect_v1', 'dataset', 'datasetprofile'],
      ['dataset_datasetusagestatisticsaspect_v1', 'dataset', 'datasetusagestatistics'],
      ['dataset_operationaspect_v1', 'dataset', 'operation'],
      ['query_queryusagestatisticsaspect_v1', 'query', 'queryusagestatistics'], // DataHub 1.5's
    ]);
    for (const s of list) {
      assert.deepEqual(Object.keys(s).sort(), ['aspectName', 'entityName', 'indexName', 'sizeMb']);
      assert.equal(typeof s.sizeMb, 'number');
    }
    assert.ok(list.find((s: any) => s.indexName === 'dataset_datasetprofileaspect_v1').sizeMb > 0, JSON.stringify(list));
    for (const prefix of ['', '/api/gms']) {
      const again = await t.app.inject({ method: 'POST', url: `${prefix}/operations?action=getIndexSizes`, headers: t.auth });
      assert.equal(again.statusCode, 200);
    }
  });

  test('a dry run counts exactly and writes nothing; rows at endTimeMillis are kept', async () => {
    const res = await op('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'datasetprofile', endTimeMillis: CUT });
    assert.deepEqual(res.json(), { value: 'Delete 26 out of 46 rows (56.52%). Reindexing the aspect without the deleted records. This was a dry run. Run with dryRun = false to execute.' });
    const inPlace = await op('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'datasetprofile', endTimeMillis: CUT, forceDeleteByQuery: true });
    assert.equal(inPlace.json().value, 'Delete 26 out of 46 rows (56.52%). Issuing a delete by query request. This was a dry run. Run with dryRun = false to execute.');
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 46);
    // Query-string parameters, as DataHub's docs send them.
    const q = await t.app.inject({ method: 'POST', headers: t.auth,
      url: `/operations?action=truncateTimeseriesAspect&entityType=dataset&aspect=datasetProfile&endTimeMillis=${CUT + 1}&dryRun=true` });
    assert.match(q.json().value, /^Delete 27 out of 46 rows \(58\.70%\)\./);
  });

  test('a real run deletes in batches, keeps the boundary row, and the index shrinks', async () => {
    const before = (await sizes()).find((s) => s.aspectName === 'datasetprofile')!.sizeMb;
    const res = await op('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: CUT, dryRun: false, batchSize: 4 });
    assert.equal(res.statusCode, 200);
    assert.match(res.json().value, /^Deleted 26 out of 46 rows \(56\.52%\) in 7 batch\(es\) of up to 4 rows in \d+ ms; the table was rewritten\. Task almanac:\d+\.$/);
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 20);
    const oldest = await t.graphql(`{ dataset(urn: "${ROLLBACK}") { datasetProfiles(limit: 100) { timestampMillis } } }`);
    assert.equal(oldest.body.data.dataset.datasetProfiles.at(-1).timestampMillis, CUT);
    const after = (await sizes()).find((s) => s.aspectName === 'datasetprofile')!.sizeMb;
    assert.ok(after < before, `size fell: ${before} → ${after}`);
  });

  test('a run longer than timeoutSeconds answers with a task id whose status getEsTaskStatus reports', async () => {
    await t.catalog.entities.ingest(Array.from({ length: 300 }, (_, i) => ({ urn: HDFS, entityType: 'dataset', aspect: 'operation',
      changeType: 'UPSERT' as const, systemMetadata: null, value: { timestampMillis: 1000 + i, lastUpdatedTimestamp: 1000 + i, operationType: 'INSERT' } })),
    { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const res = await op('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'operation', endTimeMillis: 2000, dryRun: false, batchSize: 1, timeoutSeconds: 0 });
    const task = res.json().value as string;
    assert.match(task, /^almanac:\d+$/);
    await t.catalog.timeseries.waitFor(task);
    const status = await op('getEsTaskStatus', { task });
    const parsed = JSON.parse(status.json().value);
    assert.equal(parsed.completed, true);
    assert.equal(parsed.taskId, task);
    assert.equal(parsed.status.deleted, 300);
    assert.equal(parsed.status.batches, 301);
    assert.equal(typeof parsed.runTimeNanos, 'number');
    const byParts = await op('getEsTaskStatus', { nodeId: 'almanac', taskId: Number(task.split(':')[1]) });
    assert.equal(JSON.parse(byParts.json().value).taskId, task);
    const unknown = await op('getEsTaskStatus', { task: 'almanac:999999' });
    assert.deepEqual(unknown.json(), { value: JSON.stringify({ error: 'Could not get task status for almanac:999999' }) });
  });

  test('bad parameters are 400; no token is 401; no privilege is 403', async () => {
    const cases: [unknown, RegExp][] = [
      [{ entityType: 'dataset', aspect: 'datasetProfile' }, /Missing required parameter 'endTimeMillis'/],
      [{ entityType: 'dataset', aspect: 'schemaMetadata', endTimeMillis: 1 }, /dataset\.schemaMetadata is not a time-series aspect/],
      [{ entityType: 'spaceship', aspect: 'datasetProfile', endTimeMillis: 1 }, /spaceship\.datasetProfile is not a time-series aspect/],
      [{ entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 'soon' }, /endTimeMillis must be a whole number/],
      [{ entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 1, forceReindex: true, forceDeleteByQuery: true }, /please only set forceReindex OR forceDeleteByQuery flags/],
      [{ entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 1, batchSize: 0 }, /batchSize must be between/],
    ];
    for (const [payload, message] of cases) {
      const res = await op('truncateTimeseriesAspect', payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.match(res.json().message, message);
    }
    assert.equal((await op('getEsTaskStatus', {})).statusCode, 400);
    assert.equal((await op('getIndexSizes', {}, {} as never)).statusCode, 401);
    const alice = { authorization: `Bearer ${await t.tokenFor('alice')}` };
    assert.equal((await op('getIndexSizes', {}, alice)).statusCode, 403);
    assert.equal((await op('truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'operation', endTimeMillis: 1 }, alice)).statusCode, 403);
  });

  test('getTimeseriesAspectValues returns aspects as JSON strings, newest first', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=getTimeseriesAspectValues', headers: t.auth,
      payload: { urn: ROLLBACK, entity: 'dataset', aspect: 'datasetProfile', limit: 2 } });
    assert.equal(res.statusCode, 200);
    const v = res.json().value;
    assert.deepEqual([v.entityName, v.aspectName, v.limit, v.values.length], ['dataset', 'datasetProfile', 2, 2]);
    assert.equal(v.values[0].aspect.contentType, 'application/json');
    assert.equal(JSON.parse(v.values[0].aspect.value).rowCount, 100);
  });

  test('retention cleanup deletes what is older than the configured age', async () => {
    // From the 20 profiles at or after CUT, as the truncation test leaves them (nothing to delete if it ran).
    await t.catalog.timeseries.truncate({ entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: CUT, dryRun: false });
    const now = 1653289200000 + DAY; // a day after the newest rollback profile
    const dry = await t.catalog.timeseries.cleanup(parseRetention('datasetProfile:5d'), { dryRun: true, now });
    assert.deepEqual(dry, [{ indexName: 'dataset_datasetprofileaspect_v1', cutoff: now - 5 * DAY, rows: 15 }]);
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 20);
    const real = await t.catalog.timeseries.cleanup(parseRetention('datasetProfile:5d'), { dryRun: false, now });
    assert.deepEqual(real, [{ indexName: 'dataset_datasetprofileaspect_v1', cutoff: now - 5 * DAY, rows: 15 }]);
    assert.equal(await t.catalog.store.countTimeseries('dataset', 'datasetProfile'), 5); // the last five days
  });

  test('legacy /usageStats: batchIngest stores usage buckets that queryRange and GraphQL read back', async () => {
    const bucket = Date.now() - 2 * DAY;
    const ingest = await t.app.inject({ method: 'POST', url: '/usageStats?action=batchIngest', headers: t.auth, payload: { buckets: [{
      bucket, duration: 'DAY', resource: HDFS, metrics: { uniqueUserCount: 1, totalSqlQueries: 3, topSqlQueries: ['select 1'],
        users: [{ user: 'urn:li:corpuser:jdoe', count: 3 }], fields: [{ fieldName: 'shipment_info', count: 2 }] } }] } });
    assert.equal(ingest.statusCode, 200, ingest.body);
    const res = await t.app.inject({ method: 'POST', url: '/usageStats?action=queryRange', headers: t.auth,
      payload: { resource: HDFS, duration: 'DAY', rangeFromEnd: 'WEEK' } });
    assert.deepEqual(res.json(), { value: {
      buckets: [{ bucket, duration: 'DAY', resource: HDFS, metrics: { uniqueUserCount: 1, totalSqlQueries: 3, topSqlQueries: ['select 1'],
        users: [{ user: 'urn:li:corpuser:jdoe', count: 3 }], fields: [{ fieldName: 'shipment_info', count: 2 }] } }],
      aggregations: { uniqueUserCount: 1, totalSqlQueries: 3, users: [{ user: 'urn:li:corpuser:jdoe', count: 3 }], fields: [{ fieldName: 'shipment_info', count: 2 }] },
    } });
    const gql = await t.graphql(`{ dataset(urn: "${HDFS}") { usageStats(range: WEEK) { aggregations { users { user { username } count } } } } }`);
    assert.deepEqual(gql.body.data.dataset.usageStats.aggregations.users, [{ user: { username: 'jdoe' }, count: 3 }]);
  });
});
