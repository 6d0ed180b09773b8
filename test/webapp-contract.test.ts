import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import {
  Lexer, Source, TokenKind, buildClientSchema, getIntrospectionQuery, print, validate,
  type DocumentNode, type GraphQLSchema, type IntrospectionQuery, type OperationDefinitionNode,
} from 'graphql';
import { fragmentsOf, measureOperation } from '../src/graphql/cost-limit.js';
import { LIMITS } from '../src/graphql/plugin.js';
import { systemActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';
import { webappDocument, webappOperations, withTypename } from './support/webapp.js';

/**
 * The contract with DataHub 0.12.1's web app (issue 15): every GraphQL operation it sends
 * (test/fixtures/datahub-webapp-graphql), with its fragments and with the `__typename` its client (Apollo) adds to
 * every selection set, validates against the schema the running server exposes — read by introspection over
 * HTTP, not from the SDL files — and passes every request bound (cost, fields, depth, tokens, aliases).
 */

/**
 * Operations that do not validate yet, by `file:operation`. This list may only shrink: an operation that fails and
 * is not listed fails the test, and so does a listed one that validates (take it off the list).
 */
const NOT_YET_VALID = new Set<string>([]);


const require = createRequire(import.meta.url);
/** mercurius' own depth measure, the one that refuses requests (LIMITS.depth). */
const queryDepth = require('mercurius/lib/queryDepth.js') as (defs: DocumentNode['definitions'], limit: number) => Error[];

function tokens(text: string): number {
  const lexer = new Lexer(new Source(text));
  let n = 0;
  while (lexer.advance().kind !== TokenKind.EOF) n++;
  return n;
}

/** The largest page size DataHub's web app sends in variables (UpstreamHealth's searchAcrossLineage, listDomains). */
const LARGEST_PAGE = 1_000;

const ops = webappOperations();

forEachEngine('DataHub web app contract', (ctx) => {
  let t: TestApp;
  let base: string;
  let schema: GraphQLSchema;
  const post = async (query: string, variables?: Record<string, unknown>, operationName?: string) => {
    const res = await fetch(`${base}/api/graphql`, { method: 'POST', headers: { ...t.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables, operationName }) });
    return { status: res.status, body: await res.json() as any };
  };
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    base = await t.listen();
    const res = await post(getIntrospectionQuery());
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    schema = buildClientSchema(res.body.data as IntrospectionQuery);
  });
  after(async () => t.close());

  test('the contract holds 181 operations', () => {
    assert.equal(ops.length, 181);
  });

  test('every operation validates against the served schema, but the listed exceptions (which must only shrink)', () => {
    const failing = new Map<string, string[]>();
    for (const { name, file } of ops) {
      const errors = validate(schema, withTypename(webappDocument(name, file)));
      if (errors.length) failing.set(`${file}:${name}`, errors.map((e) => e.message));
    }
    const unexpected = [...failing].filter(([k]) => !NOT_YET_VALID.has(k));
    assert.deepEqual(unexpected, [], 'operations that fail and are not on the list of exceptions');
    const fixed = [...NOT_YET_VALID].filter((k) => !failing.has(k));
    assert.deepEqual(fixed, [], 'operations on the list of exceptions that validate now: take them off the list');
  });

  test('every operation, as the web app sends it, passes every request bound', () => {
    const over: string[] = [];
    let highest = { cost: 0, fields: 0, depth: 0, tokens: 0 };
    for (const { name, file } of ops) {
      const doc = withTypename(webappDocument(name, file));
      const op = doc.definitions[0] as OperationDefinitionNode;
      // Page sizes sent in variables counted at the largest the web app sends.
      const m = measureOperation(schema, op, fragmentsOf(doc), LIMITS, { unknownSize: LARGEST_PAGE });
      for (const e of m.errors) over.push(`${file}:${name}: ${e.message}`);
      for (const e of queryDepth(doc.definitions, LIMITS.depth)) over.push(`${file}:${name}: ${e.message}`);
      const depth = Number(/\((\d+)\)/.exec(queryDepth(doc.definitions, 1)[0]?.message ?? '')?.[1] ?? 0);
      const n = tokens(print(doc));
      if (n > LIMITS.tokens) over.push(`${file}:${name}: ${n} tokens`);
      highest = { cost: Math.max(highest.cost, m.cost), fields: Math.max(highest.fields, m.fields), depth: Math.max(highest.depth, depth),
        tokens: Math.max(highest.tokens, n) };
    }
    assert.deepEqual(over, []);
    // The limits keep a margin above the costliest operation (src/graphql/limits.ts states them): about twice, and not more
    // than four times, so that they follow the contract rather than being switched off.
    for (const k of ['cost', 'fields'] as const) {
      assert.ok(LIMITS[k] >= 1.5 * highest[k] && LIMITS[k] <= 4 * highest[k], `${k}: limit ${LIMITS[k]}, highest ${highest[k]}`);
    }
    assert.ok(LIMITS.depth >= highest.depth + 5 && LIMITS.depth <= 2 * highest.depth, `depth: limit ${LIMITS.depth}, highest ${highest.depth}`);
  });

  test('the costliest pages are served, not refused: lineage, chart and search across lineage with 1,000 results', async () => {
    const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
    const CHART = 'urn:li:chart:(looker,baz1)';
    const bounds = /too costly|too large|depth|tokens|names \(aliases\)|items; at most/;
    const cases: [string, string, Record<string, unknown>][] = [
      ['getEntityLineage', 'lineage.graphql', { urn: HDFS, separateSiblings: false, showColumns: true, excludeDownstream: false, excludeUpstream: false }],
      ['getChart', 'chart.graphql', { urn: CHART }],
      ['searchAcrossLineage', 'search.graphql', { input: { urn: HDFS, query: '*', start: 0, count: LARGEST_PAGE, direction: 'UPSTREAM',
        types: ['DATASET'], orFilters: [{ and: [{ field: 'degree', condition: 'EQUAL', values: ['1', '2', '3+'] }] }] }, includeAssertions: true }],
    ];
    for (const [name, file, variables] of cases) {
      const res = await post(print(withTypename(webappDocument(name, file))), variables, name);
      assert.equal(res.status, 200);
      const refusals = (res.body.errors ?? []).map((e: { message: string }) => e.message).filter((m: string) => bounds.test(m));
      assert.deepEqual(refusals, [], name);
      assert.equal(res.body.errors, undefined, `${name}: ${JSON.stringify(res.body.errors)}`);
      assert.ok(res.body.data && Object.values(res.body.data).every((v) => v !== null), name);
    }
  });

  test('the interfaces and types the documents rely on are DataHub\'s, as introspection shows them', async () => {
    const type = (name: string) => schema.getType(name) as any;
    const fieldType = (t: string, f: string) => String(type(t).getFields()[f].type);
    const interfaces = (t: string) => type(t).getInterfaces().map((i: { name: string }) => i.name).sort();
    assert.deepEqual(interfaces('DataPlatformInstance'), ['Entity']);
    assert.deepEqual(interfaces('Assertion'), ['Entity', 'EntityWithRelationships']);
    assert.deepEqual(Object.keys(type('Entity').getFields()), ['urn', 'type', 'relationships']);
    assert.equal(fieldType('Entity', 'relationships'), 'EntityRelationshipsResult');
    assert.equal(fieldType('Container', 'platform'), 'DataPlatform!');
    assert.equal(fieldType('CorpUser', 'editableInfo'), 'CorpUserEditableInfo');
    assert.equal(fieldType('DataPlatform', 'info'), 'DataPlatformInfo');
    assert.equal(fieldType('Dataset', 'platformNativeType'), 'PlatformNativeType');
    assert.equal(fieldType('Mutation', 'reportOperation'), 'String');
    assert.equal(fieldType('CorpGroupProperties', 'slack'), 'String');
  });

  test('reportOperation answers "true", as DataHub\'s String field writes its resolver\'s true', async () => {
    const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
    assert.deepEqual(await post(`mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL }) }`),
      { status: 200, body: { data: { reportOperation: 'true' }, extensions: {} } });
  });

  test('a group\'s slack handle is read from its info, as getGroup asks for it', async () => {
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpGroup:slackers', entityType: 'corpGroup', aspect: 'corpGroupInfo',
      changeType: 'UPSERT', value: { displayName: 'Slackers', admins: [], members: [], groups: [], slack: '#slackers' }, systemMetadata: null }],
    systemActor());
    assert.deepEqual(await post('{ corpGroup(urn: "urn:li:corpGroup:slackers") { properties { displayName slack } } }'),
      { status: 200, body: { data: { corpGroup: { properties: { displayName: 'Slackers', slack: '#slackers' } } }, extensions: {} } });
    const group = await post(print(withTypename(webappDocument('getGroup'))), { urn: 'urn:li:corpGroup:slackers', membersCount: 20 });
    assert.equal(group.body.errors, undefined, JSON.stringify(group.body.errors));
    assert.deepEqual(group.body.data.corpGroup.properties, { __typename: 'CorpGroupProperties', displayName: 'Slackers', description: null,
      email: null, slack: '#slackers' });
  });

  test('Int variables sent as strings are read as numbers, at the top level and inside input objects', async () => {
    const users = print(withTypename(webappDocument('listUsers')));
    const asNumbers = await post(users, { input: { start: 1, count: 2, query: '' } });
    assert.equal(asNumbers.body.errors, undefined, JSON.stringify(asNumbers.body.errors));
    assert.deepEqual(await post(users, { input: { start: '1', count: '2', query: '' } }), asNumbers);
    assert.equal(asNumbers.body.data.listUsers.start, 1);

    const members = print(withTypename(webappDocument('getGroupMembers')));
    const m = await post(members, { urn: 'urn:li:corpGroup:bfoo', start: 0, count: 20 });
    assert.equal(m.body.errors, undefined, JSON.stringify(m.body.errors));
    assert.deepEqual(await post(members, { urn: 'urn:li:corpGroup:bfoo', start: '0', count: '20' }), m);
    // graphql-java reads "20.0" and "2e1" as 20 too.
    assert.deepEqual(await post(members, { urn: 'urn:li:corpGroup:bfoo', start: '0', count: '2e1' }), m);

    const lineage = `query q($start: Int, $count: Int) { dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)") {
      relationships(input: { types: ["DownstreamOf"], direction: INCOMING, start: $start, count: $count }) { start count total } } }`;
    assert.deepEqual(await post(lineage, { start: '0', count: '20.0' }), { status: 200, body: { data: { dataset: {
      relationships: { start: 0, count: 1, total: 1 } } }, extensions: {} } });
  });

  test('real garbage is still refused: words, fractions and out-of-range numbers for Int, numbers for String', async () => {
    const members = print(withTypename(webappDocument('getGroupMembers')));
    const refused = async (variables: Record<string, unknown>, message: string) => {
      const res = await post(members, { urn: 'urn:li:corpGroup:bfoo', ...variables });
      assert.equal(res.body.data, null);
      assert.equal(res.body.errors.length, 1);
      assert.equal(res.body.errors[0].extensions.code, 400);
      assert.match(res.body.errors[0].message, new RegExp(message));
    };
    await refused({ start: '0', count: 'ten' }, '\\$count');
    await refused({ start: '0', count: '1.5' }, '\\$count');
    await refused({ start: '0', count: '99999999999' }, '\\$count');
    await refused({ start: '', count: '20' }, '\\$start');
    await refused({ start: true, count: 20 }, '\\$start');
    const users = print(withTypename(webappDocument('listUsers')));
    const res = await post(users, { input: { start: '0', count: 'twenty' } });
    assert.equal(res.body.errors[0].extensions.code, 400);
    assert.match(res.body.errors[0].message, /\$input/);
    const str = await post(members, { urn: 42, start: 0, count: 20 });
    assert.match(str.body.errors[0].message, /Variable "\$urn" got invalid value 42/);
  });
});
