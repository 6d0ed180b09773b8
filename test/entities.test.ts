import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parse, Kind } from 'graphql';
import {
  aspectsOf, ENTITY_DESCRIPTORS, entityDescriptor, keyValuesOf, urnOfKey, type EntityDescriptor,
} from '../src/entities/index.js';
import { DATAHUB_RELEASE, ENTITIES as LATER_REGISTRY } from '../src/entities/later/datahub-model.generated.js';
import { ownerEntry, ownershipTypeOf, SYSTEM_OWNERSHIP_TYPES, systemOwnershipTypeUrn } from '../src/entities/ownership-types.js';
import { resolvers, schemaSdl } from '../src/graphql/schema.js';
import { parseUrn } from '../src/model/urn.js';
import { rootActor } from '../src/model/actor.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/** DataHub 0.12.1's entity-registry.yml: each entity type's key aspect, then its aspects. */
const REGISTRY_0_12_1: Record<string, string> = {
  dataPlatform: 'dataPlatformKey dataPlatformInfo',
  role: 'roleKey roleProperties actors',
  dataset: 'datasetKey viewProperties subTypes datasetProfile datasetUsageStatistics operation domains schemaMetadata status container deprecation testResults siblings embed datasetProperties editableDatasetProperties datasetDeprecation datasetUpstreamLineage upstreamLineage institutionalMemory ownership editableSchemaMetadata globalTags glossaryTerms browsePaths dataPlatformInstance browsePathsV2 access',
  dataHubPolicy: 'dataHubPolicyKey dataHubPolicyInfo',
  dataJob: 'dataJobKey datahubIngestionRunSummary datahubIngestionCheckpoint domains deprecation versionInfo dataJobInfo dataJobInputOutput editableDataJobProperties ownership status globalTags browsePaths glossaryTerms institutionalMemory dataPlatformInstance browsePathsV2 subTypes',
  dataFlow: 'dataFlowKey domains deprecation versionInfo dataFlowInfo editableDataFlowProperties ownership status globalTags browsePaths glossaryTerms institutionalMemory dataPlatformInstance browsePathsV2',
  dataProcess: 'dataProcessKey dataProcessInfo ownership status',
  dataProcessInstance: 'dataProcessInstanceKey dataProcessInstanceInput dataProcessInstanceOutput dataProcessInstanceProperties dataProcessInstanceRelationships dataProcessInstanceRunEvent',
  chart: 'chartKey chartInfo editableChartProperties chartQuery inputFields chartUsageStatistics embed browsePaths domains container deprecation ownership status institutionalMemory dataPlatformInstance globalTags glossaryTerms browsePathsV2 subTypes',
  dashboard: 'dashboardKey domains container deprecation dashboardUsageStatistics inputFields subTypes embed dashboardInfo editableDashboardProperties ownership status globalTags browsePaths glossaryTerms institutionalMemory dataPlatformInstance browsePathsV2',
  notebook: 'notebookKey notebookInfo notebookContent editableNotebookProperties ownership status globalTags glossaryTerms browsePaths institutionalMemory domains subTypes dataPlatformInstance browsePathsV2',
  corpuser: 'corpUserKey corpUserInfo corpUserEditableInfo corpUserStatus groupMembership globalTags status corpUserCredentials nativeGroupMembership corpUserSettings origin roleMembership',
  corpGroup: 'corpGroupKey corpGroupInfo corpGroupEditableInfo globalTags ownership status origin',
  domain: 'domainKey domainProperties institutionalMemory ownership',
  container: 'containerKey containerProperties editableContainerProperties dataPlatformInstance subTypes ownership container globalTags glossaryTerms institutionalMemory browsePaths status domains browsePathsV2',
  tag: 'tagKey tagProperties ownership deprecation status',
  glossaryTerm: 'glossaryTermKey glossaryTermInfo glossaryRelatedTerms institutionalMemory schemaMetadata ownership deprecation domains status browsePaths',
  glossaryNode: 'glossaryNodeKey glossaryNodeInfo institutionalMemory ownership status',
  dataHubIngestionSource: 'dataHubIngestionSourceKey dataHubIngestionSourceInfo',
  dataHubSecret: 'dataHubSecretKey dataHubSecretValue',
  dataHubExecutionRequest: 'dataHubExecutionRequestKey dataHubExecutionRequestInput dataHubExecutionRequestSignal dataHubExecutionRequestResult',
  assertion: 'assertionKey assertionInfo dataPlatformInstance assertionRunEvent assertionActions status',
  dataHubRetention: 'dataHubRetentionKey dataHubRetentionConfig',
  dataPlatformInstance: 'dataPlatformInstanceKey dataPlatformInstanceProperties ownership globalTags institutionalMemory deprecation status',
  mlModel: 'mlModelKey glossaryTerms editableMlModelProperties domains ownership mlModelProperties intendedUse mlModelFactorPrompts mlModelMetrics mlModelEvaluationData mlModelTrainingData mlModelQuantitativeAnalyses mlModelEthicalConsiderations mlModelCaveatsAndRecommendations institutionalMemory sourceCode status cost deprecation browsePaths globalTags dataPlatformInstance browsePathsV2',
  mlModelGroup: 'mlModelGroupKey glossaryTerms editableMlModelGroupProperties domains mlModelGroupProperties ownership status deprecation browsePaths globalTags dataPlatformInstance browsePathsV2',
  mlModelDeployment: 'mlModelDeploymentKey mlModelDeploymentProperties ownership status deprecation globalTags dataPlatformInstance',
  mlFeatureTable: 'mlFeatureTableKey glossaryTerms editableMlFeatureTableProperties domains mlFeatureTableProperties ownership institutionalMemory status deprecation browsePaths globalTags dataPlatformInstance browsePathsV2',
  mlFeature: 'mlFeatureKey glossaryTerms editableMlFeatureProperties domains mlFeatureProperties ownership institutionalMemory status deprecation browsePaths globalTags dataPlatformInstance browsePathsV2',
  mlPrimaryKey: 'mlPrimaryKeyKey glossaryTerms editableMlPrimaryKeyProperties domains mlPrimaryKeyProperties ownership institutionalMemory status deprecation globalTags dataPlatformInstance',
  telemetry: 'telemetryKey telemetryClientId',
  dataHubAccessToken: 'dataHubAccessTokenKey dataHubAccessTokenInfo',
  test: 'testKey testInfo',
  dataHubUpgrade: 'dataHubUpgradeKey dataHubUpgradeRequest dataHubUpgradeResult',
  inviteToken: 'inviteTokenKey inviteToken',
  schemaField: 'schemaFieldKey',
  globalSettings: 'globalSettingsKey globalSettingsInfo',
  dataHubRole: 'dataHubRoleKey dataHubRoleInfo',
  post: 'postKey postInfo',
  dataHubStepState: 'dataHubStepStateKey dataHubStepStateProperties',
  dataHubView: 'dataHubViewKey dataHubViewInfo',
  query: 'queryKey queryProperties querySubjects status',
  dataProduct: 'dataProductKey ownership glossaryTerms globalTags domains dataProductProperties institutionalMemory status',
  ownershipType: 'ownershipTypeKey ownershipTypeInfo status',
  dataContract: 'dataContractKey dataContractProperties dataContractStatus status',
};

