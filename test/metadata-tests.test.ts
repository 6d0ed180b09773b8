import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { MetadataTestService } from '../src/services/metadata-tests/runner.js';
import { forEachEngine } from './support/engines.js';
import { freshAppPerTest } from './support/fresh.js';
import { ingestSamples, sample, type TestApp } from './support/app.js';

// Metadata tests end to end, beyond test/metadata-tests-api.test.ts: definition changes, explanations in full,
// every mount, a non-root user, deletes, batch errors, whole-catalog runs with push, and the CLI.

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const CREATED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const SAMPLE_TEST_1 = 'urn:li:test:953001aa-fb7b-4a43-916f-3efd95ab9047';
const SAMPLE_TEST_2 = 'urn:li:test:76ca947d-d988-4f0d-8c2f-055de2c6f4b5';

const OWNED_DOCUMENTED = JSON.stringify({ on: { types: ['dataset'] }, rules: { and: [
  { property: 'ownership.owners.owner', operator: 'exists' },
  { property: 'datasetProperties.description', operator: 'exists' }] } });
// YAML, with a comment and trailing blanks: must come back exactly as written.
const KAFKA_ONLY_YAML = '# only Kafka topics\non:\n  types: [dataset]\n  conditions:\n    property: urn\n    operator: contains_str\n' +
  '    values: [dataPlatform:kafka]\nrules:\n  - property: institutionalMemory.elements.url\n    operator: starts_with\n' +
  '    values: ["https://"]   \n\n';
