import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { selects } from '../src/graphql/selection.js';
import { documentText, queryTerms, words } from '../src/services/search.js';
import { systemActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const CREATED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const DELETED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_deleted,PROD)';

test('names split at camelCase, snake_case, dots and digits', () => {
  assert.deepEqual(words('SampleKafkaDataset'), ['samplekafkadataset', 'sample', 'kafka', 'dataset']);
  assert.deepEqual(words('fct_users_created'), ['fct', 'users', 'created']);
  assert.deepEqual(words('db.HTTPLogs2'), ['db', 'httplogs2', 'http', 'logs', '2']);
  assert.deepEqual(queryTerms('  Users  created '), ['users', 'created']);
  assert.deepEqual(queryTerms('*'), []);
  assert.equal(documentText('urn:li:tag:Legacy', new Map([['tagProperties', { name: 'Legacy', description: 'No longer supported' }]])),
    'legacy legacy no longer supported');
});

test('selects: a field under the resolved one, directly, through inline and named fragments, not deeper', () => {
  const info = (doc: string) => {
    const d = parse(doc);
    const op = d.definitions.find((x): x is OperationDefinitionNode => x.kind === Kind.OPERATION_DEFINITION)!;
    const fragments = Object.fromEntries(d.definitions.filter((x): x is FragmentDefinitionNode => x.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]));
    return { fieldNodes: [op.selectionSet.selections[0] as FieldNode], fragments };
  };
  assert.equal(selects(info('{ s { total facets { field } } }'), 'facets'), true);
  assert.equal(selects(info('{ s { total } }'), 'facets'), false);
  assert.equal(selects(info('{ s { total x { facets } } }'), 'facets'), false, 'a deeper field of the same name is not this one');
  assert.equal(selects(info('{ s { ... on R { facets { field } } } }'), 'facets'), true);
  assert.equal(selects(info('{ s { ...A } } fragment A on R { total ...B } fragment B on R { facets { field } }'), 'facets'), true);
  assert.equal(selects(info('{ s { ...A } } fragment A on R { total ...A }'), 'facets'), false, 'a fragment spread twice is read once');
  assert.equal(selects(undefined, 'facets'), true, 'without resolve info, assume selected');
});

