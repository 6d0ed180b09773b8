import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildSchema, parse, print } from 'graphql';
import { jitWorthy } from '../src/graphql/engine.js';
import { schemaSdl } from '../src/graphql/schema.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, readSample, startApp, type TestApp } from './support/app.js';
import { webappDocument, withTypename } from './support/webapp.js';

/**
 * The pages of DataHub 0.12.1's web app, executed (issue 15): home, search, and the dataset, chart, dashboard, data
 * job, data flow, container, domain, glossary-term, tag, user and group pages. Each runs the operations the page
 * sends, with its fragments, with the `__typename` Apollo adds to every selection set, and with the variables the
 * page passes (read from datahub-web-react at v0.12.1), over DataHub's own example metadata
 * (samples/datahub/bootstrap_mce.json and test_domains.json) plus a few aspects tying it together (a dataset in a
 * container, in a domain, with a glossary term). Expectations are read from the fixture files, not from Almanac.
 */

const sent = new Map<string, string>();
const webappSent = (name: string) => {
  if (!sent.has(name)) sent.set(name, print(withTypename(webappDocument(name))));
  return sent.get(name)!;
};

// ---- the fixture, read from the sample files ----
type Aspects = Map<string, Record<string, any>>;
/** urn → aspect name (last segment of the MCE class name, lower-camel; MCP aspectName) → value. */
const FIXTURE = new Map<string, Aspects>();
for (const file of ['bootstrap_mce.json', 'test_domains.json']) {
  for (const r of readSample(file) as any[]) {
    if (r.proposedSnapshot) {
      const snap = Object.values(r.proposedSnapshot)[0] as { urn: string; aspects: Record<string, unknown>[] };
      const m = FIXTURE.get(snap.urn) ?? new Map();
      for (const a of snap.aspects) {
        const [cls, value] = Object.entries(a)[0]!;
        const short = cls.split('.').pop()!;
        m.set(short.charAt(0).toLowerCase() + short.slice(1), value);
      }
      FIXTURE.set(snap.urn, m);
    } else {
      const m = FIXTURE.get(r.entityUrn) ?? new Map();
      m.set(r.aspectName, JSON.parse(r.aspect.value));
      FIXTURE.set(r.entityUrn, m);
    }
  }
}
/** A value of the fixture, unwrapping Avro unions ({"string": "x"} → "x"). */
const unwrap = (v: any): any => (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && ['string', 'array', 'long', 'int'].includes(Object.keys(v)[0]!)) ? Object.values(v)[0] : v;
const fx = (urn: string, aspect: string): any => {
  const a = FIXTURE.get(urn)?.get(aspect);
  assert.ok(a, `the fixture has no ${aspect} for ${urn}`);
  return a;
};
const typeOfUrn = (urn: string) => urn.slice('urn:li:'.length).split(':', 1)[0];
const urnsOfType = (type: string) => [...FIXTURE.keys()].filter((u) => typeOfUrn(u) === type).sort();

const dsUrn = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const KAFKA = dsUrn('kafka', 'SampleKafkaDataset');
const HDFS = dsUrn('hdfs', 'SampleHdfsDataset');
const HIVE = dsUrn('hive', 'SampleHiveDataset');
const EVENTS = dsUrn('hive', 'logging_events');
const CREATED = dsUrn('hive', 'fct_users_created');
const DELETED = dsUrn('hive', 'fct_users_deleted');
const BACKUP = dsUrn('s3', 'project/root/events/logging_events_bckp');
const FLOW = 'urn:li:dataFlow:(airflow,dag_abc,PROD)';
const JOB1 = `urn:li:dataJob:(${FLOW},task_123)`;
const JOB2 = `urn:li:dataJob:(${FLOW},task_456)`;
const CHART1 = 'urn:li:chart:(looker,baz1)';
const CHART2 = 'urn:li:chart:(looker,baz2)';
const DASH = 'urn:li:dashboard:(looker,baz)';
const DB = 'urn:li:container:DATABASE';
const SCHEMA = 'urn:li:container:SCHEMA';
const DOMAIN = 'urn:li:domain:marketing';
const TERM = 'urn:li:glossaryTerm:CustomerAccount';
const NODE = 'urn:li:glossaryNode:ClientsAndAccounts';
const LEGACY = 'urn:li:tag:Legacy';
const JDOE = 'urn:li:corpuser:jdoe';
const ROOT = 'urn:li:corpuser:datahub';
const BFOO = 'urn:li:corpGroup:bfoo';
const GJDOE = 'urn:li:corpGroup:jdoe';

