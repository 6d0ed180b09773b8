import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Notebooks, data products, assertions, queries, platform instances, policies, roles, views, posts and access tokens
 * as DataHub 0.12.1's GraphQL serves them: real connector output (Great Expectations and dbt assertions, a data
 * product from its YAML, the CSV enricher's notebook) plus records of our own for what no connector writes.
 */
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/connectors');
const FILES = ['great_expectations_assertions.json', 'dbt_test_events.json', 'dataproduct_yaml_golden.json', 'csv_enricher_notebook.json']
  .map((f) => path.join(FIXTURES, f));

const NOTEBOOK = 'urn:li:notebook:(querybook,1234)';
const PRODUCT = 'urn:li:dataProduct:pet_of_the_week';
const GE_ASSERTION = 'urn:li:assertion:16d6f586b2febda7f2b53faec6bb9035';
const QUERY = 'urn:li:query:weekly-pets';
const PETS = 'urn:li:dataset:(urn:li:dataPlatform:postgres,postgres1.postgres.public.foo1,PROD)';
const INSTANCE = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:snowflake,analytics)';
const POLICY = 'urn:li:dataHubPolicy:pets-editors';
const ROLE = 'urn:li:dataHubRole:PetEditor';
const VIEW = 'urn:li:dataHubView:pets';
const POST = 'urn:li:post:welcome';
const STAMP = { time: 1700000000000, actor: 'urn:li:corpuser:jdoe' };

const mcp = (entityUrn: string, aspectName: string, json: unknown) => ({ entityType: entityUrn.split(':')[2], entityUrn, changeType: 'UPSERT',
  aspectName, aspect: { value: JSON.stringify(json), contentType: 'application/json' } });

