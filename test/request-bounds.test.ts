import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { jwtVerify } from 'jose';
import { ConfigError, loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { forEachEngine, type EngineContext } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Issue 12: every request is bounded (list arguments, aliases, introspection, REST lists), bad input is a 400 or
 * 404 and never a 500, the SQLite files are private, and the token key can be kept out of the database. Requests
 * go over real HTTP to a listening server.
 */
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
/** A urn holding the three characters `%25`, and one holding a bare `%`. */
const PCT25 = 'urn:li:tag:100%25';
const PCT = 'urn:li:tag:50%';
const enc = encodeURIComponent;

const refused = (message: string) => ({ message, locations: [{ line: 1, column: 1 }],
  extensions: { code: 400, type: 'BAD_REQUEST', classification: 'ValidationError' } });
const badRequest = (message: string, field: string) => ({ status: 400, code: 'BAD_REQUEST', message, field });

function client(base: string, auth: Record<string, string>) {
  const answer = async (res: Response) => {
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    get: async (url: string) => answer(await fetch(`${base}${url}`, { headers: auth })),
    post: async (url: string, payload: unknown) => answer(await fetch(`${base}${url}`, { method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' }, body: JSON.stringify(payload) })),
    graphql: async (query: string, variables?: Record<string, unknown>) => answer(await fetch(`${base}/api/graphql`, { method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })),
  };
}

const tag = (urn: string, name: string) => ({ urn, entityType: 'tag', aspect: 'tagProperties', changeType: 'UPSERT' as const,
  value: { name }, systemMetadata: null });

forEachEngine('request bounds', (ctx) => {
  let t: TestApp;
  let http: ReturnType<typeof client>;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    await t.catalog.entities.ingest([tag(PCT25, 'hundred percent-25'), tag(PCT, 'fifty percent')], systemActor());
    http = client(await t.listen(), t.auth);
  });
  after(async () => t.close());

  test('entities(urns:) with 200,000 urns (13 MB) is refused at once, naming the argument and the limit', async () => {
    const urns = Array.from({ length: 200_000 }, (_, i) => `urn:li:dataset:(urn:li:dataPlatform:hive,db.table_${i},PROD)`);
    // Refused before execution (it used to take 7 s and 2 GB, blocking every other request; `npm run bench` is where
    // speed is measured, not here).
    const res = await http.graphql('query many($urns: [String!]!) { entities(urns: $urns) { urn } }', { urns });
    assert.deepEqual(res, { status: 200, body: { errors: [refused("Argument 'urns' of 'entities' holds 200000 items; at most 1000 are allowed")],
      data: null, extensions: {} } });
    // The server is free at once.
    assert.deepEqual(await http.graphql(`{ entities(urns: ["${HDFS}"]) { urn } }`),
      { status: 200, body: { data: { entities: [{ urn: HDFS }] }, extensions: {} } });
  });

  test('1,000 urns are accepted; 1,001 are refused, as a literal and as a variable', async () => {
    const urns = [HDFS, ...Array.from({ length: 999 }, (_, i) => `urn:li:tag:missing_${i}`)];
    assert.deepEqual(await http.graphql('query q($urns: [String!]!) { entities(urns: $urns) { urn } }', { urns }),
      { status: 200, body: { data: { entities: [{ urn: HDFS }] }, extensions: {} } });
    const more = [...urns, 'urn:li:tag:one_more'];
    const message = "Argument 'urns' of 'entities' holds 1001 items; at most 1000 are allowed";
    assert.deepEqual(await http.graphql('query q($urns: [String!]!) { entities(urns: $urns) { urn } }', { urns: more }),
      { status: 200, body: { errors: [refused(message)], data: null, extensions: {} } });
    assert.deepEqual(await http.graphql(`{ entities(urns: ${JSON.stringify(more)}) { urn } }`),
      { status: 200, body: { errors: [refused(message)], data: null, extensions: {} } });
  });

  test('lists inside input objects are bounded too, and nothing is written', async () => {
    const tags = async () => (await http.graphql(`{ dataset(urn: "${HDFS}") { globalTags { tags { tag { urn } } } } }`)).body.data.dataset.globalTags;
    const before = await tags();
    const resources = Array.from({ length: 1_001 }, () => ({ resourceUrn: HDFS }));
    const res = await http.graphql('mutation m($input: BatchAddTagsInput!) { batchAddTags(input: $input) }',
      { input: { tagUrns: [PCT25], resources } });
    assert.deepEqual(res, { status: 200, body: { errors: [refused("Argument 'input.resources' of 'batchAddTags' holds 1001 items; at most 1000 are allowed")],
      data: null, extensions: {} } });
    assert.deepEqual(await tags(), before);
    // A small list in a variable, checked per request after the document was validated and cached.
    const ok = await http.graphql('mutation m($input: BatchAddTagsInput!) { batchAddTags(input: $input) }',
      { input: { tagUrns: ['urn:li:tag:Legacy'], resources: [{ resourceUrn: HDFS }] } });
    assert.deepEqual(ok, { status: 200, body: { data: { batchAddTags: true }, extensions: {} } });
  });

  /** `relationships` one hop downstream: a page of `count` edges, selecting `inner` of each entity. */
  const rel = (count: number, inner: string) =>
    `relationships(input: {types: ["DownstreamOf"], direction: INCOMING, count: ${count}}) { relationships { entity { ${inner} } } }`;
  const urns1000 = Array.from({ length: 1_000 }, (_, i) => `urn:li:tag:t${i}`);
  const tooCostly = (at: string) => refused('Query is too costly: its cost (each field counted once for every item of the lists it is in, '
    + `with the items of its list arguments) comes to more than 55000000, passed at '${at}'`);

  test('page sizes multiply: pages of pages of pages are refused, naming where the cost passed the limit', async () => {
    // 1,000 urns, each with a page of 1,000 edges, each with a page of 1,000: two billion fields to resolve.

    const three = `query q($u: [String!]!) { entities(urns: $u) { ${rel(1000, rel(1000, 'urn'))} } }`;
    assert.deepEqual(await http.graphql(three, { u: urns1000 }), { status: 200, body: { errors: [
      tooCostly('entities.relationships.relationships.entity.relationships.relationships.entity'),
    ], data: null, extensions: {} } });
    // The same as literals is refused at validation, before any variable is read.
    const literal = `{ entities(urns: ${JSON.stringify(urns1000)}) { ${rel(1000, rel(1000, 'urn'))} } }`;
    assert.deepEqual(await http.graphql(literal), { status: 200, body: { errors: [
      tooCostly('entities.relationships.relationships.entity.relationships.relationships.entity'),
    ], data: null, extensions: {} } });
    // A page size sent as a variable counts its value; a small one passes, and the list argument's length counts.
    const sized = `query q($u: [String!]!, $n: Int) { entities(urns: $u) {
      relationships(input: {types: ["DownstreamOf"], direction: INCOMING, count: 1000}) { relationships { entity {
        relationships(input: {types: ["DownstreamOf"], direction: INCOMING, count: $n}) { relationships { entity { urn } } } } } } } }`;
    assert.deepEqual(await http.graphql(sized, { u: urns1000, n: 1000 }), { status: 200, body: { errors: [
      tooCostly('entities.relationships.relationships.entity.relationships.relationships.entity'),
    ], data: null, extensions: {} } });
    const LOGGING = 'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)';

    assert.deepEqual(await http.graphql(sized, { u: [HDFS], n: 2 }), { status: 200, body: { data: { entities: [
      { relationships: { relationships: [{ entity: { relationships: { relationships: [{ entity: { urn: LOGGING } }] } } }] } },
    ] }, extensions: {} } });
    assert.deepEqual(await http.graphql(sized, { u: urns1000, n: 10 }),
      { status: 200, body: { data: { entities: [] }, extensions: {} } });
  });

  test('aliases multiplying a costly field are refused; a few of them pass', async () => {
    // Each: a search page of 1,000 results with a page of 2,000 edges each, about 6 million fields.
    const one = (i: number) => `a${i}: searchAcrossEntities(input: {query: "*", count: 1000}) { searchResults { entity { urn ${rel(2000, 'urn type')} } } }`;
    const query = (n: number) => `{ ${Array.from({ length: n }, (_, i) => one(i)).join(' ')} }`;
    assert.deepEqual(await http.graphql(query(10)), { status: 200, body: { errors: [
      tooCostly('a9.searchResults.entity.relationships.relationships.entity'),
    ], data: null, extensions: {} } });
    const five = await http.graphql(query(5));
    assert.equal(five.body.errors, undefined, JSON.stringify(five.body.errors));
    assert.deepEqual(Object.keys(five.body.data), ['a0', 'a1', 'a2', 'a3', 'a4']);
  });

  test('fragments that fan out are refused by the field count, however short the document', async () => {
    // Each fragment spreads the one below it ten times: 10^5 copies of two fields from a document of 700 bytes.
    const frags = Array.from({ length: 5 }, (_, i) => `fragment F${i + 1} on Dataset { ${Array.from({ length: 10 }, () => `...F${i}`).join(' ')} }`);
    const query = `{ dataset(urn: "${HDFS}") { ...F5 } } fragment F0 on Dataset { urn type } ${frags.join(' ')}`;
    assert.ok(query.length < 1_000, `${query.length} characters`);
    assert.deepEqual(await http.graphql(query), { status: 200, body: { errors: [
      refused('Query is too large: it selects more than 60000 fields once fragments are expanded'),
    ], data: null, extensions: {} } });
    // Two levels of it (200 copies) are fine: the same fields merge in the answer.
    const small = `{ dataset(urn: "${HDFS}") { ...F2 } } fragment F0 on Dataset { urn type } ${frags.slice(0, 2).join(' ')}`;
    assert.deepEqual(await http.graphql(small), { status: 200, body: { data: { dataset: { urn: HDFS, type: 'DATASET' } }, extensions: {} } });
  });

  test('deep recursion is refused past the depth DataHub\'s deepest page needs (22)', async () => {
    const nest = (n: number) => `{ dataset(urn: "${HDFS}") { ${'container { '.repeat(n)}urn${' }'.repeat(n)} } }`;
    const deep = await http.graphql(nest(30));
    assert.equal(deep.body.errors[0].extensions.code, 400);
    assert.match(deep.body.errors[0].message, /query depth \(32\) exceeds the query depth limit of 30/);
    const ok = await http.graphql(nest(20));
    assert.deepEqual(ok, { status: 200, body: { data: { dataset: { container: null } }, extensions: {} } });
  });

  test('1,000 aliases of an introspection field (60 KB asking for 20 MB) are refused', async () => {
    const query = `{ ${Array.from({ length: 1_000 }, (_, i) => `a${i}: __schema { types { name } }`).join(' ')} }`;
    assert.ok(query.length > 30_000, `${query.length} characters`);
    const res = await http.graphql(query);
    assert.deepEqual(res, { status: 200, body: { errors: [
      refused("'__schema' may be selected only once per operation"),
      refused("Field '__schema' is selected under more than 10 names (aliases) in one selection set; at most 10 are allowed"),
    ], data: null, extensions: {} } });
    // One introspection is fine, as are ten names for one field.
    const once = await http.graphql('{ __schema { queryType { name } } }');
    assert.deepEqual(once, { status: 200, body: { data: { __schema: { queryType: { name: 'Query' } } }, extensions: {} } });
    const ten = await http.graphql(`{ ${Array.from({ length: 10 }, (_, i) => `d${i}: dataset(urn: "${HDFS}") { urn }`).join(' ')} }`);
    assert.deepEqual(Object.keys(ten.body.data), ['d0', 'd1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8', 'd9']);
    const eleven = await http.graphql(`{ ${Array.from({ length: 11 }, (_, i) => `d${i}: dataset(urn: "${HDFS}") { urn }`).join(' ')} }`);
    assert.deepEqual(eleven, { status: 200, body: { errors: [
      refused("Field 'dataset' is selected under more than 10 names (aliases) in one selection set; at most 10 are allowed"),
    ], data: null, extensions: {} } });
  });

  test('aliases spread in through fragments count as if written in place', async () => {
    const frag = (n: string, from: number) => `fragment ${n} on Query { ${Array.from({ length: 6 }, (_, i) => `t${from + i}: __typename`).join(' ')} }`;
    const res = await http.graphql(`{ ...A ...B } ${frag('A', 0)} ${frag('B', 6)}`);
    assert.deepEqual(res, { status: 200, body: { errors: [
      refused("Field '__typename' is selected under more than 10 names (aliases) in one selection set; at most 10 are allowed"),
    ], data: null, extensions: {} } });
  });

  test('REST: ids=List(…) of more than 1,000 urns is a 400', async () => {
    const ids = Array.from({ length: 1_001 }, () => 'urn:li:tag:a').join(',');
    assert.deepEqual(await http.get(`/entitiesV2?ids=List(${ids})`), { status: 400, body: badRequest('ids holds 1001 items; at most 1000 are allowed', 'ids') });
    const aspects = Array.from({ length: 1_001 }, () => 'status').join(',');
    assert.deepEqual(await http.get(`/entitiesV2/${enc(HDFS)}?aspects=List(${aspects})`),
      { status: 400, body: badRequest('aspects holds 1001 items; at most 1000 are allowed', 'aspects') });
  });

  test('REST: batches are bounded (10,000 proposals, 1,000 urns to evaluate)', async () => {
    const proposals = Array.from({ length: 10_001 }, () => ({}));
    assert.deepEqual(await http.post('/aspects?action=ingestProposalBatch', { proposals }),
      { status: 400, body: badRequest('proposals holds 10001 items; at most 10000 are allowed', 'proposals') });
    assert.deepEqual(await http.post('/entities?action=batchIngest', { entities: proposals }),
      { status: 400, body: badRequest('entities holds 10001 items; at most 10000 are allowed', 'entities') });
    assert.deepEqual(await http.post('/test?action=batchEvaluate', { urns: Array.from({ length: 1_001 }, () => HDFS) }),
      { status: 400, body: badRequest('urns holds 1001 items; at most 1000 are allowed', 'urns') });
  });

  test('REST: a connector-sized batch (200 proposals, 8 MB) still ingests in one request', async () => {
    const description = 'x'.repeat(40_000);
    const proposals = Array.from({ length: 200 }, (_, i) => ({ entityType: 'dataset', changeType: 'UPSERT', aspectName: 'datasetProperties',
      entityUrn: `urn:li:dataset:(urn:li:dataPlatform:hive,bounds.batch_${i},PROD)`,
      aspect: { contentType: 'application/json', value: JSON.stringify({ description, customProperties: {} }) } }));
    assert.ok(JSON.stringify({ proposals }).length > 8_000_000, 'a body over 8 MB');
    const res = await http.post('/aspects?action=ingestProposalBatch', { proposals });
    assert.deepEqual(res, { status: 200, body: { value: proposals.map((p) => p.entityUrn) } });
  });

  test('REST: a urn holding %25 or a bare % is decoded exactly once, in batch and single gets', async () => {
    const batch = await http.get(`/entitiesV2?ids=List(${enc(PCT25)},${enc(PCT)})&aspects=List(tagProperties)`);
    assert.equal(batch.status, 200, JSON.stringify(batch.body));
    assert.deepEqual(Object.keys(batch.body.results), [PCT25, PCT]);
    assert.deepEqual(batch.body.results[PCT25].aspects.tagProperties.value, { name: 'hundred percent-25' });
    assert.deepEqual(batch.body.results[PCT].aspects.tagProperties.value, { name: 'fifty percent' });
    // urn:li:tag:100%2525 is another urn (decoded twice it would have read as the first one): it does not exist.
    assert.deepEqual(await http.get(`/entitiesV2?ids=List(${enc('urn:li:tag:100%2525')})`), { status: 200, body: { results: {}, statuses: {}, errors: {} } });
    // Encoded twice, the whole urn decodes once to something that is not a urn.
    assert.deepEqual(await http.get(`/entitiesV2?ids=List(${enc(enc(PCT25))})`), { status: 400, body: { status: 400, code: 'BAD_REQUEST',
      message: "Invalid urn: 'urn%3Ali%3Atag%3A100%2525' is not a URN of the form urn:li:<entityType>:<id>", urn: 'urn%3Ali%3Atag%3A100%2525' } });
    const single = await http.get(`/entitiesV2/${enc(PCT)}?aspects=List(tagProperties)`);
    assert.equal(single.status, 200);
    assert.equal(single.body.urn, PCT);
    assert.deepEqual(await http.get(`/entitiesV2/${enc('urn:li:tag:75%')}`),
      { status: 404, body: { status: 404, code: 'NOT_FOUND', message: 'Entity urn:li:tag:75% does not exist', urn: 'urn:li:tag:75%' } });
  });

  test('REST: malformed percent-escapes are a 400, never a 500', async () => {
    assert.deepEqual(await http.get('/entitiesV2?ids=List(urn%3Ali%3Atag%3A%ZZ)'),
      { status: 400, body: badRequest("Parameter ids holds an item that is not valid percent-encoding: 'urn%3Ali%3Atag%3A%ZZ'", 'ids') });
    assert.deepEqual(await http.get(`/entitiesV2?ids=List(${enc(HDFS)})&aspects=List(status%E0%A4%A)`),
      { status: 400, body: badRequest("Parameter aspects holds an item that is not valid percent-encoding: 'status%E0%A4%A'", 'aspects') });
    // The router refuses a path it cannot decode, with the same error body as every other 400.
    assert.deepEqual(await http.get('/entitiesV2/urn%3Ali%3Atag%3A%ZZ'),
      { status: 400, body: { status: 400, code: 'BAD_REQUEST', message: "'/entitiesV2/urn%3Ali%3Atag%3A%ZZ' is not a valid url component" } });
  });

  test('REST: version=1e308, -1 or abc is a 400 on every engine; 0 and a missing version read', async () => {
    for (const version of ['1e308', '-1', 'abc', '1.5', '9007199254740993', '0x10']) {
      assert.deepEqual(await http.get(`/aspects/${enc(HDFS)}?aspect=schemaMetadata&version=${enc(version)}`),
        { status: 400, body: badRequest(`version must be a whole number ≥ 0, got '${version}'`, 'version') }, version);
    }
    for (const query of ['&version=0', '']) {
      const res = await http.get(`/aspects/${enc(HDFS)}?aspect=schemaMetadata${query}`);
      assert.deepEqual([res.status, res.body.version, Object.keys(res.body.aspect)], [200, 0, ['com.linkedin.schema.SchemaMetadata']]);
    }
    assert.deepEqual(await http.get(`/aspects/${enc(HDFS)}?aspect=schemaMetadata&version=9007199254740991`), { status: 404, body: { status: 404,
      code: 'NOT_FOUND', message: `Aspect schemaMetadata (version 9007199254740991) of ${HDFS} not found`, urn: HDFS, aspect: 'schemaMetadata' } });
  });

  test('REST and GraphQL: no other numeric parameter reaches the database unchecked', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/aspects?action=getTimeseriesAspectValues', { urn: HDFS, entity: 'dataset', aspect: 'datasetProfile', startTimeMillis: 1e308 }, "startTimeMillis must be a whole number, got '1e+308'"],
      ['/aspects?action=getTimeseriesAspectValues', { urn: HDFS, entity: 'dataset', aspect: 'datasetProfile', endTimeMillis: '12.5' }, "endTimeMillis must be a whole number, got '12.5'"],
      ['/aspects?action=getTimeseriesAspectValues', { urn: HDFS, entity: 'dataset', aspect: 'datasetProfile', limit: 'ten' }, "limit must be a whole number, got 'ten'"],
      ['/entities?action=search', { entity: 'dataset', input: '*', start: -1 }, "start must be a whole number ≥ 0, got '-1'"],
      ['/entities?action=searchAcrossEntities', { input: '*', count: 1e308 }, "count must be a whole number ≥ 0, got '1e+308'"],
      ['/entities?action=delete', { urn: HDFS, aspectName: 'datasetProfile', startTimeMillis: 'yesterday' }, "startTimeMillis must be a whole number, got 'yesterday'"],
      ['/usageStats?action=query', { resource: HDFS, startTime: 1e308 }, "startTime must be a whole number, got '1e+308'"],
      ['/operations?action=truncateTimeseriesAspect', { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: '1e308' }, "endTimeMillis must be a whole number, got '1e308'"],
      ['/operations?action=getEsTaskStatus', { nodeId: 'n', taskId: -5 }, "taskId must be a whole number ≥ 0, got '-5'"],
    ];
    for (const [url, payload, message] of cases) {
      const field = message.split(' ')[0]!;
      assert.deepEqual(await http.post(url, payload), { status: 400, body: badRequest(message, field) }, `${url} ${JSON.stringify(payload)}`);
    }
    // A time-series timestamp is a 64-bit long: beyond that it is refused as invalid, not by PostgreSQL's bigint.
    const profile = { entityType: 'dataset', entityUrn: HDFS, changeType: 'UPSERT', aspectName: 'datasetProfile',
      aspect: { contentType: 'application/json', value: JSON.stringify({ timestampMillis: 1e308, rowCount: 1 }) } };
    assert.deepEqual(await http.post('/aspects?action=ingestProposal', { proposal: profile }), { status: 422, body: { status: 422, code: 'UNPROCESSABLE',
      message: 'Invalid aspect datasetProfile: timestampMillis: expected a whole number within 64 bits, got 1e+308', aspect: 'datasetProfile',
      field: 'timestampMillis' } });
    const scroll = await http.graphql('{ scrollAcrossEntities(input: { query: "*", scrollId: "1e308" }) { count } }');
    assert.deepEqual(scroll, { status: 200, body: { errors: [{ message: "Invalid scrollId '1e308'", locations: [{ line: 1, column: 3 }],
      path: ['scrollAcrossEntities'], extensions: { code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException' } }],
    data: { scrollAcrossEntities: null }, extensions: {} } });
  });
});

describe('SQLite files are private (mode 0600)', { skip: process.platform === 'win32' }, () => {
  const mode = (f: string) => `0${(statSync(f).mode & 0o777).toString(8)}`;
  const modes = (file: string) => [mode(file), mode(`${file}-wal`), mode(`${file}-shm`)];
  let dir = '';
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-modes-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a new database file, its -wal and its -shm are created 0600 whatever the umask', async () => {
    const file = path.join(dir, 'new', 'almanac.db');
    const old = process.umask(0o022);
    try {
      const t = await startApp({ engine: 'sqlite', url: `sqlite:${file}` } satisfies EngineContext);
      try {
        const http = client(await t.listen(), t.auth);
        const res = await http.graphql('mutation { createTag(input: { id: "private", name: "private" }) }');
        assert.deepEqual(res, { status: 200, body: { data: { createTag: 'urn:li:tag:private' }, extensions: {} } });
        assert.deepEqual(modes(file), ['0600', '0600', '0600']);
      } finally {
        await t.close();
      }
    } finally {
      process.umask(old);
    }
  });

  test('an existing file open to others is tightened with a warning; a private one is left alone', async () => {
    const file = path.join(dir, 'old.db');
    await (await startApp({ engine: 'sqlite', url: `sqlite:${file}` })).close();
    const reopen = async () => {
      const warnings: string[] = [];
      const write = process.stderr.write;
      process.stderr.write = ((chunk: string) => warnings.push(String(chunk)) > 0) as typeof process.stderr.write;
      let t: TestApp;
      try {
        t = await startApp({ engine: 'sqlite', url: `sqlite:${file}` });
      } finally {
        process.stderr.write = write;
      }
      const seen = modes(file);
      await t.close();
      return { warnings, modes: seen };
    };
    chmodSync(file, 0o644);
    assert.deepEqual(await reopen(), { warnings: [`almanac: warning: ${file} was open to other users (mode 0644); changed to 0600\n`],
      modes: ['0600', '0600', '0600'] });
    assert.deepEqual(await reopen(), { warnings: [], modes: ['0600', '0600', '0600'] });
  });
});

forEachEngine('token signing key kept out of the database', (ctx) => {
  let dir = '';
  before(() => { dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-key-')); });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('ALMANAC_TOKEN_SECRET_FILE: tokens are signed with the file\'s key and none is stored', async () => {
    const { engine } = ctx;
    const key = 'k'.repeat(20) + '-from-a-key-file-0123456789';
    const keyFile = path.join(dir, `${engine}.key`);
    writeFileSync(keyFile, `${key}\n`, { mode: 0o600 });
    const config = loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent', ALMANAC_TOKEN_SECRET_FILE: keyFile });
    assert.equal(config.tokenSecret, key);
    const t = await startApp(ctx, { tokenSecret: config.tokenSecret });
    try {
      const http = client(await t.listen(), t.auth);
      const created = await http.graphql(`mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:datahub",
        duration: ONE_HOUR, name: "key file" }) { accessToken } }`);
      const token = created.body.data.createAccessToken.accessToken as string;
      const { payload } = await jwtVerify(token, new TextEncoder().encode(key));
      assert.equal(payload.actorId, 'datahub');
      const me = await client(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`, { authorization: `Bearer ${token}` })
        .graphql('{ me { corpUser { urn } } }');
      assert.deepEqual(me, { status: 200, body: { data: { me: { corpUser: { urn: 'urn:li:corpuser:datahub' } } }, extensions: {} } });
      // No key was generated into the database: the first value offered for the setting is taken.
      assert.equal(await t.catalog.store.getOrSetSetting('token_signing_key', 'probe'), 'probe');
    } finally {
      await t.close();
    }
  });

  test('a key file that is missing, short, or set together with ALMANAC_TOKEN_SECRET stops start-up with one line', () => {
    const short = path.join(dir, 'short.key');
    writeFileSync(short, 'too short\n');
    const missing = path.join(dir, 'missing.key');
    const cases: [Record<string, string>, string][] = [
      [{ ALMANAC_TOKEN_SECRET_FILE: missing }, `ALMANAC_TOKEN_SECRET_FILE: cannot read '${missing}' (ENOENT)`],
      [{ ALMANAC_TOKEN_SECRET_FILE: short }, `ALMANAC_TOKEN_SECRET_FILE: the key in '${short}' must be at least 32 characters long`],
      [{ ALMANAC_TOKEN_SECRET_FILE: short, ALMANAC_TOKEN_SECRET: 'x'.repeat(40) }, 'Set ALMANAC_TOKEN_SECRET or ALMANAC_TOKEN_SECRET_FILE, not both'],
      [{ ALMANAC_TOKEN_SECRET: 'x'.repeat(31) }, 'ALMANAC_TOKEN_SECRET must be at least 32 characters long'],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && e.message === message, message);
    }
  });
});
