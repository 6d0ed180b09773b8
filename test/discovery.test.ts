import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { facetPlan } from '../src/storage/search-sql.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * Facets, filters, sorting, paging, views and counts of search over a fixture catalog, on both engines. Every
 * expectation is computed here by brute force over the fixture's own description (not through Almanac's code).
 */

const SEP = '\u241e';
const PLATFORMS = ['hive', 'kafka', 'snowflake'];
const TAGS = ['pii', 'gold', 'legacy', 'raw'];
const TERMS = ['Revenue', 'Customer'];
const DOMAINS = ['finance', 'marketing'];
const CONTAINERS = ['warehouse', 'staging', 'events'];

interface Fixture {
  urn: string;
  type: string;
  /** Facet values by DataHub field. */
  values: Record<string, string[]>;
  removed: boolean;
  sortName: string;
  items: ChangeItem[];
}

const platformUrn = (p: string) => `urn:li:dataPlatform:${p}`;
const tagUrn = (t: string) => `urn:li:tag:${t}`;
const termUrn = (t: string) => `urn:li:glossaryTerm:${t}`;
const domainUrn = (d: string) => `urn:li:domain:${d}`;
const containerUrn = (c: string) => `urn:li:container:${c}`;
const userUrn = (u: string) => `urn:li:corpuser:${u}`;

function item(urn: string, entityType: string, aspect: string, value: unknown): ChangeItem {
  return { urn, entityType, aspect, changeType: 'UPSERT', value, systemMetadata: null };
}

function buildFixture(): Fixture[] {
  const out: Fixture[] = [];
  for (let i = 0; i < 36; i++) {
    const platform = PLATFORMS[i % 3]!;
    const env = i % 4 === 0 ? 'DEV' : 'PROD';
    const name = `sales.orders_${String(i).padStart(2, '0')}`;
    const urn = `urn:li:dataset:(${platformUrn(platform)},${name},${env})`;
    const tags = TAGS.filter((_, t) => (i + t) % (t + 2) === 0);
    const terms = i % 3 === 1 ? [TERMS[i % 2]!] : [];
    const owners = [`u${i % 5}`];
    const domain = i % 4 === 3 ? undefined : DOMAINS[i % 2]!;
    const container = CONTAINERS[i % 3]!;
    const subType = i % 5 === 0 ? 'View' : 'Table';
    const described = i % 2 === 0;
    const removed = i === 35 || i === 34;
    const deprecated = i % 7 === 0;
    const modified = 1_700_000_000_000 + i * 86_400_000;
    const items = [
      item(urn, 'dataset', 'datasetProperties', { name: `orders_${String(i).padStart(2, '0')}`, customProperties: {},
        ...(described ? { description: `Orders booked in region ${i}` } : {}), lastModified: { time: modified } }),
      item(urn, 'dataset', 'schemaMetadata', { schemaName: name, platform: platformUrn(platform), version: 0, hash: '',
        platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
        fields: [{ fieldPath: 'customer_id', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } },
          { fieldPath: i % 2 ? 'user_email' : 'amount', nativeDataType: 'varchar', type: { type: { 'com.linkedin.schema.StringType': {} } } }] }),
      item(urn, 'dataset', 'globalTags', { tags: tags.map((t) => ({ tag: tagUrn(t) })) }),
      item(urn, 'dataset', 'ownership', { owners: owners.map((o) => ({ owner: userUrn(o), type: 'DATAOWNER' })) }),
      item(urn, 'dataset', 'container', { container: containerUrn(container) }),
      item(urn, 'dataset', 'subTypes', { typeNames: [subType] }),
      ...(terms.length ? [item(urn, 'dataset', 'glossaryTerms', { terms: terms.map((t) => ({ urn: termUrn(t) })),
        auditStamp: { time: 1, actor: userUrn('u0') } })] : []),
      ...(domain ? [item(urn, 'dataset', 'domains', { domains: [domainUrn(domain)] })] : []),
      ...(removed ? [item(urn, 'dataset', 'status', { removed: true })] : []),
      ...(deprecated ? [item(urn, 'dataset', 'deprecation', { deprecated: true, note: 'old', actor: userUrn('u0') })] : []),
    ];
    out.push({
      urn, type: 'DATASET', removed, sortName: `orders_${String(i).padStart(2, '0')}`, items,
      values: {
        platform: [platformUrn(platform)], origin: [env], typeNames: [subType], tags: tags.map(tagUrn), glossaryTerms: terms.map(termUrn),
        owners: owners.map(userUrn), domains: domain ? [domainUrn(domain)] : [], container: [containerUrn(container)], platformInstance: [],
        fieldPaths: ['customer_id', i % 2 ? 'user_email' : 'amount'], hasDescription: [String(described)],
        deprecated: deprecated ? ['true'] : [], lastModifiedAt: [String(modified)],
      },
    });
  }
  for (let i = 0; i < 6; i++) {
    const urn = `urn:li:chart:(looker,chart_${i})`;
    const tags = i % 2 ? ['gold'] : [];
    out.push({
      urn, type: 'CHART', removed: false, sortName: `revenue chart ${i}`,
      items: [item(urn, 'chart', 'chartInfo', { title: `Revenue chart ${i}`, description: 'Revenue by month',
        lastModified: { created: { time: 0, actor: userUrn('u1') }, lastModified: { time: 0, actor: userUrn('u1') } } }),
      ...(tags.length ? [item(urn, 'chart', 'globalTags', { tags: tags.map((t) => ({ tag: tagUrn(t) })) })] : []),
      item(urn, 'chart', 'ownership', { owners: [{ owner: userUrn('u1'), type: 'DATAOWNER' }] })],
      values: { platform: [platformUrn('looker')], tags: tags.map(tagUrn), owners: [userUrn('u1')], hasDescription: ['true'] },
    });
  }
  for (const c of CONTAINERS) {
    const urn = containerUrn(c);
    out.push({
      urn, type: 'CONTAINER', removed: false, sortName: c,
      items: [item(urn, 'container', 'containerProperties', { name: c, customProperties: {} }),
        item(urn, 'container', 'dataPlatformInstance', { platform: platformUrn('hive') }),
        item(urn, 'container', 'subTypes', { typeNames: ['Database'] })],
      values: { platform: [platformUrn('hive')], typeNames: ['Database'], hasDescription: ['false'] },
    });
  }
  for (const t of TAGS) {
    const urn = tagUrn(t);
    out.push({ urn, type: 'TAG', removed: false, sortName: t, items: [item(urn, 'tag', 'tagProperties', { name: t })],
      values: { hasDescription: ['false'] } });
  }
  for (const d of DOMAINS) {
    const urn = domainUrn(d);
    out.push({ urn, type: 'DOMAIN', removed: false, sortName: d, items: [item(urn, 'domain', 'domainProperties', { name: d, description: `All ${d} data` })],
      values: { hasDescription: ['true'] } });
  }
  return out;
}

