import assert from 'node:assert/strict';
import path from 'node:path';
import { beforeEach, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import type { TestApp } from './support/app.js';
import { forEachEngine } from './support/engines.js';
import { freshAppPerTest } from './support/fresh.js';

// Pipelines as first-class GraphQL types (DataFlow, DataJob, DataProcessInstance), read from real connector output:
// DataHub 0.12.1's Airflow, Fivetran and NiFi golden files (test/fixtures/connectors, see NOTICE there).

const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/connectors');
const FILES = ['airflow_v2_simple_dag.json', 'fivetran_golden.json', 'nifi_standalone.json'];

const AIRFLOW_FLOW = 'urn:li:dataFlow:(airflow,simple_dag,prod)';
const AIRFLOW_TASK_1 = `urn:li:dataJob:(${AIRFLOW_FLOW},task_1)`;
const AIRFLOW_TASK_2 = `urn:li:dataJob:(${AIRFLOW_FLOW},run_another_data_task)`;
const FIVETRAN_FLOW = 'urn:li:dataFlow:(fivetran,calendar_elected,PROD)';
const FIVETRAN_JOB = `urn:li:dataJob:(${FIVETRAN_FLOW},calendar_elected)`;
const NIFI_FLOW = 'urn:li:dataFlow:(nifi,803ebb92-017d-1000-2961-4bdaa27a3ba0,PROD)';
const PG_EMPLOYEE = 'urn:li:dataset:(urn:li:dataPlatform:postgres,postgres_db.public.employee,DEV)';
const PG_COMPANY = 'urn:li:dataset:(urn:li:dataPlatform:postgres,postgres_db.public.company,DEV)';
const SF_EMPLOYEE = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,test_database.postgres_public.employee,PROD)';
const SF_COMPANY = 'urn:li:dataset:(urn:li:dataPlatform:snowflake,test_database.postgres_public.company,PROD)';
// Fivetran's three syncs of the connector: created 1695191853000 (success), 1696343730000 (skipped), 1696343755000 (failure).
const RUN_SUCCESS = 'urn:li:dataProcessInstance:ee88d32dbe3133a23a9023c097050190';
const RUN_SKIPPED = 'urn:li:dataProcessInstance:be36f55c13ec4e313c7510770e50784a';
const RUN_FAILED = 'urn:li:dataProcessInstance:d8f100271d2dc3fa905717f82d083c8d';
const FIVETRAN_OBSERVED = 1654621200000;
const OWNER = 'urn:li:corpuser:pipeline-owner';
const NIFI_OBSERVED = 1638532800000;
const NIFI_FLOW_PROPERTIES = {
  name: 'Standalone Flow', description: null, project: null,
  externalUrl: 'http://localhost:9443/nifi/?processGroupId=803ebb92-017d-1000-2961-4bdaa27a3ba0&componentIds=',
  customProperties: [{ key: 'clustered', value: 'False' }, { key: 'version', value: '1.22.0' }],
};
// The NiFi flow's processors (its jobs), in the order the relationship index lists them (by urn).
const NIFI_JOB_IDS = ['91d59f03-1c2b-3f3f-48bc-f89296a328bd', 'aed63edf-e660-3f29-b56b-192cf6286889', 'cb7693ed-f93b-3340-3776-fe80e6283ddc'];

const SHARED = `
  ownership { owners { owner { ... on CorpUser { urn } ... on CorpGroup { urn } } type ownershipType { urn } source { type url }
    associatedUrn } lastModified { time actor } }
  tags { tags { tag { urn } associatedUrn } }
  globalTags { tags { tag { urn } } }
  glossaryTerms { terms { term { urn } associatedUrn } }
  status { removed }
  deprecation { deprecated note actor decommissionTime }
  domain { domain { urn } associatedUrn }
  institutionalMemory { elements { url label description author { urn } associatedUrn } }
  dataPlatformInstance { urn instanceId }
  browsePaths { path }
  browsePathV2 { path { name entity { urn } } }
  lastIngested
  exists`;

