import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { rootActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { freshAppPerTest } from './support/fresh.js';
import { ingestSamples, type TestApp } from './support/app.js';

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const CREATED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const OWNED_AND_DOCUMENTED = JSON.stringify({
  on: { types: ['dataset'] },
  rules: { and: [
    { property: 'ownership.owners.owner', operator: 'exists' },
    { or: [{ property: 'editableDatasetProperties.description', operator: 'exists' }, { property: 'datasetProperties.description', operator: 'exists' }] },
  ] },
}, null, 2);
const HIVE_ONLY = 'on:\n  types: [dataset]\n  conditions:\n    property: urn\n    operator: contains_str\n    values: [dataPlatform:hive]\nrules:\n  - property: globalTags.tags.tag\n    operator: contains_any\n    values: ["urn:li:tag:Legacy"]\n';
const TAGS_ONLY = JSON.stringify({ on: { types: ['tag'] }, rules: [{ property: 'tagProperties.description', operator: 'exists' }] });

forEachEngine('metadata tests over HTTP', (ctx) => {
  // Every test starts from the samples on a database of its own; those that need our three tests create them.
  let t: TestApp;
  const fresh = freshAppPerTest(ctx, async (app) => {
    await ingestSamples(app.catalog, 'bootstrap_mce.json', 'tests_data.json');
  });
  beforeEach(async () => {
    t = await fresh();
  });
  /** The three tests the first test creates over GraphQL, made directly. */
  const withOurTests = async () => {
    for (const [id, name, json] of [['owned-documented', 'Has an owner and a description', OWNED_AND_DOCUMENTED],
      ['legacy-hive', 'Hive datasets are tagged Legacy', HIVE_ONLY], ['tags-documented', 'Tags are documented', TAGS_ONLY]] as const) {
      await t.catalog.metadataTests.create({ id, name, category: 'Quality', description: 'd', definition: { json } }, rootActor());
    }
  };

  const evaluate = (payload: unknown, headers = t.auth) =>
    t.app.inject({ method: 'POST', url: '/gms/test?action=evaluate', headers, payload: payload as object });

  test('tests are created over GraphQL; invalid definitions and duplicates are refused', async () => {
    const create = async (id: string, name: string, json: string, type?: string) => t.graphql(`mutation c($json: String) {
      createTest(input: { id: "${id}", name: "${name}", category: "Quality", description: "d", definition: { json: $json } }) }`, { json, ...(type ? {} : {}) });
    assert.deepEqual((await create('owned-documented', 'Has an owner and a description', OWNED_AND_DOCUMENTED)).body,
      { data: { createTest: 'urn:li:test:owned-documented' }, extensions: {} });
    assert.deepEqual((await create('legacy-hive', 'Hive datasets are tagged Legacy', HIVE_ONLY)).body.data, { createTest: 'urn:li:test:legacy-hive' });
    assert.deepEqual((await create('tags-documented', 'Tags are documented', TAGS_ONLY)).body.data, { createTest: 'urn:li:test:tags-documented' });
    const dup = await create('owned-documented', 'again', OWNED_AND_DOCUMENTED);
    assert.deepEqual([dup.body.errors[0].extensions.code, dup.body.errors[0].message], [409, 'This Test already exists: urn:li:test:owned-documented']);
    const bad = await create('bad', 'bad', '{"on": {"types": ["dataset"]}, "rules": {"property": "urn", "operator": "equal", "values": ["x"]}}');
    assert.equal(bad.body.errors[0].extensions.code, 400);
    assert.match(bad.body.errors[0].message, /^Invalid test definition: rules\.operator: unknown operator 'equal'/);
    const syntax = await create('bad2', 'bad', '{"on": {"types": ["dataset"]},\n "rules": }');
    assert.match(syntax.body.errors[0].message, /^Invalid test definition: line 2, column \d+:/);
  });

  test('the definition reads back byte for byte', async () => {
    await withOurTests();
    const res = await t.graphql('{ test(urn: "urn:li:test:owned-documented") { urn type name category description definition { json } } }');
    assert.deepEqual(res.body.data.test, { urn: 'urn:li:test:owned-documented', type: 'TEST', name: 'Has an owner and a description',
      category: 'Quality', description: 'd', definition: { json: OWNED_AND_DOCUMENTED } });
    const list = await t.graphql('{ listTests(input: { start: 0, count: 10, query: "documented" }) { total tests { urn } } }');
    assert.deepEqual(list.body.data.listTests, { total: 2, tests: [{ urn: 'urn:li:test:owned-documented' }, { urn: 'urn:li:test:tags-documented' }] });
  });

  test('evaluate: passing, failing, and tests that do not apply appear in neither list; nothing is written', async () => {
    await withOurTests();
    const before = await t.catalog.entities.getLatest(HDFS, ['testResults']);
    const res = await evaluate({ urn: HDFS });
    assert.deepEqual(res.json(), { value: { passing: [], failing: [{ test: 'urn:li:test:owned-documented', type: 'FAILURE' }] } });
    assert.deepEqual(await t.catalog.entities.getLatest(HDFS, ['testResults']), before);
    const created = await evaluate({ urn: CREATED });
    // The "{}" sample tests cannot be compiled: skipped, not a crash.
    assert.deepEqual(created.json(), { value: { passing: [{ test: 'urn:li:test:owned-documented', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:legacy-hive', type: 'FAILURE' }] } });
  });

  test('explain says which predicates decided', async () => {
    await withOurTests();
    const res = await evaluate({ urn: HDFS, explain: true, testUrns: ['urn:li:test:owned-documented'] });
    const v = res.json().value;
    assert.deepEqual(v.failing, [{ test: 'urn:li:test:owned-documented', type: 'FAILURE' }]);
    assert.deepEqual(v.explanations['urn:li:test:owned-documented'].map((e: any) => e.text), [
      'editableDatasetProperties.description does not exist', 'datasetProperties.description does not exist']);
  });

  test('push replaces the results; with testUrns it merges', async () => {
    await withOurTests();
    const pushed = await evaluate({ urn: HIVE, push: true });
    assert.deepEqual(pushed.json().value, { passing: [{ test: 'urn:li:test:legacy-hive', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:owned-documented', type: 'FAILURE' }] });
    // The sample's results named the "{}" tests; a push without testUrns replaces them.
    assert.deepEqual((await t.catalog.entities.getAspect(HIVE, 'testResults')).value, pushed.json().value);
    await t.graphql(`mutation { updateDataset(urn: "${HIVE}", input: { editableProperties: { description: "Documented now" } }) { urn } }`);
    const merged = await evaluate({ urn: HIVE, shouldPush: true, tests: ['urn:li:test:owned-documented'] });
    assert.deepEqual(merged.json().value, { passing: [{ test: 'urn:li:test:owned-documented', type: 'SUCCESS' }], failing: [] });
    assert.deepEqual((await t.catalog.entities.getAspect(HIVE, 'testResults')).value, {
      passing: [{ test: 'urn:li:test:legacy-hive', type: 'SUCCESS' }, { test: 'urn:li:test:owned-documented', type: 'SUCCESS' }], failing: [] });
    const gql = await t.graphql(`{ dataset(urn: "${HIVE}") { testResults { passing { test { urn name category } type } failing { type } } } }`);
    assert.deepEqual(gql.body.data.dataset.testResults, { passing: [
      { test: { urn: 'urn:li:test:legacy-hive', name: 'Hive datasets are tagged Legacy', category: 'Quality' }, type: 'SUCCESS' },
      { test: { urn: 'urn:li:test:owned-documented', name: 'Has an owner and a description', category: 'Quality' }, type: 'SUCCESS' }], failing: [] });
  });

  test('results naming tests that do not exist are left out of the read', async () => {
    // tests_data.json names three tests; the first two are the bootstrap samples, the third was never ingested.
    const res = await t.graphql('{ dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:snowflake,long_tail_companions.adoption.pet_profiles,PROD)") { testResults { passing { test { urn } } failing { test { urn } } } } }');
    assert.deepEqual(res.body, { data: { dataset: { testResults: {
      passing: [{ test: { urn: 'urn:li:test:76ca947d-d988-4f0d-8c2f-055de2c6f4b5' } }],
      failing: [{ test: { urn: 'urn:li:test:953001aa-fb7b-4a43-916f-3efd95ab9047' } }] } } }, extensions: {} });
  });

  test('batchEvaluate and runTests', async () => {
    await withOurTests();
    const res = await t.app.inject({ method: 'POST', url: '/test?action=batchEvaluate', headers: t.auth,
      payload: { urns: [HDFS, CREATED], testUrns: ['urn:li:test:owned-documented'] } });
    assert.deepEqual(res.json(), { value: { results: {
      [HDFS]: { passing: [], failing: [{ test: 'urn:li:test:owned-documented', type: 'FAILURE' }] },
      [CREATED]: { passing: [{ test: 'urn:li:test:owned-documented', type: 'SUCCESS' }], failing: [] } } } });
    const run = await t.graphql(`mutation { runTests(urn: "${HDFS}", explain: true) { passing { test { urn } } failing { test { urn } type }
      explanations { test passed reasons } } }`);
    assert.deepEqual(run.body.data.runTests.failing, [{ test: { urn: 'urn:li:test:owned-documented' }, type: 'FAILURE' }]);
    assert.deepEqual(run.body.data.runTests.explanations[0].reasons, ['editableDatasetProperties.description does not exist',
      'datasetProperties.description does not exist']);
    assert.deepEqual((await t.catalog.entities.getAspect(HDFS, 'testResults')).value,
      { passing: [], failing: [{ test: 'urn:li:test:owned-documented', type: 'FAILURE' }] });
  });

  test('errors: missing urn 400, unknown entity 404, unknown test 404 naming it, no token 401, push without MANAGE_TESTS 403', async () => {
    await withOurTests();
    const missingUrn = await evaluate({});
    assert.deepEqual([missingUrn.statusCode, missingUrn.json().message], [400, "Missing required parameter 'urn'"]);
    const noEntity = await evaluate({ urn: 'urn:li:dataset:(urn:li:dataPlatform:x,none,PROD)' });
    assert.deepEqual([noEntity.statusCode, noEntity.json().message], [404, 'Entity urn:li:dataset:(urn:li:dataPlatform:x,none,PROD) does not exist']);
    const noTest = await evaluate({ urn: HDFS, testUrns: ['urn:li:test:ghost'] });
    assert.deepEqual([noTest.statusCode, noTest.json().message], [404, 'Test urn:li:test:ghost does not exist']);
    assert.equal((await evaluate({ urn: HDFS }, {} as never)).statusCode, 401);
    const alice = { authorization: `Bearer ${await t.tokenFor('alice')}` };
    assert.equal((await evaluate({ urn: HDFS }, alice)).statusCode, 200);
    const before = await t.catalog.entities.getLatest(HDFS, ['testResults']);
    assert.equal((await evaluate({ urn: HDFS, push: true }, alice)).statusCode, 403);
    assert.deepEqual(await t.catalog.entities.getLatest(HDFS, ['testResults']), before);
    const create = await t.graphql(`mutation { createTest(input: { name: "x", category: "y", definition: { json: ${JSON.stringify(TAGS_ONLY)} } }) }`, undefined, alice);
    assert.equal(create.body.errors[0].extensions.code, 403);
  });

  test('update and delete', async () => {
    await withOurTests();
    const upd = await t.graphql(`mutation u($json: String) { updateTest(urn: "urn:li:test:tags-documented", input: { name: "Tags documented", category: "Docs", definition: { json: $json } }) }`,
      { json: TAGS_ONLY });
    assert.deepEqual(upd.body.data, { updateTest: 'urn:li:test:tags-documented' });
    assert.deepEqual((await t.graphql('mutation { deleteTest(urn: "urn:li:test:tags-documented") }')).body.data, { deleteTest: true });
    assert.equal((await t.graphql('{ test(urn: "urn:li:test:tags-documented") { urn } }')).body.errors[0].extensions.code, 404);
  });

  test('whole-catalog run counts per test', async () => {
    await withOurTests();
    const res = await t.catalog.metadataTests.runAll({ push: false, entityType: 'dataset' }, { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const byUrn = Object.fromEntries(res.tests.map((x) => [x.urn, [x.passing, x.failing]]));
    assert.deepEqual(byUrn['urn:li:test:owned-documented'], [4, 4]); // the 4 datasets with a description pass
    assert.deepEqual(byUrn['urn:li:test:legacy-hive'], [1, 3]);
    assert.equal(res.entities, 8);
  });
});