/** What Almanac accepted before its registry followed DataHub 0.12.1's, and keeps accepting (deliberately listed). */
const ALMANAC_EXTRAS: Record<string, string> = {
  corpuser: 'testResults', corpGroup: 'testResults', tag: 'testResults', glossaryTerm: 'testResults', chart: 'testResults',
  dashboard: 'testResults', dataProcessInstance: 'status', dataJob: 'container testResults', dataFlow: 'container subTypes testResults',
  mlModel: 'container subTypes testResults', mlModelGroup: 'container institutionalMemory subTypes testResults',
  mlPrimaryKey: 'browsePaths browsePathsV2 container subTypes testResults', mlFeature: 'container subTypes testResults',
  mlFeatureTable: 'container subTypes testResults', container: 'deprecation testResults', notebook: 'container deprecation testResults',
};

/** An urn of the type whose key is its key aspect's example value. */
function exampleUrn(d: EntityDescriptor): string {
  return urnOfKey(d, d.key.schema.example())!;
}

test('the descriptors are DataHub 0.12.1\'s entity registry: every entity type, key aspect and aspect, plus the listed extras', () => {
  const base = ENTITY_DESCRIPTORS.filter((d) => d.name in REGISTRY_0_12_1);
  assert.deepEqual(base.map((d) => d.name).sort(), Object.keys(REGISTRY_0_12_1).sort());
  for (const d of base) {
    const [key, ...aspects] = REGISTRY_0_12_1[d.name]!.split(' ');
    assert.equal(d.key.name, key, d.name);
    assert.deepEqual(d.aspects.map((a) => a.name).sort(), aspects.sort(), d.name);
    assert.deepEqual((d.almanacAspects ?? []).map((a) => a.name).sort(), (ALMANAC_EXTRAS[d.name]?.split(' ') ?? []).sort(), d.name);
    for (const a of aspectsOf(d)) assert.match(a.className, /^com\.linkedin\.[a-z.]+\.[A-Z]\w+$/, `${d.name}.${a.name}`);
  }
  assert.equal(entityDescriptor('DATASET')?.name, 'dataset');
  assert.equal(entityDescriptor('noSuchType'), undefined);
});