const PLATFORMS_AND_DATASETS = JSON.stringify({ on: { types: ['dataPlatform', 'dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] });

const FAIL = (test: string) => ({ test, type: 'FAILURE' });
const PASS = (test: string) => ({ test, type: 'SUCCESS' });

forEachEngine('metadata tests end to end', (ctx) => {
  // Every test starts from the samples and one test of ours, owned-documented, on a database of its own.
  let t: TestApp;
  const fresh = freshAppPerTest(ctx, async (app) => {
    await ingestSamples(app.catalog, 'bootstrap_mce.json', 'tests_data.json');
    await app.catalog.metadataTests.create({ id: 'owned-documented', name: 'Owned and documented', category: 'Quality',
      definition: { json: OWNED_DOCUMENTED } }, rootActor());
  });
  beforeEach(async () => {
    t = await fresh();
  });

  const action = async (name: string, payload: unknown, headers: Record<string, string> = t.auth, prefix = '/gms') => {
    const res = await t.app.inject({ method: 'POST', url: `${prefix}/test?action=${name}`, headers, payload: payload as object });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  };
  const evaluate = (payload: unknown, headers?: Record<string, string>, prefix?: string) => action('evaluate', payload, headers, prefix);
  const createTest = (id: string | null, name: string, json: string, headers?: Record<string, string>) =>
    t.graphql('mutation c($input: CreateTestInput!) { createTest(input: $input) }',
      { input: { ...(id ? { id } : {}), name, category: 'Quality', definition: { json } } }, headers);
  const updateTest = (urn: string, json: string, headers?: Record<string, string>) =>
    t.graphql('mutation u($urn: String!, $input: UpdateTestInput!) { updateTest(urn: $urn, input: $input) }',
      { urn, input: { name: 'Renamed', category: 'Quality', definition: { json } } }, headers);
  const stored = async (urn: string) => (await t.catalog.entities.getLatest(urn, ['testResults'])).get('testResults')?.value;
  const gqlError = (message: string, code: number, type: string, field: string, line = 1, column = 40) => ({
    errors: [{ message, locations: [{ line, column }], path: [field], extensions: { code, type, classification: 'DataFetchingException' } }],
    data: { [field]: null }, extensions: {} });

  test('tests are created with a UUID when no id is given; YAML comes back byte for byte', async () => {
    const res = await createTest(null, 'Kafka topics link to https docs', KAFKA_ONLY_YAML);
    const urn: string = res.body.data.createTest;
    assert.match(urn, /^urn:li:test:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(res.body, { data: { createTest: urn }, extensions: {} });
    const read = await t.graphql('query r($urn: String!) { test(urn: $urn) { urn type name category description definition { json } } }', { urn });
    assert.deepEqual(read.body, { data: { test: { urn, type: 'TEST', name: 'Kafka topics link to https docs', category: 'Quality',
      description: null, definition: { json: KAFKA_ONLY_YAML } } }, extensions: {} });
    assert.deepEqual((await t.catalog.entities.getLatest(urn, ['testInfo'])).get('testInfo')?.value, {
      name: 'Kafka topics link to https docs', category: 'Quality', definition: { type: 'YAML', json: KAFKA_ONLY_YAML } });
    // Not applicable to HDFS (conditions), passing for the Kafka topic.
    assert.deepEqual(await evaluate({ urn: HDFS, testUrns: [urn] }), { status: 200, body: { value: { passing: [], failing: [] } } });
    assert.deepEqual(await evaluate({ urn: KAFKA, testUrns: [urn] }), { status: 200, body: { value: { passing: [PASS(urn)], failing: [] } } });
    assert.deepEqual((await t.graphql('mutation d($urn: String!) { deleteTest(urn: $urn) }', { urn })).body,
      { data: { deleteTest: true }, extensions: {} });
  });

  test('an updated definition is used at the next evaluation; an invalid update is refused and changes nothing', async () => {
    assert.deepEqual((await createTest('owned-documented', 'Again', OWNED_DOCUMENTED)).body,
      gqlError('This Test already exists: urn:li:test:owned-documented', 409, 'CONFLICT', 'createTest'));
    assert.deepEqual(await evaluate({ urn: HDFS, testUrns: ['urn:li:test:owned-documented'] }),
      { status: 200, body: { value: { passing: [], failing: [FAIL('urn:li:test:owned-documented')] } } });
    const ownedOnly = JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'ownership.owners.owner', operator: 'exists' }] });
    assert.deepEqual((await updateTest('urn:li:test:owned-documented', ownedOnly)).body,
      { data: { updateTest: 'urn:li:test:owned-documented' }, extensions: {} });
    assert.deepEqual(await evaluate({ urn: HDFS, testUrns: ['urn:li:test:owned-documented'] }),
      { status: 200, body: { value: { passing: [PASS('urn:li:test:owned-documented')], failing: [] } } });

    const bad = await updateTest('urn:li:test:owned-documented', '{"on": {"types": ["dataset"]}, "rules": [{"property": "urn", "operator": "greater_than", "values": ["x"]}]}');
    assert.deepEqual(bad.body, gqlError("Invalid test definition: rules[0].values[0]: greater_than needs a number, got 'x'", 400, 'BAD_REQUEST', 'updateTest', 1, 55));
    const back = await updateTest('urn:li:test:owned-documented', OWNED_DOCUMENTED);
    assert.deepEqual(back.body, { data: { updateTest: 'urn:li:test:owned-documented' }, extensions: {} });
    assert.deepEqual((await t.graphql('{ test(urn: "urn:li:test:owned-documented") { name definition { json } } }')).body,
      { data: { test: { name: 'Renamed', definition: { json: OWNED_DOCUMENTED } } }, extensions: {} });
  });

  test('explain: the deciding predicates with the values they saw; the plain shape is unchanged without it', async () => {
    const urns = ['urn:li:test:owned-documented'];
    assert.deepEqual(await evaluate({ urn: HDFS, testUrns: urns, explain: true }), { status: 200, body: { value: {
      passing: [], failing: [FAIL('urn:li:test:owned-documented')],
      explanations: { 'urn:li:test:owned-documented': [{ property: 'datasetProperties.description', operator: 'exists',
        negated: false, result: false, seen: [], text: 'datasetProperties.description does not exist' }] } } } });
    const created = await evaluate({ urn: CREATED, testUrns: urns, explain: true });
    assert.deepEqual(created, { status: 200, body: { value: {
      passing: [PASS('urn:li:test:owned-documented')], failing: [],
      explanations: { 'urn:li:test:owned-documented': [
        { property: 'ownership.owners.owner', operator: 'exists', negated: false, result: true,
          seen: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
          text: 'ownership.owners.owner exists: saw [urn:li:corpuser:jdoe, urn:li:corpuser:datahub]' },
        { property: 'datasetProperties.description', operator: 'exists', negated: false, result: true,
          seen: ['table containing all the users created on a single day'],
          text: 'datasetProperties.description exists: saw [table containing all the users created on a single day]' }] } } } });
    // explain: false is the plain DataHub shape.
    assert.deepEqual(await evaluate({ urn: CREATED, testUrns: urns, explain: false }),
      { status: 200, body: { value: { passing: [PASS('urn:li:test:owned-documented')], failing: [] } } });
    // Tests that do not apply have no explanation.
    assert.deepEqual(await evaluate({ urn: 'urn:li:corpuser:jdoe', explain: true }),
      { status: 200, body: { value: { passing: [], failing: [], explanations: {} } } });
  });

  test('the endpoint answers at the root, under /gms and under /api/gms alike', async () => {
    const expected = { status: 200, body: { value: { passing: [], failing: [FAIL('urn:li:test:owned-documented')] } } };
    for (const prefix of ['', '/gms', '/api/gms']) {
      assert.deepEqual(await evaluate({ urn: HDFS, tests: ['urn:li:test:owned-documented'] }, t.auth, prefix), expected, prefix);
    }
    assert.deepEqual(await action('batchEvaluate', { urns: [HDFS], tests: ['urn:li:test:owned-documented'] }, t.auth, '/api/gms'),
      { status: 200, body: { value: { results: { [HDFS]: expected.body.value } } } });
  });

  test('a named "{}" sample test is skipped with one warning, however often it is asked for', async () => {
    const warnings: string[] = [];
    const service = new MetadataTestService(t.catalog.entities, t.catalog.store, (m) => warnings.push(m));
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await service.evaluate(HIVE, { testUrns: [SAMPLE_TEST_1] }, rootActor()), { passing: [], failing: [] });
    }
    assert.deepEqual(warnings, [`metadata test ${SAMPLE_TEST_1} is skipped: Invalid test definition: a test definition must have ` +
      "an 'on' clause and a 'rules' clause (missing: on, rules)"]);
  });

  test('batchEvaluate: bad or unknown urns are refused before anything is written; push stores every entity', async () => {
    const before = [await stored(HDFS), await stored(CREATED)];
    assert.deepEqual(await action('batchEvaluate', {}), { status: 400, body: { status: 400, code: 'BAD_REQUEST',
      message: "Missing required parameter 'urns' (a list of urns)", field: 'urns' } });
    const ghost = 'urn:li:dataset:(urn:li:dataPlatform:x,ghost,PROD)';
    assert.deepEqual(await action('batchEvaluate', { urns: [HDFS, ghost, CREATED], push: true }), { status: 404, body: {
      status: 404, code: 'NOT_FOUND', message: `Entity ${ghost} does not exist`, urns: [ghost] } });
    assert.deepEqual(await action('batchEvaluate', { urns: [HDFS, CREATED], push: true, testUrns: ['urn:li:test:owned-documented', 'urn:li:test:nope'] }),
      { status: 404, body: { status: 404, code: 'NOT_FOUND', message: 'Test urn:li:test:nope does not exist', urns: ['urn:li:test:nope'] } });
    assert.deepEqual([await stored(HDFS), await stored(CREATED)], before);

    const res = await action('batchEvaluate', { urns: [HDFS, CREATED], push: true, tests: ['urn:li:test:owned-documented'] });
    assert.deepEqual(res, { status: 200, body: { value: { results: {
      [HDFS]: { passing: [], failing: [FAIL('urn:li:test:owned-documented')] },
      [CREATED]: { passing: [PASS('urn:li:test:owned-documented')], failing: [] } } } } });
    assert.deepEqual([await stored(HDFS), await stored(CREATED)], [
      { passing: [], failing: [FAIL('urn:li:test:owned-documented')] },
      { passing: [PASS('urn:li:test:owned-documented')], failing: [] }]);
  });

  test('a non-root user without MANAGE_TESTS evaluates, but cannot push, create, update, delete or run tests', async () => {
    const jdoe = { authorization: `Bearer ${await t.tokenFor('jdoe')}` };
    const DENIED = 'Unauthorized to perform this action. Please contact your DataHub administrator.';
    assert.deepEqual(await evaluate({ urn: HDFS, testUrns: ['urn:li:test:owned-documented'] }, jdoe),
      { status: 200, body: { value: { passing: [], failing: [FAIL('urn:li:test:owned-documented')] } } });
    const results = await stored(HDFS);
    const tests = (await t.catalog.metadataTests.all()).map((x) => x.urn);
    const info = await t.catalog.metadataTests.get('urn:li:test:owned-documented');

    for (const [name, payload] of [['evaluate', { urn: HDFS, push: true }], ['evaluate', { urn: HDFS, shouldPush: true }],
      ['batchEvaluate', { urns: [HDFS], push: true }]] as const) {
      const res = await action(name, payload, jdoe);
      assert.equal(res.status, 403, name);
      assert.equal(res.body.message, DENIED);
    }
    assert.deepEqual((await createTest('jdoe-test', 'x', OWNED_DOCUMENTED, jdoe)).body, gqlError(DENIED, 403, 'UNAUTHORIZED', 'createTest'));
    assert.deepEqual((await updateTest('urn:li:test:owned-documented', PLATFORMS_AND_DATASETS, jdoe)).body,
      gqlError(DENIED, 403, 'UNAUTHORIZED', 'updateTest', 1, 55));
    assert.deepEqual((await t.graphql('mutation { deleteTest(urn: "urn:li:test:owned-documented") }', undefined, jdoe)).body,
      gqlError(DENIED, 403, 'UNAUTHORIZED', 'deleteTest', 1, 12));
    assert.deepEqual((await t.graphql(`mutation { runTests(urn: "${HDFS}") { passing { type } } }`, undefined, jdoe)).body,
      gqlError(DENIED, 403, 'UNAUTHORIZED', 'runTests', 1, 12));

    assert.deepEqual(await stored(HDFS), results);
    assert.deepEqual((await t.catalog.metadataTests.all()).map((x) => x.urn), tests);
    assert.deepEqual(await t.catalog.metadataTests.get('urn:li:test:owned-documented'), info);
  });

  test('push to an entity type without a testResults aspect is refused and writes nothing', async () => {
    assert.deepEqual((await createTest('platforms', 'Platforms and datasets have urns', PLATFORMS_AND_DATASETS)).body.data,
      { createTest: 'urn:li:test:platforms' });
    const hdfs = 'urn:li:dataPlatform:hdfs';
    assert.deepEqual(await evaluate({ urn: hdfs, testUrns: ['urn:li:test:platforms'] }),
      { status: 200, body: { value: { passing: [PASS('urn:li:test:platforms')], failing: [] } } });
    assert.deepEqual(await evaluate({ urn: hdfs, push: true }), { status: 422, body: { status: 422, code: 'UNPROCESSABLE',
      message: "Aspect 'testResults' is not an aspect of entity type 'dataPlatform'", urn: hdfs, aspect: 'testResults' } });
    assert.deepEqual(await t.catalog.entities.getLatest(hdfs, ['testResults']), new Map());
  });

  test('whole-catalog run with push: datasets get their results, platforms are evaluated but not stored', async () => {
    assert.deepEqual((await createTest('platforms', 'Platforms and datasets have urns', PLATFORMS_AND_DATASETS)).body.data,
      { createTest: 'urn:li:test:platforms' });
    const progress: [number, number][] = [];
    const res = await t.catalog.metadataTests.runAll({ push: true, onProgress: (d, n) => progress.push([d, n]) }, systemActor());
    const total = await t.catalog.store.countEntities();
    assert.deepEqual(progress.at(-1), [total, total]);
    const platforms = await t.catalog.store.countEntities('dataPlatform');
    assert.deepEqual(res, { entities: total, unstoredTypes: ['dataPlatform'], tests: [
      { urn: 'urn:li:test:owned-documented', passing: 4, failing: 4 },
      { urn: 'urn:li:test:platforms', passing: platforms + 8, failing: 0 }] });
    // Replaced: the sample results naming the "{}" tests are gone.
    assert.deepEqual(await stored(HIVE), { passing: [PASS('urn:li:test:platforms')], failing: [FAIL('urn:li:test:owned-documented')] });
    assert.deepEqual(await stored(CREATED), { passing: [PASS('urn:li:test:owned-documented'), PASS('urn:li:test:platforms')], failing: [] });
  });

  test('a deleted test is no longer evaluated and its pushed results are left out of Dataset.testResults', async () => {
    assert.deepEqual((await createTest('platforms', 'Platforms and datasets have urns', PLATFORMS_AND_DATASETS)).body.data,
      { createTest: 'urn:li:test:platforms' });
    assert.deepEqual(await evaluate({ urn: CREATED, push: true }), { status: 200, body: { value: {
      passing: [PASS('urn:li:test:owned-documented'), PASS('urn:li:test:platforms')], failing: [] } } });
    const query = `{ dataset(urn: "${CREATED}") { testResults { passing { test { urn name } type } failing { test { urn } type } } } }`;
    assert.deepEqual((await t.graphql(query)).body, { data: { dataset: { testResults: { passing: [
      { test: { urn: 'urn:li:test:owned-documented', name: 'Owned and documented' }, type: 'SUCCESS' },
      { test: { urn: 'urn:li:test:platforms', name: 'Platforms and datasets have urns' }, type: 'SUCCESS' }], failing: [] } } },
    extensions: {} });
    assert.deepEqual((await t.graphql('mutation { deleteTest(urn: "urn:li:test:platforms") }')).body, { data: { deleteTest: true }, extensions: {} });
    assert.deepEqual((await t.graphql(query)).body, { data: { dataset: { testResults: { passing: [
      { test: { urn: 'urn:li:test:owned-documented', name: 'Owned and documented' }, type: 'SUCCESS' }], failing: [] } } }, extensions: {} });
    // The stored aspect still names it (DataHub does not clean up either) …
    assert.deepEqual(await stored(CREATED), { passing: [PASS('urn:li:test:owned-documented'), PASS('urn:li:test:platforms')], failing: [] });
    // … until the next push without testUrns replaces it.
    assert.deepEqual(await evaluate({ urn: CREATED, push: true }),
      { status: 200, body: { value: { passing: [PASS('urn:li:test:owned-documented')], failing: [] } } });
    assert.deepEqual(await stored(CREATED), { passing: [PASS('urn:li:test:owned-documented')], failing: [] });
    assert.deepEqual(await evaluate({ urn: CREATED, testUrns: ['urn:li:test:platforms'] }), { status: 404, body: {
      status: 404, code: 'NOT_FOUND', message: 'Test urn:li:test:platforms does not exist', urns: ['urn:li:test:platforms'] } });
  });

  test('runTests fixes seen through GraphQL: updateDataset, then runTests with explanations, then Dataset.testResults', async () => {
    await t.graphql(`mutation { updateDataset(urn: "${HDFS}", input: { editableProperties: { description: "HDFS data" } }) { urn } }`);
    // The test reads datasetProperties (ingested), not editableDatasetProperties: still failing, and it says why.
    const run = await t.graphql(`mutation { runTests(urn: "${HDFS}", explain: true) { passing { test { urn } type }
      failing { test { urn } type } explanations { test passed reasons } } }`);
    assert.deepEqual(run.body, { data: { runTests: { passing: [], failing: [{ test: { urn: 'urn:li:test:owned-documented' }, type: 'FAILURE' }],
      explanations: [{ test: 'urn:li:test:owned-documented', passed: false, reasons: ['datasetProperties.description does not exist'] }] } },
    extensions: {} });
    assert.deepEqual((await t.graphql(`{ dataset(urn: "${HDFS}") { testResults { passing { type } failing { test { urn } type } } } }`)).body,
      { data: { dataset: { testResults: { passing: [], failing: [{ test: { urn: 'urn:li:test:owned-documented' }, type: 'FAILURE' }] } } },
        extensions: {} });
  });
});

