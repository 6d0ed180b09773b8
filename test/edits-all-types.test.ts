import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { AlmanacError } from '../src/errors.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, type TestApp } from './support/app.js';
import { freshAppPerTest } from './support/fresh.js';

/**
 * Edits on every entity type DataHub 0.12.1 allows them on (descriptions, tags, terms, owners, links, domain,
 * deprecation, one at a time and in batches, and the per-type updates), on entities ingested from connector golden
 * files: each edit answers true and is read back from the store and, for the first-class types, through GraphQL.
 */
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures/connectors');
const FILES = ['looker_mces.json', 'airflow_v2_simple_dag.json', 'mlflow_mcps.json', 'feast_repository_mces.json',
  'postgres_mces_with_db.json', 'ldap_mces.json', 'okta_mces.json', 'dataproduct_yaml_golden.json'];

const CHART = 'urn:li:chart:(looker,dashboard_elements.2)';
const DASHBOARD = 'urn:li:dashboard:(looker,dashboards.11)';
const FLOW = 'urn:li:dataFlow:(airflow,simple_dag,prod)';
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,simple_dag,prod),task_1)';
const MODEL = 'urn:li:mlModel:(urn:li:dataPlatform:mlflow,test-model_1,PROD)';
const MODEL_GROUP = 'urn:li:mlModelGroup:(urn:li:dataPlatform:mlflow,test-model,PROD)';
const FEATURE = 'urn:li:mlFeature:(feature_store.driver_hourly_stats,conv_rate)';
const FEATURE_TABLE = 'urn:li:mlFeatureTable:(urn:li:dataPlatform:feast,feature_store.driver_hourly_stats)';
const PRIMARY_KEY = 'urn:li:mlPrimaryKey:(feature_store.driver_hourly_stats,driver_id)';
const CONTAINER = 'urn:li:container:51904fc8cd5cc729bc630decff284525';
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:postgres,postgrestest.public.metadata_aspect_v2,PROD)';
const DATA_PRODUCT = 'urn:li:dataProduct:pet_of_the_week';
const NOTEBOOK = 'urn:li:notebook:(querybook,1234)';
const DOMAIN = 'urn:li:domain:marketing';
const TERM = 'urn:li:glossaryTerm:SavingAccount';
const NODE = 'urn:li:glossaryNode:ClientsAndAccounts';
const TAG = 'urn:li:tag:Legacy';
const JDOE = 'urn:li:corpuser:jdoe';
const BSIMPSON = 'urn:li:corpuser:bsimpson';

/** Which shared edits each entity type takes in DataHub 0.12.1 (its registry's aspects). */
const TARGETS: { urn: string; tags: boolean; terms: boolean; links: boolean; domain: boolean; deprecation: boolean }[] = [
  { urn: CHART, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: DASHBOARD, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: FLOW, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: JOB, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: MODEL, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: MODEL_GROUP, tags: true, terms: true, links: false, domain: true, deprecation: true },
  { urn: FEATURE, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: FEATURE_TABLE, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: PRIMARY_KEY, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: CONTAINER, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: DATASET, tags: true, terms: true, links: true, domain: true, deprecation: true },
  { urn: DATA_PRODUCT, tags: true, terms: true, links: true, domain: true, deprecation: false },
  { urn: NOTEBOOK, tags: true, terms: true, links: true, domain: true, deprecation: false },
  { urn: TERM, tags: false, terms: false, links: true, domain: true, deprecation: true },
  { urn: NODE, tags: false, terms: false, links: true, domain: false, deprecation: false },
  { urn: DOMAIN, tags: false, terms: false, links: true, domain: false, deprecation: false },
];

/** Stamps carry the time of the edit: compared by actor, with the time checked to be recent. */
function unstamp(v: unknown, since: number): unknown {
  if (Array.isArray(v)) return v.map((x) => unstamp(x, since));
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.time === 'number' && typeof o.actor === 'string' && Object.keys(o).length === 2) {
      assert.ok(o.time >= since && o.time <= Date.now(), `stamp time ${o.time} is the edit's`);
      return { time: 'T', actor: o.actor };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unstamp(x, since)]));
  }
  return v;
}