const OWN_RECORDS = [
  mcp(NOTEBOOK, 'notebookInfo', { title: 'Weekly pets', description: 'Pets adopted per week', externalUrl: 'https://querybook.example/1234',
    customProperties: { team: 'growth' }, changeAuditStamps: { created: STAMP, lastModified: { time: 1700000100000, actor: 'urn:li:corpuser:jdoe' } } }),
  mcp(NOTEBOOK, 'notebookContent', { cells: [
    { type: 'TEXT_CELL', textCell: { cellId: 't1', cellTitle: 'Intro', text: 'Counts pets', changeAuditStamps: { created: STAMP, lastModified: STAMP } } },
    { type: 'QUERY_CELL', queryCell: { cellId: 'q1', rawQuery: 'select count(*) from foo1', lastExecuted: STAMP,
      changeAuditStamps: { created: STAMP, lastModified: STAMP } } },
    { type: 'CHART_CELL', chartCell: { cellId: 'c1', cellTitle: 'Trend', changeAuditStamps: { created: STAMP, lastModified: STAMP } } },
  ] }),
  mcp(NOTEBOOK, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:querybook', instance: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:querybook,prod)' }),
  mcp(NOTEBOOK, 'subTypes', { typeNames: ['Notebook'] }),
  mcp(QUERY, 'queryProperties', { statement: { value: 'select * from foo1 where category = \'catA\'', language: 'SQL' }, source: 'MANUAL',
    name: 'Pets in A', description: 'The A pets', created: STAMP, lastModified: { time: 1700000200000, actor: 'urn:li:corpuser:datahub' } }),
  mcp(QUERY, 'querySubjects', { subjects: [{ entity: PETS }] }),
  mcp(INSTANCE, 'dataPlatformInstanceProperties', { name: 'Analytics', description: 'The analytics account', customProperties: { region: 'eu' },
    externalUrl: 'https://analytics.snowflakecomputing.com' }),
  mcp(INSTANCE, 'ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER' }], lastModified: STAMP }),
  mcp(INSTANCE, 'deprecation', { deprecated: true, note: 'moving to the new account', actor: 'urn:li:corpuser:jdoe' }),
  mcp(POLICY, 'dataHubPolicyInfo', { displayName: 'Pet editors', description: 'Edit pets', type: 'METADATA', state: 'ACTIVE',
    resources: { type: 'dataset', allResources: false, filter: { criteria: [{ field: 'DOMAIN', values: ['urn:li:domain:12345'], condition: 'EQUALS' }] } },
    privileges: ['EDIT_ENTITY_DOCS'], actors: { users: ['urn:li:corpuser:jdoe'], roles: [ROLE], resourceOwners: false, allUsers: false, allGroups: false },
    editable: true }),
  mcp(ROLE, 'dataHubRoleInfo', { name: 'PetEditor', description: 'Edits pets', editable: true }),
  mcp(VIEW, 'dataHubViewInfo', { name: 'Pets', description: 'Pet datasets', type: 'GLOBAL', created: STAMP, lastModified: STAMP,
    definition: { entityTypes: ['dataset', 'dataProduct'], filter: { or: [{ and: [
      { field: 'platform.keyword', value: '', values: ['urn:li:dataPlatform:postgres'], condition: 'EQUAL' },
      { field: 'tags', value: 'urn:li:tag:awesome', negated: true, condition: 'EQUAL' },
    ] }] } } }),
  // Two of the data product's assets: one stored, one soft-deleted (its third, a feature table, is not stored).
  mcp('urn:li:container:DATABASE', 'containerProperties', { name: 'DATABASE' }),
  mcp('urn:li:container:SCHEMA', 'containerProperties', { name: 'SCHEMA' }),
  mcp('urn:li:container:SCHEMA', 'status', { removed: true }),
  // What the notebook edit names: a tag and a user that exist.
  mcp('urn:li:tag:Weekly', 'tagProperties', { name: 'Weekly' }),
  mcp('urn:li:corpuser:alice', 'corpUserInfo', { active: true, displayName: 'Alice' }),
  mcp('urn:li:dataHubView:either', 'dataHubViewInfo', { name: 'Either', type: 'PERSONAL', created: STAMP, lastModified: STAMP,
    definition: { entityTypes: ['DATASET'], filter: { or: [
      { and: [{ field: 'domains', value: 'urn:li:domain:12345', condition: 'EQUAL' }] },
      { and: [{ field: 'owners', value: '', values: ['urn:li:corpuser:jdoe'], condition: 'IS_NULL' }] },
    ] } } }),
  mcp(POST, 'postInfo', { type: 'HOME_PAGE_ANNOUNCEMENT', content: { title: 'Welcome', type: 'LINK', description: 'Read this',
    link: 'https://example.com/welcome', media: { type: 'IMAGE', location: 'https://example.com/w.png' } }, created: 1700000000000,
    lastModified: 1700000300000 }),
];