test('almanac tests run prints a table per test and stores results with --push', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-mt-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'cli.db')}`, LOG_LEVEL: 'silent' };
  try {
    const catalog = await openCatalog(loadConfig(env));
    try {
      await ingestFiles(catalog.entities, [sample('bootstrap_mce.json')], systemActor());
      await catalog.metadataTests.create({ id: 'owned-documented', name: 'Owned and documented', category: 'Quality',
        definition: { json: OWNED_DOCUMENTED } }, rootActor());
    } finally {
      await catalog.close();
    }
    const bin = path.resolve(import.meta.dirname, '../bin/almanac.js');
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, 'tests', 'run', '--push', '--type', 'dataset'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(out.code, 0, out.stderr);
    const lines = out.stdout.trimEnd().split('\n');
    assert.deepEqual(lines.slice(0, 2).map((l) => l.split(/\s{2,}/)), [
      ['TEST', 'NAME', 'PASSING', 'FAILING'], ['urn:li:test:owned-documented', 'Owned and documented', '4', '3']]);
    assert.match(lines[2]!, /^7 entities looked at in \d+ ms; results stored$/);
    assert.equal(lines.length, 3);
    // The "{}" sample tests are reported, not fatal.
    assert.deepEqual(out.stderr.trim().split('\n').map((l) => l.replace(/ is skipped: .*/, '')), [
      `almanac: warning: metadata test ${SAMPLE_TEST_2}`, `almanac: warning: metadata test ${SAMPLE_TEST_1}`]);
    const after = await openCatalog(loadConfig(env));
    try {
      assert.deepEqual((await after.entities.getLatest(HDFS, ['testResults'])).get('testResults')?.value,
        { passing: [], failing: [FAIL('urn:li:test:owned-documented')] });
    } finally {
      await after.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