forEachEngine('search', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const search = async (input: string) => {
    const res = await t.graphql(`{ searchAcrossEntities(input: ${input}) { start count total searchResults { entity { urn type } } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data.searchAcrossEntities;
  };

  test('a word inside a camelCase name finds it', async () => {
    const r = await search('{ types: [DATASET], query: "kafka" }');
    assert.deepEqual(r, { start: 0, count: 1, total: 1, searchResults: [{ entity: { urn: KAFKA, type: 'DATASET' } }] });
  });

  test('snake_case words and prefixes match; every word must match', async () => {
    const r = await search('{ types: [DATASET], query: "users creat" }');
    assert.deepEqual(r.searchResults.map((x: any) => x.entity.urn), [CREATED]);
    const both = await search('{ types: [DATASET], query: "fct users" }');
    assert.deepEqual(both.searchResults.map((x: any) => x.entity.urn).sort(), [CREATED, DELETED]);
  });

  test('descriptions, column paths and tags are searchable; types narrow the results', async () => {
    assert.deepEqual((await search('{ query: "shipment" }')).searchResults.map((x: any) => x.entity.urn),
      ['urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)']);
    const tags = await search('{ types: [TAG], query: "legacy" }');
    assert.deepEqual(tags.searchResults, [{ entity: { urn: 'urn:li:tag:Legacy', type: 'TAG' } }]);
    const anyType = await search('{ query: "legacy" }');
    assert.ok(anyType.total >= 2, 'the tag and the dataset tagged with it');
  });

  test('an empty query and * match everything of the type, paged', async () => {
    const all = await search('{ types: [DATASET], query: "*", start: 0, count: 3 }');
    assert.equal(all.total, 7);
    assert.equal(all.count, 3);
    const empty = await search('{ types: [DATASET], query: "", start: 6, count: 3 }');
    assert.deepEqual([empty.total, empty.count], [7, 1]);
  });

  test('edits are searchable at once; deleted entities disappear', async () => {
    // A dataset of this test's own, so that the samples stay whole for the others.
    const doomed = 'urn:li:dataset:(urn:li:dataPlatform:hive,search_doomed,PROD)';
    await t.catalog.entities.ingest([{ urn: doomed, entityType: 'dataset', aspect: 'status', changeType: 'UPSERT',
      value: { removed: false }, systemMetadata: null }], systemActor());
    assert.equal((await search('{ query: "zanzibar" }')).total, 0);
    const edit = await t.graphql(`mutation { updateDataset(urn: "${doomed}", input: { editableProperties: { description: "Events from Zanzibar" } }) { urn } }`);
    assert.equal(edit.body.errors, undefined, JSON.stringify(edit.body.errors));
    assert.deepEqual((await search('{ query: "zanzibar" }')).searchResults.map((x: any) => x.entity.urn), [doomed]);
    const deleted = await t.app.inject({ method: 'POST', url: '/entities?action=delete', headers: t.auth, payload: { urn: doomed } });
    assert.equal(deleted.statusCode, 200);
    assert.equal((await search('{ query: "zanzibar" }')).total, 0);
    assert.equal((await search('{ query: "search_doomed" }')).total, 0);
  });

  test('search, scroll and autocomplete', async () => {
    const s = await t.graphql('{ search(input: { type: CORP_USER, query: "john" }) { total searchResults { entity { ... on CorpUser { username } } } } }');
    assert.deepEqual(s.body.data.search, { total: 1, searchResults: [{ entity: { username: 'jdoe' } }] });
    const first = await t.graphql('{ scrollAcrossEntities(input: { types: [DATASET], query: "*", count: 4 }) { nextScrollId count total } }');
    assert.deepEqual(first.body.data.scrollAcrossEntities, { nextScrollId: '4', count: 4, total: 7 });
    const second = await t.graphql('{ scrollAcrossEntities(input: { types: [DATASET], query: "*", count: 4, scrollId: "4" }) { nextScrollId count } }');
    assert.deepEqual(second.body.data.scrollAcrossEntities, { nextScrollId: null, count: 3 });
    const ac = await t.graphql('{ autoComplete(input: { type: DATASET, query: "fct_users", limit: 5 }) { query suggestions entities { urn } } }');
    assert.deepEqual(ac.body.data.autoComplete.suggestions.sort(), ['fct_users_created', 'fct_users_deleted']);
    const multi = await t.graphql('{ autoCompleteForMultiple(input: { query: "legacy", limit: 10 }) { suggestions { type suggestions } } }');
    assert.deepEqual(multi.body.data.autoCompleteForMultiple.suggestions.map((x: any) => x.type).sort(), ['CHART', 'DATASET', 'TAG']);
  });

  test('orFilters and filters narrow results as DataHub clients send them', async () => {
    const hive = await search('{ types: [DATASET], query: "*", orFilters: [{ and: [{ field: "platform", values: ["urn:li:dataPlatform:hive"] }] }] }');
    assert.equal(hive.total, 4);
    const notHive = await search('{ types: [DATASET], query: "*", orFilters: [{ and: [{ field: "platform", values: ["hive"], negated: true }] }] }');
    assert.deepEqual(notHive.searchResults.map((x: any) => x.entity.urn).sort(), [
      'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)', KAFKA,
      'urn:li:dataset:(urn:li:dataPlatform:s3,project/root/events/logging_events_bckp,PROD)']);
    const tagged = await search('{ query: "*", filters: [{ field: "tags", values: ["urn:li:tag:Legacy"] }, { field: "_entityType", values: ["DATASET"] }] }');
    assert.deepEqual(tagged.searchResults.map((x: any) => x.entity.urn), ['urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)']);
    const either = await search('{ types: [DATASET], query: "users", orFilters: [{ and: [{ field: "removed", values: ["true"], negated: true }] }] }');
    assert.equal(either.total, 2);
    const paged = await search('{ types: [DATASET], query: "*", start: 3, count: 2, orFilters: [{ and: [{ field: "platform", values: ["hive"] }] }] }');
    assert.deepEqual([paged.total, paged.count], [4, 1]);
  });

  test('REST search returns Rest.li\'s SearchResult', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/entities?action=search', headers: t.auth,
      payload: { entity: 'dataset', input: 'logging', start: 0, count: 10 } });
    assert.equal(res.statusCode, 200);
    const v = res.json().value;
    assert.equal(v.numEntities, 2);
    assert.deepEqual(v.entities.map((e: any) => e.entity).sort(), [
      'urn:li:dataset:(urn:li:dataPlatform:hive,logging_events,PROD)',
      'urn:li:dataset:(urn:li:dataPlatform:s3,project/root/events/logging_events_bckp,PROD)']);
  });

  test('the index is rebuilt on start when it is empty', async () => {
    const docs = await t.catalog.store.countSearchDocs();
    assert.deepEqual([await t.catalog.store.countSearchDocs(1), await t.catalog.store.countSearchDocs(docs + 5)], [1, docs],
      'counted up to a bound (what a start asks: whether there are any)');
    await t.catalog.store.deleteSearchDocs((await t.catalog.store.listEntities({})).map((r) => r.urn));
    assert.deepEqual([await t.catalog.store.countSearchDocs(), await t.catalog.store.countSearchDocs(1)], [0, 0]);
    await t.catalog.changeLog.rebuildIfEmpty('search', () => t.catalog.store.countSearchDocs(1));
    assert.equal((await search('{ types: [DATASET], query: "kafka" }')).total, 1);
    assert.equal((await search('{ types: [DATASET], query: "*" }')).total, 7);
  });
});
