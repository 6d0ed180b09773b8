import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * The ML entity types as DataHub 0.12.1's GraphQL serves them, read after ingesting real connector output (feast,
 * mlflow and sagemaker golden files) and aspects the connectors do not write, then edited and read back.
 */
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/connectors');
const FILES = ['feast_repository_mces.json', 'mlflow_mcps.json', 'sagemaker_mces.json'].map((f) => path.join(FIXTURES, f));

const SM_MODEL = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,the-second-model,PROD)';
const SM_GROUP = 'urn:li:mlModelGroup:(urn:li:dataPlatform:sagemaker,a-model-package-group,PROD)';
const SM_FIRST = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,the-first-model,PROD)';
const MLFLOW_MODEL = 'urn:li:mlModel:(urn:li:dataPlatform:mlflow,test-model_1,PROD)';
const MLFLOW_GROUP = 'urn:li:mlModelGroup:(urn:li:dataPlatform:mlflow,test-model,PROD)';
const TABLE = 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,feature_store.driver_hourly_stats)';
const FEATURE = 'urn:li:mlFeature:(feature_store.driver_hourly_stats,conv_rate)';
const KEY = 'urn:li:mlPrimaryKey:(feature_store.driver_hourly_stats,driver_id)';
const PARQUET = 'urn:li:dataset:(urn:li:dataPlatform:file,data.driver_stats_with_string.parquet,PROD)';
const DEPLOYMENT = 'urn:li:mlModelDeployment:(urn:li:dataPlatform:sagemaker,the-first-endpoint,PROD)';
const TRAINING_JOB = 'urn:li:dataJob:(urn:li:dataFlow:(sagemaker,training:a-training-job,PROD),arn:aws:sagemaker:us-west-2:123412341234:training-job/a-training-job)';
const EDGE_JOB = 'urn:li:dataJob:(urn:li:dataFlow:(sagemaker,edge_packaging:an-edge-packaging-job,PROD),arn:aws:sagemaker:us-west-2:123412341234:edge-packaging-job/an-edge-packaging-job)';
const TRANSFORM_JOB = 'urn:li:dataJob:(urn:li:dataFlow:(sagemaker,transform:a-transform-job,PROD),arn:aws:sagemaker:us-west-2:123412341234:transform-job/a-transform-job)';
const OWNER = 'urn:li:corpuser:ml-owner';
/** A model of our own with every aspect the connectors leave out. */
const CARD = 'urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn-card,PROD)';

const SHARED = `ownership { owners { owner { ... on CorpUser { urn } } type ownershipType { urn } associatedUrn } }
  tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } } domain { domain { urn } }
  institutionalMemory { elements { url label } } status { removed } deprecation { deprecated note }
  dataPlatformInstance { urn } lastIngested exists`;

const noShared = { ownership: null, tags: null, glossaryTerms: null, domain: null, institutionalMemory: null,
  deprecation: null, dataPlatformInstance: null, exists: true };

/** Model groups have no institutionalMemory field in DataHub 0.12.1. */
const { institutionalMemory: _links, ...withoutLinks } = noShared;