const FIXTURE = buildFixture();
const TYPES = ['DATASET', 'CHART', 'CONTAINER', 'TAG', 'DOMAIN'];
const DEFAULT_FACETS = ['_entityType', 'entity', 'platform', 'origin', 'typeNames', 'tags', 'glossaryTerms', 'owners', 'domains', 'container', 'platformInstance'];
const DISPLAY: Record<string, string> = { _entityType: 'Type', entity: 'Type', platform: 'Platform', origin: 'Environment', typeNames: 'Sub Type', tags: 'Tag',
  glossaryTerms: 'Glossary Term', owners: 'Owned By', domains: 'Domain', container: 'Container', platformInstance: 'Platform Instance' };

type Pred = (f: Fixture) => boolean;
const visible: Pred = (f) => !f.removed;
const valuesOf = (f: Fixture, field: string) => (field === '_entityType' || field === 'entity' ? [f.type] : f.values[field] ?? []);
const has = (field: string, ...values: string[]): Pred => (f) => valuesOf(f, field).some((v) => values.includes(v));

/** The aggregations DataHub's facet would show: counts over the matching entities, most frequent first, top 20. */
function expectedAggregations(field: string, matching: Fixture[], selected: string[] = []) {
  const counts = new Map<string, number>();
  const bump = (v: string) => counts.set(v, (counts.get(v) ?? 0) + 1);
  for (const f of matching) {
    if (field === `_entityType${SEP}typeNames`) {
      bump(f.type);
      for (const s of f.values.typeNames ?? []) bump(`${f.type}${SEP}${s}`);
    } else {
      for (const v of new Set(valuesOf(f, field))) bump(v);
    }
  }
  const list = [...counts].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, 20);
  for (const s of selected) if (!list.some((x) => x.value === s)) list.push({ value: s, count: 0 });
  return list.map((x) => ({ value: x.value, count: x.count, entity: x.value.startsWith('urn:li:') ? { urn: x.value } : null }));
}