/** The owners of an entity as the fixture stores them: owner urn and DataHub's ownership type. */
const fixtureOwners = (urn: string) => (fx(urn, 'ownership').owners as any[]).map((o) => ({ urn: o.owner, type: o.type }))
  .sort((a, b) => `${a.urn} ${a.type}`.localeCompare(`${b.urn} ${b.type}`));
const answeredOwners = (ownership: any) => (ownership?.owners ?? []).map((o: any) => ({ urn: o.owner.urn, type: o.type }))
  .sort((a: any, b: any) => `${a.urn} ${a.type}`.localeCompare(`${b.urn} ${b.type}`));
const sorted = <T>(xs: T[]) => [...xs].sort();
/**
 * What is one hop downstream of a dataset in the fixture: datasets whose upstreamLineage names it, jobs that read it,
 * ML features and primary keys whose sources name it.
 */
const downstreamOf = (urn: string) => sorted([...FIXTURE].filter(([, m]) =>
  m.get('upstreamLineage')?.upstreams.some((x: any) => x.dataset === urn)
  || m.get('dataJobInputOutput')?.inputDatasets?.includes(urn)
  || m.get('mLFeatureProperties')?.sources?.includes(urn) || m.get('mLPrimaryKeyProperties')?.sources?.includes(urn)).map(([u]) => u));