forEachEngine('Other entity types: notebooks, data products, assertions, queries, instances, policies, roles, views, posts, tokens', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'data_platforms.json');
    const summary = await ingestFiles(t.catalog.entities, FILES, systemActor());
    assert.deepEqual(summary.failures, []);
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposalBatch', headers: t.auth, payload: { proposals: OWN_RECORDS } });
    assert.equal(res.statusCode, 200, res.body);
  });
  after(() => t?.close());

  const read = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const stamp = (time: number, actor: string | null) => ({ time, actor });
  const jdoeStamps = { created: stamp(STAMP.time, STAMP.actor), lastModified: stamp(STAMP.time, STAMP.actor), deleted: null };

  const NOTEBOOK_FIELDS = `urn type tool notebookId platform { urn name }
    info { title description externalUrl customProperties { key value associatedUrn }
      changeAuditStamps { created { time actor } lastModified { time actor } deleted { time actor } } }
    editableProperties { description }
    content { cells { type textCell { cellTitle cellId text changeAuditStamps { created { time actor } lastModified { time actor } deleted { time actor } } }
      queryChell { cellTitle cellId rawQuery lastExecuted { time actor } changeAuditStamps { created { time actor } lastModified { time actor } deleted { time actor } } }
      chartCell { cellTitle cellId changeAuditStamps { created { time actor } lastModified { time actor } deleted { time actor } } } } }
    ownership { owners { owner { ... on CorpUser { urn } } type ownershipType { urn } } }
    tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } } domain { domain { urn } }
    institutionalMemory { elements { url label author { urn } } } subTypes { typeNames }
    dataPlatformInstance { urn type instanceId platform { urn } } status { removed } browsePaths { path }
    browsePathV2 { path { name } } privileges { canEditDescription canEditTags } lastIngested exists`;

  const notebookExpected = (edited: Record<string, unknown> = {}) => ({
    urn: NOTEBOOK, type: 'NOTEBOOK', tool: 'querybook', notebookId: '1234',
    platform: { urn: 'urn:li:dataPlatform:querybook', name: 'querybook' },
    info: { title: 'Weekly pets', description: 'Pets adopted per week', externalUrl: 'https://querybook.example/1234',
      customProperties: [{ key: 'team', value: 'growth', associatedUrn: NOTEBOOK }],
      changeAuditStamps: { created: stamp(STAMP.time, STAMP.actor), lastModified: stamp(1700000100000, STAMP.actor), deleted: null } },
    editableProperties: null,
    content: { cells: [
      { type: 'TEXT_CELL', textCell: { cellTitle: 'Intro', cellId: 't1', text: 'Counts pets', changeAuditStamps: jdoeStamps }, queryChell: null, chartCell: null },
      // A cell without a title answers an empty one (the field is non-null).
      { type: 'QUERY_CELL', textCell: null, chartCell: null,
        queryChell: { cellTitle: '', cellId: 'q1', rawQuery: 'select count(*) from foo1', lastExecuted: stamp(STAMP.time, STAMP.actor),
          changeAuditStamps: jdoeStamps } },
      { type: 'CHART_CELL', textCell: null, queryChell: null, chartCell: { cellTitle: 'Trend', cellId: 'c1', changeAuditStamps: jdoeStamps } },
    ] },
    // From the CSV enricher's golden file.
    ownership: { owners: [
      { owner: { urn: 'urn:li:corpuser:datahub' }, type: 'TECHNICAL_OWNER', ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' } },
      { owner: { urn: 'urn:li:corpuser:jdoe' }, type: 'TECHNICAL_OWNER', ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' } },
    ] },
    tags: { tags: [{ tag: { urn: 'urn:li:tag:Legacy' } }] },
    glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:CustomerAccount' } }] },
    domain: null, institutionalMemory: null, subTypes: { typeNames: ['Notebook'] },
    dataPlatformInstance: { urn: 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:querybook,prod)', type: 'DATA_PLATFORM_INSTANCE',
      instanceId: 'prod', platform: { urn: 'urn:li:dataPlatform:querybook' } },
    // DataHub 0.12.1 writes an empty default browse path for a notebook ingested without one.
    status: { removed: false }, browsePaths: [{ path: [] }], browsePathV2: { path: [{ name: 'Default' }] },
    privileges: { canEditDescription: true, canEditTags: true }, lastIngested: 1643871600000, exists: true,
    ...edited,
  });

  test('a notebook: its info, content cells, tool and platform from the urn, and the shared fields (CSV enricher output and our own)', async () => {
    assert.deepEqual(await read(`{ notebook(urn: "${NOTEBOOK}") { ${NOTEBOOK_FIELDS} } }`), { notebook: notebookExpected() });
    // The generic read answers the same type.
    assert.deepEqual(await read(`{ entity(urn: "${NOTEBOOK}") { __typename ... on Notebook { tool info { title } } } }`),
      { entity: { __typename: 'Notebook', tool: 'querybook', info: { title: 'Weekly pets' } } });
  });

  test('a notebook edited: description (editableProperties), a tag, an owner and a link read back', async () => {
    const edits = [
      `updateDescription(input: { resourceUrn: "${NOTEBOOK}", description: "Edited: weekly adoptions" })`,
      `addTag(input: { resourceUrn: "${NOTEBOOK}", tagUrn: "urn:li:tag:Weekly" })`,
      `addOwner(input: { resourceUrn: "${NOTEBOOK}", ownerUrn: "urn:li:corpuser:alice", ownerEntityType: CORP_USER, type: BUSINESS_OWNER })`,
      `addLink(input: { resourceUrn: "${NOTEBOOK}", linkUrl: "https://wiki.example/pets", label: "Wiki" })`,
    ];
    for (const e of edits) {
      const res = await t.graphql(`mutation { ${e} }`);
      assert.deepEqual(res.body, { data: { [e.split('(')[0]!]: true }, extensions: {} });
    }
    const data = await read(`{ notebook(urn: "${NOTEBOOK}") { ${NOTEBOOK_FIELDS} } }`);
    const base = notebookExpected();
    assert.deepEqual(data, { notebook: notebookExpected({
      editableProperties: { description: 'Edited: weekly adoptions' },
      tags: { tags: [{ tag: { urn: 'urn:li:tag:Legacy' } }, { tag: { urn: 'urn:li:tag:Weekly' } }] },
      ownership: { owners: [...(base.ownership.owners), { owner: { urn: 'urn:li:corpuser:alice' }, type: 'BUSINESS_OWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__business_owner' } }] },
      institutionalMemory: { elements: [{ url: 'https://wiki.example/pets', label: 'Wiki', author: { urn: 'urn:li:corpuser:datahub' } }] },
    }) });
  });

  const PRODUCT_FIELDS = `urn type properties { name description externalUrl numAssets customProperties { key value associatedUrn } }
    ownership { owners { owner { ... on CorpUser { urn } } type } } tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } }
    domain { domain { urn } associatedUrn } institutionalMemory { elements { url label } } status { removed } exists
    relationships(input: { types: ["DataProductContains"], direction: OUTGOING }) { total relationships { type entity { urn type } } }`;

  const productExpected = (description: string) => ({
    urn: PRODUCT, type: 'DATA_PRODUCT',
    properties: { name: 'Pet of the Week Campaign', description, externalUrl: 'https://github.com/datahub-project/datahub', numAssets: 3,
      customProperties: [{ key: 'version', value: '2.0', associatedUrn: PRODUCT }, { key: 'classification', value: 'pii', associatedUrn: PRODUCT }] },
    ownership: { owners: [{ owner: { urn: 'urn:li:corpuser:jdoe' }, type: 'BUSINESS_OWNER' }] },
    tags: { tags: [{ tag: { urn: 'urn:li:tag:awesome' } }] },
    glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:ClientsAndAccounts.AccountBalance' } }] },
    domain: { domain: { urn: 'urn:li:domain:12345' }, associatedUrn: PRODUCT },
    institutionalMemory: null, status: { removed: false }, exists: true,
    relationships: { total: 3, relationships: [
      { type: 'DataProductContains', entity: { urn: 'urn:li:container:DATABASE', type: 'CONTAINER' } },
      { type: 'DataProductContains', entity: { urn: 'urn:li:container:SCHEMA', type: 'CONTAINER' } },
      { type: 'DataProductContains', entity: { urn: 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,test_feature_table_all_feature_dtypes)',
        type: 'MLFEATURE_TABLE' } },
    ] },
  });

  test('a data product: properties with numAssets, its assets as relationships, and the shared fields (DataHub\'s data product YAML output)', async () => {
    assert.deepEqual(await read(`{ dataProduct(urn: "${PRODUCT}") { ${PRODUCT_FIELDS} } }`),
      { dataProduct: productExpected('This campaign includes Pet of the Week data.') });
  });

  test('a data product\'s entities: its assets that are stored and not removed, by type, query and filters, paged', async () => {
    const entities = async (input: string) => (await read(`{ dataProduct(urn: "${PRODUCT}") { entities(input: ${input}) {
      start count total searchResults { entity { urn type } } } } }`)).dataProduct.entities;
    const database = { entity: { urn: 'urn:li:container:DATABASE', type: 'CONTAINER' } };
    // What DataHub's web app asks of every data product.
    assert.deepEqual(await entities('{ start: 0, count: 0, query: "*" }'), { start: 0, count: 0, total: 1, searchResults: [] });
    assert.deepEqual(await entities('{ query: "*" }'), { start: 0, count: 1, total: 1, searchResults: [database] });
    assert.deepEqual(await entities('{ query: "database", types: [CONTAINER] }'), { start: 0, count: 1, total: 1, searchResults: [database] });
    assert.deepEqual(await entities('{ query: "*", types: [DATASET] }'), { start: 0, count: 0, total: 0, searchResults: [] });
    assert.deepEqual(await entities('{ query: "schema" }'), { start: 0, count: 0, total: 0, searchResults: [] });
    // Filters apply, as in any search (the assets are the search's bounds).
    assert.deepEqual(await entities('{ query: "*", filters: [{ field: "platform", values: ["x"] }] }'), { start: 0, count: 0, total: 0, searchResults: [] });
    assert.deepEqual(await entities('{ query: "*", orFilters: [{ and: [{ field: "_entityType", values: ["CONTAINER"] }] }] }'),
      { start: 0, count: 1, total: 1, searchResults: [database] });
  });

  test('a data product edited: updateDescription writes its properties\' description, which reads back', async () => {
    const res = await t.graphql(`mutation { updateDescription(input: { resourceUrn: "${PRODUCT}", description: "Weekly pet campaign" }) }`);
    assert.deepEqual(res.body, { data: { updateDescription: true }, extensions: {} });
    assert.deepEqual(await read(`{ dataProduct(urn: "${PRODUCT}") { ${PRODUCT_FIELDS} } }`), { dataProduct: productExpected('Weekly pet campaign') });
  });

  const RUN_FIELDS = `total failed succeeded runEvents { timestampMillis assertionUrn asserteeUrn runId status
    batchSpec { nativeBatchId query limit customProperties { key value } } partitionSpec { type partition } runtimeContext { key value }
    result { type rowCount missingCount unexpectedCount actualAggValue externalUrl nativeResults { key value } } }`;
  const FOO1 = PETS;
  const geRun = (batch: string, category: string, observed: number) => ({
    timestampMillis: 1640692800000, assertionUrn: GE_ASSERTION, asserteeUrn: FOO1, runId: '2021-12-28T12:00:00Z', status: 'COMPLETE',
    batchSpec: { nativeBatchId: batch, query: null, limit: 10, customProperties: [{ key: 'data_asset_name', value: 'data__foo1__asset' },
      { key: 'datasource_name', value: 'my_postgresql_datasource' }] },
    partitionSpec: { type: 'PARTITION', partition: `{"category": "${category}"}` }, runtimeContext: null,
    result: { type: 'SUCCESS', rowCount: null, missingCount: null, unexpectedCount: null, actualAggValue: observed, externalUrl: null,
      nativeResults: [{ key: 'observed_value', value: String(observed) }] },
  });
  // Both runs share a timestamp, so their order is the store's: compare them by partition.
  const byPartition = (r: { runEvents: { partitionSpec: { partition: string } }[] }) =>
    ({ ...r, runEvents: [...r.runEvents].sort((a, b) => a.partitionSpec.partition.localeCompare(b.partitionSpec.partition)) });

  test('a Great Expectations assertion: info with its dataset assertion, platform, run events from the time series, relationships', async () => {
    const data = await read(`{ assertion(urn: "${GE_ASSERTION}") { urn type platform { urn name } dataPlatformInstance { urn } exists
      info { type datasetAssertion { datasetUrn scope fields { urn path } aggregation operator
        parameters { value { value type } minValue { value type } maxValue { value type } } nativeType nativeParameters { key value } logic } }
      runEvents { ${RUN_FIELDS} }
      relationships(input: { types: ["Asserts"], direction: OUTGOING }) { total relationships { entity { urn } } } } }`);
    data.assertion.runEvents = byPartition(data.assertion.runEvents);
    assert.deepEqual(data, { assertion: {
      urn: GE_ASSERTION, type: 'ASSERTION', platform: { urn: 'urn:li:dataPlatform:great-expectations', name: 'great-expectations' },
      dataPlatformInstance: null, exists: true,
      info: { type: 'DATASET', datasetAssertion: {
        datasetUrn: FOO1, scope: 'DATASET_COLUMN', fields: [{ urn: FOO1, path: 'id' }], aggregation: 'MIN', operator: 'BETWEEN',
        parameters: { value: null, minValue: { value: '1', type: 'UNKNOWN' }, maxValue: { value: '5', type: 'UNKNOWN' } },
        nativeType: 'expect_column_min_to_be_between',
        nativeParameters: [{ key: 'column', value: 'id' }, { key: 'max_value', value: '5' }, { key: 'min_value', value: '1' }], logic: null,
      } },
      runEvents: { total: 2, failed: 0, succeeded: 2, runEvents: [geRun('c8f12129f2e57412eee5fb8656154d05', 'catA', 1),
        geRun('aaee0c1f4ae6bba9bcb50c5f20277d0a', 'catB', 3)] },
      relationships: { total: 2, relationships: [{ entity: { urn: FOO1 } },
        { entity: { urn: `urn:li:schemaField:(${FOO1},id)` } }] },
    } });
  });

  test('assertion run events: limit, status and facet filters, time range', async () => {
    const runs = async (args: string) => (await read(`{ assertion(urn: "${GE_ASSERTION}") { runEvents(${args}) { total failed succeeded
      runEvents { partitionSpec { partition } } } } }`)).assertion.runEvents;
    const one = await runs('limit: 1');
    assert.equal(one.total, 1);
    assert.deepEqual({ ...one, runEvents: [] }, { total: 1, failed: 0, succeeded: 1, runEvents: [] });
    assert.deepEqual(byPartition(await runs('status: COMPLETE, filter: { and: [{ field: "runId", values: ["2021-12-28T12:00:00Z"] }] }')),
      { total: 2, failed: 0, succeeded: 2, runEvents: [{ partitionSpec: { partition: '{"category": "catA"}' } },
        { partitionSpec: { partition: '{"category": "catB"}' } }] });
    assert.deepEqual(await runs('status: RUNNING'), { total: 0, failed: 0, succeeded: 0, runEvents: [] });
    assert.deepEqual(await runs('filter: { and: [{ field: "runId", values: ["2021-12-28T12:00:00Z"], negated: true }] }'),
      { total: 0, failed: 0, succeeded: 0, runEvents: [] });
    assert.deepEqual(await runs('startTimeMillis: 1640692800001'), { total: 0, failed: 0, succeeded: 0, runEvents: [] });
    const bad = await t.graphql(`{ assertion(urn: "${GE_ASSERTION}") { runEvents(limit: 0) { total } } }`);
    assert.match(JSON.stringify(bad.body.errors), /limit must be between 1 and 10000, got 0/);
  });

  test('a dbt test assertion reads with its platform and dataset assertion', async () => {
    const data = await read(`{ assertion(urn: "urn:li:assertion:b052a324c05327985f3b579a19ad7579") { platform { urn }
      info { type datasetAssertion { datasetUrn scope fields { urn path } aggregation operator parameters { value { value type } } nativeType logic } }
      runEvents { total failed succeeded } } }`);
    const ORDERS = 'urn:li:dataset:(urn:li:dataPlatform:postgres,calm-pagoda-323403.jaffle_shop.orders,PROD)';
    assert.deepEqual(data, { assertion: {
      platform: { urn: 'urn:li:dataPlatform:dbt' },
      info: { type: 'DATASET', datasetAssertion: { datasetUrn: ORDERS, scope: 'DATASET_COLUMN', fields: [{ urn: ORDERS, path: 'status' }],
        aggregation: 'IDENTITY', operator: 'IN',
        parameters: { value: { value: '["placed", "shipped", "completed", "return_pending", "returned"]', type: 'SET' } },
        nativeType: 'accepted_values_orders_status__placed__shipped__completed__return_pending__returned', logic: null } },
      runEvents: { total: 1, failed: 0, succeeded: 1 },
    } });
  });

  test('a query: its statement, source, name, stamps and subject datasets', async () => {
    assert.deepEqual(await read(`{ entity(urn: "${QUERY}") { urn type ... on QueryEntity { properties { statement { value language } source name
      description created { time actor } lastModified { time actor } } subjects { dataset { urn name } }
      relationships(input: { types: ["IsAssociatedWith"], direction: OUTGOING }) { total } } } }`), { entity: {
      urn: QUERY, type: 'QUERY',
      properties: { statement: { value: "select * from foo1 where category = 'catA'", language: 'SQL' }, source: 'MANUAL', name: 'Pets in A',
        description: 'The A pets', created: stamp(STAMP.time, STAMP.actor), lastModified: stamp(1700000200000, 'urn:li:corpuser:datahub') },
      subjects: [{ dataset: { urn: PETS, name: 'postgres1.postgres.public.foo1' } }],
      relationships: { total: 1 },
    } });
  });

  test('a data platform instance is an entity: platform and id from the urn, properties, ownership, deprecation', async () => {
    const expected = {
      urn: INSTANCE, type: 'DATA_PLATFORM_INSTANCE', platform: { urn: 'urn:li:dataPlatform:snowflake', name: 'snowflake' }, instanceId: 'analytics',
      properties: { name: 'Analytics', description: 'The analytics account', externalUrl: 'https://analytics.snowflakecomputing.com',
        customProperties: [{ key: 'region', value: 'eu', associatedUrn: INSTANCE }] },
      ownership: { owners: [{ owner: { urn: 'urn:li:corpuser:jdoe' }, type: 'TECHNICAL_OWNER' }] },
      deprecation: { deprecated: true, note: 'moving to the new account', actor: 'urn:li:corpuser:jdoe' },
      tags: null, institutionalMemory: null, status: null, exists: true,
    };
    const fields = `urn type platform { urn name } instanceId properties { name description externalUrl customProperties { key value associatedUrn } }
      ownership { owners { owner { ... on CorpUser { urn } } type } } deprecation { deprecated note actor } tags { tags { tag { urn } } }
      institutionalMemory { elements { url } } status { removed } exists`;
    assert.deepEqual(await read(`{ dataPlatformInstance(urn: "${INSTANCE}") { ${fields} } }`), { dataPlatformInstance: expected });
    assert.deepEqual(await read(`{ entity(urn: "${INSTANCE}") { ... on DataPlatformInstance { ${fields} } } }`), { entity: expected });
  });

  test('a policy, a role, a view and a post through entity(urn), with DataHub\'s fields', async () => {
    assert.deepEqual(await read(`{ entity(urn: "${POLICY}") { urn type ... on DataHubPolicy { policyType name state description privileges editable
      resources { type resources allResources filter { criteria { field condition values { value entity { urn type } } } } }
      actors { users groups roles allUsers allGroups resourceOwners resourceOwnersTypes
        resolvedUsers { urn username } resolvedGroups { urn } resolvedRoles { urn name } resolvedOwnershipTypes { urn } }
      relationships(input: { types: ["IsAssociatedWithRole"], direction: OUTGOING }) { relationships { entity { urn ... on DataHubRole { name } } } } } } }`),
    { entity: {
      urn: POLICY, type: 'DATAHUB_POLICY', policyType: 'METADATA', name: 'Pet editors', state: 'ACTIVE', description: 'Edit pets',
      privileges: ['EDIT_ENTITY_DOCS'], editable: true,
      resources: { type: 'dataset', resources: null, allResources: false,
        filter: { criteria: [{ field: 'DOMAIN', condition: 'EQUALS',
          values: [{ value: 'urn:li:domain:12345', entity: { urn: 'urn:li:domain:12345', type: 'DOMAIN' } }] }] } },
      actors: { users: ['urn:li:corpuser:jdoe'], groups: [], roles: [ROLE], allUsers: false, allGroups: false, resourceOwners: false,
        resourceOwnersTypes: null, resolvedUsers: [{ urn: 'urn:li:corpuser:jdoe', username: 'jdoe' }], resolvedGroups: [],
        resolvedRoles: [{ urn: ROLE, name: 'PetEditor' }], resolvedOwnershipTypes: [] },
      relationships: { relationships: [{ entity: { urn: ROLE, name: 'PetEditor' } }] },
    } });
    // getPolicy answers the same resolved actors.
    assert.deepEqual(await read(`{ getPolicy(urn: "${POLICY}") { actors { resolvedUsers { urn } resolvedRoles { urn name } } } }`),
      { getPolicy: { actors: { resolvedUsers: [{ urn: 'urn:li:corpuser:jdoe' }], resolvedRoles: [{ urn: ROLE, name: 'PetEditor' }] } } });
    assert.deepEqual(await read(`{ entity(urn: "${ROLE}") { urn type ... on DataHubRole { name description } } }`),
      { entity: { urn: ROLE, type: 'DATAHUB_ROLE', name: 'PetEditor', description: 'Edits pets' } });
    assert.deepEqual(await read(`{ entity(urn: "${VIEW}") { urn type ... on DataHubView { viewType name description
      definition { entityTypes filter { operator filters { field condition values negated } } } } } }`), { entity: {
      urn: VIEW, type: 'DATAHUB_VIEW', viewType: 'GLOBAL', name: 'Pets', description: 'Pet datasets',
      definition: { entityTypes: ['DATASET', 'DATA_PRODUCT'], filter: { operator: 'AND', filters: [
        // `.keyword` is DataHub's index suffix, which it strips.
        { field: 'platform', condition: 'EQUAL', values: ['urn:li:dataPlatform:postgres'], negated: null },
        { field: 'tags', condition: 'EQUAL', values: ['urn:li:tag:awesome'], negated: true },
      ] } },
    } });
    // Several one-criterion conjunctions are OR; entity types may be stored as EntityType values; IS_NULL has no FilterOperator.
    assert.deepEqual(await read(`{ entity(urn: "urn:li:dataHubView:either") { ... on DataHubView { viewType name description
      definition { entityTypes filter { operator filters { field condition values negated } } } } } }`), { entity: {
      viewType: 'PERSONAL', name: 'Either', description: null,
      definition: { entityTypes: ['DATASET'], filter: { operator: 'OR', filters: [
        { field: 'domains', condition: 'EQUAL', values: ['urn:li:domain:12345'], negated: null },
        { field: 'owners', condition: null, values: ['urn:li:corpuser:jdoe'], negated: null },
      ] } },
    } });
    assert.deepEqual(await read(`{ entity(urn: "${POST}") { urn type ... on Post { postType
      content { contentType title description link media { type location } } lastModified { time actor } } } }`), { entity: {
      urn: POST, type: 'POST', postType: 'HOME_PAGE_ANNOUNCEMENT',
      content: { contentType: 'LINK', title: 'Welcome', description: 'Read this', link: 'https://example.com/welcome',
        media: { type: 'IMAGE', location: 'https://example.com/w.png' } },
      lastModified: { time: 1700000300000, actor: null },
    } });
  });

  test('an access token through entity(urn) is its AccessTokenMetadata; policies and tokens stay behind their privileges', async () => {
    const { tokens } = await t.catalog.tokens.list({ ownerUrn: 'urn:li:corpuser:datahub', start: 0, count: 10 });
    const mine = tokens.find((x) => x.name === 'test datahub')!;
    const tokenUrn = `urn:li:dataHubAccessToken:${mine.id}`;
    assert.deepEqual(await read(`{ entity(urn: "${tokenUrn}") { urn type ... on AccessTokenMetadata { id name description actorUrn ownerUrn createdAt expiresAt
      relationships(input: { types: ["OwnedBy"], direction: OUTGOING }) { total } } } }`),
      { entity: { urn: tokenUrn, type: 'ACCESS_TOKEN', id: mine.id, name: 'test datahub', description: null, actorUrn: 'urn:li:corpuser:datahub',
        ownerUrn: 'urn:li:corpuser:datahub', createdAt: mine.createdAt, expiresAt: mine.expiresAt, relationships: { total: 0 } } });
    const reader = { authorization: `Bearer ${await t.tokenFor('misc_reader')}` };
    for (const urn of [tokenUrn, POLICY]) {
      const res = await t.graphql(`{ entity(urn: "${urn}") { urn } }`, undefined, reader);
      assert.deepEqual(res.body.data, { entity: null });
      assert.equal(res.body.errors?.[0]?.extensions?.code, 403, JSON.stringify(res.body));
    }
    // A role, a view and a post need no more than viewing.
    const res = await t.graphql(`{ entity(urn: "${ROLE}") { urn } }`, undefined, reader);
    assert.deepEqual(res.body, { data: { entity: { urn: ROLE } }, extensions: {} });
  });
});