test(`the registry holds DataHub ${DATAHUB_RELEASE.release}'s too: every entity type with its key aspect and every aspect, 0.12.1's kept`, () => {
  assert.deepEqual(DATAHUB_RELEASE, { release: '1.5', commit: '115e90599a77c797d55a2c10b716eb476cbd5b02' });
  assert.equal(Object.keys(LATER_REGISTRY).length, 64);
  assert.deepEqual(ENTITY_DESCRIPTORS.map((d) => d.name).sort(), [...new Set([...Object.keys(REGISTRY_0_12_1), ...Object.keys(LATER_REGISTRY)])].sort());
  for (const [name, e] of Object.entries(LATER_REGISTRY)) {
    const d = entityDescriptor(name)!;
    assert.equal(d.name, name);
    const have = aspectsOf(d).map((a) => a.name);
    assert.deepEqual([e.keyAspect, ...e.aspects].filter((a) => !have.includes(a)), [], name);
    if (name in REGISTRY_0_12_1) assert.deepEqual(have.slice(0, REGISTRY_0_12_1[name]!.split(' ').length).sort(), REGISTRY_0_12_1[name]!.split(' ').sort(), name);
    for (const a of aspectsOf(d)) assert.match(a.className, /^com\.linkedin\.[a-z.]+\.[A-Z]\w+$/, `${d.name}.${a.name}`);
  }
  // Examples of what today's connectors send (issue 33).
  for (const [type, aspect] of [['dataJob', 'dataTransformLogic'], ['mlModel', 'versionProperties'], ['dataProcessInstance', 'mlTrainingRunProperties'],
    ['dataProcessInstance', 'container'], ['query', 'dataPlatformInstance'], ['platformResource', 'platformResourceInfo']] as const) {
    assert.ok(aspectsOf(entityDescriptor(type)!).some((a) => a.name === aspect), `${type}.${aspect}`);
  }
});

test('urns and key aspects: a one-field key is the whole id, a tuple key maps its parts, a wrong part count names no key', () => {
  const chart = entityDescriptor('chart')!;
  assert.deepEqual({ ...keyValuesOf(chart, parseUrn('urn:li:chart:(looker,dashboard_elements.123)')) },
    { dashboardTool: 'looker', chartId: 'dashboard_elements.123' });
  assert.equal(keyValuesOf(chart, parseUrn('urn:li:chart:looker')), undefined);
  assert.deepEqual({ ...keyValuesOf(entityDescriptor('tag')!, parseUrn('urn:li:tag:a,b')) }, { name: 'a,b' });
  assert.equal(urnOfKey(chart, { dashboardTool: 'looker', chartId: '123' }), 'urn:li:chart:(looker,123)');
  for (const d of ENTITY_DESCRIPTORS) {
    const urn = exampleUrn(d);
    assert.deepEqual({ ...keyValuesOf(d, parseUrn(urn)) }, d.key.schema.example(), d.name);
  }
});