function expectedFacets(fields: string[], matchingFor: (field: string) => Fixture[], selected: Record<string, string[]> = {}) {
  return fields.flatMap((field) => {
    const aggregations = expectedAggregations(field, matchingFor(field), selected[field]);
    return aggregations.length ? [{ field, displayName: field.split(SEP).map((f) => DISPLAY[f] ?? f).join(SEP), aggregations }] : [];
  });
}

const FACETS = 'facets { field displayName aggregations { value count entity { urn } } }';

test('facet plans: look up few matches, scan for many, subtract the rest when words match most documents', () => {
  assert.deepEqual(facetPlan(2, 49, 55), { complement: false, scan: 'seek' });
  assert.deepEqual(facetPlan(25, null, 55), { complement: false, scan: 'probe' });
  assert.deepEqual(facetPlan(48, 49, 55), { complement: true, scan: 'seek' });
  assert.deepEqual(facetPlan(34, 49, 55), { complement: true, scan: 'probe' });
  assert.deepEqual(facetPlan(60_000, 100_000, 100_000), { complement: true, scan: 'probe' });
});
const sortUrns = (xs: string[]) => [...xs].sort();

forEachEngine('discovery: facets, filters, sorting, views', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await t.catalog.entities.ingest(FIXTURE.flatMap((f) => f.items), systemActor());
  });
  after(async () => t.close());

  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.graphql(query, variables);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const searchAll = async (input: Record<string, unknown>) => (await gql(`query q($input: SearchAcrossEntitiesInput!) {
    searchAcrossEntities(input: $input) { start count total searchResults { entity { urn } } ${FACETS} } }`,
  { input: { types: TYPES, query: '*', count: 100, ...input } })).searchAcrossEntities;

  test('match everything: exact totals and every default facet, soft-deleted entities left out', async () => {
    const r = await searchAll({});
    const matching = FIXTURE.filter(visible);
    assert.equal(r.total, matching.length);
    assert.deepEqual(sortUrns(r.searchResults.map((x: any) => x.entity.urn)), sortUrns(matching.map((f) => f.urn)));
    assert.deepEqual(r.facets, expectedFacets(DEFAULT_FACETS, () => matching));
  });

  test('facets of a text query are exact whichever way they are counted (few matches, most documents, with a filter)', async () => {
    // "orders" matches every dataset (most documents: counted as all minus the rest), "chart" the charts (the facet
    // fields' values read in order and checked against them), "orders 02" one dataset (its values looked up).
    const datasets = FIXTURE.filter((f) => visible(f) && f.type === 'DATASET');
    const charts = FIXTURE.filter((f) => visible(f) && f.type === 'CHART');
    const second = datasets.filter((f) => f.sortName === 'orders_02');
    for (const [query, matching] of [['orders', datasets], ['chart', charts], ['orders 02', second]] as const) {
      const r = await searchAll({ query });
      assert.equal(r.total, matching.length, query);
      assert.deepEqual(r.facets, expectedFacets(DEFAULT_FACETS, () => matching), query);
    }
    // A filter most documents pass: their values are read field by field and checked against the matches.
    const described = await searchAll({ orFilters: [{ and: [{ field: 'hasDescription', values: ['true'] }] }] });
    const base = FIXTURE.filter(visible);
    assert.ok(described.total > base.length * 0.3, `${described.total} of ${base.length} described`);
    assert.deepEqual(described.facets, expectedFacets(DEFAULT_FACETS, () => base.filter(has('hasDescription', 'true'))));
    const gold = await searchAll({ query: 'orders', orFilters: [{ and: [{ field: 'tags', values: [tagUrn('gold')] }] }] });
    assert.deepEqual(gold.facets, expectedFacets(DEFAULT_FACETS, (field) => (field === 'tags' ? datasets : datasets.filter(has('tags', tagUrn('gold')))),
      { tags: [tagUrn('gold')] }));
  });

  test('facets are counted when selected through fragments, in search, searchAcrossEntities and scrollAcrossEntities', async () => {
    const datasets = FIXTURE.filter((f) => visible(f) && f.type === 'DATASET');
    const expected = expectedFacets(DEFAULT_FACETS, () => datasets);
    const input = { types: ['DATASET'], query: 'orders', count: 5 };
    const legacy = { type: 'DATASET', query: 'orders', count: 5 };
    const shapes = [
      [`query q($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total ${FACETS} } }`, 'searchAcrossEntities', input],
      [`query q($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total ...F } } fragment F on SearchResults { ${FACETS} }`,
        'searchAcrossEntities', input],
      [`query q($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { ...Outer } }
        fragment Outer on SearchResults { total ... on SearchResults { ...Inner } } fragment Inner on SearchResults { ${FACETS} }`, 'searchAcrossEntities', input],
      [`query q($input: SearchInput!) { search(input: $input) { total ... on SearchResults { ${FACETS} } } }`, 'search', legacy],
      [`query q($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) { total ...S } } fragment S on ScrollResults { ${FACETS} }`,
        'scrollAcrossEntities', input],
    ] as const;
    for (const [query, field, variables] of shapes) {
      const r = (await gql(query, { input: variables }))[field];
      assert.deepEqual(r, { total: datasets.length, facets: expected }, query);
    }
    // Not selected: the answer is the same without them.
    assert.deepEqual((await gql(`query q($input: SearchAcrossEntitiesInput!) { searchAcrossEntities(input: $input) { total } }`, { input })),
      { searchAcrossEntities: { total: datasets.length } });
  });

  test("a filter narrows the results and the other facets, not its own facet's counts", async () => {
    const r = await searchAll({ orFilters: [{ and: [{ field: 'platform', values: [platformUrn('hive')] }, { field: 'tags', values: [tagUrn('pii')] }] }] });
    const base = FIXTURE.filter(visible);
    const matching = base.filter((f) => has('platform', platformUrn('hive'))(f) && has('tags', tagUrn('pii'))(f));
    assert.equal(r.total, matching.length);
    assert.deepEqual(sortUrns(r.searchResults.map((x: any) => x.entity.urn)), sortUrns(matching.map((f) => f.urn)));
    const without = (field: string) => base.filter((f) => (field === 'platform' || has('platform', platformUrn('hive'))(f))
      && (field === 'tags' || has('tags', tagUrn('pii'))(f)));
    assert.deepEqual(r.facets, expectedFacets(DEFAULT_FACETS, without, { platform: [platformUrn('hive')], tags: [tagUrn('pii')] }));
  });

  test('a platform is matched by its bare name as well as its urn, and a selected value with no match counts 0', async () => {
    const byName = await searchAll({ orFilters: [{ and: [{ field: 'platform', values: ['kafka'] }] }] });
    const byUrn = await searchAll({ orFilters: [{ and: [{ field: 'platform', values: [platformUrn('kafka')] }] }] });
    assert.deepEqual(byName.searchResults, byUrn.searchResults);
    const none = await searchAll({ orFilters: [{ and: [{ field: 'tags', values: [tagUrn('nope')] }] }] });
    assert.equal(none.total, 0);
    const tagFacet = none.facets.find((f: any) => f.field === 'tags');
    assert.deepEqual(tagFacet.aggregations.at(-1), { value: tagUrn('nope'), count: 0, entity: { urn: tagUrn('nope') } });
  });

  test('orFilters: any group, all clauses; negation, EXISTS, CONTAIN, START_WITH, END_WITH and ranges', async () => {
    const cases: [Record<string, unknown>[][], Pred][] = [
      [[[{ field: 'platform', values: [platformUrn('hive')] }, { field: 'tags', values: [tagUrn('pii')] }],
        [{ field: 'domains', values: [domainUrn('marketing')] }, { field: 'origin', values: ['DEV'], negated: true }]],
      (f) => (has('platform', platformUrn('hive'))(f) && has('tags', tagUrn('pii'))(f)) || (has('domains', domainUrn('marketing'))(f) && !has('origin', 'DEV')(f))],
      [[[{ field: 'domains', condition: 'EXISTS', values: [] }]], (f) => valuesOf(f, 'domains').length > 0],
      [[[{ field: 'domains', condition: 'EXISTS', values: [], negated: true }]], (f) => valuesOf(f, 'domains').length === 0],
      [[[{ field: 'fieldPaths', condition: 'CONTAIN', values: ['mail'] }]], (f) => valuesOf(f, 'fieldPaths').some((v) => v.includes('mail'))],
      [[[{ field: 'fieldPaths', condition: 'START_WITH', values: ['user_'] }]], (f) => valuesOf(f, 'fieldPaths').some((v) => v.startsWith('user_'))],
      [[[{ field: 'lastModifiedAt', condition: 'GREATER_THAN', values: ['1701000000000'] }]],
        (f) => valuesOf(f, 'lastModifiedAt').some((v) => Number(v) > 1_701_000_000_000)],
      [[[{ field: 'lastModifiedAt', condition: 'LESS_THAN_OR_EQUAL_TO', values: ['1700172800000'] }]],
        (f) => valuesOf(f, 'lastModifiedAt').some((v) => Number(v) <= 1_700_172_800_000)],
      [[[{ field: '_entityType', values: ['CHART', 'CONTAINER'] }]], (f) => f.type === 'CHART' || f.type === 'CONTAINER'],
      [[[{ field: `_entityType${SEP}typeNames`, values: [`DATASET${SEP}View`, 'CONTAINER'] }]],
        (f) => (f.type === 'DATASET' && has('typeNames', 'View')(f)) || f.type === 'CONTAINER'],
      [[[{ field: 'deprecated', values: ['true'] }, { field: 'hasDescription', values: ['true'] }]],
        (f) => has('deprecated', 'true')(f) && has('hasDescription', 'true')(f)],
    ];
    for (const [groups, pred] of cases) {
      const r = await searchAll({ orFilters: groups.map((and) => ({ and })), searchFlags: { skipAggregates: true } });
      const expected = FIXTURE.filter(visible).filter(pred).map((f) => f.urn);
      assert.ok(expected.length > 0, `case ${JSON.stringify(groups)} has matches in the fixture`);
      assert.deepEqual(sortUrns(r.searchResults.map((x: any) => x.entity.urn)), sortUrns(expected), JSON.stringify(groups));
      assert.equal(r.total, expected.length);
    }
    // END_WITH is not in GraphQL's FilterOperator; stored views may hold it, so the service honours it.
    const ends = await t.catalog.search.search({ query: '*', entityTypes: ['dataset'], count: 100, facets: [],
      filters: [[{ field: 'fieldPaths', condition: 'END_WITH', values: ['ount'] }]] });
    assert.deepEqual(sortUrns(ends.urns), sortUrns(FIXTURE.filter((f) => visible(f) && valuesOf(f, 'fieldPaths').some((v) => v.endsWith('ount'))).map((f) => f.urn)));
  });

  test('a search that names no types searches DataHub\'s searchable types: platforms and metadata tests only when named', async () => {
    const platform = 'urn:li:dataPlatform:orderbase';
    await t.catalog.entities.ingest([item(platform, 'dataPlatform', 'dataPlatformInfo', { name: 'orderbase', type: 'RELATIONAL_DB',
      datasetNameDelimiter: '.' })], systemActor());
    const byDefault = await gql('{ searchAcrossEntities(input: { query: "orderbase" }) { total searchResults { entity { urn } } } }');
    assert.deepEqual(byDefault.searchAcrossEntities, { total: 0, searchResults: [] });
    const named = await gql('{ searchAcrossEntities(input: { query: "orderbase", types: [DATA_PLATFORM] }) { total searchResults { entity { urn } } } }');
    assert.deepEqual(named.searchAcrossEntities, { total: 1, searchResults: [{ entity: { urn: platform } }] });
    const types = await gql('{ aggregateAcrossEntities(input: { query: "*", facets: ["_entityType"] }) { facets { aggregations { value } } } }');
    const seen = types.aggregateAcrossEntities.facets[0].aggregations.map((a: { value: string }) => a.value);
    assert.ok(!seen.includes('DATA_PLATFORM') && !seen.includes('TEST'), JSON.stringify(seen));
  });

  test('soft-deleted entities are found only when a filter asks about removal', async () => {
    const r = await searchAll({ orFilters: [{ and: [{ field: 'removed', values: ['true'] }] }], searchFlags: { skipAggregates: true } });
    assert.deepEqual(sortUrns(r.searchResults.map((x: any) => x.entity.urn)), sortUrns(FIXTURE.filter((f) => f.removed).map((f) => f.urn)));
    const text = await searchAll({ query: 'orders 35' });
    assert.equal(text.total, 0);
  });

  test('aggregateAcrossEntities nests sub types under entity types and counts what it is asked for', async () => {
    const r = await gql(`{ aggregateAcrossEntities(input: { types: [${TYPES.join(', ')}], query: "*",
      facets: ["_entityType${SEP}typeNames", "platform", "owners"] }) { ${FACETS} } }`);
    const matching = FIXTURE.filter(visible);
    assert.deepEqual(r.aggregateAcrossEntities.facets, expectedFacets([`_entityType${SEP}typeNames`, 'platform', 'owners'], () => matching));
    const filtered = await gql(`{ aggregateAcrossEntities(input: { types: [DATASET], query: "orders",
      orFilters: [{ and: [{ field: "_entityType${SEP}typeNames", values: ["DATASET${SEP}View"] }, { field: "origin", values: ["PROD"] }] }],
      facets: ["_entityType${SEP}typeNames", "origin"] }) { ${FACETS} } }`);
    const datasets = matching.filter((f) => f.type === 'DATASET');
    assert.deepEqual(filtered.aggregateAcrossEntities.facets, expectedFacets([`_entityType${SEP}typeNames`, 'origin'], (field) =>
      field === 'origin' ? datasets.filter(has('typeNames', 'View')) : datasets.filter(has('origin', 'PROD')),
    { [`_entityType${SEP}typeNames`]: [`DATASET${SEP}View`], origin: ['PROD'] }));
  });

  test('scrolling visits every match exactly once', async () => {
    const seen: string[] = [];
    let scrollId: string | null = null;
    for (let page = 0; page < 20; page++) {
      const r: any = (await gql(`query s($input: ScrollAcrossEntitiesInput!) { scrollAcrossEntities(input: $input) {
        nextScrollId count total searchResults { entity { urn } } } }`,
      { input: { types: TYPES, query: '*', count: 7, ...(scrollId ? { scrollId } : {}) } })).scrollAcrossEntities;
      seen.push(...r.searchResults.map((x: any) => x.entity.urn));
      scrollId = r.nextScrollId;
      if (!scrollId) break;
    }
    assert.deepEqual(sortUrns(seen), sortUrns(FIXTURE.filter(visible).map((f) => f.urn)));
  });

  test('sorting by name, both ways', async () => {
    for (const sortOrder of ['ASCENDING', 'DESCENDING']) {
      const r = await searchAll({ types: ['DATASET'], sortInput: { sortCriterion: { field: '_entityName', sortOrder } } });
      const expected = FIXTURE.filter((f) => visible(f) && f.type === 'DATASET').sort((a, b) => (a.sortName < b.sortName ? -1 : 1)).map((f) => f.urn);
      if (sortOrder === 'DESCENDING') expected.reverse();
      assert.deepEqual(r.searchResults.map((x: any) => x.entity.urn), expected);
    }
    const byTime = await searchAll({ types: ['DATASET'], sortInput: { sortCriterion: { field: 'lastModifiedAt', sortOrder: 'DESCENDING' } } });
    assert.deepEqual(byTime.searchResults.map((x: any) => x.entity.urn),
      FIXTURE.filter((f) => visible(f) && f.type === 'DATASET').sort((a, b) => Number(b.values.lastModifiedAt![0]) - Number(a.values.lastModifiedAt![0])).map((f) => f.urn));
  });

  test('a view narrows types and filters; a missing view is a 404', async () => {
    // The filter (pii or gold) matches datasets on every platform and gold charts; the view keeps Snowflake datasets.
    const view = 'urn:li:dataHubView:snowflake-datasets';
    await t.catalog.entities.ingest([item(view, 'dataHubView', 'dataHubViewInfo', { name: 'Snowflake', type: 'GLOBAL',
      definition: { entityTypes: ['dataset'], filter: { or: [{ and: [{ field: 'platform', value: '', values: [platformUrn('snowflake')], condition: 'EQUAL' }] }] } },
      created: { time: 1, actor: userUrn('u0') }, lastModified: { time: 1, actor: userUrn('u0') } })], systemActor());
    const r = await searchAll({ viewUrn: view, orFilters: [{ and: [{ field: 'tags', values: [tagUrn('pii')] }] }, { and: [{ field: 'tags', values: [tagUrn('gold')] }] }] });
    const tagged = FIXTURE.filter((f) => visible(f) && (has('tags', tagUrn('pii'))(f) || has('tags', tagUrn('gold'))(f)));
    const expected = tagged.filter((f) => f.type === 'DATASET' && has('platform', platformUrn('snowflake'))(f));
    // Something specific: a view answering nothing, or not narrowing, fails.
    assert.deepEqual([expected.length, tagged.filter((f) => f.type !== 'DATASET').length > 0,
      tagged.filter((f) => f.type === 'DATASET' && !has('platform', platformUrn('snowflake'))(f)).length > 0], [11, true, true]);
    assert.deepEqual(sortUrns(r.searchResults.map((x: any) => x.entity.urn)), sortUrns(expected.map((f) => f.urn)));
    const missing = await t.graphql('{ searchAcrossEntities(input: { query: "*", viewUrn: "urn:li:dataHubView:nope" }) { total } }');
    assert.equal(missing.body.errors[0].extensions.type, 'NOT_FOUND');
  });

  test('getEntityCounts and getQuickFilters', async () => {
    const counts = await gql('{ getEntityCounts(input: { types: [DATASET, CHART, TAG, DASHBOARD] }) { counts { entityType count } } }');
    const n = (type: string) => FIXTURE.filter((f) => visible(f) && f.type === type).length;
    assert.deepEqual(counts.getEntityCounts.counts, ['DATASET', 'CHART', 'TAG', 'DASHBOARD'].map((entityType) => ({ entityType, count: n(entityType) })));
    const quick = await gql('{ getQuickFilters(input: {}) { quickFilters { field value entity { urn } } } }');
    const platforms = new Map<string, number>();
    for (const f of FIXTURE.filter(visible)) for (const p of f.values.platform ?? []) platforms.set(p, (platforms.get(p) ?? 0) + 1);
    const top = [...platforms].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5).map(([p]) => p).sort();
    const firstTypes = quick.getQuickFilters.quickFilters.filter((q: any) => q.field === '_entityType').map((q: any) => q.value);
    assert.deepEqual(quick.getQuickFilters.quickFilters.filter((q: any) => q.field === 'platform'),
      top.map((p) => ({ field: 'platform', value: p, entity: { urn: p } })));
    assert.deepEqual(firstTypes.slice(0, 3), ['DATASET', 'CHART', 'CONTAINER']);
    assert.ok(firstTypes.includes('DOMAIN'), JSON.stringify(firstTypes));
  });

  test('matched fields say where the words were found', async () => {
    const r = await gql(`{ searchAcrossEntities(input: { types: [DATASET], query: "region", count: 1,
      orFilters: [{ and: [{ field: "urn", values: ["${FIXTURE[2]!.urn}"] }] }] }) { searchResults { entity { urn } matchedFields { name value } } } }`);
    assert.deepEqual(r.searchAcrossEntities.searchResults, [{ entity: { urn: FIXTURE[2]!.urn },
      matchedFields: [{ name: 'description', value: 'Orders booked in region 2' }] }]);
  });

  test('bad filters are 400s naming the problem, not 500s', async () => {
    for (const [clause, message] of [
      ['{ field: "lastModifiedAt", condition: GREATER_THAN, values: ["soon"] }', /takes one number/],
      ['{ field: "_entityType", values: ["NOT_A_TYPE"] }', /Unknown entity type/],
    ] as const) {
      const res = await t.graphql(`{ searchAcrossEntities(input: { query: "*", orFilters: [{ and: [${clause}] }] }) { total } }`);
      assert.equal(res.body.errors[0].extensions.type, 'BAD_REQUEST', JSON.stringify(res.body.errors));
      assert.match(res.body.errors[0].message, message);
    }
  });
});
