import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,never_ingested,PROD)';

forEachEngine('GraphQL: errors', (ctx) => {
  let t: TestApp;
  let countBefore: number;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    countBefore = await t.catalog.store.countEntities();
  });
  after(async () => t.close());

  const expectNothingWritten = async () => assert.equal(await t.catalog.store.countEntities(), countBefore);

  test('a dataset that was never ingested is NOT_FOUND (404), not a skeleton', async () => {
    const res = await t.graphql(`{ dataset(urn: "${MISSING}") { urn properties { description } } }`);
    assert.deepEqual(res.body, {
      errors: [{ message: `Entity ${MISSING} does not exist`, locations: [{ line: 1, column: 3 }], path: ['dataset'],
        extensions: { code: 404, type: 'NOT_FOUND', classification: 'DataFetchingException' } }],
      data: { dataset: null },
      extensions: {},
    });
  });

  test('updateDataset on a missing dataset fails with 404 and writes nothing', async () => {
    const res = await t.graphql(`mutation { updateDataset(urn: "${MISSING}", input: { editableProperties: { description: "x" } }) { urn } }`);
    assert.equal(res.body.errors[0].extensions.code, 404);
    assert.equal(res.body.errors[0].message, `Entity ${MISSING} does not exist`);
    assert.deepEqual(res.body.data, { updateDataset: null });
    await expectNothingWritten();
  });

  test('updateDescription on a column that is not in the schema is 404 and writes nothing', async () => {
    const before = await t.catalog.entities.getLatest(HDFS, ['editableSchemaMetadata']);
    const res = await t.graphql(`mutation { updateDescription(input: { description: "x", resourceUrn: "${HDFS}",
      subResource: "no_such_column", subResourceType: DATASET_FIELD }) }`);
    assert.deepEqual(res.body.errors.map((e: any) => [e.message, e.extensions.code, e.extensions.type]), [[
      `Failed to update ${HDFS} & field no_such_column. Field no_such_column does not exist in the datasets schema.`, 404, 'NOT_FOUND']]);
    assert.deepEqual(await t.catalog.entities.getLatest(HDFS, ['editableSchemaMetadata']), before);
  });

  test('updateDescription on a missing entity is 404', async () => {
    const res = await t.graphql(`mutation { updateDescription(input: { description: "x", resourceUrn: "urn:li:tag:nope" }) }`);
    assert.deepEqual(res.body.errors.map((e: any) => [e.message, e.extensions.code]), [['Entity urn:li:tag:nope does not exist', 404]]);
    await expectNothingWritten();
  });

  test('updateDescription of a column of a missing dataset is 404 for the dataset, before the column, and writes nothing', async () => {
    const res = await t.graphql(`mutation { updateDescription(input: { description: "x", resourceUrn: "${MISSING}",
      subResource: "no_such_column", subResourceType: DATASET_FIELD }) }`);
    assert.deepEqual(res.body.errors.map((e: any) => [e.message, e.extensions.code, e.extensions.type]),
      [[`Entity ${MISSING} does not exist`, 404, 'NOT_FOUND']]);
    assert.deepEqual(res.body.data, { updateDescription: null });
    await expectNothingWritten();
    assert.deepEqual(await t.catalog.entities.getLatest(MISSING), new Map());
  });

  test('createTag with an existing id is CONFLICT (409) and the original is untouched', async () => {
    await t.graphql('mutation { createTag(input: { id: "dup", name: "Original", description: "first" }) }');
    const res = await t.graphql('mutation { createTag(input: { id: "dup", name: "Second" }) }');
    assert.deepEqual(res.body, {
      errors: [{ message: 'This Tag already exists: urn:li:tag:dup', locations: [{ line: 1, column: 12 }], path: ['createTag'],
        extensions: { code: 409, type: 'CONFLICT', classification: 'DataFetchingException' } }],
      data: { createTag: null },
      extensions: {},
    });
    const read = await t.graphql('{ tag(urn: "urn:li:tag:dup") { properties { name description } } }');
    assert.deepEqual(read.body.data.tag.properties, { name: 'Original', description: 'first' });
  });

  test('a malformed urn is BAD_REQUEST (400)', async () => {
    const res = await t.graphql('{ dataset(urn: "not-a-urn") { urn } }');
    assert.equal(res.body.errors[0].extensions.code, 400);
    assert.equal(res.body.errors[0].extensions.type, 'BAD_REQUEST');
    assert.match(res.body.errors[0].message, /^Invalid urn: 'not-a-urn' is not a URN/);
    const tagAsDataset = await t.graphql('{ dataset(urn: "urn:li:tag:Legacy") { urn } }');
    assert.equal(tagAsDataset.body.errors[0].extensions.code, 400);
  });

  test('syntax errors are 400 InvalidSyntax with a location; nothing runs', async () => {
    const res = await t.graphql('{ dataset(urn: "x") { urn }');
    assert.deepEqual(res.body, {
      errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 28 }],
        extensions: { code: 400, type: 'BAD_REQUEST', classification: 'InvalidSyntax' } }],
      data: null,
      extensions: {},
    });
  });

  test('unknown fields are 400 ValidationError', async () => {
    const res = await t.graphql(`{ dataset(urn: "${HDFS}") { urn nope } }`);
    assert.deepEqual(res.body.errors, [{ message: 'Cannot query field "nope" on type "Dataset". Did you mean "name" or "type"?',
      locations: [{ line: 1, column: 90 }],
      extensions: { code: 400, type: 'BAD_REQUEST', classification: 'ValidationError' } }]);
    assert.equal(res.body.data, null);
  });

  test('bad variables are 400', async () => {
    const res = await t.graphql('query q($urn: String!) { dataset(urn: $urn) { urn } }', { urn: 42 });
    assert.equal(res.status, 200);
    assert.equal(res.body.errors[0].extensions.code, 400);
    assert.match(res.body.errors[0].message, /Variable "\$urn" got invalid value 42/);
    const missing = await t.graphql('query q($urn: String!) { dataset(urn: $urn) { urn } }', {});
    assert.match(missing.body.errors[0].message, /Variable "\$urn" of required type "String!" was not provided/);
  });

  test('documents deeper than the limit are refused with 400', async () => {
    const deep = `{ dataset(urn: "${HDFS}") { ${'container { '.repeat(35)}urn${' }'.repeat(35)} } }`;
    const res = await t.graphql(deep);
    assert.equal(res.body.errors[0].extensions.code, 400);
    assert.match(res.body.errors[0].message, /depth/i);
  });

  test('documents selecting too many fields are refused with 400', async () => {
    // 80,000 fields once fragments are expanded, from a short document: each fragment spreads the one below it ten
    // times (F0 selects 4 fields, F4 40,000), and F4 is spread twice.
    const wide = `{ dataset(urn: "${HDFS}") { ...F4 ...F4 } } fragment F0 on Dataset { urn type platform { urn } }`
      + [1, 2, 3, 4].map((i) => ` fragment F${i} on Dataset { ${Array.from({ length: 10 }, () => `...F${i - 1}`).join(' ')} }`).join('');
    const res = await t.graphql(wide);
    assert.equal(res.body.errors[0].extensions.code, 400);
    assert.match(res.body.errors[0].message, /too large|too costly|tokens/);
  });

  test('GET and other methods are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: '/api/graphql', headers: t.auth });
      assert.equal(res.statusCode, 405);
      assert.equal(res.headers.allow, 'POST');
      assert.deepEqual(res.json(), { status: 405, code: 'METHOD_NOT_ALLOWED', message: `${method} is not supported on /api/graphql; use POST`, allow: 'POST' });
    }
  });

  test('malformed JSON and a missing query are 400 with a JSON body', async () => {
    const bad = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...t.auth, 'content-type': 'application/json' }, payload: '{"query": ' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'BAD_REQUEST');
    assert.match(bad.json().message, /^Malformed JSON in request body/);
    const none = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: t.auth, payload: { variables: {} } });
    assert.deepEqual(none.json(), { status: 400, code: 'BAD_REQUEST', message: "The request body needs a 'query' string" });
  });

  test('a body over the limit is 413', async () => {
    const small = await startApp(ctx, { bodyLimit: 2048 });
    try {
      const res = await small.app.inject({ method: 'POST', url: '/api/graphql', headers: small.auth,
        payload: { query: `{ __typename }${' '.repeat(4096)}` } });
      assert.equal(res.statusCode, 413);
      assert.deepEqual(res.json(), { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is larger than the configured limit' });
    } finally {
      await small.close();
    }
  });

  test('no token, a malformed one, or a forged one is 401 with a JSON body', async () => {
    const forged = t.rootToken.slice(0, -4) + (t.rootToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    for (const headers of [{}, { authorization: 'Bearer not.a.jwt' }, { authorization: `Bearer ${forged}` }, { authorization: 'Basic x:y' }]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/graphql', headers, payload: { query: '{ me { corpUser { urn } } }' } });
      assert.equal(res.statusCode, 401, JSON.stringify(headers));
      assert.equal(res.json().status, 401);
      assert.equal(res.json().code, 'UNAUTHENTICATED');
    }
  });

  test('a user without edit privileges gets 403 UNAUTHORIZED and nothing changes', async () => {
    const token = await t.tokenFor('alice'); // owns nothing, so the default policies let her read only
    const before = await t.catalog.entities.getLatest(HDFS);
    const res = await t.graphql(`mutation { updateDataset(urn: "${HDFS}", input: { editableProperties: { description: "mine" } }) { urn } }`,
      undefined, { authorization: `Bearer ${token}` });
    assert.deepEqual(res.body.errors.map((e: any) => [e.message, e.extensions.code, e.extensions.type]),
      [['Unauthorized to perform this action. Please contact your DataHub administrator.', 403, 'UNAUTHORIZED']]);
    assert.deepEqual(await t.catalog.entities.getLatest(HDFS), before);
    const read = await t.graphql(`{ dataset(urn: "${HDFS}") { urn } }`, undefined, { authorization: `Bearer ${token}` });
    assert.deepEqual(read.body, { data: { dataset: { urn: HDFS } }, extensions: {} });
  });
});