test('the ownership-type table: legacy types map as DataHub 0.12.1 maps them, and an entry is of the type it names', () => {
  assert.equal(systemOwnershipTypeUrn('DATAOWNER'), 'urn:li:ownershipType:__system__dataowner');
  assert.equal(ownershipTypeOf({ type: 'DATAOWNER' }), 'urn:li:ownershipType:__system__dataowner');
  assert.equal(ownershipTypeOf({ type: 'TECHNICAL_OWNER' }), 'urn:li:ownershipType:__system__technical_owner');
  assert.equal(ownershipTypeOf({ type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:reviewer' }), 'urn:li:ownershipType:reviewer');
  assert.equal(ownershipTypeOf({}), 'urn:li:ownershipType:__system__none');
  assert.deepEqual(ownerEntry('urn:li:corpuser:a', 'BUSINESS_OWNER'),
    { owner: 'urn:li:corpuser:a', type: 'BUSINESS_OWNER', typeUrn: 'urn:li:ownershipType:__system__business_owner' });
  assert.deepEqual(ownerEntry('urn:li:corpuser:a', null, 'urn:li:ownershipType:reviewer'),
    { owner: 'urn:li:corpuser:a', type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:reviewer' });
  assert.deepEqual(SYSTEM_OWNERSHIP_TYPES.map((t) => [t.urn, t.name]), [
    ['urn:li:ownershipType:__system__technical_owner', 'Technical Owner'], ['urn:li:ownershipType:__system__business_owner', 'Business Owner'],
    ['urn:li:ownershipType:__system__data_steward', 'Data Steward'], ['urn:li:ownershipType:__system__none', 'None']]);
});

test('GraphQL: every field a descriptor\'s object type declares has a resolver, and every type\'s EntityType value exists', () => {
  const sdl = schemaSdl();
  const all = resolvers(sdl) as Record<string, Record<string, unknown>>;
  const declared = new Map<string, string[]>();
  let enumValues: string[] = [];
  for (const def of parse(sdl).definitions) {
    if (def.kind === Kind.OBJECT_TYPE_DEFINITION || def.kind === Kind.OBJECT_TYPE_EXTENSION) {
      declared.set(def.name.value, [...(declared.get(def.name.value) ?? []), ...(def.fields ?? []).map((f) => f.name.value)]);
    }
    if (def.kind === Kind.ENUM_TYPE_DEFINITION && def.name.value === 'EntityType') enumValues = (def.values ?? []).map((v) => v.name.value);
  }
  for (const d of ENTITY_DESCRIPTORS) {
    assert.ok(enumValues.includes(d.graphql.entityType), `${d.name}: ${d.graphql.entityType}`);
    const type = d.graphql.objectType;
    if (!type) continue;
    const missing = declared.get(type)!.filter((f) => f !== 'urn' && !(f in (all[type] ?? {})));
    assert.deepEqual(missing, [], `${type} fields without a resolver`);
  }
});

forEachEngine('entity descriptors', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
  });
  after(async () => t.close());

  const ingestProposal = (entityType: string, urn: string, aspectName: string, value: unknown) => t.app.inject({
    method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth,
    payload: { proposal: { entityType, entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } },
  });
  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  /** Ingests, for an entity of the type, the example value of every aspect of the type, key aspect included. */
  const ingestExamples = (d: EntityDescriptor) => t.catalog.entities.ingest(aspectsOf(d).map((a): ChangeItem => ({ urn: exampleUrn(d),
    entityType: d.name, aspect: a.name, changeType: 'UPSERT', value: a.schema.example(), systemMetadata: null })), rootActor());

  test('every entity type accepts every one of its aspects, its key aspect included', async () => {
    for (const d of ENTITY_DESCRIPTORS) {
      const urn = exampleUrn(d);
      await ingestExamples(d);
      const stored = await t.catalog.entities.getLatest(urn);
      const versioned = aspectsOf(d).filter((a) => !a.timeseries).map((a) => a.name);
      assert.deepEqual([...stored.keys()].sort(), versioned.sort(), d.name);
      assert.deepEqual(stored.get(d.key.name)!.value, d.key.schema.example(), `${d.name}: the key aspect`);
      for (const a of aspectsOf(d).filter((x) => x.timeseries)) {
        const rows = await t.catalog.timeseries.values({ urn, entityType: d.name, aspect: a.name });
        assert.equal(rows.length, 1, `${d.name}.${a.name}`);
      }
    }
  });

  test('a key aspect sent that names the urn\'s entity is stored; one naming another entity is accepted, the urn\'s key kept', async () => {
    const urn = 'urn:li:chart:(looker,key_check.1)';
    const agrees = await ingestProposal('chart', urn, 'chartKey', { dashboardTool: 'looker', chartId: 'key_check.1' });
    assert.deepEqual([agrees.statusCode, agrees.json()], [200, { value: urn }]);
    assert.deepEqual((await t.catalog.entities.getAspect(urn, 'chartKey')).value, { dashboardTool: 'looker', chartId: 'key_check.1' });
    // As DataHub does (connectors send such keys, issue 29): the urn is the identity, its key is what stays stored.
    const other = await ingestProposal('chart', urn, 'chartKey', { dashboardTool: 'tableau', chartId: 'key_check.1' });
    assert.deepEqual([other.statusCode, other.json()], [200, { value: urn }]);
    assert.deepEqual((await t.catalog.entities.getAspect(urn, 'chartKey')).value, { dashboardTool: 'looker', chartId: 'key_check.1' });
    // A dataset name written percent-encoded in the urn agrees with its plain form.
    const ds = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.a%2Cb,PROD)';
    const plain = await ingestProposal('dataset', ds, 'datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'db.a,b', origin: 'PROD' });
    assert.equal(plain.statusCode, 200, plain.body);
    const badEnv = await ingestProposal('dataset', ds, 'datasetKey', { platform: 'urn:li:dataPlatform:hive', name: 'db.a,b', origin: 'NOWHERE' });
    assert.equal(badEnv.statusCode, 422);
    assert.match(badEnv.json().message, /^Invalid aspect datasetKey: origin: 'NOWHERE' is not one of DEV, TEST/);
  });

  test('aspects of later DataHub versions are accepted and validated against their schema; unknown aspects are 422s, never 5xx', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,newer_aspects,PROD)';
    const newer = await ingestProposal('dataset', urn, 'incidentsSummary', { resolvedIncidents: [] });
    assert.deepEqual([newer.statusCode, newer.json()], [200, { value: urn }]);
    const wrong = await ingestProposal('dataset', urn, 'incidentsSummary', { resolvedIncidents: 'none' });
    assert.deepEqual([wrong.statusCode, wrong.json().message], [422, 'Invalid aspect incidentsSummary: resolvedIncidents: expected a list, got string']);
    const unknown = await ingestProposal('chart', 'urn:li:chart:(looker,1)', 'noSuchAspect', {});
    assert.deepEqual([unknown.statusCode, unknown.json().message], [422, "Unknown aspect 'noSuchAspect' for entity type 'chart'"]);
    const mce = await t.app.inject({ method: 'POST', url: '/entities?action=ingest', headers: t.auth, payload: { entity: { value: {
      'com.linkedin.metadata.snapshot.DatasetSnapshot': { urn, aspects: [{ 'com.linkedin.common.StructuredProperties': { properties: [] } }] },
    } } } });
    assert.equal(mce.statusCode, 200, mce.body);
    const stored = await t.catalog.entities.getLatest(urn);
    assert.deepEqual([stored.get('incidentsSummary')?.value, stored.get('structuredProperties')?.value],
      [{ resolvedIncidents: [] }, { properties: [] }]);
  });

  test('GraphQL entity, entities and search answer with the concrete type of every entity type (GenericEntity where there is none yet)', async () => {
    for (const d of ENTITY_DESCRIPTORS) await ingestExamples(d);
    const urns = ENTITY_DESCRIPTORS.map(exampleUrn);
    const data = await ok(`{ entities(urns: ${JSON.stringify(urns)}) { urn type __typename } }`);
    assert.deepEqual(data.entities, ENTITY_DESCRIPTORS.map((d, i) => ({ urn: urns[i], type: d.graphql.entityType,
      __typename: d.graphql.objectType ?? 'GenericEntity' })));
    for (const d of ENTITY_DESCRIPTORS.filter((x) => x.graphql.objectType && !x.privileges?.read)) {
      const one = await ok(`{ entity(urn: ${JSON.stringify(exampleUrn(d))}) { __typename } }`);
      assert.equal(one.entity.__typename, d.graphql.objectType, d.name);
    }
    const found = await ok('{ searchAcrossEntities(input: { query: "*", count: 100 }) { searchResults { entity { urn type __typename } } } }');
    for (const r of found.searchAcrossEntities.searchResults.map((x: any) => x.entity)) {
      const d = entityDescriptor(parseUrn(r.urn).entityType)!;
      assert.deepEqual([r.type, r.__typename], [d.graphql.entityType, d.graphql.objectType ?? 'GenericEntity'], r.urn);
    }
  });

  test('every entity answers relationships through the Entity interface; lineage and browse paths through DataHub\'s interfaces', async () => {
    const flow = 'urn:li:dataFlow:(airflow,iface,prod)';
    const job = `urn:li:dataJob:(${flow},load)`;
    const out = 'urn:li:dataset:(urn:li:dataPlatform:hive,iface_out,PROD)';
    const deployment = 'urn:li:mlModelDeployment:(urn:li:dataPlatform:sagemaker,iface-endpoint,PROD)';
    await t.catalog.entities.ingest([
      { urn: job, entityType: 'dataJob', aspect: 'dataJobInputOutput', changeType: 'UPSERT', systemMetadata: null,
        value: { inputDatasets: [], outputDatasets: [out] } },
      { urn: deployment, entityType: 'mlModelDeployment', aspect: 'status', changeType: 'UPSERT', systemMetadata: null, value: { removed: false } },
    ], rootActor());
    const data = await ok(`{ entities(urns: ["${job}", "${deployment}"]) { __typename urn
      relationships(input: { types: ["IsPartOf"], direction: OUTGOING }) { total relationships { entity { urn } } }
      ... on EntityWithRelationships { lineage(input: { direction: DOWNSTREAM }) { total relationships { entity { urn } } } }
      ... on BrowsableEntity { browsePaths { path } } } }`);
    assert.deepEqual(data.entities, [
      { __typename: 'DataJob', urn: job, relationships: { total: 1, relationships: [{ entity: { urn: flow } }] },
        lineage: { total: 1, relationships: [{ entity: { urn: out } }] }, browsePaths: [{ path: ['airflow', 'prod'] }] }, // DataHub's default for a job: /orchestrator/cluster
      { __typename: 'GenericEntity', urn: deployment, relationships: { total: 0, relationships: [] } },
    ]);
  });

  test('relationships come from the aspects that declare them, key aspects too, and name their targets\' concrete types', async () => {
    const flow = 'urn:li:dataFlow:(airflow,nightly,prod)';
    const job = `urn:li:dataJob:(${flow},load)`;
    const term = 'urn:li:glossaryTerm:Revenue';
    await t.catalog.entities.ingest([
      { urn: job, entityType: 'dataJob', aspect: 'dataJobInfo', changeType: 'UPSERT', systemMetadata: null, value: { name: 'load', type: { string: 'COMMAND' } } },
      { urn: term, entityType: 'glossaryTerm', aspect: 'glossaryTermInfo', changeType: 'UPSERT', systemMetadata: null,
        value: { definition: 'Money in', termSource: 'INTERNAL', parentNode: 'urn:li:glossaryNode:Finance' } },
      { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,rel_check,PROD)', entityType: 'dataset', aspect: 'glossaryTerms', changeType: 'UPSERT',
        systemMetadata: null, value: { terms: [{ urn: term }], auditStamp: { time: 1, actor: 'urn:li:corpuser:datahub' } } },
    ], rootActor());
    assert.deepEqual((await t.catalog.relationships.list({ urn: job, direction: 'OUTGOING', types: ['IsPartOf'] })).edges,
      [{ source: job, type: 'IsPartOf', destination: flow }]);
    assert.deepEqual((await t.catalog.relationships.list({ urn: term, direction: 'OUTGOING', types: ['IsPartOf'] })).edges.map((e) => e.destination),
      ['urn:li:glossaryNode:Finance']);
    const data = await ok(`{ glossaryTerm(urn: "${term}") { relationships(input: { types: ["TermedWith"], direction: INCOMING }) {
      relationships { entity { urn __typename } } } } }`);
    assert.deepEqual(data.glossaryTerm.relationships.relationships,
      [{ entity: { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,rel_check,PROD)', __typename: 'Dataset' } }]);
  });

  test('search facets from the urn: a chart\'s platform is its tool', async () => {
    await t.catalog.entities.ingest([{ urn: 'urn:li:chart:(superset,facet_check)', entityType: 'chart', aspect: 'chartInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { title: 'Facet check', description: '', lastModified: {} } }], rootActor());
    const data = await ok(`{ searchAcrossEntities(input: { types: [CHART], query: "facet", orFilters: [{ and: [{ field: "platform", values: ["superset"] }] }] }) {
      total searchResults { entity { urn } } } }`);
    assert.deepEqual(data.searchAcrossEntities, { total: 1, searchResults: [{ entity: { urn: 'urn:li:chart:(superset,facet_check)' } }] });
  });

  test('administrative entity types are read only by those who administer them', async () => {
    const secret = 'urn:li:dataHubSecret:db_password';
    await t.catalog.entities.ingest([{ urn: secret, entityType: 'dataHubSecret', aspect: 'dataHubSecretValue', changeType: 'UPSERT',
      systemMetadata: null, value: { name: 'db_password', value: 'encrypted' } }], rootActor());
    const reader = { authorization: `Bearer ${await t.tokenFor('secret_reader')}` };
    const refused = await t.graphql(`{ entity(urn: "${secret}") { urn } }`, undefined, reader);
    assert.equal(refused.body.errors?.[0]?.extensions?.code, 403);
    const rest = await t.app.inject({ url: `/aspects/${encodeURIComponent(secret)}?aspect=dataHubSecretValue`, headers: reader });
    assert.equal(rest.statusCode, 403);
    assert.deepEqual((await ok(`{ entity(urn: "${secret}") { urn type } }`)).entity, { urn: secret, type: 'OTHER' });
  });

  test('ownership types: the system ones exist from the start; custom ones are created, renamed, listed and deleted', async () => {
    const list = async (query = '') => (await ok(`{ listOwnershipTypes(input: { query: "${query}", count: 50 }) {
      total ownershipTypes { urn info { name description created { actor } } } } }`)).listOwnershipTypes;
    const initial = await list();
    for (const system of SYSTEM_OWNERSHIP_TYPES) {
      assert.deepEqual(initial.ownershipTypes.find((o: any) => o.urn === system.urn)?.info,
        { name: system.name, description: system.description, created: { actor: 'urn:li:corpuser:__datahub_system' } });
    }
    const created = await ok('mutation { createOwnershipType(input: { name: "Reviewer", description: "Reviews changes" }) { urn info { name description } } }');
    const urn = created.createOwnershipType.urn;
    assert.match(urn, /^urn:li:ownershipType:[0-9a-f-]{36}$/);
    assert.deepEqual(created.createOwnershipType.info, { name: 'Reviewer', description: 'Reviews changes' });
    const renamed = await ok(`mutation { updateOwnershipType(urn: "${urn}", input: { name: "Code reviewer" }) { info { name description } } }`);
    assert.deepEqual(renamed.updateOwnershipType.info, { name: 'Code reviewer', description: 'Reviews changes' });
    assert.deepEqual((await list('review')).ownershipTypes, [{ urn, info: { name: 'Code reviewer', description: 'Reviews changes',
      created: { actor: 'urn:li:corpuser:datahub' } } }]);

    // An owner under the custom type; deleting the type takes it off the owner list.
    const ds = 'urn:li:dataset:(urn:li:dataPlatform:hive,owned_by_type,PROD)';
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpuser:rita', entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { active: true } }, { urn: ds, entityType: 'dataset', aspect: 'status', changeType: 'UPSERT',
      systemMetadata: null, value: { removed: false } }], rootActor());
    await ok(`mutation { addOwners(input: { resourceUrn: "${ds}", owners: [{ ownerUrn: "urn:li:corpuser:rita", ownershipTypeUrn: "${urn}" },
      { ownerUrn: "urn:li:corpuser:rita", type: BUSINESS_OWNER }] }) }`);
    assert.equal((await ok(`mutation { deleteOwnershipType(urn: "${urn}") }`)).deleteOwnershipType, true);
    assert.equal((await t.catalog.store.existing([urn])).size, 0);
    assert.deepEqual((await ok(`{ dataset(urn: "${ds}") { ownership { owners { type ownershipType { urn } } } } }`)).dataset.ownership.owners,
      [{ type: 'BUSINESS_OWNER', ownershipType: { urn: 'urn:li:ownershipType:__system__business_owner' } }]);

    // A system type is only marked removed.
    const none = 'urn:li:ownershipType:__system__none';
    await ok(`mutation { deleteOwnershipType(urn: "${none}") }`);
    assert.deepEqual((await ok(`{ entity(urn: "${none}") { ... on OwnershipTypeEntity { status { removed } info { name } } } }`)).entity,
      { status: { removed: true }, info: { name: 'None' } });
    assert.equal((await list()).total, initial.total - 1);

    const unknown = await t.graphql(`mutation { addOwners(input: { resourceUrn: "${ds}", owners: [{ ownerUrn: "urn:li:corpuser:rita",
      ownershipTypeUrn: "urn:li:ownershipType:ghost" }] }) }`);
    assert.deepEqual([unknown.body.errors[0].extensions.code, unknown.body.errors[0].message], [404, 'Ownership type urn:li:ownershipType:ghost does not exist']);
    const plain = { authorization: `Bearer ${await t.tokenFor('not_an_admin')}` };
    const denied = await t.graphql('mutation { createOwnershipType(input: { name: "X", description: "Y" }) { urn } }', undefined, plain);
    assert.equal(denied.body.errors[0].extensions.code, 403);
  });

  test('owners of legacy types: read as DataHub maps them, removed by what they map to, and added once', async () => {
    const ds = 'urn:li:dataset:(urn:li:dataPlatform:hive,legacy_owners,PROD)';
    const jane = 'urn:li:corpuser:jane';
    await t.catalog.entities.ingest([
      { urn: jane, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT', systemMetadata: null, value: { active: true } },
      { urn: ds, entityType: 'dataset', aspect: 'ownership', changeType: 'UPSERT', systemMetadata: null,
        value: { owners: [{ owner: jane, type: 'DATAOWNER' }, { owner: jane, type: 'TECHNICAL_OWNER' }], lastModified: { time: 1, actor: jane } } },
    ], rootActor());
    const owners = async () => (await ok(`{ dataset(urn: "${ds}") { ownership { owners { type ownershipType { urn info { name } } } } } }`))
      .dataset.ownership.owners;
    assert.deepEqual(await owners(), [
      { type: 'DATAOWNER', ownershipType: { urn: 'urn:li:ownershipType:__system__dataowner', info: null } },
      { type: 'TECHNICAL_OWNER', ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner', info: { name: 'Technical Owner' } } }]);
    // Adding what is there (by urn or by legacy type) changes nothing, however often.
    for (let i = 0; i < 2; i++) {
      await ok(`mutation { addOwners(input: { resourceUrn: "${ds}", owners: [{ ownerUrn: "${jane}", type: TECHNICAL_OWNER,
        ownershipTypeUrn: "urn:li:ownershipType:__system__technical_owner" }] }) }`);
      await ok(`mutation { addOwner(input: { resourceUrn: "${ds}", ownerUrn: "${jane}", type: DATAOWNER }) }`);
    }
    assert.equal((await owners()).length, 2);
    await ok(`mutation { removeOwner(input: { resourceUrn: "${ds}", ownerUrn: "${jane}", ownershipTypeUrn: "urn:li:ownershipType:__system__dataowner" }) }`);
    assert.deepEqual((await owners()).map((o: any) => o.type), ['TECHNICAL_OWNER']);
  });

  test('edits on descriptor targets: an ML model\'s description goes where DataHub writes it', async () => {
    const model = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)';
    await t.catalog.entities.ingest([{ urn: model, entityType: 'mlModel', aspect: 'mlModelProperties', changeType: 'UPSERT',
      systemMetadata: null, value: { description: 'ingested' } }], rootActor());
    await ok(`mutation { updateDescription(input: { resourceUrn: "${model}", description: "Predicts churn" }) }`);
    assert.deepEqual((await t.catalog.entities.getAspect(model, 'editableMlModelProperties')).value, { description: 'Predicts churn' });
    const chartUrn = 'urn:li:chart:(superset,description_check)';
    await t.catalog.entities.ingest([{ urn: chartUrn, entityType: 'chart', aspect: 'status', changeType: 'UPSERT', systemMetadata: null,
      value: { removed: false } }], rootActor());
    const chart = await t.graphql(`mutation { updateDescription(input: { resourceUrn: "${chartUrn}", description: "d" }) }`);
    assert.equal(chart.body.errors[0].message, 'Failed to update description. Unsupported resource type chart');
  });
});
