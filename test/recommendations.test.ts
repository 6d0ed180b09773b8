import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { buildSchema, Kind, print, TypeInfo, validate, visit, visitWithTypeInfo, type DocumentNode } from 'graphql';
import { systemActor, type Actor } from '../src/model/actor.js';
import { KEEP } from '../src/services/recommendations.js';
import { schemaSdl } from '../src/graphql/schema.js';
import { forEachEngine } from './support/engines.js';
import type { TestApp } from './support/app.js';
import { freshAppPerTest } from './support/fresh.js';
import { webappDocument } from './support/webapp.js';

// ---------------------------------------------------------------------------------------------------------------
// The fixture: datasets on four platforms, charts, a dashboard, a pipeline; tags, terms and domains on them; usage
// statistics (one row too old to count, one on a soft-deleted dataset); a soft-deleted dataset with tags and terms.

const DAY = 86_400_000;
const NOW = Date.now();
const ds = (platform: string, name: string) => `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},PROD)`;
const TAG = (n: string) => `urn:li:tag:${n}`;
const TERM = (n: string) => `urn:li:glossaryTerm:${n}`;
const DOMAIN = (n: string) => `urn:li:domain:${n}`;
const PLATFORM = (n: string) => `urn:li:dataPlatform:${n}`;

interface Fx {
  urn: string;
  type: string;
  platform: string;
  tags?: string[];
  terms?: string[];
  domain?: string;
  removed?: boolean;
  /** Usage rows: days ago and total SQL queries. */
  usage?: [number, number][];
}

const ORDERS = ds('hive', 'sales.orders');
const CUSTOMERS = ds('hive', 'sales.customers');
const REFUNDS = ds('hive', 'sales.refunds');
const STREAM = ds('kafka', 'orders_stream');
const CLICKS = ds('kafka', 'clicks');
const REVENUE = ds('snowflake', 'analytics.revenue_daily');
const OLD_REVENUE = ds('snowflake', 'analytics.old_revenue');
const RAW = ds('s3', 'raw.events');
const CHART = 'urn:li:chart:(looker,revenue_chart)';
const CHART2 = 'urn:li:chart:(looker,orders_chart)';
const DASHBOARD = 'urn:li:dashboard:(looker,sales_overview)';
const FLOW = 'urn:li:dataFlow:(airflow,etl,PROD)';
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(airflow,etl,PROD),load_orders)';

const FIXTURE: Fx[] = [
  { urn: ORDERS, type: 'dataset', platform: 'hive', tags: [TAG('PII'), TAG('Gold')], terms: [TERM('Revenue')], domain: DOMAIN('finance'), usage: [[1, 40], [3, 25]] },
  { urn: CUSTOMERS, type: 'dataset', platform: 'hive', tags: [TAG('PII')], terms: [TERM('Customer')], domain: DOMAIN('marketing'), usage: [[1, 30]] },
  { urn: REFUNDS, type: 'dataset', platform: 'hive', tags: [TAG('Gold')], terms: [TERM('Revenue')], domain: DOMAIN('finance'), usage: [[2, 10], [45, 1000]] },
  { urn: STREAM, type: 'dataset', platform: 'kafka', tags: [TAG('PII')], domain: DOMAIN('finance'), usage: [[1, 70]] },
  { urn: CLICKS, type: 'dataset', platform: 'kafka', tags: [TAG('Legacy')], terms: [TERM('Customer')], usage: [[1, 5]] },
  { urn: REVENUE, type: 'dataset', platform: 'snowflake', tags: [TAG('Gold')], terms: [TERM('Revenue'), TERM('Customer')], domain: DOMAIN('finance'), usage: [[5, 20]] },
  { urn: OLD_REVENUE, type: 'dataset', platform: 'snowflake', tags: [TAG('Gold'), TAG('Legacy')], terms: [TERM('Revenue')], domain: DOMAIN('finance'), removed: true, usage: [[1, 500]] },
  { urn: RAW, type: 'dataset', platform: 's3', usage: [[1, 0]] },
  { urn: CHART, type: 'chart', platform: 'looker', tags: [TAG('Gold')], domain: DOMAIN('finance') },
  { urn: CHART2, type: 'chart', platform: 'looker', terms: [TERM('Revenue')] },
  { urn: DASHBOARD, type: 'dashboard', platform: 'looker', tags: [TAG('Gold'), TAG('PII')], domain: DOMAIN('marketing') },
  { urn: FLOW, type: 'dataFlow', platform: 'airflow', domain: DOMAIN('finance') },
  { urn: JOB, type: 'dataJob', platform: 'airflow', tags: [TAG('Legacy')] },
];
const ALICE = 'urn:li:corpuser:alice';
const BOB = 'urn:li:corpuser:bob';