const FLOW = `
  urn type orchestrator flowId cluster
  platform { urn type name }
  properties { name description project externalUrl customProperties { key value associatedUrn } }
  info { name description project externalUrl customProperties { key value } }
  editableProperties { description }
  dataJobs { entities { entity { urn type } created { time } } }
  relationships(input: { types: ["IsPartOf"], direction: INCOMING }) { total relationships { type direction entity { urn } } }
  lineage(input: { direction: DOWNSTREAM }) { start count total filtered relationships { type } }
  ${SHARED}`;

const RUN = `
  urn type name externalUrl created { time actor }
  state { status attempt timestampMillis result { resultType nativeResultType } }`;

const JOB = `
  urn type jobId
  dataFlow { urn orchestrator flowId properties { name } }
  properties { name description externalUrl customProperties { key value associatedUrn } }
  info { name description externalUrl customProperties { key value } }
  editableProperties { description }
  subTypes { typeNames }
  inputOutput {
    inputDatasets { urn type } outputDatasets { urn type } inputDatajobs { urn type }
    fineGrainedLineages { upstreams { urn path } downstreams { urn path } }
  }
  upstream: lineage(input: { direction: UPSTREAM }) { start count total filtered relationships { type entity { urn } degree } }
  downstream: lineage(input: { direction: DOWNSTREAM }) { start count total filtered relationships { type entity { urn } degree } }
  runs { start count total runs { ${RUN} } }
  privileges { canEditLineage }
  ${SHARED}`;

/** What a flow or job answers for every shared field it has no aspect for (fixtures that send only some). */
const NO_SHARED = {
  glossaryTerms: null, deprecation: null, domain: null, institutionalMemory: null, dataPlatformInstance: null,
};

const noTags = { tags: [] };

/** The failed Fivetran run's outgoing relationships (the index lists them by type, then urn): its job, the tables it read and wrote. */
const RUN_FAILED_RELATIONSHIPS = [
  ['InstanceOf', FIVETRAN_JOB, 'DATA_JOB'],
  ['Consumes', PG_COMPANY, 'DATASET'], ['Consumes', PG_EMPLOYEE, 'DATASET'],
  ['Produces', SF_COMPANY, 'DATASET'], ['Produces', SF_EMPLOYEE, 'DATASET'],
];

async function ingestFixtures(t: TestApp) {
  const summary = await ingestFiles(t.catalog.entities, FILES.map((f) => path.join(FIXTURES, f)), systemActor());
  assert.deepEqual(summary.failures, []);
  // A tag and a user for the edit tests to attach.
  await t.catalog.entities.ingest([{ urn: OWNER, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
    systemMetadata: null, value: { active: true, displayName: 'Pipeline Owner' } }], systemActor());
  const tag = await t.graphql('mutation { createTag(input: { id: "pipeline", name: "pipeline" }) }');
  assert.deepEqual(tag.body.data, { createTag: 'urn:li:tag:pipeline' });
}

