import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { dataset } from '../src/entities/dataset.js';
import type { FieldResolver } from '../src/entities/descriptor.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const LOGGING = 'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)';

forEachEngine('GraphQL: reads', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json', 'data_platforms.json');
  });
  after(async () => t.close());

  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  test('dataset identity fields come from the urn; platform from its entity', async () => {
    assert.deepEqual((await ok(`{ dataset(urn: "${HIVE}") { urn type name origin exists platform { urn name properties { displayName type } }
      subTypes { typeNames } status { removed } } }`)).dataset, {
      urn: HIVE, type: 'DATASET', name: 'SampleHiveDataset', origin: 'PROD', exists: true,
      platform: { urn: 'urn:li:dataPlatform:hive', name: 'hive', properties: { displayName: 'Hive', type: 'FILE_SYSTEM' } },
      subTypes: null, status: null,
    });
  });

  test('properties carry custom properties as entries and DataHub\'s lastModified default', async () => {
    const data = await ok(`{ dataset(urn: "${KAFKA}") { properties { name description customProperties { key value associatedUrn }
      lastModified { time actor } qualifiedName externalUrl } } }`);
    assert.deepEqual(data.dataset.properties, { name: 'SampleKafkaDataset', description: null, qualifiedName: null, externalUrl: null,
      customProperties: [{ key: 'prop1', value: 'fakeprop', associatedUrn: KAFKA }, { key: 'prop2', value: 'pikachu', associatedUrn: KAFKA }],
      lastModified: { time: 0, actor: null } });
  });

  test('schemaMetadata maps field types, platform schema and key fields', async () => {
    const data = await ok(`{ dataset(urn: "${KAFKA}") { schemaMetadata { name platformUrn version hash aspectVersion
      platformSchema { __typename ... on KeyValueSchema { keySchema } ... on TableSchema { schema } }
      fields { fieldPath type nativeDataType nullable recursive isPartOfKey } } } }`);
    const s = data.dataset.schemaMetadata;
    assert.equal(s.name, 'SampleKafkaSchema');
    assert.equal(s.platformUrn, 'urn:li:dataPlatform:kafka');
    assert.equal(s.aspectVersion, 0);
    assert.equal(s.platformSchema.__typename, 'TableSchema');
    assert.match(s.platformSchema.schema, /"name":"SampleKafkaSchema"/);
    assert.deepEqual(s.fields[1], { fieldPath: '[version=2.0].[type=boolean].field_bar', type: 'BOOLEAN', nativeDataType: 'boolean',
      nullable: false, recursive: false, isPartOfKey: null });
  });

  test('lineage upstream and downstream', async () => {
    const data = await ok(`{ dataset(urn: "${HIVE}") {
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type degree entity { urn type } } }
      down: lineage(input: { direction: DOWNSTREAM, start: 0, count: 10 }) { total relationships { entity { urn } } } } }`);
    // The sample lists SampleHdfsDataset twice: one edge.
    assert.deepEqual(data.dataset.up, { total: 1, relationships: [
      { type: 'DownstreamOf', degree: 1, entity: { urn: HDFS, type: 'DATASET' } }] });
    assert.deepEqual(data.dataset.down, { total: 1, relationships: [{ entity: { urn: LOGGING } }] });
  });

  test('containers: parent chain and children', async () => {
    const data = await ok(`{ dataset(urn: "${HIVE}") { container { urn properties { name } subTypes { typeNames } }
      parentContainers { count containers { urn } } }
      container(urn: "urn:li:container:DATABASE") { platform { urn } entities(input: { start: 0, count: 10 }) { total searchResults { entity { urn type } } } } }`);
    assert.deepEqual(data.dataset.container, { urn: 'urn:li:container:SCHEMA', properties: { name: 'datahub_schema' }, subTypes: { typeNames: ['Schema'] } });
    assert.deepEqual(data.dataset.parentContainers, { count: 2, containers: [{ urn: 'urn:li:container:SCHEMA' }, { urn: 'urn:li:container:DATABASE' }] });
    assert.deepEqual(data.container, { platform: { urn: 'urn:li:dataPlatform:hive' }, entities: { total: 1,
      searchResults: [{ entity: { urn: 'urn:li:container:SCHEMA', type: 'CONTAINER' } }] } });
  });

  test('users and groups', async () => {
    const data = await ok(`{ corpUser(urn: "urn:li:corpuser:jdoe") { urn type username properties { displayName title email active } status }
      corpGroup(urn: "urn:li:corpGroup:bfoo") { name info { email admins { username } members { username } } } }`);
    assert.deepEqual(data, {
      corpUser: { urn: 'urn:li:corpuser:jdoe', type: 'CORP_USER', username: 'jdoe', status: null,
        properties: { displayName: 'John Doe', title: 'Software Engineer', email: 'jdoe@linkedin.com', active: true } },
      corpGroup: { name: 'bfoo', info: { email: 'bfoo@linkedin.com', admins: [{ username: 'jdoe' }, { username: 'datahub' }],
        members: [{ username: 'jdoe' }, { username: 'datahub' }] } },
    });
  });

  test('me: the caller and what they may do', async () => {
    const data = await ok('{ me { corpUser { urn username } platformPrivileges { managePolicies manageTokens createTags generatePersonalAccessTokens } } }');
    assert.deepEqual(data.me, { corpUser: { urn: 'urn:li:corpuser:datahub', username: 'datahub' },
      platformPrivileges: { managePolicies: true, manageTokens: true, createTags: true, generatePersonalAccessTokens: true } });
  });

  test('entity and entities resolve any type; entities skips missing ones', async () => {
    const data = await ok(`{ entity(urn: "urn:li:tag:Legacy") { urn type ... on Tag { name } }
      entities(urns: ["${HIVE}", "urn:li:corpuser:jdoe", "urn:li:tag:nope", "urn:li:chart:(looker,baz1)"]) { urn type }
      entityExists(urn: "urn:li:tag:nope") }`);
    assert.deepEqual(data, {
      entity: { urn: 'urn:li:tag:Legacy', type: 'TAG', name: 'Legacy' },
      entities: [{ urn: HIVE, type: 'DATASET' }, { urn: 'urn:li:corpuser:jdoe', type: 'CORP_USER' }, { urn: 'urn:li:chart:(looker,baz1)', type: 'CHART' }],
      entityExists: false,
    });
  });

  test('introspection works for an authenticated user', async () => {
    const data = await ok('{ __schema { queryType { name } mutationType { name } } __type(name: "Dataset") { fields { name } } }');
    assert.deepEqual(data.__schema, { queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    assert.ok(data.__type.fields.some((f: any) => f.name === 'schemaMetadata'), 'a schemaMetadata field');
  });

  test('a second identical query is served by graphql-jit with the same answer', async () => {
    // Who calls the dataset's schemaMetadata field tells which executor ran the query: graphql-js's execute the first
    // time a document is seen, the code graphql-jit compiled from it afterwards (mercurius compiles a document once it
    // has been run once: jit: 1). The schema takes the descriptor's field functions when an app is built, so an app
    // built while the field is wrapped calls the wrapper, from either executor.
    const fields = dataset.graphql.fields as Record<string, FieldResolver>;
    const resolve = fields.schemaMetadata!;
    const executors: string[] = [];
    fields.schemaMetadata = (f) => {
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 50;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      executors.push(stack.includes('graphql-jit') ? 'graphql-jit' : /graphql[\\/]execution[\\/]execute/.test(stack) ? 'graphql-js' : 'unknown');
      return resolve(f);
    };
    let app: TestApp;
    try {
      // On this suite's database (a new one for in-memory SQLite); answers not reused, so that the query runs twice.
      app = await startApp(ctx, { responseCacheBytes: 0 });
    } finally {
      fields.schemaMetadata = resolve;
    }
    try {
      if (!(await app.catalog.store.existing([HDFS])).size) await ingestSamples(app.catalog, 'bootstrap_mce.json');
      const q = `{ dataset(urn: "${HDFS}") { urn schemaMetadata { fields { fieldPath description } } } }`;
      const first = await app.graphql(q);
      const second = await app.graphql(q);
      const third = await app.graphql(q);
      assert.deepEqual(executors, ['graphql-js', 'graphql-jit', 'graphql-jit']);
      assert.equal(first.body.errors, undefined, JSON.stringify(first.body.errors));
      assert.deepEqual(first.body.data.dataset.schemaMetadata.fields.map((f: any) => f.fieldPath), ['shipment_info', 'shipment_info.date',
        'shipment_info.target', 'shipment_info.destination', 'shipment_info.geo_info', 'shipment_info.geo_info.lat', 'shipment_info.geo_info.lng']);
      assert.deepEqual(second.body, first.body);
      assert.deepEqual(third.body, first.body);
    } finally {
      await app.close();
    }
  });

  test('numeric strings are accepted for Int variables, as DataHub accepts them', async () => {
    const res = await t.graphql(`query q($start: Int, $count: Int) { dataset(urn: "${HIVE}") {
      lineage(input: { direction: DOWNSTREAM, start: $start, count: $count }) { start count total } } }`, { start: '0', count: '20' });
    assert.deepEqual(res.body, { data: { dataset: { lineage: { start: 0, count: 1, total: 1 } } }, extensions: {} });
  });

  test('relationships in both directions, with DataHub\'s names', async () => {
    const res = await t.graphql(`{ dataset(urn: "${HIVE}") {
      up: relationships(input: { types: ["DownstreamOf"], direction: OUTGOING }) { total relationships { type direction entity { urn } } }
      down: relationships(input: { types: ["DownstreamOf"], direction: INCOMING }) { total relationships { entity { urn } } }
      owners: relationships(input: { types: ["OwnedBy"], direction: OUTGOING }) { relationships { entity { urn } } } }
      tag(urn: "urn:li:tag:Legacy") { relationships(input: { types: ["TaggedWith"], direction: INCOMING, count: 10 }) { total relationships { entity { urn type } } } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    const d = res.body.data.dataset;
    assert.deepEqual(d.up, { total: 1, relationships: [{ type: 'DownstreamOf', direction: 'OUTGOING', entity: { urn: HDFS } }] });
    assert.deepEqual(d.down, { total: 1, relationships: [{ entity: { urn: LOGGING } }] });
    assert.deepEqual(d.owners.relationships.map((r: any) => r.entity.urn), ['urn:li:corpuser:datahub', 'urn:li:corpuser:jdoe']);
    assert.deepEqual(res.body.data.tag.relationships.relationships.map((r: any) => r.entity.type).sort(), ['CHART', 'DATASET']);
  });
});