function proposals(): object[] {
  const mcp = (entityType: string, entityUrn: string, aspectName: string, value: unknown) => ({ entityType, entityUrn, changeType: 'UPSERT',
    aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } });
  const out: object[] = [];
  for (const [n, d] of [['PII', 'Personal data'], ['Gold', 'Curated'], ['Legacy', 'Going away']] as const) {
    out.push(mcp('tag', TAG(n), 'tagProperties', { name: n, description: d }));
  }
  for (const n of ['Revenue', 'Customer']) {
    out.push(mcp('glossaryTerm', TERM(n), 'glossaryTermInfo', { name: n, definition: `${n} things`, termSource: 'INTERNAL' }));
  }
  for (const n of ['finance', 'marketing']) out.push(mcp('domain', DOMAIN(n), 'domainProperties', { name: n[0]!.toUpperCase() + n.slice(1) }));
  for (const e of FIXTURE) {
    out.push(mcp(e.type, e.urn, 'status', { removed: e.removed ?? false }));
    if (e.type === 'dataset') out.push(mcp(e.type, e.urn, 'datasetProperties', { name: e.urn.split(',')[1], customProperties: {}, tags: [] }));
    if (e.tags) out.push(mcp(e.type, e.urn, 'globalTags', { tags: e.tags.map((tag) => ({ tag })) }));
    if (e.terms) out.push(mcp(e.type, e.urn, 'glossaryTerms', { terms: e.terms.map((urn) => ({ urn })), auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' } }));
    if (e.domain) out.push(mcp(e.type, e.urn, 'domains', { domains: [e.domain] }));
    for (const [daysAgo, queries] of e.usage ?? []) {
      out.push(mcp(e.type, e.urn, 'datasetUsageStatistics', { timestampMillis: NOW - daysAgo * DAY, eventGranularity: { unit: 'DAY', multiple: 1 },
        totalSqlQueries: queries, uniqueUserCount: 1, userCounts: [{ user: ALICE, count: queries }] }));
    }
  }
  for (const u of [ALICE, BOB]) {
    out.push(mcp('corpuser', u, 'corpUserInfo', { active: true, displayName: u.slice(16), email: `${u.slice(16)}@example.com` }));
  }
  // Alice edits datasets' descriptions: an Editor.
  out.push(mcp('corpuser', ALICE, 'roleMembership', { roles: ['urn:li:dataHubRole:Editor'] }));
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// What the modules must say, computed from the fixture independently of the service.

const live = FIXTURE.filter((e) => !e.removed);
const byCountThenValue = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function countsOf(values: (e: Fx) => string[], max: number): [string, number][] {
  const counts = new Map<string, number>();
  for (const e of live) for (const v of new Set(values(e))) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort(byCountThenValue).slice(0, max);
}

const searchModule = (title: string, moduleId: string, renderType: string, field: string, counts: [string, number][]) => ({
  title, moduleId, renderType,
  content: counts.map(([value, count]) => ({ value, entity: { urn: value }, params: {
    searchParams: { types: null, query: '', filters: [{ field, values: [value], condition: null, negated: null }] },
    entityProfileParams: null, contentParams: { count } } })),
});

const GRAPHQL_TYPE: Record<string, string> = { dataset: 'DATASET', chart: 'CHART', dashboard: 'DASHBOARD', dataFlow: 'DATA_FLOW', dataJob: 'DATA_JOB' };

const entityModule = (title: string, moduleId: string, urns: string[]) => ({
  title, moduleId, renderType: 'ENTITY_NAME_LIST',
  content: urns.map((urn) => ({ value: urn, entity: { urn }, params: {
    searchParams: null, entityProfileParams: { urn, type: GRAPHQL_TYPE[FIXTURE.find((e) => e.urn === urn)!.type] }, contentParams: null } })),
});

const platforms = () => searchModule('Platforms', 'Platforms', 'PLATFORM_SEARCH_LIST', 'platform', countsOf((e) => [PLATFORM(e.platform)], 40));
const domains = () => searchModule('Domains', 'Domains', 'DOMAIN_SEARCH_LIST', 'domains', countsOf((e) => (e.domain ? [e.domain] : []), 10));
const topTags = () => searchModule('Top Tags', 'TopTags', 'TAG_SEARCH_LIST', 'tags', countsOf((e) => e.tags ?? [], 10));
const topTerms = () => searchModule('Top Glossary Terms', 'TopTerms', 'GLOSSARY_TERM_SEARCH_LIST', 'glossaryTerms', countsOf((e) => e.terms ?? [], 10));
/** Datasets by their queries in the last 30 days, above 0, soft-deleted ones left out, the first five. */
function mostPopular() {
  const sums = live.map((e) => [e.urn, (e.usage ?? []).filter(([d]) => d < 30).reduce((s, [, q]) => s + q, 0)] as [string, number]);
  return entityModule('Most Popular', 'HighUsageEntities', sums.filter(([, q]) => q > 0).sort(byCountThenValue).slice(0, 5).map(([u]) => u));
}

const MODULES = `modules { title moduleId renderType content { value entity { urn } params {
  searchParams { types query filters { field values condition negated } } entityProfileParams { urn type } contentParams { count } } } }`;

// ---------------------------------------------------------------------------------------------------------------
// The web app's document, with the fragments it spreads.

const webappRecommendations = () => webappDocument('listRecommendations', 'recommendations.graphql');

/**
 * Gaps of Almanac's entity types (not of recommendations) that the web app's entity preview fragment touches, each
 * with the field to leave out of the served document while it lasts. The list may only shrink.
 */
const ENTITY_GAPS: { message: RegExp; field: string; within: string }[] = [
  { message: /^Cannot query field "uri" on type "Dataset"\./, field: 'uri', within: 'Dataset' },
  { message: /^Cannot query field "rawSchema" on type "GlossaryTermProperties"\./, field: 'rawSchema', within: 'GlossaryTermProperties' },
  // Container.platform is nullable in Almanac, DataHub 0.12.1 says DataPlatform!: the container fragment's platform goes.
  { message: /^Fields "platform" conflict because they return conflicting types "DataPlatform!?" and "DataPlatform!?"\./, field: 'platform',
    within: 'entityContainer' },
];

/** The document without the fields of the gaps validation still reports (a no-op once they are closed). */
function withoutGaps(doc: DocumentNode): DocumentNode {
  const schema = buildSchema(schemaSdl());
  const messages = validate(schema, doc).map((e) => e.message);
  assert.deepEqual(messages.filter((m) => !ENTITY_GAPS.some((g) => g.message.test(m))), [], 'errors other than the known gaps');
  const open = ENTITY_GAPS.filter((g) => messages.some((m) => g.message.test(m)));
  const typeInfo = new TypeInfo(schema);
  const served = visit(doc, visitWithTypeInfo(typeInfo, { Field: { enter(node, _k, _p, _path, ancestors) {
    const within = [typeInfo.getParentType()?.name, ...ancestors.flatMap((a) => ('kind' in a && a.kind === Kind.FRAGMENT_DEFINITION ? [a.name.value] : []))];
    return open.some((g) => g.field === node.name.value && within.includes(g.within)) ? null : undefined;
  } } }));
  assert.deepEqual(validate(schema, served).map((e) => e.message), []);
  return served;
}

forEachEngine('recommendations', (ctx) => {
  let t: TestApp;
  let alice: Record<string, string>;
  let bob: Record<string, string>;
  // Each test on a fresh copy of the fixture (support/fresh.ts): no activity carries over, any one runs alone.
  const fresh = freshAppPerTest(ctx, async (app) => {
    const res = await app.app.inject({ method: 'POST', url: '/aspects?action=ingestProposalBatch', headers: app.auth, payload: { proposals: proposals() } });
    assert.equal(res.statusCode, 200, res.body);
  });
  beforeEach(async () => {
    t = await fresh();
    alice = { authorization: `Bearer ${await t.tokenFor('alice')}` };
    bob = { authorization: `Bearer ${await t.tokenFor('bob')}` };
  });

  const ok = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => {
    const res = await t.graphql(query, variables, headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const recommend = (headers: Record<string, string>, scenario: string, limit: number | null = 10, user = ALICE) =>
    ok(`query($input: ListRecommendationsInput!) { listRecommendations(input: $input) { ${MODULES} } }`,
      { input: { userUrn: user, requestContext: { scenario, ...(scenario === 'SEARCH_RESULTS' ? { searchRequestContext: { query: 'orders' } } : {}) },
        limit } }, headers);

  test('home page of a user who did nothing yet: platforms, domains, most popular, top tags, top terms', async () => {
    assert.deepEqual(await recommend(alice, 'HOME'), { listRecommendations: { modules: [platforms(), domains(), mostPopular(), topTags(), topTerms()] } });
    // What the expectation says, spelled out once: soft-deleted entities and old usage do not count.
    assert.deepEqual(topTags().content.map((c) => [c.value, c.params.contentParams.count]),
      [[TAG('Gold'), 5], [TAG('PII'), 4], [TAG('Legacy'), 2]]);
    assert.deepEqual(mostPopular().content.map((c) => c.value), [STREAM, ORDERS, CUSTOMERS, REVENUE, REFUNDS]);
  });

  test('the search page shows top tags and terms; the limit cuts; entity pages and requests without a page get none', async () => {
    assert.deepEqual(await recommend(alice, 'SEARCH_RESULTS', 3), { listRecommendations: { modules: [topTags(), topTerms()] } });
    assert.deepEqual(await recommend(alice, 'HOME', 2), { listRecommendations: { modules: [platforms(), domains()] } });
    assert.deepEqual(await recommend(alice, 'HOME', null), await recommend(alice, 'HOME', 10));
    assert.deepEqual(await recommend(alice, 'ENTITY_PROFILE'), { listRecommendations: { modules: [] } });
    assert.deepEqual(await recommend(alice, 'SEARCH_BAR'), { listRecommendations: { modules: [] } });
    assert.deepEqual(await ok(`{ listRecommendations(input: { userUrn: "${ALICE}" }) { modules { moduleId } } }`, undefined, alice),
      { listRecommendations: { modules: [] } });
  });

  test('views, edits and searches show on the user\'s own pages only', async () => {
    // Alice opens pages through the generic and the per-type root fields; a tag and a soft-deleted dataset are not listed.
    for (const [field, urn] of [['dataset', ORDERS], ['entity', CHART], ['dataset', CLICKS], ['tag', TAG('PII')], ['dataset', OLD_REVENUE],
      ['entity', ORDERS], ['dataFlow', FLOW]] as const) {
      await ok(`{ ${field}(urn: "${urn}") { urn } }`, undefined, alice);
    }
    await ok(`{ dataset(urn: "${STREAM}") { urn } }`, undefined, bob);
    // Alice searches: a query with results, * and one that finds nothing (not remembered), then the first one again.
    const search = (q: string, h: Record<string, string>) => ok(`{ searchAcrossEntities(input: { query: "${q}" }) { total } }`, undefined, h);
    for (const q of ['revenue', '*', 'zzz_nothing_here', 'orders', '  ', 'revenue']) await search(q, alice);
    await ok('{ search(input: { type: DATASET, query: "clicks" }) { total } }', undefined, bob);
    // Alice edits one dataset.
    await ok(`mutation { updateDescription(input: { description: "Every order", resourceUrn: "${CUSTOMERS}" }) }`, undefined, alice);

    const viewed = entityModule('Recently Viewed', 'RecentlyViewedEntities', [FLOW, ORDERS, CLICKS, CHART]);
    const edited = entityModule('Recently Edited', 'RecentlyEditedEntities', [CUSTOMERS]);
    assert.deepEqual(await recommend(alice, 'HOME'),
      { listRecommendations: { modules: [platforms(), domains(), viewed, edited, mostPopular(), topTags(), topTerms()] } });
    assert.deepEqual(await recommend(bob, 'HOME', 10, BOB), { listRecommendations: { modules: [platforms(), domains(),
      entityModule('Recently Viewed', 'RecentlyViewedEntities', [STREAM]), mostPopular(), topTags(), topTerms()] } });
    // The user asked about is the one authenticated: Bob cannot read Alice's activity by naming her.
    assert.deepEqual(await recommend(bob, 'HOME', 10, ALICE), await recommend(bob, 'HOME', 10, BOB));

    const searches = (qs: string[]) => ({ listRecommendations: { modules: [{ title: 'Recent searches', moduleId: 'RecentSearches',
      renderType: 'SEARCH_QUERY_LIST', content: qs.map((q) => ({ value: q, entity: null, params: { searchParams: { types: null, query: q,
        filters: null }, entityProfileParams: null, contentParams: null } })) }] } });
    assert.deepEqual(await recommend(alice, 'SEARCH_BAR'), searches(['revenue', 'orders']));
    assert.deepEqual(await recommend(bob, 'SEARCH_BAR', 10, BOB), searches(['clicks']));
  });

  test('the root user\'s reads count; the system actor\'s never do; each user keeps the newest ' + KEEP + ' of a kind', async () => {
    const system = systemActor();
    await t.catalog.recommendations.viewed(system, REVENUE);
    await t.catalog.recommendations.searched(system, 'revenue', { total: 1 });
    assert.deepEqual([await t.catalog.store.recentActivity(system.urn, 'view', 10), await t.catalog.store.recentActivity(system.urn, 'search', 10)], [[], []]);
    await ok(`{ dataset(urn: "${REVENUE}") { urn } }`);
    const root = await t.catalog.store.recentActivity('urn:li:corpuser:datahub', 'view', 10);
    assert.deepEqual(root.map((e) => e.value), [REVENUE]);

    const carol: Actor = { urn: 'urn:li:corpuser:carol', kind: 'user' };
    for (let i = 0; i < KEEP + 5; i++) await t.catalog.recommendations.searched(carol, `query ${i}`, { total: 1 });
    await t.catalog.recommendations.searched(carol, 'query 7', { total: 1 }); // again: moves to the front, no duplicate
    const kept = await t.catalog.store.recentActivity(carol.urn, 'search', 1000);
    const expected = ['query 7', ...Array.from({ length: KEEP + 5 }, (_, i) => `query ${KEEP + 4 - i}`).filter((q) => q !== 'query 7')].slice(0, KEEP);
    assert.deepEqual(kept.map((e) => e.value), expected);
    const modules = await t.catalog.recommendations.list(carol, { scenario: 'SEARCH_BAR' }, 10);
    assert.deepEqual(modules[0]!.content.map((c) => c.value), expected.slice(0, 5));
  });

  test('recent searches leave out the queries typed on the way to a later one (search as you type)', async () => {
    const dan: Actor = { urn: 'urn:li:corpuser:dan', kind: 'user' };
    for (const q of ['orders', 'r', 're', 'rev', 'Revenue', 'clicks', 'c']) await t.catalog.recommendations.searched(dan, q, { total: 1 });
    const modules = await t.catalog.recommendations.list(dan, { scenario: 'SEARCH_BAR' }, 10);
    // "c" came after "clicks" (typed anew): kept; "r", "re" and "rev" led to "Revenue": left out.
    assert.deepEqual(modules[0]!.content.map((c) => c.value), ['c', 'clicks', 'Revenue', 'orders']);
    // What is stored is untouched: every search, newest first.
    assert.deepEqual((await t.catalog.store.recentActivity(dan.urn, 'search', 10)).map((e) => e.value), ['c', 'clicks', 'Revenue', 'rev', 're', 'r', 'orders']);
  });

  test('the web app\'s listRecommendations document, verbatim, for the home and search pages', async () => {
    // Alice's own activity: a page opened, a dataset edited.
    await ok(`{ dataset(urn: "${ORDERS}") { urn } }`, undefined, alice);
    await ok(`mutation { updateDescription(input: { description: "Every order", resourceUrn: "${CUSTOMERS}" }) }`, undefined, alice);
    const doc = print(withoutGaps(webappRecommendations()));
    const home = await ok(doc, { input: { userUrn: ALICE, requestContext: { scenario: 'HOME' }, limit: 10 } }, alice);
    const search = await ok(doc, { input: { userUrn: ALICE, requestContext: { scenario: 'SEARCH_RESULTS',
      searchRequestContext: { query: 'orders', filters: [{ field: 'platform', values: [PLATFORM('hive')] }] } }, limit: 3 } }, alice);
    // The same modules as above, in the web app's selection: entities as their previews.
    const own = async (scenario: string, limit: number) => (await recommend(alice, scenario, limit)).listRecommendations.modules;
    const shape = (modules: any[]) => modules.map((m) => ({ ...m, content: m.content.map((c: any) => ({ value: c.value,
      entity: c.entity ? { urn: c.entity.urn } : null, params: c.params && { searchParams: c.params.searchParams && { types: c.params.searchParams.types,
        query: c.params.searchParams.query, filters: c.params.searchParams.filters?.map((f: any) => ({ field: f.field, values: f.values })) ?? null },
      entityProfileParams: c.params.entityProfileParams && { urn: c.params.entityProfileParams.urn },
      contentParams: c.params.contentParams } })) }));
    assert.deepEqual(shape(home.listRecommendations.modules), shape(await own('HOME', 10)));
    assert.deepEqual(shape(search.listRecommendations.modules), shape(await own('SEARCH_RESULTS', 3)));
    assert.deepEqual(home.listRecommendations.modules.map((m: any) => m.moduleId),
      ['Platforms', 'Domains', 'RecentlyViewedEntities', 'RecentlyEditedEntities', 'HighUsageEntities', 'TopTags', 'TopTerms']);
    // Previews carry the entities' own data.
    const popular = home.listRecommendations.modules.find((m: any) => m.moduleId === 'HighUsageEntities');
    assert.deepEqual(popular.content.map((c: any) => [c.entity.type, c.entity.name]), mostPopular().content.map((c) => ['DATASET', c.value.split(',')[1]]));
    const tags = home.listRecommendations.modules.find((m: any) => m.moduleId === 'TopTags');
    assert.deepEqual(tags.content.map((c: any) => [c.entity.type, c.entity.name ?? c.entity.properties?.name]), [['TAG', 'Gold'], ['TAG', 'PII'], ['TAG', 'Legacy']]);
  });
});
