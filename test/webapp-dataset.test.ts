import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * The dataset page's GraphQL surface as DataHub 0.12.1's web app reads it, over a fixture ingested through the REST
 * API: a dataset with three stored versions of its schema, three assertions (one passing, one failing, one never
 * run), runs reading and writing it, an external access role, an embed, a view definition, usage and operations; a
 * chart and a dashboard; glossary entities, a domain and a group to rename. The web app's own operations run with
 * the variables it sends.
 */

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,shop.orders,PROD)';
const OTHER = 'urn:li:dataset:(urn:li:dataPlatform:hive,shop.customers,PROD)';
const RENAMED = 'urn:li:dataset:(urn:li:dataPlatform:hive,shop.visits,PROD)';
const ROLE = 'urn:li:role:orders-reader';
const A_OK = 'urn:li:assertion:rows-ok';
const A_BAD = 'urn:li:assertion:nulls-bad';
const A_IDLE = 'urn:li:assertion:idle';
const RUN1 = 'urn:li:dataProcessInstance:run-1';
const RUN2 = 'urn:li:dataProcessInstance:run-2';
const RUN3 = 'urn:li:dataProcessInstance:run-3';
const CHART = 'urn:li:chart:(looker,orders_chart)';
const DASH = 'urn:li:dashboard:(looker,orders_dash)';
const NODE = 'urn:li:glossaryNode:sales';
const TERM = 'urn:li:glossaryTerm:sales.order_id';
const DOMAIN = 'urn:li:domain:shop';
const GROUP = 'urn:li:corpGroup:analysts';
const ROOT = 'urn:li:corpuser:datahub';

const stringType = { type: { 'com.linkedin.schema.StringType': {} } };
const numberType = { type: { 'com.linkedin.schema.NumberType': {} } };
const field = (fieldPath: string, nativeDataType: string, t: object = stringType) => ({ fieldPath, nativeDataType, type: t, nullable: false, recursive: false });
const schema = (fields: unknown[], primaryKeys?: string[]) => ({ schemaName: 'shop.orders', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '',
  platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields, ...(primaryKeys ? { primaryKeys } : {}) });
const sfUrn = (path: string) => `urn:li:schemaField:(${DS},${path})`;

const assertionInfo = (fieldPath?: string) => ({ type: 'DATASET', datasetAssertion: { dataset: DS, scope: fieldPath ? 'DATASET_COLUMN' : 'DATASET_ROWS',
  operator: fieldPath ? 'NOT_NULL' : 'GREATER_THAN', ...(fieldPath ? { fields: [sfUrn(fieldPath)], aggregation: 'IDENTITY' } : { aggregation: 'ROW_COUNT',
    parameters: { value: { value: '0', type: 'NUMBER' } } }) } });
const runEvent = (assertionUrn: string, timestampMillis: number, type: string) => ({ timestampMillis, runId: `r${timestampMillis}`, asserteeUrn: DS,
  assertionUrn, status: 'COMPLETE', result: { type, actualAggValue: 3 } });