forEachEngine('pipeline entities', (ctx) => {
  let t: TestApp;
  const fresh = freshAppPerTest(ctx, ingestFixtures);
  beforeEach(async () => {
    t = await fresh();
  });

  const read = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.graphql(query, variables);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  test('dataFlow(urn) answers an Airflow DAG with its key, platform, properties, jobs and shared fields', async () => {
    const data = await read(`query($urn: String!) { dataFlow(urn: $urn) { ${FLOW} } }`, { urn: AIRFLOW_FLOW });
    const props = [
      ['_access_control', 'None'], ['catchup', 'False'], ['description', "'A simple DAG that runs a few fake data tasks.'"],
      ['doc_md', 'None'], ['fileloc', '<fileloc>'], ['is_paused_upon_creation', 'None'],
      ['start_date', "DateTime(2023, 1, 1, 0, 0, 0, tzinfo=Timezone('UTC'))"], ['tags', '[]'], ['timezone', "Timezone('UTC')"],
    ];
    assert.deepEqual(data, {
      dataFlow: {
        urn: AIRFLOW_FLOW, type: 'DATA_FLOW', orchestrator: 'airflow', flowId: 'simple_dag', cluster: 'prod',
        platform: { urn: 'urn:li:dataPlatform:airflow', type: 'DATA_PLATFORM', name: 'airflow' },
        properties: {
          name: 'simple_dag', description: 'A simple DAG that runs a few fake data tasks.', project: null,
          externalUrl: 'http://airflow.example.com/tree?dag_id=simple_dag',
          customProperties: props.map(([key, value]) => ({ key, value, associatedUrn: AIRFLOW_FLOW })),
        },
        info: {
          name: 'simple_dag', description: 'A simple DAG that runs a few fake data tasks.', project: null,
          externalUrl: 'http://airflow.example.com/tree?dag_id=simple_dag', customProperties: props.map(([key, value]) => ({ key, value })),
        },
        editableProperties: null,
        dataJobs: { entities: [
          { entity: { urn: AIRFLOW_TASK_2, type: 'DATA_JOB' }, created: null },
          { entity: { urn: AIRFLOW_TASK_1, type: 'DATA_JOB' }, created: null },
        ] },
        relationships: { total: 2, relationships: [
          { type: 'IsPartOf', direction: 'INCOMING', entity: { urn: AIRFLOW_TASK_2 } },
          { type: 'IsPartOf', direction: 'INCOMING', entity: { urn: AIRFLOW_TASK_1 } },
        ] },
        lineage: { start: 0, count: 0, total: 0, filtered: 0, relationships: [] },
        ownership: {
          owners: [{ owner: { urn: 'urn:li:corpuser:airflow' }, type: 'DEVELOPER', ownershipType: { urn: 'urn:li:ownershipType:__system__developer' },
            source: { type: 'SERVICE', url: null }, associatedUrn: AIRFLOW_FLOW }],
          lastModified: { time: 0, actor: 'urn:li:corpuser:airflow' },
        },
        tags: { tags: [] },
        globalTags: noTags,
        status: null,
        ...NO_SHARED,
        browsePaths: [{ path: ['airflow', 'prod'] }],
        // Written on first ingestion, as DataHub does: a flow outside any container sits under 'Default'.
        browsePathV2: { path: [{ name: 'Default', entity: null }] },
        lastIngested: null,
        exists: true,
      },
    });
  });

  test('Fivetran and NiFi flows: the orchestrator is the platform, status and last ingestion come from the records', async () => {
    const q = `query($a: String!, $b: String!) {
      a: dataFlow(urn: $a) { urn orchestrator flowId cluster platform { urn name } properties { name description project externalUrl
        customProperties { key value } } status { removed } lastIngested browsePaths { path } }
      b: dataFlow(urn: $b) { urn orchestrator flowId cluster platform { urn name } properties { name description project externalUrl
        customProperties { key value } } status { removed } lastIngested dataJobs { entities { entity { urn } } } }
    }`;
    const data = await read(q, { a: FIVETRAN_FLOW, b: NIFI_FLOW });
    const nifiJob = (id: string) => ({ entity: { urn: `urn:li:dataJob:(${NIFI_FLOW},${id})` } });
    assert.deepEqual(data, {
      a: { urn: FIVETRAN_FLOW, orchestrator: 'fivetran', flowId: 'calendar_elected', cluster: 'PROD',
        platform: { urn: 'urn:li:dataPlatform:fivetran', name: 'fivetran' },
        properties: { name: 'postgres', description: null, project: null, externalUrl: null, customProperties: [] },
        status: { removed: false }, lastIngested: FIVETRAN_OBSERVED, browsePaths: [{ path: ['fivetran', 'prod'] }] },
      b: { urn: NIFI_FLOW, orchestrator: 'nifi', flowId: '803ebb92-017d-1000-2961-4bdaa27a3ba0', cluster: 'PROD',
        platform: { urn: 'urn:li:dataPlatform:nifi', name: 'nifi' },
        properties: NIFI_FLOW_PROPERTIES,
        status: { removed: false }, lastIngested: NIFI_OBSERVED,
        dataJobs: { entities: NIFI_JOB_IDS.map(nifiJob) } },
    });
  });

  test('dataJob(urn) answers a Fivetran connector with its flow, inputs and outputs, column lineage, runs and shared fields', async () => {
    const data = await read(`query($urn: String!) { dataJob(urn: $urn) { ${JOB} } }`, { urn: FIVETRAN_JOB });
    const field = (dataset: string, p: string) => ({ urn: dataset, path: p });
    const dataset = (urn: string) => ({ urn, type: 'DATASET' });
    const rel = (type: string, urn: string) => ({ type, entity: { urn }, degree: 1 });
    assert.deepEqual(data, {
      dataJob: {
        urn: FIVETRAN_JOB, type: 'DATA_JOB', jobId: 'calendar_elected',
        dataFlow: { urn: FIVETRAN_FLOW, orchestrator: 'fivetran', flowId: 'calendar_elected', properties: { name: 'postgres' } },
        properties: { name: 'postgres', description: null, externalUrl: null, customProperties: [
          { key: 'paused', value: 'False', associatedUrn: FIVETRAN_JOB },
          { key: 'sync_frequency', value: '1440', associatedUrn: FIVETRAN_JOB },
          { key: 'destination_id', value: "'interval_unconstitutional'", associatedUrn: FIVETRAN_JOB },
        ] },
        info: { name: 'postgres', description: null, externalUrl: null, customProperties: [
          { key: 'paused', value: 'False' }, { key: 'sync_frequency', value: '1440' },
          { key: 'destination_id', value: "'interval_unconstitutional'" },
        ] },
        editableProperties: null,
        subTypes: null,
        inputOutput: {
          inputDatasets: [dataset(PG_EMPLOYEE), dataset(PG_COMPANY)],
          outputDatasets: [dataset(SF_EMPLOYEE), dataset(SF_COMPANY)],
          inputDatajobs: [],
          fineGrainedLineages: [
            { upstreams: [field(PG_EMPLOYEE, 'id')], downstreams: [field(SF_EMPLOYEE, 'id')] },
            { upstreams: [field(PG_EMPLOYEE, 'name')], downstreams: [field(SF_EMPLOYEE, 'name')] },
            { upstreams: [field(PG_COMPANY, 'id')], downstreams: [field(SF_COMPANY, 'id')] },
            { upstreams: [field(PG_COMPANY, 'name')], downstreams: [field(SF_COMPANY, 'name')] },
          ],
        },
        upstream: { start: 0, count: 2, total: 2, filtered: 0,
          // Lineage neighbours come in urn order (DataHub gives no order; the relationship index's is stable).
          relationships: [rel('Consumes', PG_COMPANY), rel('Consumes', PG_EMPLOYEE)] },
        downstream: { start: 0, count: 2, total: 2, filtered: 0,
          relationships: [rel('Produces', SF_COMPANY), rel('Produces', SF_EMPLOYEE)] },
        runs: { start: 0, count: 20, total: 3, runs: [
          fivetranRun(RUN_FAILED, '63c2fc85-600b-455f-9ba0-f576522465be', 1696343755000, 1696343790000, 'FAILURE'),
          fivetranRun(RUN_SKIPPED, 'f773d1e9-c791-48f4-894f-8cf9b3dfc834', 1696343730000, 1696343732000, 'SKIPPED'),
          fivetranRun(RUN_SUCCESS, '4c9a03d6-eded-4422-a46a-163266e58243', 1695191853000, 1695191885000, 'SUCCESS'),
        ] },
        privileges: { canEditLineage: true },
        ownership: {
          owners: [{ owner: { urn: 'urn:li:corpuser:Shubham Jagtap' }, type: 'DEVELOPER',
            ownershipType: { urn: 'urn:li:ownershipType:__system__developer' }, source: { type: 'SERVICE', url: null },
            associatedUrn: FIVETRAN_JOB }],
          lastModified: { time: 0, actor: 'urn:li:corpuser:fivetran' },
        },
        tags: noTags,
        globalTags: noTags,
        status: { removed: false },
        ...NO_SHARED,
        browsePaths: [{ path: ['fivetran', 'prod'] }],
        // Written on first ingestion, as DataHub does: a job sits under its flow.
        browsePathV2: { path: [{ name: FIVETRAN_FLOW, entity: { urn: FIVETRAN_FLOW } }] },
        lastIngested: FIVETRAN_OBSERVED,
        exists: true,
      },
    });
  });

  test('runs pages newest first; a run reads its state in a time range, its inputs, outputs and template as relationships', async () => {
    const data = await read(`query($urn: String!) { dataJob(urn: $urn) {
      page: runs(start: 1, count: 1) { start count total runs { urn name } }
      beyond: runs(start: 3) { start count total runs { urn } }
      first: runs(count: 1) { runs {
        urn
        late: state(startTimeMillis: 1696343760000) { status timestampMillis }
        one: state(limit: 1) { status timestampMillis }
        relationships(input: { types: ["InstanceOf", "Consumes", "Produces"], direction: OUTGOING }) {
          total relationships { type entity { urn type } } }
        upstream: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } }
        downstream: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn } } }
      } }
    } }`, { urn: FIVETRAN_JOB });
    const rel = (type: string, urn: string, entityType: string) => ({ type, entity: { urn, type: entityType } });
    assert.deepEqual(data, {
      dataJob: {
        page: { start: 1, count: 1, total: 3, runs: [{ urn: RUN_SKIPPED, name: 'f773d1e9-c791-48f4-894f-8cf9b3dfc834' }] },
        beyond: { start: 3, count: 20, total: 3, runs: [] },
        first: { runs: [{
          urn: RUN_FAILED,
          late: [{ status: 'COMPLETE', timestampMillis: 1696343790000 }],
          one: [{ status: 'COMPLETE', timestampMillis: 1696343790000 }],
          relationships: { total: 5, relationships: RUN_FAILED_RELATIONSHIPS.map(([type, urn, et]) => rel(type!, urn!, et!)) },
          // DataHub 0.12.1 gives runs no lineage (their Consumes and Produces are not lineage edges): the inputs and
          // outputs are the relationships above.
          upstream: { total: 0, relationships: [] },
          downstream: { total: 0, relationships: [] },
        }] },
      },
    });
  });

  test('Airflow tasks: datasets read and tasks followed are upstream, datasets written and tasks that follow are downstream', async () => {
    const q = `query($a: String!, $b: String!) {
      a: dataJob(urn: $a) { inputOutput { inputDatasets { urn } outputDatasets { urn } inputDatajobs { urn } fineGrainedLineages { upstreams { path } } }
        upstream: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn type } } }
        downstream: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn type } } }
        second: lineage(input: { direction: UPSTREAM, start: 1, count: 1 }) { start count total relationships { entity { urn } } } }
      b: dataJob(urn: $b) { inputOutput { inputDatajobs { urn } }
        upstream: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } }
        downstream: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn } } }
        runs { start count total runs { ${RUN} } } }
    }`;
    const data = await read(q, { a: AIRFLOW_TASK_1, b: AIRFLOW_TASK_2 });
    const table = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:snowflake,mydb.schema.${name},PROD)`;
    const otherDagTask = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,test_dag,PROD),test_task)';
    assert.deepEqual(data, {
      a: {
        inputOutput: { inputDatasets: [{ urn: table('tableA') }, { urn: table('tableC') }], outputDatasets: [{ urn: table('tableD') }],
          inputDatajobs: [{ urn: otherDagTask }], fineGrainedLineages: [] },
        // In urn order: jobs (urn:li:dataJob) before datasets.
        upstream: { total: 3, relationships: [
          { type: 'DownstreamOf', entity: { urn: otherDagTask, type: 'DATA_JOB' } },
          { type: 'Consumes', entity: { urn: table('tableA'), type: 'DATASET' } },
          { type: 'Consumes', entity: { urn: table('tableC'), type: 'DATASET' } },
        ] },
        downstream: { total: 2, relationships: [
          { type: 'DownstreamOf', entity: { urn: AIRFLOW_TASK_2, type: 'DATA_JOB' } },
          { type: 'Produces', entity: { urn: table('tableD'), type: 'DATASET' } },
        ] },
        second: { start: 1, count: 1, total: 3, relationships: [{ entity: { urn: table('tableA') } }] },
      },
      b: {
        inputOutput: { inputDatajobs: [{ urn: AIRFLOW_TASK_1 }] },
        upstream: { total: 1, relationships: [{ type: 'DownstreamOf', entity: { urn: AIRFLOW_TASK_1 } }] },
        downstream: { total: 0, relationships: [] },
        runs: { start: 0, count: 20, total: 1, runs: [{
          urn: 'urn:li:dataProcessInstance:888f71b79d9a0b162fe44acad7b2c2ae', type: 'DATA_PROCESS_INSTANCE',
          name: 'simple_dag_run_another_data_task_manual_run_test',
          externalUrl: 'http://airflow.example.com/log?execution_date=2023-09-27T21%3A34%3A38%2B00%3A00&task_id=run_another_data_task&dag_id=simple_dag&map_index=-1',
          created: { time: 1701223355004, actor: 'urn:li:corpuser:datahub' },
          state: [
            { status: 'COMPLETE', attempt: null, timestampMillis: 1701223355580, result: { resultType: 'SUCCESS', nativeResultType: 'airflow' } },
            { status: 'STARTED', attempt: 1, timestampMillis: 1701223355004, result: null },
          ],
        }] },
      },
    });
  });

  for (const [kind, urn, root, type] of [['flow', FIVETRAN_FLOW, 'dataFlow', 'DataFlow'], ['job', FIVETRAN_JOB, 'dataJob', 'DataJob']] as const) {
    test(`a ${kind}'s description (through ${root === 'dataFlow' ? 'updateDataFlow' : 'updateDataJob'}), tag, owner and link are edited and read back`, async () => {
      const mutate = async (name: string, inputType: string, input: Record<string, unknown>) => {
        const res = await t.graphql(`mutation($input: ${inputType}!) { ${name}(input: $input) }`, { input });
        assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
        assert.deepEqual(res.body.data, { [name]: true }, name);
      };
      // DataHub 0.12.1's updateDescription does not take flows or jobs; the web app edits them with the per-type update.
      const refused = await t.graphql('mutation($input: DescriptionUpdateInput!) { updateDescription(input: $input) }',
        { input: { resourceUrn: urn, description: 'not here' } });
      assert.deepEqual([refused.body.data, refused.body.errors.map((e: { message: string }) => e.message)],
        [{ updateDescription: null }, [`Failed to update description. Unsupported resource type ${root}`]]);
      const update = root === 'dataFlow' ? 'updateDataFlow' : 'updateDataJob';
      const updated = await read(`mutation($urn: String!, $input: ${type}UpdateInput!) { ${update}(urn: $urn, input: $input) {
        urn editableProperties { description } } }`, { urn, input: { editableProperties: { description: `The ${kind}, edited.` } } });
      assert.deepEqual(updated, { [update]: { urn, editableProperties: { description: `The ${kind}, edited.` } } });
      await mutate('addTag', 'TagAssociationInput', { resourceUrn: urn, tagUrn: 'urn:li:tag:pipeline' });
      await mutate('addOwner', 'AddOwnerInput', { resourceUrn: urn, ownerUrn: OWNER, ownerEntityType: 'CORP_USER',
        ownershipTypeUrn: 'urn:li:ownershipType:__system__technical_owner' });
      await mutate('addLink', 'AddLinkInput', { resourceUrn: urn, linkUrl: 'https://wiki.example.com/sync', label: 'Runbook' });
      const data = await read(`query($urn: String!) { e: ${root}(urn: $urn) {
        properties { name description } editableProperties { description }
        tags { tags { tag { urn } associatedUrn } }
        ownership { owners { owner { ... on CorpUser { urn } } ownershipType { urn } } }
        institutionalMemory { elements { url label author { urn } associatedUrn } }
      } }`, { urn });
      const ingestedOwners = kind === 'job' ? [{ owner: { urn: 'urn:li:corpuser:Shubham Jagtap' },
        ownershipType: { urn: 'urn:li:ownershipType:__system__developer' } }] : [];
      assert.deepEqual(data, {
        e: {
          properties: { name: 'postgres', description: null },
          editableProperties: { description: `The ${kind}, edited.` },
          tags: { tags: [{ tag: { urn: 'urn:li:tag:pipeline' }, associatedUrn: urn }] },
          ownership: { owners: [...ingestedOwners,
            { owner: { urn: OWNER }, ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' } }] },
          institutionalMemory: { elements: [{ url: 'https://wiki.example.com/sync', label: 'Runbook', author: { urn: 'urn:li:corpuser:datahub' },
            associatedUrn: urn }] },
        },
      });
    });
  }

  test('search finds flows by their orchestrator filter and jobs by name, answered as DataFlow and DataJob', async () => {
    const data = await read(`{
      flows: search(input: { type: DATA_FLOW, query: "*", filters: [{ field: "platform", value: "urn:li:dataPlatform:nifi" }] }) {
        total searchResults { entity { __typename urn ... on DataFlow { orchestrator properties { name } } } } }
      jobs: search(input: { type: DATA_JOB, query: "postgres" }) {
        total searchResults { entity { __typename urn ... on DataJob { jobId dataFlow { urn } properties { name } } } } }
    }`);
    assert.deepEqual(data, {
      flows: { total: 1, searchResults: [{ entity: { __typename: 'DataFlow', urn: NIFI_FLOW, orchestrator: 'nifi',
        properties: { name: 'Standalone Flow' } } }] },
      jobs: { total: 1, searchResults: [{ entity: { __typename: 'DataJob', urn: FIVETRAN_JOB, jobId: 'calendar_elected',
        dataFlow: { urn: FIVETRAN_FLOW }, properties: { name: 'postgres' } } }] },
    });
  });

  test('dataFlow and dataJob refuse an urn of another type and answer not found for one never ingested', async () => {
    const bad = await t.graphql(`{ dataJob(urn: "${AIRFLOW_FLOW}") { urn } }`);
    const missing = await t.graphql('{ dataFlow(urn: "urn:li:dataFlow:(airflow,nope,prod)") { urn } }');
    const error = (message: string, field: string, code: number, type: string) => ({ message, locations: [{ line: 1, column: 3 }],
      path: [field], extensions: { code, type, classification: 'DataFetchingException' } });
    assert.deepEqual([bad.status, bad.body], [200, { data: { dataJob: null }, extensions: {},
      errors: [error(`Invalid urn: '${AIRFLOW_FLOW}' is not a dataJob urn`, 'dataJob', 400, 'BAD_REQUEST')] }]);
    assert.deepEqual([missing.status, missing.body], [200, { data: { dataFlow: null }, extensions: {},
      errors: [error('Entity urn:li:dataFlow:(airflow,nope,prod) does not exist', 'dataFlow', 404, 'NOT_FOUND')] }]);
  });
});

function fivetranRun(urn: string, name: string, started: number, ended: number, result: string) {
  return {
    urn, type: 'DATA_PROCESS_INSTANCE', name, externalUrl: null, created: { time: started, actor: 'urn:li:corpuser:datahub' },
    state: [
      { status: 'COMPLETE', attempt: null, timestampMillis: ended, result: { resultType: result, nativeResultType: 'fivetran' } },
      { status: 'STARTED', attempt: null, timestampMillis: started, result: null },
    ],
  };
}