forEachEngine('web app: pages', (ctx) => {
  let t: TestApp;

  const put = async (urn: string, aspectName: string, value: unknown) => {
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth, payload: { proposal: {
      entityType: typeOfUrn(urn), entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } } });
    assert.equal(res.statusCode, 200, `${urn} ${aspectName}: ${res.body}`);
  };
  /** Runs one of the web app's operations as it sends it; no errors. */
  const run = async (name: string, variables: Record<string, unknown> = {}) => {
    const res = await t.graphql(webappSent(name), variables);
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 2000));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json', 'test_domains.json');
    // What ties the sample together: fct_users_created in the schema container, in the domain, with a term.
    await put(CREATED, 'container', { container: SCHEMA });
    await put(CREATED, 'domains', { domains: [DOMAIN] });
    await put(CREATED, 'glossaryTerms', { terms: [{ urn: TERM }], auditStamp: { time: 1_700_000_000_000, actor: ROOT } });
    await put(CREATED, 'dataPlatformInstance', { platform: 'urn:li:dataPlatform:hive' });
    // Group membership as DataHub stores it (the user's groupMembership; CorpGroupInfo.members is deprecated).
    await put(JDOE, 'groupMembership', { groups: [BFOO, GJDOE] });
    await put(ROOT, 'groupMembership', { groups: [BFOO] });
  });
  after(async () => t.close());

  // ---------------- home page ----------------
  test('home page', async () => {
    const me = await run('getMe');
    assert.equal(me.me.corpUser.urn, ROOT);
    assert.equal(me.me.corpUser.username, 'datahub');
    const info = fx(ROOT, 'corpUserInfo');
    assert.equal(me.me.corpUser.info.displayName, unwrap(info.displayName));
    assert.equal(me.me.corpUser.info.email, info.email);
    assert.equal(me.me.corpUser.info.title, unwrap(info.title));
    assert.equal(me.me.platformPrivileges.managePolicies, true);

    const config = await run('appConfig');
    assert.equal(typeof config.appConfig.appVersion, 'string');

    await run('getGlobalViewsSettings');
    await run('listMyViews', { start: 0, count: 100, viewType: 'PERSONAL' });
    // Quick filters: the five platforms holding most entities (hive: 4 datasets and 2 containers; looker: 2 charts and a
    // dashboard; airflow: a flow and 2 jobs; feast: the feature tables), then entity types.
    const quick = (await run('getQuickFilters', { input: {} })).getQuickFilters.quickFilters as any[];
    const platforms = quick.filter((q) => q.field === 'platform');
    assert.equal(platforms.length, 5);
    for (const p of ['hive', 'looker', 'airflow', 'feast']) assert.ok(platforms.some((q) => q.value === `urn:li:dataPlatform:${p}` && q.entity.urn === q.value), p);
    assert.ok(quick.some((q) => q.field === '_entityType' && q.value === 'DATASET'), JSON.stringify(quick));

    const types = ['DATASET', 'DASHBOARD', 'CHART', 'DATA_FLOW', 'DATA_JOB', 'CONTAINER', 'DOMAIN', 'GLOSSARY_TERM', 'CORP_USER', 'CORP_GROUP'];
    const counts = await run('getEntityCounts', { input: { types } });
    const typeName: Record<string, string> = { DATASET: 'dataset', DASHBOARD: 'dashboard', CHART: 'chart', DATA_FLOW: 'dataFlow', DATA_JOB: 'dataJob',
      CONTAINER: 'container', DOMAIN: 'domain', GLOSSARY_TERM: 'glossaryTerm', CORP_USER: 'corpuser', CORP_GROUP: 'corpGroup' };
    const got = Object.fromEntries(counts.getEntityCounts.counts.map((c: any) => [c.entityType, c.count]));
    for (const type of types) assert.equal(got[type], urnsOfType(typeName[type]!).length, type);

    const recs = await run('listRecommendations', { input: { userUrn: ROOT, requestContext: { scenario: 'HOME' }, limit: 10 } });
    const mod = (id: string) => recs.listRecommendations.modules.find((m: any) => m.moduleId === id)?.content.map((c: any) => c.entity?.urn ?? c.value);
    assert.deepEqual(mod('Domains'), [DOMAIN]);
    assert.deepEqual(mod('TopTags'), [LEGACY]);
    assert.deepEqual(mod('TopTerms'), [TERM]);

    await run('createPost', { input: { postType: 'HOME_PAGE_ANNOUNCEMENT', content: { contentType: 'TEXT', title: 'Welcome', description: 'Sample catalog' } } });
    const posts = await run('listPosts', { input: { start: 0, count: 10 } });
    assert.deepEqual(posts.listPosts.posts.map((p: any) => [p.content.contentType, p.content.title, p.content.description]), [['TEXT', 'Welcome', 'Sample catalog']]);
  });

  // ---------------- search page ----------------
  test('search page', async () => {
    const all = await run('getSearchResultsForMultiple', { input: { types: [], query: '*', start: 0, count: 10, filters: [], orFilters: [],
      searchFlags: { getSuggestions: true } } });
    assert.ok(all.searchAcrossEntities.total >= urnsOfType('dataset').length, `${all.searchAcrossEntities.total} found`);
    const fct = await run('getSearchResultsForMultiple', { input: { types: [], query: 'fct_users', start: 0, count: 10, filters: [], orFilters: [],
      searchFlags: { getSuggestions: true } } });
    // The two tables by name; the flow and its jobs by their descriptions, which name the tables.
    assert.deepEqual(sorted(fct.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)), sorted([CREATED, DELETED, FLOW, JOB1, JOB2]));
    assert.ok([FLOW, JOB1, JOB2].every((u) => JSON.stringify([...FIXTURE.get(u)!.values()]).includes('fct_users')), 'the fixture mentions fct_users in each');
    const created = fct.searchAcrossEntities.searchResults.find((r: any) => r.entity.urn === CREATED).entity;
    assert.equal(created.properties.description, fx(CREATED, 'datasetProperties').description);
    assert.equal(created.platform.urn, 'urn:li:dataPlatform:hive');
    assert.deepEqual(answeredOwners(created.ownership), fixtureOwners(CREATED));
    assert.deepEqual(created.parentContainers.containers.map((x: any) => x.urn), [SCHEMA, DB]);
    assert.equal(created.domain?.domain.urn, DOMAIN);
    assert.deepEqual(created.glossaryTerms.terms.map((x: any) => x.term.urn), [TERM]);

    const facets = ['_entityType', 'platform', 'owners', 'tags', 'glossaryTerms', 'domains'];
    const agg = await run('aggregateAcrossEntities', { input: { types: [], facets, orFilters: [], query: '*', searchFlags: { maxAggValues: 40 } } });
    const facet = (f: string) => Object.fromEntries(agg.aggregateAcrossEntities.facets.find((x: any) => x.field === f).aggregations.map((a: any) => [a.value, a.count]));
    assert.equal(facet('_entityType').DATASET, urnsOfType('dataset').length);
    // Hive: its datasets and the two containers whose dataPlatformInstance names it.
    const onHive = [...FIXTURE].filter(([u, m]) => u.includes('(urn:li:dataPlatform:hive,') || m.get('dataPlatformInstance')?.platform === 'urn:li:dataPlatform:hive');
    assert.equal(facet('platform')['urn:li:dataPlatform:hive'], onHive.length);
    assert.equal(facet('domains')[DOMAIN], 2);

    const ac = await run('getAutoCompleteMultipleResults', { input: { query: 'fct_users', limit: 10 } });
    const ds = ac.autoCompleteForMultiple.suggestions.find((s: any) => s.type === 'DATASET');
    assert.deepEqual(sorted(ds.entities.map((e: any) => e.urn)), [CREATED, DELETED]);
  });

  // ---------------- dataset page ----------------
  test('dataset page', async () => {
    const { dataset } = await run('getDataset', { urn: HDFS });
    assert.equal(dataset.urn, HDFS);
    assert.equal(dataset.name, 'SampleHdfsDataset');
    assert.equal(dataset.platform.urn, 'urn:li:dataPlatform:hdfs');
    assert.deepEqual(answeredOwners(dataset.ownership), fixtureOwners(HDFS));
    assert.deepEqual(dataset.institutionalMemory.elements.map((e: any) => [e.url, e.description, e.author.urn]),
      fx(HDFS, 'institutionalMemory').elements.map((e: any) => [e.url, e.description, e.createStamp.actor]));

    const c = (await run('getDataset', { urn: CREATED })).dataset;
    const props = fx(CREATED, 'datasetProperties');
    assert.equal(c.properties.description, props.description);
    assert.deepEqual(c.properties.customProperties.map((p: any) => [p.key, p.value]), Object.entries(props.customProperties));
    assert.equal(c.container.urn, SCHEMA);
    assert.deepEqual(c.parentContainers.containers.map((x: any) => x.urn), [SCHEMA, DB]);
    assert.equal(c.domain.domain.urn, DOMAIN);
    assert.equal(c.domain.domain.properties.name, fx(DOMAIN, 'domainProperties').name);
    assert.deepEqual(c.glossaryTerms.terms.map((x: any) => [x.term.urn, x.term.properties?.name ?? x.term.name]), [[TERM, 'CustomerAccount']]);

    const hive = (await run('getDataset', { urn: HIVE })).dataset;
    assert.deepEqual(hive.globalTags.tags.map((x: any) => [x.tag.urn, x.tag.properties?.name ?? x.tag.name]), [[LEGACY, 'Legacy']]);

    const schema = await run('getDatasetSchema', { urn: KAFKA });
    const fields = fx(KAFKA, 'schemaMetadata').fields as any[];
    assert.deepEqual(schema.dataset.schemaMetadata.fields.map((f: any) => [f.fieldPath, f.nativeDataType, f.description ?? null]),
      fields.map((f) => [f.fieldPath, f.nativeDataType, unwrap(f.description) ?? null]));
    assert.equal(schema.dataset.schemaMetadata.name, fx(KAFKA, 'schemaMetadata').schemaName);
    const hdfsSchema = (await run('getDatasetSchema', { urn: HDFS })).dataset;
    assert.deepEqual(hdfsSchema.editableSchemaMetadata.editableSchemaFieldInfo.map((f: any) => [f.fieldPath, f.globalTags.tags.map((x: any) => x.tag.urn)]),
      fx(HDFS, 'editableSchemaMetadata').editableSchemaFieldInfo.map((f: any) => [f.fieldPath, f.globalTags.tags.map((x: any) => x.tag)]));

    // Lineage: logging_events feeds fct_users_created (upstreamLineage) and task_123 reads it and writes fct_users_created.
    const lineage = await run('getEntityLineage', { urn: CREATED, separateSiblings: false, showColumns: false });
    const rels = (dir: 'upstream' | 'downstream') => sorted(lineage.entity[dir].relationships.map((r: any) => r.entity.urn));
    assert.deepEqual(rels('upstream'), sorted([EVENTS, JOB1]));
    assert.deepEqual(rels('downstream'), downstreamOf(CREATED));
    const counts = await run('getLineageCounts', { urn: CREATED, separateSiblings: false });
    assert.equal(counts.entity.upstream.total, 2);
    assert.equal(counts.entity.downstream.total, downstreamOf(CREATED).length);
    // The lineage tab: everything one hop downstream of logging_events.
    const down = await run('searchAcrossLineage', { input: { urn: EVENTS, direction: 'DOWNSTREAM', query: '*', types: [], start: 0, count: 10, filters: [],
      orFilters: [{ and: [{ field: 'degree', condition: 'EQUAL', values: ['1'] }] }] } });
    assert.deepEqual(sorted(down.searchAcrossLineage.searchResults.map((r: any) => r.entity.urn)), downstreamOf(EVENTS));
    assert.deepEqual(downstreamOf(EVENTS), sorted([CREATED, DELETED, BACKUP, JOB1, JOB2]));

    await run('getDatasetAssertions', { urn: CREATED });
    await run('getDataProfiles', { urn: CREATED, limit: 1 });
    await run('getLastMonthUsageAggregations', { urn: CREATED });
    await run('getDatasetRuns', { urn: CREATED, start: 0, count: 20, direction: 'INCOMING' });
    await run('getSchemaBlame', { input: { datasetUrn: KAFKA } });
    await run('getSchemaVersionList', { input: { datasetUrn: KAFKA } });
  });

  // The web app sends getEntityLineage for every node it expands; mercurius compiles an operation with graphql-jit on
  // its second run, which for a document this size took ~40 s of synchronous CPU. Such documents are not compiled
  // (src/graphql/engine.ts, JIT_MAX_FIELDS): the second request answers as the first did.
  test('a second getEntityLineage request answers as the first (large documents run without graphql-jit)', async () => {
    const first = await run('getEntityLineage', { urn: EVENTS, separateSiblings: false, showColumns: false });
    const second = await run('getEntityLineage', { urn: EVENTS, separateSiblings: false, showColumns: false });
    assert.deepEqual(second, first);
    assert.deepEqual(sorted(second.entity.downstream.relationships.map((r: any) => r.entity.urn)), downstreamOf(EVENTS));
    const schema = buildSchema(schemaSdl());
    assert.equal(jitWorthy(schema, withTypename(webappDocument('getEntityLineage')), 'getEntityLineage'), false);
    assert.equal(jitWorthy(schema, parse('query q($urn: String!) { dataset(urn: $urn) { urn properties { name description } } }'), 'q'), true);
  });

  // ---------------- chart and dashboard pages ----------------
  test('chart page', async () => {
    const { chart } = await run('getChart', { urn: CHART1 });
    const info = fx(CHART1, 'chartInfo');
    assert.equal(chart.properties.name, info.title);
    assert.equal(chart.properties.description, info.description);
    assert.equal(chart.platform.urn, 'urn:li:dataPlatform:looker');
    assert.deepEqual(chart.globalTags.tags.map((x: any) => x.tag.urn), [LEGACY]);
    assert.deepEqual(chart.inputs.relationships.map((r: any) => r.entity.urn), info.inputs);
    assert.deepEqual(chart.dashboards.relationships.map((r: any) => r.entity.urn), [DASH]);
    const lineage = await run('getEntityLineage', { urn: CHART1, separateSiblings: false, showColumns: false });
    assert.deepEqual(lineage.entity.upstream.relationships.map((r: any) => r.entity.urn), [KAFKA]);
    assert.deepEqual(lineage.entity.downstream.relationships.map((r: any) => r.entity.urn), [DASH]);
  });

  test('dashboard page', async () => {
    const { dashboard } = await run('getDashboard', { urn: DASH });
    const info = fx(DASH, 'dashboardInfo');
    assert.equal(dashboard.properties.name, info.title);
    assert.equal(dashboard.properties.description, info.description);
    assert.deepEqual(dashboard.properties.customProperties.map((p: any) => [p.key, p.value]), Object.entries(info.customProperties));
    assert.deepEqual(answeredOwners(dashboard.ownership), fixtureOwners(DASH));
    assert.deepEqual(sorted(dashboard.charts.relationships.map((r: any) => r.entity.urn)), sorted(info.charts));
  });

  // ---------------- data job and data flow pages ----------------
  test('data job page', async () => {
    const { dataJob } = await run('getDataJob', { urn: JOB2 });
    const info = fx(JOB2, 'dataJobInfo');
    assert.equal(dataJob.properties.name, info.name);
    assert.equal(dataJob.properties.description, info.description);
    assert.equal(dataJob.dataFlow.urn, FLOW);
    assert.equal(dataJob.dataFlow.properties.name, fx(FLOW, 'dataFlowInfo').name);
    assert.deepEqual(answeredOwners(dataJob.ownership), fixtureOwners(JOB2));
    await run('getDataJobRuns', { urn: JOB2, start: 0, count: 20 });
    const lineage = await run('getEntityLineage', { urn: JOB2, separateSiblings: false, showColumns: false });
    const io = fx(JOB2, 'dataJobInputOutput');
    assert.deepEqual(sorted(lineage.entity.upstream.relationships.map((r: any) => r.entity.urn)), sorted([...io.inputDatasets, ...io.inputDatajobs]));
    assert.deepEqual(lineage.entity.downstream.relationships.map((r: any) => r.entity.urn), io.outputDatasets);
  });

  test('data flow page', async () => {
    const { dataFlow } = await run('getDataFlow', { urn: FLOW });
    const info = fx(FLOW, 'dataFlowInfo');
    assert.equal(dataFlow.properties.name, info.name);
    assert.equal(dataFlow.properties.description, info.description);
    assert.equal(dataFlow.orchestrator, 'airflow');
    assert.equal(dataFlow.platform.urn, 'urn:li:dataPlatform:airflow');
    assert.deepEqual(answeredOwners(dataFlow.ownership), fixtureOwners(FLOW));
    assert.deepEqual(sorted(dataFlow.childJobs.relationships.map((r: any) => r.entity.urn)), [JOB1, JOB2]);
  });

  // ---------------- container, domain, glossary term, tag ----------------
  test('container page', async () => {
    const { container } = await run('getContainer', { urn: SCHEMA });
    const props = fx(SCHEMA, 'containerProperties');
    assert.equal(container.properties.name, props.name);
    assert.equal(container.properties.description, props.description);
    assert.deepEqual(container.subTypes.typeNames, fx(SCHEMA, 'subTypes').typeNames);
    assert.equal(container.platform.urn, 'urn:li:dataPlatform:hive');
    assert.equal(container.container.urn, DB);
    assert.deepEqual(container.parentContainers.containers.map((x: any) => x.urn), [DB]);
    // The page's Entities tab: a search filtered on the container.
    const inside = await run('getSearchResultsForMultiple', { input: { types: [], query: '*', start: 0, count: 10,
      filters: [], orFilters: [{ and: [{ field: 'container', values: [SCHEMA] }] }], searchFlags: { skipCache: true } } });
    const inSchema = [...FIXTURE].filter(([, m]) => m.get('container')?.container === SCHEMA).map(([u]) => u);
    assert.deepEqual(sorted(inside.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)), sorted([...inSchema, CREATED]));
    const db = (await run('getContainer', { urn: DB })).container;
    assert.equal(db.properties.name, fx(DB, 'containerProperties').name);
  });

  test('domain page', async () => {
    const { domain } = await run('getDomain', { urn: DOMAIN });
    const props = fx(DOMAIN, 'domainProperties');
    assert.equal(domain.properties.name, props.name);
    assert.equal(domain.properties.description, props.description);
    const inside = await run('getSearchResultsForMultiple', { input: { types: [], query: '*', start: 0, count: 10,
      filters: [], orFilters: [{ and: [{ field: 'domains', values: [DOMAIN] }] }] } });
    assert.deepEqual(sorted(inside.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)),
      sorted([...FIXTURE].filter(([, m]) => m.get('domains')?.domains.includes(DOMAIN)).map(([u]) => u).concat(CREATED)));
  });

  test('glossary term page', async () => {
    const { glossaryTerm } = await run('getGlossaryTerm', { urn: TERM, start: 0, count: 5 });
    const info = fx(TERM, 'glossaryTermInfo');
    assert.equal(glossaryTerm.name, 'CustomerAccount');
    assert.equal(glossaryTerm.properties.description, info.definition);
    assert.equal(glossaryTerm.properties.termSource, info.termSource);
    assert.equal(glossaryTerm.properties.sourceRef, info.sourceRef);
    assert.equal(glossaryTerm.properties.sourceUrl, info.sourceUrl);
    assert.deepEqual(glossaryTerm.properties.customProperties.map((p: any) => [p.key, p.value]), Object.entries(info.customProperties));
    assert.deepEqual(glossaryTerm.parentNodes.nodes.map((n: any) => n.urn), [NODE]);
    assert.deepEqual(answeredOwners(glossaryTerm.ownership), fixtureOwners(TERM));
    const node = await run('getGlossaryNode', { urn: NODE });
    assert.equal(node.glossaryNode.properties.description, fx(NODE, 'glossaryNodeInfo').definition);
    assert.deepEqual(sorted(node.glossaryNode.children.relationships.map((r: any) => r.entity.urn)), urnsOfType('glossaryTerm'));
  });

  test('tag page', async () => {
    const { tag } = await run('getTag', { urn: LEGACY });
    const props = fx(LEGACY, 'tagProperties');
    assert.equal(tag.name, props.name);
    assert.equal(tag.properties.name, props.name);
    assert.equal(tag.description, props.description);
    assert.deepEqual(answeredOwners(tag.ownership), fixtureOwners(LEGACY));
    // The page's counts by type: a search on the tag.
    const tagged = await run('getSearchResultsForMultiple', { input: { types: [], query: '*', start: 0, count: 10,
      filters: [], orFilters: [{ and: [{ field: 'tags', values: [LEGACY] }] }] } });
    assert.deepEqual(sorted(tagged.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)), sorted([HIVE, CHART1]));
  });

  // ---------------- user and group ----------------
  test('user page', async () => {
    const { corpUser } = await run('getUser', { urn: JDOE, groupsCount: 20 });
    const info = fx(JDOE, 'corpUserInfo');
    assert.equal(corpUser.username, 'jdoe');
    assert.equal(corpUser.info.displayName, unwrap(info.displayName));
    assert.equal(corpUser.info.email, info.email);
    assert.equal(corpUser.info.title, unwrap(info.title));
    assert.equal(corpUser.info.fullName, unwrap(info.fullName));
    const memberOf = [BFOO, GJDOE];
    assert.deepEqual(sorted(corpUser.groups.relationships.map((r: any) => r.entity.urn)), memberOf);
    const groups = await run('getUserGroups', { urn: JDOE, start: 0, count: 20 });
    assert.deepEqual(sorted(groups.corpUser.relationships.relationships.map((r: any) => r.entity.urn)), memberOf);
    // The Owner Of tab: a search on owners.
    const owned = await run('getSearchResultsForMultiple', { input: { types: [], query: '*', start: 0, count: 50,
      filters: [], orFilters: [{ and: [{ field: 'owners', values: [JDOE] }] }] } });
    const ownedByJdoe = [...FIXTURE].filter(([, m]) => m.get('ownership')?.owners.some((o: any) => o.owner === JDOE)).map(([u]) => u)
      .filter((u) => !u.startsWith('urn:li:dataPlatform'));
    assert.deepEqual(sorted(owned.searchAcrossEntities.searchResults.map((r: any) => r.entity.urn)), sorted(ownedByJdoe));
  });

  test('group page', async () => {
    const { corpGroup } = await run('getGroup', { urn: BFOO, membersCount: 15 });
    const info = fx(BFOO, 'corpGroupInfo');
    assert.equal(corpGroup.name, 'bfoo');
    assert.equal(corpGroup.info.description, info.description);
    assert.equal(corpGroup.info.email, info.email);
    assert.equal(corpGroup.properties.description, info.description);
    assert.deepEqual(corpGroup.relationships.relationships.map((r: any) => [r.entity.urn, r.entity.info.displayName]),
      [ROOT, JDOE].map((u) => [u, unwrap(fx(u, 'corpUserInfo').displayName)]));
    const members = await run('getAllGroupMembers', { urn: BFOO, start: 0, count: 15 });
    assert.deepEqual(sorted(members.corpGroup.relationships.relationships.map((r: any) => r.entity.urn)), [ROOT, JDOE]);
  });
});