/** A day of usage inside the last month (usageStats(range: MONTH) counts back from now). */
const USAGE_DAY = Math.floor((Date.now() - 3 * 86_400_000) / 86_400_000) * 86_400_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachEngine('web app: dataset pages', (ctx) => {
  let t: TestApp;
  let plain: Record<string, string>;
  let editor: Record<string, string>;

  const put = async (urn: string, aspectName: string, value: unknown) => {
    const entityType = urn.slice('urn:li:'.length).split(':', 1)[0];
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth, payload: { proposal: {
      entityType, entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } } });
    assert.equal(res.statusCode, 200, `${urn} ${aspectName}: ${res.body}`);
  };

  const gql = async (query: string, variables: Record<string, unknown> = {}, headers?: Record<string, string>) => {
    const res = await t.graphql(query, variables, headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  /** The first error's code, and that the data is null. */
  const refused = async (query: string, variables: Record<string, unknown> = {}, headers?: Record<string, string>) => {
    const res = await t.graphql(query, variables, headers);
    return res.body.errors?.[0]?.extensions?.code as number | undefined;
  };

  before(async () => {
    t = await startApp(ctx);
    const user = async (name: string) => {
      await put(`urn:li:corpuser:${name}`, 'corpUserInfo', { active: true, displayName: name });
      return { authorization: `Bearer ${await t.tokenFor(name)}` };
    };
    plain = await user('plain');
    editor = await user('editor');
    // editor may edit the embed and queries of DS (only), through a policy.
    await gql(`mutation { createPolicy(input: { type: METADATA, name: "Embeds and queries", state: ACTIVE, privileges: ["EDIT_ENTITY_EMBED", "EDIT_ENTITY_QUERIES"],
      actors: { users: ["urn:li:corpuser:editor"], allUsers: false, allGroups: false, resourceOwners: false },
      resources: { type: "dataset", resources: ["${DS}"], allResources: false } }) }`);

    for (const urn of [DS, OTHER]) {
      await put(urn, 'datasetProperties', { name: urn === DS ? 'orders' : 'customers', customProperties: {} });
    }
    // Three versions of the schema: a, b; then c added (minor); then b removed and a's type changed (major).
    await put(DS, 'schemaMetadata', schema([field('a', 'int', numberType), field('b', 'string')]));
    await sleep(5);
    await put(DS, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'a', description: 'The order id' }] });
    await sleep(5);
    await put(DS, 'schemaMetadata', schema([field('a', 'int', numberType), field('b', 'string'), field('c', 'string')]));
    await sleep(5);
    await put(DS, 'schemaMetadata', schema([field('a', 'bigint', numberType), field('c', 'string')], ['a']));

    // A column renamed (same type and description): DataHub's MINOR MODIFY of the old path, no removal nor addition.
    await put(RENAMED, 'schemaMetadata', schema([{ ...field('cust', 'int', numberType), description: 'Customer id' }, field('z', 'string')]));
    await sleep(5);
    await put(RENAMED, 'schemaMetadata', schema([{ ...field('customer', 'int', numberType), description: 'Customer id' }, field('z', 'string')]));
    await put(DS, 'access', { roles: [{ urn: ROLE }] });
    await put(ROLE, 'roleProperties', { name: 'Orders reader', description: 'Read the orders table', type: 'READ', requestUrl: 'https://access.example.com/orders' });
    await put(ROLE, 'actors', { users: [{ user: 'urn:li:corpuser:plain' }] });
    await put(DS, 'embed', { renderUrl: 'https://bi.example.com/orders' });
    await put(DS, 'viewProperties', { materialized: false, viewLogic: 'SELECT * FROM raw.orders', viewLanguage: 'SQL' });

    await put(A_OK, 'assertionInfo', assertionInfo());
    await put(A_BAD, 'assertionInfo', assertionInfo('c'));
    await put(A_IDLE, 'assertionInfo', assertionInfo('a'));
    await put(A_OK, 'assertionRunEvent', runEvent(A_OK, 1_700_000_100_000, 'FAILURE'));
    await put(A_OK, 'assertionRunEvent', runEvent(A_OK, 1_700_000_200_000, 'SUCCESS'));
    await put(A_BAD, 'assertionRunEvent', runEvent(A_BAD, 1_700_000_100_000, 'SUCCESS'));
    await put(A_BAD, 'assertionRunEvent', runEvent(A_BAD, 1_700_000_200_000, 'FAILURE'));

    const created = (time: number) => ({ time, actor: ROOT });
    await put(RUN1, 'dataProcessInstanceProperties', { name: 'load 1', created: created(1_700_000_001_000), customProperties: {} });
    await put(RUN1, 'dataProcessInstanceInput', { inputs: [DS] });
    await put(RUN2, 'dataProcessInstanceProperties', { name: 'load 2', created: created(1_700_000_002_000), customProperties: {} });
    await put(RUN2, 'dataProcessInstanceInput', { inputs: [DS, OTHER] });
    await put(RUN2, 'dataProcessInstanceRunEvent', { timestampMillis: 1_700_000_002_500, status: 'COMPLETE', result: { type: 'SUCCESS', nativeResultType: 'success' } });
    await put(RUN3, 'dataProcessInstanceProperties', { name: 'build', created: created(1_700_000_003_000), customProperties: {} });
    await put(RUN3, 'dataProcessInstanceOutput', { outputs: [DS] });

    await put(DS, 'datasetUsageStatistics', { timestampMillis: USAGE_DAY, eventGranularity: { unit: 'DAY', multiple: 1 }, uniqueUserCount: 2,
      totalSqlQueries: 7, topSqlQueries: ['SELECT * FROM orders'], userCounts: [{ user: 'urn:li:corpuser:plain', count: 5 }, { user: ROOT, count: 2 }],
      fieldCounts: [{ fieldPath: 'a', count: 4 }] });
    await put(DS, 'siblings', { siblings: [OTHER], primary: true });
    await put(OTHER, 'siblings', { siblings: [DS], primary: false });
    await put(DS, 'operation', { timestampMillis: 1_700_000_050_000, operationType: 'INSERT', lastUpdatedTimestamp: 1_700_000_049_000 });
    await put(DS, 'operation', { timestampMillis: 1_700_000_060_000, operationType: 'UPDATE', lastUpdatedTimestamp: 1_700_000_059_000 });

    await put(CHART, 'chartInfo', { title: 'Orders', description: '', lastModified: { created: created(0), lastModified: created(0) }, customProperties: {} });
    await put(DASH, 'dashboardInfo', { title: 'Orders board', description: '', lastModified: { created: created(0), lastModified: created(0) }, customProperties: {} });

    await put(NODE, 'glossaryNodeInfo', { definition: 'Sales terms', name: 'Sales' });
    await put(TERM, 'glossaryTermInfo', { definition: 'An order', name: 'Order id', termSource: 'INTERNAL', parentNode: NODE, customProperties: {} });
    await put(TERM, 'schemaMetadata', schema([field('value', 'string')]));
    await put(DOMAIN, 'domainProperties', { name: 'Shop' });
    await put('urn:li:domain:other', 'domainProperties', { name: 'Finance' });
    await put(GROUP, 'corpGroupInfo', { displayName: 'Analysts', admins: [], members: [], groups: [] });
  });
  after(async () => t.close());

  /** The stored versions of DS's aspects, for the version stamps and timestamps DataHub derives from them. */
  async function history() {
    const names = [...(await t.catalog.store.getLatest([DS])).get(DS)!.keys()].sort();
    const out = new Map<string, { version: number; createdOn: number }[]>();
    for (const n of names) {
      const recs = await t.catalog.store.listVersions(DS, n);
      out.set(n, recs.map((r) => ({ version: r.version, createdOn: r.createdOn }))
        .sort((a, b) => (a.version === 0 ? Infinity : a.version) - (b.version === 0 ? Infinity : b.version)));
    }
    return out;
  }
  function stampAt(h: Map<string, { version: number; createdOn: number }[]>, time: number) {
    return [...h].flatMap(([n, recs]) => {
      const cur = recs.filter((r) => r.createdOn <= time).pop();
      return cur ? [`${n}:${cur.version}`] : [];
    }).join(';');
  }

  test('getDataset: health, assertions, operations, runs, raw aspects, view, embed and privileges of the page', async () => {
    const d = (await gql(webappText('getDataset'), { urn: DS })).dataset;
    assert.deepEqual(d.health, [{ type: 'ASSERTIONS', status: 'FAIL', message: '1 of 3 assertions are failing', causes: [A_BAD] }]);
    assert.deepEqual(d.assertions, { total: 3 });
    assert.deepEqual(d.operations, [{ timestampMillis: 1_700_000_060_000, lastUpdatedTimestamp: 1_700_000_059_000 }]);
    assert.deepEqual(d.viewProperties, { materialized: false, logic: 'SELECT * FROM raw.orders', language: 'SQL' });
    // DataHub 0.12.1 marks no aspect for automatic rendering.
    assert.deepEqual(d.autoRenderAspects, []);
    assert.deepEqual(d.readRuns, { count: 20, start: 0, total: 2 });
    assert.deepEqual(d.writeRuns, { count: 20, start: 0, total: 1 });
    assert.deepEqual(d.status, null);
    assert.deepEqual(d.usageStats, { buckets: [{ bucket: USAGE_DAY, metrics: { totalSqlQueries: 7 } }],
      aggregations: { uniqueUserCount: 2, totalSqlQueries: 7, fields: [{ fieldName: 'a', count: 4 }] } });
    // The sibling is read with the same fields (its own health, assertions and runs: none).
    assert.equal(d.siblings.isPrimary, true);
    const sib = d.siblings.siblings[0];
    assert.deepEqual({ urn: sib.urn, health: sib.health, assertions: sib.assertions, readRuns: sib.readRuns, writeRuns: sib.writeRuns, siblings: sib.siblings,
      privileges: sib.privileges }, { urn: OTHER, health: [], assertions: { total: 0 }, readRuns: { count: 20, start: 0, total: 1 },
      writeRuns: { count: 20, start: 0, total: 0 }, siblings: { isPrimary: false }, privileges: { canEditLineage: true, canEditEmbed: true, canEditQueries: true } });
    assert.deepEqual(d.privileges, { canEditLineage: true, canEditEmbed: true, canEditQueries: true });
    // A plain user: the default policies give no edit privileges.
    const p = (await gql(webappText('getDataset'), { urn: DS }, plain)).dataset;
    assert.deepEqual(p.privileges, { canEditLineage: false, canEditEmbed: false, canEditQueries: false });
    const e = (await gql(webappText('getDataset'), { urn: DS }, editor)).dataset;
    assert.deepEqual(e.privileges, { canEditLineage: false, canEditEmbed: true, canEditQueries: true });
    // Health: no assertion has run on OTHER; it has no assertions at all.
    assert.deepEqual((await gql(`{ dataset(urn: "${OTHER}") { health { status } assertions { start count total assertions { urn } } } }`)).dataset,
      { health: [], assertions: { start: 0, count: 0, total: 0, assertions: [] } });
  });

  test('aspects: every stored aspect of the dataset as JSON, in the registry order', async () => {
    const d = (await gql(`{ dataset(urn: "${DS}") { aspects(input: { autoRenderOnly: false }) { aspectName payload renderSpec { key } } } }`)).dataset;
    const names = d.aspects.map((a: { aspectName: string }) => a.aspectName);
    assert.deepEqual(names, ['datasetKey', 'viewProperties', 'schemaMetadata', 'siblings', 'embed', 'datasetProperties', 'editableSchemaMetadata', 'access']);
    assert.deepEqual(d.aspects.find((a: { aspectName: string }) => a.aspectName === 'embed'),
      { aspectName: 'embed', payload: JSON.stringify({ renderUrl: 'https://bi.example.com/orders' }), renderSpec: null });
  });

  test('getDatasetAssertions: the assertions with their latest completed run', async () => {
    const d = (await gql(webappText('getDatasetAssertions'), { urn: DS })).dataset;
    assert.equal(d.assertions.total, 3);
    assert.deepEqual(d.siblings.siblings, [{ urn: OTHER, type: 'DATASET', assertions: { start: 0, count: 0, total: 0, assertions: [] } }]);
    const byUrn = Object.fromEntries(d.assertions.assertions.map((a: { urn: string }) => [a.urn, a]));
    assert.deepEqual(Object.keys(byUrn).sort(), [A_BAD, A_IDLE, A_OK].sort());
    assert.deepEqual({ ...d.assertions, assertions: undefined }, { start: 0, count: 3, total: 3, assertions: undefined });
    // DataHub's built-in 'unknown' platform (seeded at start, issue 29).
    const platform = { urn: 'urn:li:dataPlatform:unknown', properties: { displayName: 'N/A', logoUrl: null }, info: { displayName: 'N/A', logoUrl: null } };
    assert.deepEqual(byUrn[A_BAD], {
      urn: A_BAD, type: 'ASSERTION', platform, dataPlatformInstance: null,
      info: { type: 'DATASET', datasetAssertion: { scope: 'DATASET_COLUMN', aggregation: 'IDENTITY', operator: 'NOT_NULL', parameters: null,
        fields: [{ urn: DS, path: 'c' }], nativeType: null, nativeParameters: null, logic: null } },
      runEvents: { total: 1, failed: 1, succeeded: 0, runEvents: [{ timestampMillis: 1_700_000_200_000, assertionUrn: A_BAD, status: 'COMPLETE',
        runtimeContext: null, result: { type: 'FAILURE', actualAggValue: 3, rowCount: null, missingCount: null, unexpectedCount: null,
          externalUrl: null, nativeResults: null } }] },
    });
    assert.deepEqual(byUrn[A_IDLE].runEvents, { total: 0, failed: 0, succeeded: 0, runEvents: [] });
    assert.deepEqual(byUrn[A_OK].runEvents.runEvents.map((e: { result: { type: string } }) => e.result.type), ['SUCCESS']);
  });

  test('getDatasetRuns: runs reading (INCOMING) and writing (OUTGOING) the dataset, newest first, paged', async () => {
    const page = async (direction: string, start: number, count: number) =>
      (await gql(webappText('getDatasetRuns'), { urn: DS, start, count, direction })).dataset.runs;
    const read = await page('INCOMING', 0, 20);
    assert.deepEqual({ ...read, runs: read.runs.map((r: { urn: string }) => r.urn) }, { count: 20, start: 0, total: 2, runs: [RUN2, RUN1] });
    const run2 = read.runs[0];
    assert.deepEqual({ ...run2, inputs: undefined, outputs: undefined, parentTemplate: undefined }, {
      urn: RUN2, type: 'DATA_PROCESS_INSTANCE', created: { time: 1_700_000_002_000, actor: ROOT }, name: 'load 2',
      state: [{ status: 'COMPLETE', attempt: null, result: { resultType: 'SUCCESS', nativeResultType: 'success' }, timestampMillis: 1_700_000_002_500 }],
      externalUrl: null, inputs: undefined, outputs: undefined, parentTemplate: undefined,
    });
    assert.deepEqual(run2.inputs.relationships.map((r: { entity: { urn: string } }) => r.entity.urn).sort(), [DS, OTHER].sort());
    assert.equal(run2.outputs.total, 0);
    const second = await page('INCOMING', 1, 1);
    assert.deepEqual({ ...second, runs: second.runs.map((r: { urn: string }) => r.urn) }, { count: 1, start: 1, total: 2, runs: [RUN1] });
    const written = await page('OUTGOING', 0, 20);
    assert.deepEqual({ ...written, runs: written.runs.map((r: { urn: string }) => r.urn) }, { count: 20, start: 0, total: 1, runs: [RUN3] });
  });

  test('getExternalRoles and getExternalRole: the access aspect and the role entity', async () => {
    assert.deepEqual(await gql(webappText('getExternalRoles'), { urn: DS }), { dataset: { __typename: 'Dataset', access: { roles: [{ role: {
      id: 'orders-reader', urn: ROLE,
      properties: { name: 'Orders reader', description: 'Read the orders table', type: 'READ', requestUrl: 'https://access.example.com/orders' },
      actors: { users: [{ user: { urn: 'urn:li:corpuser:plain' } }] } } }] } } });
    assert.deepEqual(await gql(webappText('getExternalRole'), { urn: ROLE }),
      { role: { properties: { name: 'Orders reader', description: 'Read the orders table' } } });
    assert.deepEqual(await gql(`{ dataset(urn: "${OTHER}") { access { roles { associatedUrn } } } }`), { dataset: { access: null } });
    assert.equal(await refused(webappText('getExternalRole'), { urn: 'urn:li:role:none' }), 404);
  });

  test('getSchemaVersionList, getSchemaBlame and getVersionedDataset: schema history from the stored versions', async () => {
    const h = await history();
    const schemaTimes = h.get('schemaMetadata')!.map((r) => r.createdOn);
    const v = (semanticVersion: string, i: number) => ({ semanticVersion, semanticVersionTimestamp: schemaTimes[i], versionStamp: stampAt(h, schemaTimes[i]!) });
    const list = await gql(webappText('getSchemaVersionList'), { input: { datasetUrn: DS } });
    assert.deepEqual(list, { getSchemaVersionList: { latestVersion: v('1.0.0', 2), semanticVersionList: [v('1.0.0', 2), v('0.1.0', 1), v('0.0.0', 0)] } });
    // The stamps name each aspect's version current then: the first schema came before the editable schema.
    assert.equal(v('0.0.0', 0).versionStamp.includes('editableSchemaMetadata'), false);
    assert.match(v('0.1.0', 1).versionStamp, /editableSchemaMetadata:0;.*schemaMetadata:2/);

    const change = (changeType: string, i: number, semver: string) => ({ timestampMillis: schemaTimes[i], lastSemanticVersion: semver,
      lastSchemaFieldChange: `${changeType === 'ADD' ? 'Added' : 'Modified'} in v${semver}`, versionStamp: stampAt(h, schemaTimes[i]!) });
    assert.deepEqual(await gql(webappText('getSchemaBlame'), { input: { datasetUrn: DS } }), { getSchemaBlame: {
      version: v('1.0.0', 2),
      schemaFieldBlameList: [{ fieldPath: 'a', schemaFieldChange: change('MODIFY', 2, '1.0.0') }, { fieldPath: 'c', schemaFieldChange: change('ADD', 1, '0.1.0') }],
    } });
    assert.deepEqual(await gql(webappText('getSchemaBlame'), { input: { datasetUrn: DS, version: '0.1.0' } }), { getSchemaBlame: {
      version: v('0.1.0', 1),
      schemaFieldBlameList: [{ fieldPath: 'a', schemaFieldChange: change('ADD', 0, '0.0.0') }, { fieldPath: 'b', schemaFieldChange: change('ADD', 0, '0.0.0') },
        { fieldPath: 'c', schemaFieldChange: change('ADD', 1, '0.1.0') }],
    } });
    const renamed = (await t.catalog.store.listVersions(RENAMED, 'schemaMetadata')).sort((a, b) => (a.version || Infinity) - (b.version || Infinity));
    const blame = (await gql(webappText('getSchemaBlame'), { input: { datasetUrn: RENAMED } })).getSchemaBlame;
    assert.deepEqual(blame.schemaFieldBlameList.map((b: { fieldPath: string; schemaFieldChange: Record<string, unknown> }) =>
      [b.fieldPath, b.schemaFieldChange.lastSchemaFieldChange, b.schemaFieldChange.timestampMillis]),
    [['cust', 'Modified in v0.1.0', renamed[1]!.createdOn], ['z', 'Added in v0.0.0', renamed[0]!.createdOn]]);
    // A dataset without a schema has no history.
    assert.deepEqual(await gql(webappText('getSchemaVersionList'), { input: { datasetUrn: OTHER } }), { getSchemaVersionList: null });
    assert.deepEqual(await gql(webappText('getSchemaBlame'), { input: { datasetUrn: OTHER } }), { getSchemaBlame: { version: null, schemaFieldBlameList: null } });

    const fieldOut = (fieldPath: string, nativeDataType: string, type: string) => ({ fieldPath, jsonPath: null, nullable: false, description: null, type,
      nativeDataType, recursive: false, isPartOfKey: null, isPartitioningKey: null });
    const editable = { editableSchemaFieldInfo: [{ fieldPath: 'a', description: 'The order id', globalTags: null, glossaryTerms: null }] };
    // When each version was written: its system metadata's lastObserved (the write time, sent without any).
    const observed = new Map((await t.catalog.store.listVersions(DS, 'schemaMetadata')).map((r) => [r.revision, r.systemMetadata?.lastObserved]));
    // The first version, before the column description was written.
    assert.deepEqual(await gql(webappText('getVersionedDataset'), { urn: DS, versionStamp: v('0.0.0', 0).versionStamp }), { versionedDataset: {
      schema: { fields: [fieldOut('a', 'int', 'NUMBER'), fieldOut('b', 'string', 'STRING')], lastObserved: observed.get(1) }, editableSchemaMetadata: null } });
    const latest = { versionedDataset: { schema: { fields: [{ ...fieldOut('a', 'bigint', 'NUMBER'), description: 'The order id' }, fieldOut('c', 'string', 'STRING')],
      lastObserved: observed.get(Math.max(...observed.keys())) }, editableSchemaMetadata: editable } };
    assert.deepEqual(await gql(webappText('getVersionedDataset'), { urn: DS, versionStamp: v('1.0.0', 2).versionStamp }), latest);
    assert.deepEqual(await gql(webappText('getVersionedDataset'), { urn: DS, versionStamp: null }), latest);
    assert.equal(await refused(webappText('getVersionedDataset'), { urn: DS, versionStamp: 'schemaMetadata' }), 400);
  });

  test('query entities: create, list, update and delete, with the privileges DataHub checks', async () => {
    const input = { properties: { name: 'Daily orders', description: 'Orders per day', statement: { value: 'SELECT day, count(*) FROM orders GROUP BY day', language: 'SQL' } },
      subjects: [{ datasetUrn: DS }] };
    // Neither a plain user nor the editor on a dataset they may not edit the queries of.
    assert.equal(await refused(webappText('createQuery'), { input }, plain), 403);
    assert.equal(await refused(webappText('createQuery'), { input: { ...input, subjects: [{ datasetUrn: DS }, { datasetUrn: OTHER }] } }, editor), 403);
    assert.equal(await refused(webappText('createQuery'), { input: { ...input, subjects: [{ datasetUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)' }] } }), 404);
    assert.deepEqual(await gql(webappText('listQueries'), { input: { start: 0, count: 10, datasetUrn: DS } }),
      { listQueries: { start: 0, count: 0, total: 0, queries: [] } });

    const created = (await gql(webappText('createQuery'), { input }, editor)).createQuery;
    assert.match(created.urn, /^urn:li:query:[0-9a-f-]{36}$/);
    const t1 = created.properties.created.time;
    const expected = (over: Record<string, unknown> = {}) => ({ urn: created.urn, properties: { description: 'Orders per day', name: 'Daily orders', source: 'MANUAL',
      statement: { value: 'SELECT day, count(*) FROM orders GROUP BY day', language: 'SQL' }, created: { time: t1, actor: 'urn:li:corpuser:editor' },
      lastModified: { time: t1, actor: 'urn:li:corpuser:editor' }, ...over }, subjects: [{ dataset: { urn: DS, name: 'shop.orders' } }] });
    assert.deepEqual(created, expected());
    await sleep(5);
    const second = (await gql(webappText('createQuery'), { input: { properties: { statement: { value: 'SELECT 1', language: 'SQL' } }, subjects: [{ datasetUrn: OTHER }] } })).createQuery;

    const list = async (i: Record<string, unknown>) => (await gql(webappText('listQueries'), { input: { start: 0, count: 10, ...i } })).listQueries;
    assert.deepEqual(await list({ datasetUrn: DS }), { start: 0, count: 1, total: 1, queries: [expected()] });
    const all = await list({});
    assert.deepEqual({ ...all, queries: all.queries.map((q: { urn: string }) => q.urn) }, { start: 0, count: 2, total: 2, queries: [second.urn, created.urn] });
    assert.deepEqual((await list({ query: 'per DAY' })).queries.map((q: { urn: string }) => q.urn), [created.urn]);
    assert.deepEqual((await list({ source: 'MANUAL', count: 1, start: 1 })).queries.map((q: { urn: string }) => q.urn), [created.urn]);

    // Updating: the editor may not move it to OTHER; root may. A missing query is a 404.
    const update = { properties: { name: 'Orders by day', statement: { value: 'SELECT 2', language: 'SQL' } } };
    assert.equal(await refused(webappText('updateQuery'), { urn: created.urn, input: { ...update, subjects: [{ datasetUrn: OTHER }] } }, editor), 403);
    assert.equal(await refused(webappText('updateQuery'), { urn: 'urn:li:query:none', input: update }), 404);
    const updated = (await gql(webappText('updateQuery'), { urn: created.urn, input: update }, editor)).updateQuery;
    const t2 = updated.properties.lastModified.time;
    assert.ok(t2 >= t1, `modified at ${t2}, after ${t1}`);
    assert.deepEqual(updated, expected({ name: 'Orders by day', statement: { value: 'SELECT 2', language: 'SQL' }, lastModified: { time: t2, actor: 'urn:li:corpuser:editor' } }));

    assert.equal(await refused(webappText('deleteQuery'), { urn: created.urn }, plain), 403);
    assert.deepEqual(await gql(webappText('deleteQuery'), { urn: created.urn }, editor), { deleteQuery: true });
    assert.equal(await refused(webappText('deleteQuery'), { urn: created.urn }), 404);
    assert.deepEqual(await list({ datasetUrn: DS }), { start: 0, count: 0, total: 0, queries: [] });
    assert.deepEqual(await gql(webappText('deleteQuery'), { urn: second.urn }), { deleteQuery: true });
  });

  test('updateEmbed: the embed the chart, dashboard and dataset pages show', async () => {
    assert.equal(await refused(webappText('updateEmbed'), { input: { urn: DS, renderUrl: 'https://x' } }, plain), 403);
    assert.deepEqual(await gql(webappText('updateEmbed'), { input: { urn: DS, renderUrl: 'https://bi.example.com/orders/v2' } }, editor), { updateEmbed: true });
    assert.deepEqual(await gql(`{ dataset(urn: "${DS}") { embed { renderUrl } } }`), { dataset: { embed: { renderUrl: 'https://bi.example.com/orders/v2' } } });
    assert.deepEqual(await gql(webappText('updateEmbed'), { input: { urn: CHART, renderUrl: 'https://bi.example.com/chart' } }), { updateEmbed: true });
    assert.equal(await refused(webappText('updateEmbed'), { input: { urn: 'urn:li:chart:(looker,none)', renderUrl: 'https://x' } }), 404);
    const chart = (await gql(webappText('getChart'), { urn: CHART })).chart;
    assert.deepEqual({ embed: chart.embed, privileges: chart.privileges }, { embed: { renderUrl: 'https://bi.example.com/chart' },
      privileges: { canEditLineage: true, canEditEmbed: true } });
    const dash = (await gql(webappText('getDashboard'), { urn: DASH }, plain)).dashboard;
    assert.deepEqual({ embed: dash.embed, privileges: dash.privileges }, { embed: null, privileges: { canEditLineage: false, canEditEmbed: false } });
  });

  test('batchUpdateSoftDeleted: all of them or none', async () => {
    const none = 'urn:li:dataset:(urn:li:dataPlatform:hive,none,PROD)';
    assert.equal(await refused(webappText('batchUpdateSoftDeleted'), { input: { urns: [OTHER, none], deleted: true } }), 404);
    assert.equal(await refused(webappText('batchUpdateSoftDeleted'), { input: { urns: [OTHER], deleted: true } }, editor), 403);
    const removed = async () => (await gql(`{ a: dataset(urn: "${OTHER}") { status { removed } } b: chart(urn: "${CHART}") { status { removed } } }`));
    assert.deepEqual(await removed(), { a: { status: null }, b: { status: null } });
    assert.deepEqual(await gql(webappText('batchUpdateSoftDeleted'), { input: { urns: [OTHER, CHART], deleted: true } }), { batchUpdateSoftDeleted: true });
    assert.deepEqual(await removed(), { a: { status: { removed: true } }, b: { status: { removed: true } } });
    assert.deepEqual(await gql(webappText('batchUpdateSoftDeleted'), { input: { urns: [OTHER, CHART], deleted: false } }), { batchUpdateSoftDeleted: true });
    assert.deepEqual(await removed(), { a: { status: { removed: false } }, b: { status: { removed: false } } });
  });

  test('updateName: glossary terms and nodes, domains and groups, under their own privileges', async () => {
    const rename = (urn: string, name: string, headers?: Record<string, string>) => gql(webappText('updateName'), { input: { urn, name } }, headers);
    assert.equal(await refused(webappText('updateName'), { input: { urn: TERM, name: 'x' } }, editor), 403);
    assert.deepEqual(await rename(TERM, 'Order number'), { updateName: true });
    assert.deepEqual(await rename(NODE, 'Sales & orders'), { updateName: true });
    assert.deepEqual(await rename(DOMAIN, 'Webshop'), { updateName: true });
    assert.deepEqual(await rename(GROUP, 'Data analysts'), { updateName: true });
    assert.deepEqual(await gql(`{ glossaryTerm(urn: "${TERM}") { properties { name } } glossaryNode(urn: "${NODE}") { properties { name } }
      domain(urn: "${DOMAIN}") { properties { name } } corpGroup(urn: "${GROUP}") { properties { displayName } } }`), {
      glossaryTerm: { properties: { name: 'Order number' } }, glossaryNode: { properties: { name: 'Sales & orders' } },
      domain: { properties: { name: 'Webshop' } }, corpGroup: { properties: { displayName: 'Data analysts' } } });
    // Another root domain has that name; a dataset cannot be renamed; nor can what does not exist.
    assert.equal(await refused(webappText('updateName'), { input: { urn: DOMAIN, name: 'Finance' } }), 409);
    assert.equal(await refused(webappText('updateName'), { input: { urn: DS, name: 'x' } }), 400);
    assert.equal(await refused(webappText('updateName'), { input: { urn: 'urn:li:glossaryTerm:none', name: 'x' } }), 404);
  });

  test('GlossaryTerm.schemaMetadata and EntityPrivileges.canManageChildren', async () => {
    assert.deepEqual(await gql(`{ glossaryTerm(urn: "${TERM}") { schemaMetadata { name fields { fieldPath type } } } }`),
      { glossaryTerm: { schemaMetadata: { name: 'shop.orders', fields: [{ fieldPath: 'value', type: 'STRING' }] } } });
    assert.deepEqual(await gql(`{ glossaryNode(urn: "${NODE}") { privileges { canManageChildren canEditEmbed } } }`),
      { glossaryNode: { privileges: { canManageChildren: true, canEditEmbed: null } } });
    assert.deepEqual(await gql(`{ glossaryNode(urn: "${NODE}") { privileges { canManageChildren } } }`, {}, plain),
      { glossaryNode: { privileges: { canManageChildren: false } } });
  });

  test('deleteAssertion: needs EDIT_ENTITY_ASSERTIONS on the dataset; the health follows', async () => {
    assert.equal(await refused(webappText('deleteAssertion'), { urn: A_BAD }, editor), 403);
    assert.deepEqual(await gql(webappText('deleteAssertion'), { urn: A_BAD }), { deleteAssertion: true });
    assert.equal(await refused(webappText('deleteAssertion'), { urn: A_BAD }), 404);
    assert.deepEqual((await gql(`{ dataset(urn: "${DS}") { health { type status message causes } assertions { total } } }`)).dataset,
      { health: [{ type: 'ASSERTIONS', status: 'PASS', message: 'All assertions are passing', causes: null }], assertions: { total: 2 } });
    assert.equal(await refused(`{ assertion(urn: "${A_BAD}") { urn } }`), 404);
  });
});