forEachEngine('edits on every entity type', (ctx) => {
  let t: TestApp;
  const ok = async (q: string) => {
    const r = await t.graphql(q);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.errors, undefined, `${q}: ${JSON.stringify(r.body.errors)}`);
    return r.body.data;
  };
  /** The aspect's stored value; undefined when there is none (any other error fails the test). */
  const stored = async (urn: string, aspect: string) => {
    try {
      return (await t.catalog.entities.getAspect(urn, aspect)).value;
    } catch (e) {
      if (e instanceof AlmanacError && e.code === 'NOT_FOUND') return undefined;
      throw e;
    }
  };

  // Every test starts from the ingested fixtures alone, on a copy of one prepared database, so any one runs alone.
  const fresh = freshAppPerTest(ctx, async (app) => {
    await ingestSamples(app.catalog, 'bootstrap_mce.json', 'test_domains.json');
    const summary = await ingestFiles(app.catalog.entities, FILES.map((f) => path.join(FIXTURES, f)), systemActor());
    assert.deepEqual(summary.failures, []);
    await app.catalog.entities.ingest([{ urn: NOTEBOOK, entityType: 'notebook', aspect: 'notebookInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { title: 'Churn analysis', changeAuditStamps: { created: { time: 1, actor: JDOE },
        lastModified: { time: 1, actor: JDOE } } } }], rootActor());
  });

  /** Adds a tag, a term, an owner and a link, sets the domain and deprecates, where the target's type has them. */
  const editShared = async (target: (typeof TARGETS)[number]) => {
    const r = target.urn;
    if (target.tags) assert.deepEqual(await ok(`mutation { addTag(input: { tagUrn: "${TAG}", resourceUrn: "${r}" }) }`), { addTag: true });
    if (target.terms) assert.deepEqual(await ok(`mutation { addTerm(input: { termUrn: "${TERM}", resourceUrn: "${r}" }) }`), { addTerm: true });
    assert.deepEqual(await ok(`mutation { addOwners(input: { resourceUrn: "${r}", owners: [{ ownerUrn: "${JDOE}",
      ownerEntityType: CORP_USER, ownershipTypeUrn: "urn:li:ownershipType:__system__business_owner" }] }) }`), { addOwners: true });
    if (target.links) {
      assert.deepEqual(await ok(`mutation { addLink(input: { resourceUrn: "${r}", linkUrl: "https://wiki.example.com/x", label: "Wiki" }) }`),
        { addLink: true });
    }
    if (target.domain) assert.deepEqual(await ok(`mutation { setDomain(entityUrn: "${r}", domainUrn: "${DOMAIN}") }`), { setDomain: true });
    if (target.deprecation) {
      assert.deepEqual(await ok(`mutation { updateDeprecation(input: { urn: "${r}", deprecated: true, note: "Use v2", decommissionTime: 1700000000000 }) }`),
        { updateDeprecation: true });
    }
  };
  const targets = (...urns: string[]) => TARGETS.filter((x) => urns.includes(x.urn));

  test('tags, terms, owners, links, domain and deprecation, one resource at a time, on every type that has them', async () => {
    const since = Date.now();
    t = await fresh();
    for (const target of TARGETS) {
      const r = target.urn;
      await editShared(target);
      const expected: Record<string, unknown> = {};
      if (target.tags) expected.globalTags = { tags: [{ tag: TAG }] };
      if (target.terms) expected.glossaryTerms = { terms: [{ urn: TERM }], auditStamp: { time: 'T', actor: 'urn:li:corpuser:datahub' } };
      if (target.links) {
        expected.institutionalMemory = { elements: [{ url: 'https://wiki.example.com/x', description: 'Wiki',
          createStamp: { time: 'T', actor: 'urn:li:corpuser:datahub' } }] };
      }
      if (target.domain) expected.domains = { domains: [DOMAIN] };
      if (target.deprecation) expected.deprecation = { deprecated: true, note: 'Use v2', actor: 'urn:li:corpuser:datahub', decommissionTime: 1700000000000 };
      const actual: Record<string, unknown> = {};
      for (const aspect of Object.keys(expected)) actual[aspect] = unstamp(await stored(r, aspect), since);
      // Ingested tags, terms and links of the fixture stay: what the edit added is the last entry.
      for (const [aspect, list] of [['globalTags', 'tags'], ['glossaryTerms', 'terms'], ['institutionalMemory', 'elements']] as const) {
        const a = actual[aspect] as Record<string, unknown[]> | undefined;
        if (a) a[list] = a[list]!.slice(-1);
      }
      assert.deepEqual(actual, expected, r);
      const owners = ((await stored(r, 'ownership')) as { owners: unknown[] }).owners;
      assert.deepEqual(owners.at(-1), { owner: JDOE, type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:__system__business_owner' }, r);
    }
  });

  test('edits a type does not have are refused and change nothing', async () => {
    t = await fresh();
    await editShared(targets(CHART)[0]!);
    const before = await stored(TERM, 'glossaryTermInfo');
    const tag = await t.graphql(`mutation { addTag(input: { tagUrn: "${TAG}", resourceUrn: "${TERM}" }) }`);
    assert.equal(tag.body.data.addTag, null);
    assert.match(tag.body.errors[0].message, /globalTags/);
    assert.equal(await stored(TERM, 'globalTags'), undefined);
    const dep = await t.graphql(`mutation { updateDeprecation(input: { urn: "${DOMAIN}", deprecated: true }) }`);
    assert.match(dep.body.errors[0].message, /deprecation/);
    assert.deepEqual(await stored(TERM, 'glossaryTermInfo'), before);
    // A domain and a resource must exist (as DataHub checks both).
    const missing = await t.graphql(`mutation { setDomain(entityUrn: "${CHART}", domainUrn: "urn:li:domain:nowhere") }`);
    assert.equal(missing.body.errors[0].extensions.type, 'NOT_FOUND');
    assert.deepEqual(await stored(CHART, 'domains'), { domains: [DOMAIN] });
  });

  test('batch edits change every resource in one go, and unsetDomain empties the domain', async () => {
    t = await fresh();
    for (const target of targets(CHART, DASHBOARD, FLOW, JOB, MODEL, NOTEBOOK, DATASET)) await editShared(target);
    const resources = [CHART, DASHBOARD, FLOW, JOB, MODEL, NOTEBOOK].map((u) => `{ resourceUrn: "${u}" }`).join(', ');
    const since = Date.now();
    assert.deepEqual(await ok(`mutation { batchRemoveTags(input: { tagUrns: ["${TAG}"], resources: [${resources}] }) }`), { batchRemoveTags: true });
    assert.deepEqual(await ok(`mutation { batchAddTags(input: { tagUrns: ["urn:li:tag:NeedsDocumentation"], resources: [${resources}] }) }`),
      { batchAddTags: true });
    assert.deepEqual(await ok(`mutation { batchRemoveTerms(input: { termUrns: ["${TERM}"], resources: [${resources}] }) }`), { batchRemoveTerms: true });
    assert.deepEqual(await ok(`mutation { batchAddTerms(input: { termUrns: ["urn:li:glossaryTerm:AccountBalance"], resources: [${resources}] }) }`),
      { batchAddTerms: true });
    assert.deepEqual(await ok(`mutation { batchRemoveOwners(input: { ownerUrns: ["${JDOE}"], resources: [${resources}] }) }`), { batchRemoveOwners: true });
    assert.deepEqual(await ok(`mutation { batchAddOwners(input: { owners: [{ ownerUrn: "${BSIMPSON}", ownerEntityType: CORP_USER }],
      ownershipTypeUrn: "urn:li:ownershipType:__system__data_steward", resources: [${resources}] }) }`), { batchAddOwners: true });
    assert.deepEqual(await ok(`mutation { batchSetDomain(input: { domainUrn: null, resources: [${resources}] }) }`), { batchSetDomain: true });
    assert.deepEqual(await ok(`mutation { unsetDomain(entityUrn: "${DATASET}") }`), { unsetDomain: true });
    const deprecable = [CHART, DASHBOARD, FLOW, JOB, MODEL].map((u) => `{ resourceUrn: "${u}" }`).join(', ');
    assert.deepEqual(await ok(`mutation { batchUpdateDeprecation(input: { deprecated: false, resources: [${deprecable}] }) }`),
      { batchUpdateDeprecation: true });
    for (const u of [CHART, DASHBOARD, FLOW, JOB, MODEL, NOTEBOOK]) {
      const tags = ((await stored(u, 'globalTags')) as { tags: { tag: string }[] }).tags.map((x) => x.tag);
      assert.ok(!tags.includes(TAG) && tags.at(-1) === 'urn:li:tag:NeedsDocumentation', `${u} tags: ${tags}`);
      const terms = ((await stored(u, 'glossaryTerms')) as { terms: { urn: string }[] }).terms.map((x) => x.urn);
      assert.ok(!terms.includes(TERM) && terms.at(-1) === 'urn:li:glossaryTerm:AccountBalance', `${u} terms: ${terms}`);
      const owners = ((await stored(u, 'ownership')) as { owners: { owner: string }[] }).owners;
      assert.ok(!owners.some((o) => o.owner === JDOE), `${u} owners`);
      assert.deepEqual(owners.at(-1), { owner: BSIMPSON, type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:__system__data_steward' });
      assert.deepEqual(await stored(u, 'domains'), { domains: [] });
    }
    assert.deepEqual(await stored(DATASET, 'domains'), { domains: [] });
    for (const u of [CHART, DASHBOARD, FLOW, JOB, MODEL]) {
      assert.deepEqual(unstamp(await stored(u, 'deprecation'), since), { deprecated: false, note: '', actor: 'urn:li:corpuser:datahub' });
    }
    // A batch with one resource that does not exist changes none of them.
    const tagsBefore = await stored(CHART, 'globalTags');
    const refused = await t.graphql(`mutation { batchAddTags(input: { tagUrns: ["${TAG}"], resources: [{ resourceUrn: "${CHART}" },
      { resourceUrn: "urn:li:chart:(looker,missing)" }] }) }`);
    assert.equal(refused.body.errors[0].extensions.type, 'NOT_FOUND');
    assert.deepEqual(await stored(CHART, 'globalTags'), tagsBefore);
  });

  test('descriptions: updateDescription where DataHub has it, and the per-type updates of charts and dashboards', async () => {
    t = await fresh();
    for (const [urn, aspect, field] of [[MODEL, 'editableMlModelProperties', 'description'], [FEATURE, 'editableMlFeatureProperties', 'description'],
      [FEATURE_TABLE, 'editableMlFeatureTableProperties', 'description'], [PRIMARY_KEY, 'editableMlPrimaryKeyProperties', 'description'],
      [MODEL_GROUP, 'editableMlModelGroupProperties', 'description'], [CONTAINER, 'editableContainerProperties', 'description'],
      [NOTEBOOK, 'editableNotebookProperties', 'description'], [DATA_PRODUCT, 'dataProductProperties', 'description'],
      [TERM, 'glossaryTermInfo', 'definition'], [NODE, 'glossaryNodeInfo', 'definition'], [DOMAIN, 'domainProperties', 'description']]) {
      assert.deepEqual(await ok(`mutation { updateDescription(input: { resourceUrn: "${urn}", description: "About ${urn}" }) }`),
        { updateDescription: true });
      assert.equal(((await stored(urn!, aspect!)) as Record<string, unknown>)[field!], `About ${urn}`, urn);
    }
    const since = Date.now();
    const chart = await ok(`mutation { updateChart(urn: "${CHART}", input: { editableProperties: { description: "Weekly revenue" },
      globalTags: { tags: [{ tag: { urn: "${TAG}", name: "Legacy" } }] }, ownership: { owners: [{ owner: "${JDOE}", type: TECHNICAL_OWNER }] } }) {
      urn editableProperties { description } globalTags { tags { tag { urn } } } ownership { owners { owner { ... on CorpUser { urn } } type } } } }`);
    assert.deepEqual(chart, { updateChart: { urn: CHART, editableProperties: { description: 'Weekly revenue' },
      globalTags: { tags: [{ tag: { urn: TAG } }] }, ownership: { owners: [{ owner: { urn: JDOE }, type: 'TECHNICAL_OWNER' }] } } });
    assert.deepEqual(unstamp(await stored(CHART, 'editableChartProperties'), since), { description: 'Weekly revenue',
      created: { time: 'T', actor: 'urn:li:corpuser:datahub' }, lastModified: { time: 'T', actor: 'urn:li:corpuser:datahub' } });
    const dashboard = await ok(`mutation { updateDashboard(urn: "${DASHBOARD}", input: { editableProperties: { description: "KPIs" } }) {
      urn editableProperties { description } } }`);
    assert.deepEqual(dashboard, { updateDashboard: { urn: DASHBOARD, editableProperties: { description: 'KPIs' } } });
    const wrong = await t.graphql(`mutation { updateChart(urn: "${DASHBOARD}", input: { editableProperties: { description: "x" } }) { urn } }`);
    assert.equal(wrong.body.errors[0].extensions.type, 'BAD_REQUEST');
  });

  test('updateCorpUserProperties: the fields given replace, the rest stays; read back through GraphQL', async () => {
    t = await fresh();
    assert.deepEqual(await ok(`mutation { updateCorpUserProperties(urn: "${BSIMPSON}", input: { title: "Student", slack: "bart" }) { urn } }`),
      { updateCorpUserProperties: { urn: BSIMPSON } });
    assert.deepEqual(await ok(`mutation { updateCorpUserProperties(urn: "${BSIMPSON}", input: { aboutMe: "Eat my shorts" }) { urn } }`),
      { updateCorpUserProperties: { urn: BSIMPSON } });
    assert.deepEqual(await stored(BSIMPSON, 'corpUserEditableInfo'), { title: 'Student', slack: 'bart', aboutMe: 'Eat my shorts' });
    const read = await ok(`{ corpUser(urn: "${BSIMPSON}") { editableProperties { title slack aboutMe } } }`);
    assert.deepEqual(read, { corpUser: { editableProperties: { title: 'Student', slack: 'bart', aboutMe: 'Eat my shorts' } } });
    // Editing oneself needs no privilege; another user's profile needs EDIT_USER_PROFILE (the default policies do not
    // give it to every user).
    const bart = { authorization: `Bearer ${await t.tokenFor('bsimpson')}` };
    const self = await t.graphql(`mutation { updateCorpUserProperties(urn: "${BSIMPSON}", input: { title: "Prankster" }) { urn } }`, undefined, bart);
    assert.deepEqual([self.body.data, self.body.errors], [{ updateCorpUserProperties: { urn: BSIMPSON } }, undefined]);
    const other = await t.graphql(`mutation { updateCorpUserProperties(urn: "${JDOE}", input: { title: "Prankster" }) { urn } }`, undefined, bart);
    assert.equal(other.body.errors[0].extensions.type, 'UNAUTHORIZED');
    assert.deepEqual(await stored(BSIMPSON, 'corpUserEditableInfo'), { title: 'Prankster', slack: 'bart', aboutMe: 'Eat my shorts' });
  });

  test('shared fields read back through GraphQL on the first-class types; browsePathV2 stored or DataHub\'s default', async () => {
    t = await fresh();
    for (const target of targets(TERM, CONTAINER, DATASET, DOMAIN, CHART, MODEL)) await editShared(target);
    const defaulted = 'urn:li:dataset:(urn:li:dataPlatform:hive,Sales.Public.Orders,PROD)';
    await t.catalog.entities.ingest([{ urn: defaulted, entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', systemMetadata: null,
      value: { removed: false } }], rootActor());
    const read = await ok(`{
      glossaryTerm(urn: "${TERM}") { domain { domain { urn } } deprecation { deprecated note } parentNodes { count nodes { urn } }
        institutionalMemory { elements { url label } } }
      glossaryNode(urn: "${NODE}") { parentNodes { count nodes { urn } } }
      container(urn: "${CONTAINER}") { deprecation { deprecated note } domain { domain { urn } } lastIngested }
      dataset(urn: "${DATASET}") { browsePathV2 { path { name entity { urn } } } deprecation { deprecated note } }
      defaulted: dataset(urn: "${defaulted}") { browsePathV2 { path { name entity { urn } } } }
      hive: dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)") { browsePathV2 { path { name entity { urn } } } }
      domain(urn: "${DOMAIN}") { institutionalMemory { elements { url label } } parentDomains { count domains { urn } }
        entities(input: { start: 0, count: 10 }) { total searchResults { entity { urn } } } }
    }`);
    assert.equal(typeof read.container.lastIngested, 'number');
    assert.deepEqual(read, {
      glossaryTerm: { domain: { domain: { urn: DOMAIN } }, deprecation: { deprecated: true, note: 'Use v2' },
        parentNodes: { count: 1, nodes: [{ urn: NODE }] }, institutionalMemory: { elements: [{ url: 'https://wiki.example.com/x', label: 'Wiki' }] } },
      glossaryNode: { parentNodes: { count: 0, nodes: [] } },
      container: { deprecation: { deprecated: true, note: 'Use v2' }, domain: { domain: { urn: DOMAIN } }, lastIngested: read.container.lastIngested },
      dataset: { browsePathV2: { path: [
        { name: 'urn:li:container:a6097853edba03be190d99ece4b307ff', entity: { urn: 'urn:li:container:a6097853edba03be190d99ece4b307ff' } },
        { name: CONTAINER, entity: { urn: CONTAINER } }] }, deprecation: { deprecated: true, note: 'Use v2' } },
      defaulted: { browsePathV2: { path: [{ name: 'sales', entity: null }, { name: 'public', entity: null }] } },
      hive: { browsePathV2: { path: [{ name: 'Default', entity: null }] } },
      domain: { institutionalMemory: { elements: [{ url: 'https://wiki.example.com/x', label: 'Wiki' }] }, parentDomains: { count: 0, domains: [] },
        entities: { total: 6, searchResults: read.domain.entities.searchResults } },
    });
    // The sample's dataset was in the domain already; the edits put five more there.
    assert.deepEqual(read.domain.entities.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn).sort(),
      [CHART, CONTAINER, DATASET, MODEL, TERM, 'urn:li:dataset:(urn:li:dataPlatform:mysql,information_schema.VIEWS,PROD)'].sort());
  });

  test('a group\'s origin and a view\'s definition, as their connectors sent them', async () => {
    t = await fresh();
    const view = 'urn:li:dataset:(urn:li:dataPlatform:postgres,postgrestest.public.metadata_aspect_view,PROD)';
    const read = await ok(`{
      okta: corpGroup(urn: "urn:li:corpGroup:Engineering") { origin { type externalType } }
      ldap: corpGroup(urn: "urn:li:corpGroup:HR Department") { origin { type externalType } }
      view: dataset(urn: "${view}") { viewProperties { materialized logic language } siblings { isPrimary } }
      table: dataset(urn: "${DATASET}") { viewProperties { language } }
    }`);
    assert.deepEqual(read, {
      okta: { origin: { type: 'EXTERNAL', externalType: 'OKTA' } },
      ldap: { origin: { type: 'UNKNOWN', externalType: null } },
      view: { viewProperties: { materialized: false, logic: ' SELECT metadata_aspect_v2.urn,\n    metadata_aspect_v2.aspect\n   FROM metadata_aspect_v2\n  WHERE (metadata_aspect_v2.version = 0);',
        language: 'SQL' }, siblings: null },
      table: { viewProperties: null },
    });
  });

  test('removeTag, removeTerm, removeOwner and removeLink undo the edits on any type', async () => {
    t = await fresh();
    const cases = targets(CHART, FLOW, JOB, MODEL, FEATURE_TABLE, NOTEBOOK, DATA_PRODUCT, CONTAINER, TERM, NODE, DOMAIN);
    // The data product's connector made jdoe a business owner: the test covers an owner ingested before the edits.
    assert.ok(((await stored(DATA_PRODUCT, 'ownership')) as { owners: { owner: string }[] }).owners.some((o) => o.owner === JDOE), 'jdoe an owner');
    const before = new Map<string, unknown>();
    const aspects = ['globalTags', 'glossaryTerms', 'ownership', 'institutionalMemory'];
    for (const target of cases) for (const a of aspects) before.set(`${target.urn} ${a}`, await stored(target.urn, a));
    for (const target of cases) {
      const r = target.urn;
      await editShared(target);
      if (target.tags) assert.deepEqual(await ok(`mutation { removeTag(input: { tagUrn: "${TAG}", resourceUrn: "${r}" }) }`), { removeTag: true });
      if (target.terms) assert.deepEqual(await ok(`mutation { removeTerm(input: { termUrn: "${TERM}", resourceUrn: "${r}" }) }`), { removeTerm: true });
      assert.deepEqual(await ok(`mutation { removeOwner(input: { ownerUrn: "${JDOE}", resourceUrn: "${r}" }) }`), { removeOwner: true });
      if (target.links) {
        assert.deepEqual(await ok(`mutation { removeLink(input: { linkUrl: "https://wiki.example.com/x", resourceUrn: "${r}" }) }`), { removeLink: true });
      }
      for (const a of aspects) {
        const prev = before.get(`${r} ${a}`) as Record<string, unknown> | undefined;
        const now = (await stored(r, a)) as Record<string, unknown> | undefined;
        const list = { globalTags: 'tags', glossaryTerms: 'terms', ownership: 'owners', institutionalMemory: 'elements' }[a]!;
        // What was ingested is there again, nothing more (an aspect the edit created is left empty); removeOwner
        // without a type removes the owner under every type, so an owner the connector had named goes too.
        const expected = ((prev?.[list] ?? []) as { owner?: string }[]).filter((x) => a !== 'ownership' || x.owner !== JDOE);
        assert.deepEqual(now?.[list] ?? [], expected, `${r} ${a}`);
      }
    }
  });
});