forEachEngine('ML entities: models, groups, features, feature tables, primary keys', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'data_platforms.json');
    const summary = await ingestFiles(t.catalog.entities, FILES, systemActor());
    assert.deepEqual(summary.failures, []);
    const mcp = (aspectName: string, json: unknown) => ({ entityType: 'mlModel', entityUrn: CARD, changeType: 'UPSERT', aspectName,
      aspect: { value: JSON.stringify(json), contentType: 'application/json' } });
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposalBatch', headers: t.auth, payload: { proposals: [
      mcp('mlModelProperties', { description: 'Predicts churn', type: 'gradient boosting', version: { versionTag: '3' },
        hyperParameters: { depth: { int: 6 }, rate: { double: 0.1 }, loss: { string: 'logloss' }, early: { boolean: true }, batch: 32, stage: 'v2', momentum: 0.9 },
        mlFeatures: [FEATURE], customProperties: {} }),
      mcp('intendedUse', { primaryUses: ['retention offers'], primaryUsers: ['ENTERPRISE'], outOfScopeUses: ['credit decisions'] }),
      mcp('mlModelFactorPrompts', { relevantFactors: [{ groups: ['region'], instrumentation: ['app'], environment: ['mobile'] }],
        evaluationFactors: [{ groups: ['tenure'] }] }),
      mcp('mlModelMetrics', { performanceMeasures: ['AUC'], decisionThreshold: ['0.4'] }),
      mcp('mlModelEvaluationData', { evaluationData: [{ dataset: PARQUET, motivation: 'holdout' }] }),
      mcp('mlModelTrainingData', { trainingData: [{ dataset: PARQUET, preProcessing: ['dedupe', 'scale'] }] }),
      mcp('mlModelQuantitativeAnalyses', { unitaryResults: { string: 'AUC 0.91' }, intersectionalResults: 'AUC 0.88 (new users)' }),
      mcp('mlModelEthicalConsiderations', { data: ['no PII'], humanLife: [], mitigations: ['human review'], risksAndHarms: ['bias'],
        useCases: ['offers'] }),
      mcp('mlModelCaveatsAndRecommendations', { caveats: { needsFurtherTesting: true, caveatDescription: 'new markets',
        groupsNotRepresented: ['EU'] }, recommendations: 'retrain monthly', idealDatasetCharacteristics: ['balanced'] }),
      mcp('sourceCode', { sourceCode: [{ type: 'ML_MODEL_SOURCE_CODE', sourceCodeUrl: 'https://git.example.com/churn' }] }),
      mcp('cost', { costType: 'ORG_COST_TYPE', cost: { costCode: 'CC-42' } }),
    ] } });
    assert.equal(res.statusCode, 200, res.body);
    await t.catalog.entities.ingest([{ urn: OWNER, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { active: true, displayName: 'ML Owner' } }], systemActor());
  });
  after(async () => t.close());

  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  const q = {
    model: (urn: string) => `{ mlModel(urn: "${urn}") { urn type name origin description
      platform { urn name properties { displayName } }
      properties { description date version type hyperParams { name value description createdAt } trainingMetrics { name value }
        mlFeatures tags groups { urn name } customProperties { key value } externalUrl }
      editableProperties { description } browsePaths { path } browsePathV2 { path { name } } ${SHARED}
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } degree } }
      down: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn } degree } } } }`,
    card: `{ mlModel(urn: "${CARD}") { properties { description version type mlFeatures customProperties { key value }
        hyperParameters { key value { __typename ... on StringBox { stringValue } ... on IntBox { intValue }
          ... on FloatBox { floatValue } ... on BooleanBox { booleanValue } } } }
      intendedUse { primaryUses primaryUsers outOfScopeUses }
      factorPrompts { relevantFactors { groups instrumentation environment } evaluationFactors { groups instrumentation environment } }
      metrics { performanceMeasures decisionThreshold } evaluationData { dataset motivation preProcessing }
      trainingData { dataset motivation preProcessing }
      quantitativeAnalyses { unitaryResults { ... on StringBox { stringValue } } intersectionalResults { ... on StringBox { stringValue } } }
      ethicalConsiderations { data humanLife mitigations risksAndHarms useCases }
      caveatsAndRecommendations { caveats { needsFurtherTesting caveatDescription groupsNotRepresented } recommendations idealDatasetCharacteristics }
      sourceCode { sourceCode { type sourceCodeUrl } } cost { costType costValue { costId costCode } }
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } } } }`,
    group: (urn: string) => `{ mlModelGroup(urn: "${urn}") { urn type name origin description platform { urn name }
      properties { description createdAt version { versionTag } customProperties { key value } }
      editableProperties { description } browsePaths { path } browsePathV2 { path { name } }
      ${SHARED.replace('institutionalMemory { elements { url label } } ', '')}
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } } } }`,
    table: `{ mlFeatureTable(urn: "${TABLE}") { urn type name description platform { urn name properties { displayName } }
      properties { description customProperties { key value }
        mlFeatures { urn name featureNamespace dataType } mlPrimaryKeys { urn name featureNamespace dataType } }
      featureTableProperties { mlFeatures { urn } } editableProperties { description }
      browsePaths { path } browsePathV2 { path { name entity { urn } } } ${SHARED} } }`,
    feature: `{ mlFeature(urn: "${FEATURE}") { urn type name featureNamespace description dataType
      properties { description dataType version { versionTag } sources { urn name platform { urn } } }
      featureProperties { dataType } editableProperties { description } browsePathV2 { path { name } } ${SHARED}
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } }
      down: lineage(input: { direction: DOWNSTREAM }) { total relationships { type entity { urn } } } } }`,
    key: `{ mlPrimaryKey(urn: "${KEY}") { urn type name featureNamespace description dataType
      properties { description dataType version { versionTag } sources { urn name } }
      primaryKeyProperties { dataType } editableProperties { description } ${SHARED}
      up: lineage(input: { direction: UPSTREAM }) { total relationships { type entity { urn } } } } }`,
  };

  /** A snapshot aspect of a fixture record, as the connector wrote it. */
  const fixtureAspect = (file: string, urn: string, cls: string): any => {
    const records = JSON.parse(readFileSync(path.join(FIXTURES, file), 'utf8')) as any[];
    for (const r of records) {
      const snap = r.proposedSnapshot && Object.values(r.proposedSnapshot)[0] as any;
      if (snap?.urn !== urn) continue;
      for (const a of snap.aspects) if (Object.keys(a)[0] === `com.linkedin.pegasus2avro.ml.metadata.${cls}`) return Object.values(a)[0];
    }
    throw new Error(`no ${cls} of ${urn} in ${file}`);
  };
  const entries = (m: Record<string, string>) => Object.entries(m).map(([key, value]) => ({ key, value }));

  test('mlModel from sagemaker: identity from the urn, platform, properties, browse paths, one-hop lineage both ways', async () => {
    const props = fixtureAspect('sagemaker_mces.json', SM_MODEL, 'MLModelProperties');
    assert.deepEqual((await ok(q.model(SM_MODEL))).mlModel, {
      urn: SM_MODEL, type: 'MLMODEL', name: 'the-second-model', origin: 'PROD', description: null,
      platform: { urn: 'urn:li:dataPlatform:sagemaker', name: 'sagemaker', properties: { displayName: 'SageMaker' } },
      properties: {
        description: null, date: 1420070400000, version: null, type: null,
        hyperParams: [{ name: 'parameter-1', value: 'some-value', description: null, createdAt: null },
          { name: 'parameter-2', value: 'another-value', description: null, createdAt: null }],
        trainingMetrics: [{ name: 'another-metric', value: '1.0' }, { name: 'some-metric', value: '1.0' }],
        mlFeatures: null, tags: [], groups: [{ urn: SM_GROUP, name: 'a-model-package-group' }],
        customProperties: entries(props.customProperties),
        externalUrl: 'https://us-west-2.console.aws.amazon.com/sagemaker/home?region=us-west-2#/models/the-second-model',
      },
      editableProperties: null, browsePaths: [{ path: ['sagemaker', 'a-model-package-group'] }], browsePathV2: { path: [{ name: 'Default' }] },
      ...noShared, status: { removed: false }, lastIngested: null,
      up: { total: 1, relationships: [{ type: 'TrainedBy', entity: { urn: TRAINING_JOB }, degree: 1 }] },
      down: { total: 3, relationships: [{ type: 'UsedBy', entity: { urn: EDGE_JOB }, degree: 1 },
        { type: 'UsedBy', entity: { urn: TRANSFORM_JOB }, degree: 1 }, { type: 'MemberOf', entity: { urn: SM_GROUP }, degree: 1 }] },
    });
    assert.equal(Object.keys(props.customProperties).length, 7);
  });

  test('mlModel from mlflow: version, tags of both kinds, custom properties, its group, when it was ingested', async () => {
    assert.deepEqual((await ok(q.model(MLFLOW_MODEL))).mlModel, {
      urn: MLFLOW_MODEL, type: 'MLMODEL', name: 'test-model_1', origin: 'PROD', description: null,
      platform: { urn: 'urn:li:dataPlatform:mlflow', name: 'mlflow', properties: { displayName: 'MLflow' } },
      properties: {
        description: null, date: 1615443388097, version: '1', type: null,
        hyperParams: [{ name: 'p', value: '1', description: null, createdAt: null }], trainingMetrics: [{ name: 'm', value: '0.85' }],
        mlFeatures: null, tags: ['model_version_id'], groups: [{ urn: MLFLOW_GROUP, name: 'test-model' }],
        customProperties: [{ key: 'model_version_id', value: '1' }], externalUrl: null,
      },
      // DataHub 0.12.1 writes an empty default browse path for an ML model ingested without one.
      editableProperties: null, browsePaths: [{ path: [] }], browsePathV2: { path: [{ name: 'Default' }] },
      ...noShared, tags: { tags: [{ tag: { urn: 'urn:li:tag:mlflow_archived' } }] }, status: { removed: false }, lastIngested: 1615443388097,
      up: { total: 0, relationships: [] },
      down: { total: 1, relationships: [{ type: 'MemberOf', entity: { urn: MLFLOW_GROUP }, degree: 1 }] },
    });
  });

  test('mlModel card: hyper-parameter map (Pegasus union members and plain values), intended use, factors, metrics, data, analyses, ethics, caveats, source code, cost', async () => {
    assert.deepEqual((await ok(q.card)).mlModel, {
      properties: {
        description: 'Predicts churn', version: '3', type: 'gradient boosting', mlFeatures: [FEATURE], customProperties: [],
        hyperParameters: [{ key: 'depth', value: { __typename: 'IntBox', intValue: 6 } },
          { key: 'rate', value: { __typename: 'FloatBox', floatValue: 0.1 } },
          { key: 'loss', value: { __typename: 'StringBox', stringValue: 'logloss' } },
          { key: 'early', value: { __typename: 'BooleanBox', booleanValue: true } },
          { key: 'batch', value: { __typename: 'IntBox', intValue: 32 } },
          { key: 'stage', value: { __typename: 'StringBox', stringValue: 'v2' } },
          { key: 'momentum', value: { __typename: 'FloatBox', floatValue: 0.9 } }],
      },
      intendedUse: { primaryUses: ['retention offers'], primaryUsers: ['ENTERPRISE'], outOfScopeUses: ['credit decisions'] },
      factorPrompts: { relevantFactors: [{ groups: ['region'], instrumentation: ['app'], environment: ['mobile'] }],
        evaluationFactors: [{ groups: ['tenure'], instrumentation: null, environment: null }] },
      metrics: { performanceMeasures: ['AUC'], decisionThreshold: ['0.4'] },
      evaluationData: [{ dataset: PARQUET, motivation: 'holdout', preProcessing: null }],
      trainingData: [{ dataset: PARQUET, motivation: null, preProcessing: ['dedupe', 'scale'] }],
      quantitativeAnalyses: { unitaryResults: { stringValue: 'AUC 0.91' }, intersectionalResults: { stringValue: 'AUC 0.88 (new users)' } },
      ethicalConsiderations: { data: ['no PII'], humanLife: [], mitigations: ['human review'], risksAndHarms: ['bias'], useCases: ['offers'] },
      caveatsAndRecommendations: { caveats: { needsFurtherTesting: true, caveatDescription: 'new markets', groupsNotRepresented: ['EU'] },
        recommendations: 'retrain monthly', idealDatasetCharacteristics: ['balanced'] },
      sourceCode: { sourceCode: [{ type: 'ML_MODEL_SOURCE_CODE', sourceCodeUrl: 'https://git.example.com/churn' }] },
      cost: { costType: 'ORG_COST_TYPE', costValue: { costId: null, costCode: 'CC-42' } },
      up: { total: 1, relationships: [{ type: 'Consumes', entity: { urn: FEATURE } }] },
    });
  });

  test('mlModelGroup from sagemaker: properties, ownership as DataHub maps DATAOWNER, its models upstream', async () => {
    const props = fixtureAspect('sagemaker_mces.json', SM_GROUP, 'MLModelGroupProperties');
    assert.deepEqual((await ok(q.group(SM_GROUP))).mlModelGroup, {
      urn: SM_GROUP, type: 'MLMODEL_GROUP', name: 'a-model-package-group', origin: 'PROD', description: 'Just a model package group.',
      platform: { urn: 'urn:li:dataPlatform:sagemaker', name: 'sagemaker' },
      properties: { description: 'Just a model package group.', createdAt: 1420070400000, version: null,
        customProperties: entries(props.customProperties) },
      editableProperties: null, browsePaths: [{ path: ['sagemaker'] }], browsePathV2: { path: [{ name: 'Default' }] },
      ...withoutLinks, status: { removed: false }, lastIngested: null,
      ownership: { owners: [{ owner: { urn: 'urn:li:corpuser:some-user' }, type: 'DATAOWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__dataowner' }, associatedUrn: SM_GROUP }] },
      up: { total: 2, relationships: [{ type: 'MemberOf', entity: { urn: SM_FIRST } }, { type: 'MemberOf', entity: { urn: SM_MODEL } }] },
    });
    assert.equal(props.customProperties.ModelPackageGroupStatus, 'Completed');
  });

  test('mlFeatureTable from feast: its features and primary keys as entities, platform, browse paths of both versions', async () => {
    const feature = (name: string, dataType: string) => ({ urn: `urn:li:mlFeature:(feature_store.driver_hourly_stats,${name})`, name,
      featureNamespace: 'feature_store.driver_hourly_stats', dataType });
    const features = [feature('conv_rate', 'CONTINUOUS'), feature('acc_rate', 'CONTINUOUS'), feature('avg_daily_trips', 'ORDINAL'),
      feature('string_feature', 'TEXT')];
    assert.deepEqual((await ok(q.table)).mlFeatureTable, {
      urn: TABLE, type: 'MLFEATURE_TABLE', name: 'feature_store.driver_hourly_stats', description: null,
      platform: { urn: 'urn:li:dataPlatform:feast', name: 'feast', properties: { displayName: 'Feast' } },
      properties: { description: null, customProperties: [], mlFeatures: features,
        mlPrimaryKeys: [{ urn: KEY, name: 'driver_id', featureNamespace: 'feature_store.driver_hourly_stats', dataType: 'ORDINAL' }] },
      featureTableProperties: { mlFeatures: features.map((f) => ({ urn: f.urn })) }, editableProperties: null,
      browsePaths: [{ path: ['feast', 'feature_store'] }], browsePathV2: { path: [{ name: 'feature_store', entity: null }] },
      ...noShared, status: { removed: false }, lastIngested: 1586847600000,
    });
  });

  test('mlFeature from feast: namespace, data type, description, its source datasets, lineage both ways', async () => {
    assert.deepEqual((await ok(q.feature)).mlFeature, {
      urn: FEATURE, type: 'MLFEATURE', name: 'conv_rate', featureNamespace: 'feature_store.driver_hourly_stats', description: 'Conv rate',
      dataType: 'CONTINUOUS',
      properties: { description: 'Conv rate', dataType: 'CONTINUOUS', version: null,
        sources: [{ urn: PARQUET, name: 'data.driver_stats_with_string.parquet', platform: { urn: 'urn:li:dataPlatform:file' } }] },
      featureProperties: { dataType: 'CONTINUOUS' }, editableProperties: null, browsePathV2: { path: [{ name: 'Default' }] },
      ...noShared, status: { removed: false }, lastIngested: 1586847600000,
      up: { total: 1, relationships: [{ type: 'DerivedFrom', entity: { urn: PARQUET } }] },
      down: { total: 1, relationships: [{ type: 'Consumes', entity: { urn: CARD } }] },
    });
  });

  test('mlPrimaryKey from feast: namespace, data type, description, sources', async () => {
    assert.deepEqual((await ok(q.key)).mlPrimaryKey, {
      urn: KEY, type: 'MLPRIMARY_KEY', name: 'driver_id', featureNamespace: 'feature_store.driver_hourly_stats', description: 'Driver ID',
      dataType: 'ORDINAL',
      properties: { description: 'Driver ID', dataType: 'ORDINAL', version: null,
        sources: [{ urn: PARQUET, name: 'data.driver_stats_with_string.parquet' }] },
      primaryKeyProperties: { dataType: 'ORDINAL' }, editableProperties: null,
      ...noShared, status: { removed: false }, lastIngested: 1586847600000,
      up: { total: 1, relationships: [{ type: 'DerivedFrom', entity: { urn: PARQUET } }] },
    });
  });

  test('mlModelDeployment (no GraphQL type in DataHub 0.12.1): its aspects are stored and served over REST; GraphQL answers a GenericEntity', async () => {
    const props = fixtureAspect('sagemaker_mces.json', DEPLOYMENT, 'MLModelDeploymentProperties');
    assert.deepEqual((await t.catalog.entities.getAspect(DEPLOYMENT, 'mlModelDeploymentProperties'))?.value, props);
    assert.deepEqual((await t.catalog.entities.getAspect(DEPLOYMENT, 'status'))?.value, { removed: false });
    const rest = await t.app.inject({ method: 'GET', url: `/entities/${encodeURIComponent(DEPLOYMENT)}`, headers: t.auth });
    assert.equal(rest.statusCode, 200, rest.body);
    const snapshot = JSON.parse(rest.body).value['com.linkedin.metadata.snapshot.MLModelDeploymentSnapshot'];
    assert.equal(snapshot.urn, DEPLOYMENT);
    assert.deepEqual(snapshot.aspects.find((a: object) => 'com.linkedin.ml.metadata.MLModelDeploymentProperties' in a)
      ['com.linkedin.ml.metadata.MLModelDeploymentProperties'], props);
    assert.deepEqual(await ok(`{ entity(urn: "${DEPLOYMENT}") { __typename urn type } }`),
      { entity: { __typename: 'GenericEntity', urn: DEPLOYMENT, type: 'OTHER' } });
  });

  test('root fields: an urn of another type is a 400, an ML entity never ingested a 404', async () => {
    const wrong = await t.graphql(`{ mlFeature(urn: "${TABLE}") { urn } }`);
    assert.deepEqual([wrong.body.data?.mlFeature ?? null, wrong.body.errors?.[0]?.extensions?.code], [null, 400]);
    const missing = await t.graphql(`{ mlPrimaryKey(urn: "urn:li:mlPrimaryKey:(nowhere,nothing)") { urn } }`);
    assert.deepEqual([missing.body.data?.mlPrimaryKey ?? null, missing.body.errors?.[0]?.extensions?.code], [null, 404]);
  });

  // Each type edited on an entity no read test above looks at.
  const EDITED = [
    { field: 'mlModel', urn: SM_FIRST, ingested: null, link: true },
    { field: 'mlModelGroup', urn: MLFLOW_GROUP, ingested: 'This a test registered model', link: false },
    { field: 'mlFeature', urn: 'urn:li:mlFeature:(feature_store.driver_hourly_stats,acc_rate)', ingested: 'Acc rate', link: true },
    { field: 'mlFeatureTable', urn: 'urn:li:mlFeatureTable:(urn:li:dataPlatform:sagemaker,test-1)', ingested: 'First test feature group', link: true },
    { field: 'mlPrimaryKey', urn: 'urn:li:mlPrimaryKey:(test-1,id)', ingested: null, link: true },
  ];
  for (const e of EDITED) {
    test(`${e.field}: description, tag, owner${e.link ? ' and link' : ''} edits read back`, async () => {
      await ok(`mutation { updateDescription(input: { resourceUrn: "${e.urn}", description: "Edited ${e.field}" }) }`);
      await ok(`mutation { addTag(input: { tagUrn: "urn:li:tag:mlflow_production", resourceUrn: "${e.urn}" }) }`);
      await ok(`mutation { addOwner(input: { ownerUrn: "${OWNER}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER,
        resourceUrn: "${e.urn}" }) }`);
      if (e.link) await ok(`mutation { addLink(input: { linkUrl: "https://wiki.example.com/ml", label: "Wiki", resourceUrn: "${e.urn}" }) }`);
      const data = await ok(`{ ${e.field}(urn: "${e.urn}") { description editableProperties { description } properties { description }
        tags { tags { tag { urn } associatedUrn } } ownership { owners { owner { ... on CorpUser { urn } } type associatedUrn } }
        ${e.link ? 'institutionalMemory { elements { url label description author { urn } associatedUrn } }' : ''} } }`);
      assert.deepEqual(data[e.field], {
        description: e.ingested,
        editableProperties: { description: `Edited ${e.field}` },
        properties: { description: `Edited ${e.field}` },
        tags: { tags: [{ tag: { urn: 'urn:li:tag:mlflow_production' }, associatedUrn: e.urn }] },
        ownership: { owners: [{ owner: { urn: OWNER }, type: 'TECHNICAL_OWNER', associatedUrn: e.urn }] },
        ...(e.link ? { institutionalMemory: { elements: [{ url: 'https://wiki.example.com/ml', label: 'Wiki', description: 'Wiki',
          author: { urn: 'urn:li:corpuser:datahub' }, associatedUrn: e.urn }] } } : {}),
      });
    });
  }
});
