import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { rootActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { freshAppPerTest } from './support/fresh.js';
import { ingestSamples, type TestApp } from './support/app.js';

/**
 * What Almanac's own web UI reads beyond DataHub's API: `explainTests` (why each test passed or failed, for any reader,
 * nothing stored), `runAllTests` (every test over the catalog, results stored: the tests page's button) and `timeseriesIndexSizes` (getIndexSizes over GraphQL); and the test page's reading of a test's
 * passing and failing entities through its IsPassing / IsFailing relationships.
 */
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const CREATED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const TEST = 'urn:li:test:owned-documented';
const OWNED_AND_DOCUMENTED = JSON.stringify({
  on: { types: ['dataset'] },
  rules: { and: [
    { property: 'ownership.owners.owner', operator: 'exists' },
    { or: [{ property: 'editableDatasetProperties.description', operator: 'exists' }, { property: 'datasetProperties.description', operator: 'exists' }] },
  ] },
});

forEachEngine('the web UI\'s additions to the GraphQL API', (ctx) => {
  let t: TestApp;
  const fresh = freshAppPerTest(ctx, async (app) => {
    await ingestSamples(app.catalog, 'bootstrap_mce.json', 'demo-profiles.json');
    await app.catalog.metadataTests.create({ id: 'owned-documented', name: 'Owner and description', category: 'Quality',
      definition: { json: OWNED_AND_DOCUMENTED } }, rootActor());
  });
  beforeEach(async () => {
    t = await fresh();
  });

  const EXPLAIN = `query($urn: String!) { explainTests(urn: $urn) { passing { test { urn } type } failing { test { urn name } type }
    explanations { test passed reasons } } }`;

  test('explainTests says why a test failed, for a user without MANAGE_TESTS, and stores nothing', async () => {
    const reader = { authorization: `Bearer ${await t.tokenFor('reader')}` };
    const res = await t.graphql(EXPLAIN, { urn: HDFS }, reader);
    assert.deepEqual(res.body, { data: { explainTests: { passing: [], failing: [{ test: { urn: TEST, name: 'Owner and description' }, type: 'FAILURE' }],
      explanations: [{ test: TEST, passed: false, reasons: ['editableDatasetProperties.description does not exist',
        'datasetProperties.description does not exist'] }] } }, extensions: {} });
    const stored = (await t.catalog.store.getLatest([HDFS], ['testResults'])).get(HDFS)?.get('testResults');
    assert.equal(stored, undefined);
  });

  test('explainTests on a passing dataset gives the predicates that decided it', async () => {
    const res = await t.graphql(EXPLAIN, { urn: CREATED });
    assert.deepEqual(res.body.data.explainTests.passing, [{ test: { urn: TEST }, type: 'SUCCESS' }]);
    assert.deepEqual(res.body.data.explainTests.failing, []);
    const [e] = res.body.data.explainTests.explanations;
    assert.equal(e.test, TEST);
    assert.equal(e.passed, true);
    assert.ok(e.reasons.length > 0, 'a reason given');
  });

  test('explainTests on an entity that does not exist is a 404, on a malformed urn a 400', async () => {
    const missing = await t.graphql(EXPLAIN, { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,nope,PROD)' });
    assert.equal(missing.body.errors[0].extensions.code, 404);
    const bad = await t.graphql(EXPLAIN, { urn: 'not-a-urn' });
    assert.equal(bad.body.errors[0].extensions.code, 400);
  });

  test('a test\'s failing and passing entities are its incoming IsFailing / IsPassing relationships once results are pushed', async () => {
    await t.graphql(`mutation { a: runTests(urn: "${HDFS}") { failing { type } } b: runTests(urn: "${CREATED}") { passing { type } } }`);
    const rel = (type: string) => `${type.toLowerCase()}: relationships(input: { types: ["${type}"], direction: INCOMING, start: 0, count: 50 }) {
      total relationships { type entity { urn type } } }`;
    const res = await t.graphql(`{ test(urn: "${TEST}") { name ${rel('IsFailing')} ${rel('IsPassing')} } }`);
    assert.deepEqual(res.body.data.test, { name: 'Owner and description',
      isfailing: { total: 1, relationships: [{ type: 'IsFailing', entity: { urn: HDFS, type: 'DATASET' } }] },
      ispassing: { total: 1, relationships: [{ type: 'IsPassing', entity: { urn: CREATED, type: 'DATASET' } }] } });
  });

  test('runAllTests evaluates every test over the catalog, stores the results and counts what `almanac tests run` counts; a reader is refused', async () => {
    const readerAuth = { authorization: `Bearer ${await t.tokenFor('reader')}` };
    const expected = await t.catalog.metadataTests.runAll({ push: false }, rootActor());
    const mine = expected.tests.find((x) => x.urn === TEST)!;
    assert.ok(mine.failing > 0 && mine.passing > 0, JSON.stringify(mine));
    const reader = await t.graphql('mutation { runAllTests { entities } }', undefined, readerAuth);
    assert.equal(reader.body.errors[0].extensions.code, 403);
    assert.equal((await t.catalog.store.getLatest([HDFS], ['testResults'])).get(HDFS)?.get('testResults'), undefined, 'the refused run stored nothing');
    const res = await t.graphql('mutation { runAllTests { entities unstoredTypes tests { urn test { name } passing failing } } }');
    assert.deepEqual(res.body.errors, undefined, JSON.stringify(res.body));
    const run = res.body.data.runAllTests;
    assert.equal(run.entities, expected.entities);
    assert.deepEqual(run.unstoredTypes, []);
    assert.deepEqual(run.tests.find((x: { urn: string }) => x.urn === TEST), { urn: TEST, test: { name: 'Owner and description' }, passing: mine.passing, failing: mine.failing });
    // Stored: the test's relationships (what the tests pages read) now count the same.
    const rel = (type: string) => `${type.toLowerCase()}: relationships(input: { types: ["${type}"], direction: INCOMING, start: 0, count: 0 }) { total }`;
    const stored = await t.graphql(`{ test(urn: "${TEST}") { ${rel('IsFailing')} ${rel('IsPassing')} } }`);
    assert.deepEqual(stored.body.data.test, { isfailing: { total: mine.failing }, ispassing: { total: mine.passing } });
    assert.deepEqual((await t.catalog.store.getLatest([HDFS], ['testResults'])).get(HDFS)?.get('testResults')?.value,
      { passing: [], failing: [{ test: TEST, type: 'FAILURE' }] });
  });

  test('timeseriesIndexSizes lists every time-series table, as getIndexSizes does; a plain user is refused', async () => {
    const res = await t.graphql('{ timeseriesIndexSizes { entityName aspectName indexName sizeMb } }');
    const rest = await t.app.inject({ method: 'POST', url: '/operations?action=getIndexSizes', headers: t.auth, payload: {} });
    const sizes = res.body.data.timeseriesIndexSizes;
    assert.deepEqual(sizes.map((s: any) => [s.entityName, s.aspectName, s.indexName]),
      rest.json().value.indexSizes.map((s: any) => [s.entityName, s.aspectName, s.indexName]));
    assert.ok(sizes.some((s: any) => s.indexName === 'dataset_datasetprofileaspect_v1'), JSON.stringify(sizes));
    for (const s of sizes) assert.equal(typeof s.sizeMb, 'number');
    const plain = await t.graphql('{ timeseriesIndexSizes { indexName } }', undefined, { authorization: `Bearer ${await t.tokenFor('plain')}` });
    assert.equal(plain.body.errors[0].extensions.code, 403);
    assert.equal(plain.body.data, null);
  });
});
