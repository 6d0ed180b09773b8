import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog, type OpenedCatalog } from '../src/catalog.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { FacetDocs, RoaringBitmap32, urnHash as urnHashOf, type FacetDoc } from '../src/storage/facet-bitmaps.js';
import { FacetIndex, type FacetEngine } from '../src/storage/facet-index.js';
import { FACET_SNAPSHOT_TABLE } from '../src/storage/schema.js';
import { SqlParams } from '../src/storage/search-sql.js';
import { catalogProposals, writeProposalFile } from '../bench/generate.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { countable } from '../src/storage/search-sql.js';
import type { FacetCount, FacetSpec, SearchCondition, SearchDoc, SearchDocQuery } from '../src/storage/types.js';
import { rng } from './support/random.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';

/**
 * Facet counts from the in-memory bitmaps (src/storage/facet-index.ts) against brute force: the counts computed
 * straight from the search documents the catalog derives, for every query shape, after every kind of write, after a
 * restart, and for a write by another server on the same database.
 */

const PLATFORMS = ['hive', 'kafka', 'snowflake', 'mysql'];
const WORDS = ['orders', 'payments', 'clicks', 'users', 'refunds', 'tickets', 'leads', 'audit', 'metrics', 'forecast', 'events', 'logs',
  'sessions', 'invoices', 'products', 'accounts', 'inventory', 'campaigns', 'shipments', 'customers'];

const urnOf = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:${PLATFORMS[i % PLATFORMS.length]},db.${WORDS[i % WORDS.length]}_${i},${i % 3 ? 'PROD' : 'DEV'})`;

function dataset(i: number, r: () => number, variant = 0): ChangeItem[] {
  const urn = urnOf(i);
  const item = (aspect: string, value: unknown): ChangeItem => ({ urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null });
  const pick = (n: number) => Math.floor(r() * n);
  const items = [
    item('datasetProperties', { name: `${WORDS[i % WORDS.length]}_${i}`, description: `The table of unit ${pick(7)}`, customProperties: {}, tags: [] }),
    item('globalTags', { tags: [...new Set([pick(6), pick(6) + variant])].map((t) => ({ tag: `urn:li:tag:t${t}` })) }),
    item('ownership', { owners: [{ owner: `urn:li:corpuser:u${pick(9) + variant}`, type: 'TECHNICAL_OWNER' }],
      lastModified: { time: 1, actor: 'urn:li:corpuser:x' } }),
    item('subTypes', { typeNames: [pick(4) === 0 ? 'View' : 'Table'] }),
    item('container', { container: `urn:li:container:c${pick(5)}` }),
  ];
  if (pick(2)) items.push(item('domains', { domains: [`urn:li:domain:d${pick(3)}`] }));
  return items;
}

const facetsOf = (catalog: OpenedCatalog) => (catalog.store as unknown as { facets: FacetIndex }).facets;

const SPECS: FacetSpec[] = [{ kind: 'entityType' }, { kind: 'entityTypeThen', field: 'typeNames' }, ...['platform', 'origin', 'tags', 'owners',
  'typeNames', 'container', 'domains', 'hasDescription', 'browsePathV2'].map((field) => ({ kind: 'field' as const, field }))];

const live = (extra: SearchCondition[] = []): SearchCondition => ({ all: [{ column: 'removed', value: false }, ...extra] });
const QUERIES: SearchDocQuery[] = [];
for (const terms of [[], ['table'], ['orders'], ['refunds', '1'], ['nosuchword'], ['unit', '3'], ['t']]) {
  QUERIES.push({ terms, where: live() });
  QUERIES.push({ terms, where: live([{ column: 'entityType', values: ['dataset'] }]) });
  QUERIES.push({ terms, where: live([{ field: 'platform', op: 'EQUAL', values: ['urn:li:dataPlatform:hive'] }]) });
  QUERIES.push({ terms, where: live([{ field: 'platform', op: 'EQUAL', values: ['urn:li:dataPlatform:kafka', 'urn:li:dataPlatform:hive'] },
    { field: 'tags', op: 'EQUAL', values: ['urn:li:tag:t1'] }]) });
  QUERIES.push({ terms, where: { all: [{ not: { column: 'entityType', values: ['corpuser'] } }, { any: [{ column: 'removed', value: true },
    { field: 'owners', op: 'EXISTS', values: [] }] }, { not: { field: 'domains', op: 'START_WITH', values: ['urn:li:domain:d1'] } }] } });
  // Named urns (a lineage search's reached entities), some not in the catalog, some soft-deleted later: their documents
  // are looked up by urn, then counted from the bitmaps.
  const named = [...Array.from({ length: 60 }, (_, k) => urnOf(k * 4 + 1)), 'urn:li:dataset:(urn:li:dataPlatform:hive,no.such,PROD)'];
  QUERIES.push({ terms, where: live([{ column: 'urn', values: named }]) });
  QUERIES.push({ terms, where: live([{ column: 'urn', values: named }, { field: 'platform', op: 'EQUAL', values: ['urn:li:dataPlatform:hive'] }]) });
  QUERIES.push({ terms, where: { all: [{ not: { column: 'urn', values: named } }, { any: [{ column: 'urn', values: named.slice(0, 9) },
    { field: 'tags', op: 'EQUAL', values: ['urn:li:tag:t2'] }] }] } });
}

/** Whether a document satisfies a condition, read from the document itself. */
function holds(d: SearchDoc, c: SearchCondition): boolean {
  if ('all' in c) return c.all.every((x) => holds(d, x));
  if ('any' in c) return c.any.some((x) => holds(d, x));
  if ('not' in c) return !holds(d, c.not);
  if ('column' in c) return c.column === 'removed' ? d.removed === c.value : c.column === 'entityType' ? c.values.includes(d.entityType) : c.values.includes(d.urn);
  const values = d.values.filter(([f]) => f === c.field).map(([, v]) => v);
  if (c.op === 'EXISTS') return values.length > 0;
  if (c.op === 'EQUAL') return values.some((v) => c.values.includes(v));
  if (c.op === 'START_WITH') return values.some((v) => c.values.some((x) => v.startsWith(x)));
  throw new Error(`not in these tests: ${c.op}`);
}

/** The facet counts of a query computed from the documents, sorted like `sorted` sorts the store's. */
function bruteForce(docs: readonly SearchDoc[], q: SearchDocQuery): FacetCount[][] {
  const matching = docs.filter((d) => {
    const words = `${d.name} ${d.text}`.split(/[^a-z0-9]+/);
    return q.terms.every((t) => words.some((w) => w.startsWith(t))) && holds(d, q.where);
  });
  return SPECS.map((s) => {
    const n = new Map<string, number>();
    const add = (key: string) => n.set(key, (n.get(key) ?? 0) + 1);
    for (const d of matching) {
      if (s.kind !== 'field') add(JSON.stringify([d.entityType]));
      if (s.kind === 'entityType') continue;
      for (const v of new Set(d.values.filter(([f]) => f === s.field).map(([, v]) => v))) add(JSON.stringify(s.kind === 'field' ? [v] : [d.entityType, v]));
    }
    return sorted([...n].map(([k, count]) => {
      const [value, sub] = JSON.parse(k) as [string, string?];
      return sub === undefined ? { value, count } : { value, sub, count };
    }));
  });
}

const sorted = (rows: readonly FacetCount[]) => [...rows].sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

test('FacetDocs: a build laid out in small steps (a start yielding between them) counts what was loaded, as one laid out at once does', () => {
  const r = rng(11);
  const types = new Map<number, string>();
  const has = new Map<string, Set<number>>();
  const build = () => {
    const docs = new FacetDocs();
    const rr = rng(3);
    docs.setMany(Array.from({ length: 900 }, (_, k) => {
      const entityType = rr() < 0.6 ? 'dataset' : 'chart';
      types.set(k + 1, entityType);
      return { id: k + 1, urn: `u${k + 1}`, entityType, removed: rr() < 0.1, values: [] };
    }));
    // Values as a build reads them, a field's value at a time; some ids are no document (a write raced the build).
    for (const field of ['platform', 'tags', 'owners']) {
      for (let v = 0; v < 9; v++) {
        const ids = [...new Set(Array.from({ length: 120 }, () => 1 + Math.floor(rr() * 950)))].sort((a, b) => a - b);
        has.set(JSON.stringify([field, `v${v}`]), new Set(ids.filter((id) => id <= 900)));
        docs.loadValue(field, `v${v}`, ids);
      }
    }
    return docs;
  };
  const once = build();
  once.finishLoad();
  const stepped = build();
  let steps = 0;
  for (const _ of stepped.finishLoadSteps(100)) steps++;
  assert.ok(steps > 20, `laid out in many steps (${steps})`);
  const specs: FacetSpec[] = [{ kind: 'entityType' }, { kind: 'field', field: 'tags' }, { kind: 'entityTypeThen', field: 'platform' }];
  const expected = (ids: ReadonlySet<number>) => specs.map((spec) => {
    const n = new Map<string, number>();
    const add = (k: string) => n.set(k, (n.get(k) ?? 0) + 1);
    for (const id of ids) {
      if (spec.kind !== 'field') add(JSON.stringify([types.get(id)]));
      if (spec.kind === 'entityType') continue;
      for (const [key, holders] of has) {
        const [field, value] = JSON.parse(key) as [string, string];
        if (field === spec.field && holders.has(id)) add(JSON.stringify(spec.kind === 'field' ? [value] : [types.get(id), value]));
      }
    }
    return sorted([...n].map(([k, count]) => { const [a, b] = JSON.parse(k) as [string, string?]; return b === undefined ? { value: a, count } : { value: a, sub: b, count }; }));
  });
  for (let k = 0; k < 20; k++) {
    const ids = new Set(Array.from({ length: 1 + Math.floor(r() * 400) }, () => 1 + Math.floor(r() * 900)));
    const m = new RoaringBitmap32([...ids]);
    const want = expected(ids);
    assert.deepEqual(stepped.count(m, specs).map(sorted), want, `stepped: counts of set ${k}`);
    assert.deepEqual(once.count(m, specs).map(sorted), want, `at once: counts of set ${k}`);
  }
  // Removals read the per-document lists the layout made: a removed document's values go with it.
  for (const id of [5, 77, 300]) { stepped.remove(id); types.delete(id); }
  const rest = new Set(types.keys());
  assert.deepEqual(stepped.count(stepped.evaluate({ all: [] }), specs).map(sorted), expected(rest));
});

test('FacetDocs: thousands of random replacements and removals leave exactly the last state (ordinal lists compacted as they go)', () => {
  const r = rng(7);
  const docs = new FacetDocs();
  const state = new Map<number, FacetDoc>();
  const fields = ['platform', 'tags', 'owners', 'fieldPaths'];
  for (let step = 0; step < 6000; step++) {
    const id = 1 + Math.floor(r() * 700);
    if (r() < 0.15) {
      docs.remove(id);
      state.delete(id);
      continue;
    }
    const values = Array.from({ length: Math.floor(r() * 6) }, () => [fields[Math.floor(r() * 4)]!, `v${Math.floor(r() * 12)}`] as const);
    const d: FacetDoc = { id, urn: `u${id}`, entityType: r() < 0.7 ? 'dataset' : 'chart', removed: r() < 0.1, values };
    docs.setMany([d]);
    state.set(id, d);
  }
  const specs: FacetSpec[] = [{ kind: 'entityType' }, { kind: 'field', field: 'tags' }, { kind: 'field', field: 'owners' }, { kind: 'entityTypeThen', field: 'platform' }];
  const expected = (ids: readonly number[]) => specs.map((s) => {
    const n = new Map<string, number>();
    const add = (k: string) => n.set(k, (n.get(k) ?? 0) + 1);
    for (const id of ids) {
      const d = state.get(id)!;
      if (s.kind !== 'field') add(JSON.stringify([d.entityType]));
      if (s.kind === 'entityType') continue;
      for (const v of new Set(d.values.filter(([f]) => f === s.field).map(([, v]) => v))) add(JSON.stringify(s.kind === 'field' ? [v] : [d.entityType, v]));
    }
    return sorted([...n].map(([k, count]) => { const [value, sub] = JSON.parse(k) as [string, string?]; return sub === undefined ? { value, count } : { value, sub, count }; }));
  });
  const live = [...state.keys()].filter((id) => !state.get(id)!.removed);
  assert.equal(docs.size, state.size, 'one document an id');
  // Every document (the bitmaps intersected), and a few (their ordinal lists walked).
  const everything = docs.evaluate({ all: [{ column: 'removed', value: false }] });
  assert.deepEqual(docs.count(everything, specs).map(sorted), expected(live));
  const few = docs.evaluate({ all: [{ column: 'removed', value: false }, { field: 'tags', op: 'EQUAL', values: ['v3'] }, { column: 'entityType', values: ['chart'] }] });
  assert.deepEqual(docs.count(few, specs).map(sorted), expected(live.filter((id) => state.get(id)!.entityType === 'chart'
    && state.get(id)!.values.some(([f, v]) => f === 'tags' && v === 'v3'))));
  assert.equal(docs.answers({ field: 'fieldPaths', op: 'EQUAL', values: ['v1'] }), false, 'a field held in SQL only is not answered here');
});

test('FacetDocs: past 65,536 values the ordinal lists widen from 16 to 32 bits, counts unchanged, written or built', () => {
  // Document k has tag `t${k}` (one value each, 70,000 in all) and owner `o${k % 3}`; written one at a time, so that
  // the lists widen while documents hold some, and built from values (finishLoad) to lay them out at 32 bits at once.
  const N = 70_000;
  const written = new FacetDocs();
  for (let k = 1; k <= N; k++) written.setMany([{ id: k, urn: `u${k}`, entityType: 'dataset', removed: false, values: [['tags', `t${k}`], ['owners', `o${k % 3}`]] }]);
  const built = new FacetDocs();
  built.setMany(Array.from({ length: N }, (_, i) => ({ id: i + 1, urn: `u${i + 1}`, entityType: 'dataset', removed: false, values: [] })));
  for (let k = 1; k <= N; k++) built.loadValue('tags', `t${k}`, [k]);
  for (let o = 0; o < 3; o++) built.loadValue('owners', `o${o}`, Array.from({ length: N }, (_, i) => i + 1).filter((k) => k % 3 === o));
  built.finishLoad();
  const unpacked = (() => { const { packed, transfer } = written.pack(); return FacetDocs.unpack(structuredClone(packed, { transfer })); })();
  const specs: FacetSpec[] = [{ kind: 'field', field: 'owners' }, { kind: 'field', field: 'tags' }];
  // Few documents: their ordinal lists are walked (what the widening changes); the last ones have ordinals above 65,535.
  const few = new RoaringBitmap32([3, 65_536, 65_537, 69_999, 70_000]);
  const want = [sorted([{ value: 'o0', count: 2 }, { value: 'o1', count: 2 }, { value: 'o2', count: 1 }]),
    sorted(['t3', 't65536', 't65537', 't69999', 't70000'].map((value) => ({ value, count: 1 })))];
  for (const [label, d] of [['written', unpacked], ['built', built]] as const) {
    assert.deepEqual(d.count(few, specs).map(sorted), want, `${label}: counts of five documents`);
    d.remove(70_000);
    assert.deepEqual(d.count(new RoaringBitmap32([69_999, 70_000]), specs).map(sorted), [[{ value: 'o0', count: 1 }], [{ value: 't69999', count: 1 }]],
      `${label}: a removed document's values go with it`);
  }
});

test('FacetDocs: packed, moved to another thread and unpacked, a structure counts as the original and takes further writes', () => {
  const r = rng(19);
  const fields = ['platform', 'tags', 'owners', 'domains'];
  const randomDoc = (id: number): FacetDoc => ({ id, urn: `u${id}`, entityType: r() < 0.7 ? 'dataset' : 'chart', removed: r() < 0.1,
    values: Array.from({ length: Math.floor(r() * 6) }, () => [fields[Math.floor(r() * 4)]!, `v${Math.floor(r() * 12)}`] as const) });
  const original = new FacetDocs();
  const twin = new FacetDocs();
  const state = new Map<number, FacetDoc>();
  // Replacements and removals, so that the ordinal pool holds garbage when packed.
  for (let step = 0; step < 3000; step++) {
    const id = 1 + Math.floor(r() * 500);
    if (r() < 0.15) { original.remove(id); twin.remove(id); state.delete(id); continue; }
    const d = randomDoc(id);
    original.setMany([d]);
    twin.setMany([d]);
    state.set(id, d);
  }
  const { packed, transfer } = twin.pack();
  // As postMessage hands it over: the buffers moved (detached here), the rest cloned.
  const copy = FacetDocs.unpack(structuredClone(packed, { transfer }));
  assert.equal(packed.pool.byteLength, 0, 'the pool was moved, not copied');
  const specs: FacetSpec[] = [{ kind: 'entityType' }, { kind: 'field', field: 'tags' }, { kind: 'entityTypeThen', field: 'platform' },
    { kind: 'field', field: 'domains' }];
  const compare = (label: string) => {
    assert.equal(copy.size, original.size, `${label}: as many documents`);
    for (const c of [{ all: [] }, { all: [{ column: 'removed' as const, value: false }] }, { field: 'owners', op: 'EQUAL' as const, values: ['v3', 'v7'] },
      { all: [{ field: 'tags', op: 'EXISTS' as const, values: [] }, { column: 'entityType' as const, values: ['chart'] }] }]) {
      const m = original.evaluate(c);
      assert.deepEqual(copy.evaluate(c).toArray(), m.toArray(), `${label}: the documents of ${JSON.stringify(c)}`);
      // Both ways of counting: all the bitmaps intersected, and (a few documents) their ordinal lists walked.
      assert.deepEqual(copy.count(m, specs).map(sorted), original.count(m, specs).map(sorted), `${label}: counts of ${JSON.stringify(c)}`);
      const few = new RoaringBitmap32(m.toArray().slice(0, 5));
      assert.deepEqual(copy.count(few, specs).map(sorted), original.count(few, specs).map(sorted), `${label}: counts of 5 of ${JSON.stringify(c)}`);
    }
    assert.deepEqual(copy.idsWithHash(new Set([urnHashOf('u7'), urnHashOf('u300')])), original.idsWithHash(new Set([urnHashOf('u7'), urnHashOf('u300')])),
      `${label}: documents found by their urn's hash`);
  };
  compare('unpacked');
  for (let step = 0; step < 2000; step++) {
    const id = 1 + Math.floor(r() * 900);
    if (r() < 0.15) { original.remove(id); copy.remove(id); continue; }
    const d = randomDoc(id);
    original.setMany([d]);
    copy.setMany([d]);
  }
  compare('after 2,000 more writes to both');
});

/** Every query shape counted by `c`'s store from its bitmaps equals brute force over the documents now stored. */
async function checkAll(c: OpenedCatalog, label: string, engine: 'sqlite' | 'postgres') {
  const facets = facetsOf(c);
  assert.equal(await facets.ready(), true, `${label}: the facet index is built (${String(facets.error)})`);
  const urns = await allUrns(c);
  const docs = (await c.search.documents(urns)).search!.upsert;
  // Twice: the words read from the text index the first time, from their kept bitmaps the second (SQLite).
  let wordReads = 0;
  for (const [k, q] of [...QUERIES, ...QUERIES].entries()) {
    if (k === QUERIES.length) wordReads = facets.stats.wordReads;
    const before = facets.stats.memory;
    const got = (await c.store.searchFacets(q, SPECS)).map(sorted);
    // Without words or field conditions, the counts table answers (constant time); every other query the bitmaps.
    assert.equal(facets.stats.memory, before + (countable(q) ? 0 : 1), `${label}: counted from the bitmaps: ${JSON.stringify(q)}`);
    assert.deepEqual(got, bruteForce(docs, q), `${label}: ${JSON.stringify(q)}`);
    const { total } = await c.store.searchDocs({ ...q, sort: { by: 'name', descending: false }, start: 0, count: 0, facetsFollow: true });
    assert.equal(total, docs.filter((d) => bruteForce([d], q)[0]!.length > 0).length, `${label}: total of ${JSON.stringify(q)}`);
  }
  if (engine === 'sqlite') assert.equal(facets.stats.wordReads, wordReads, `${label}: the second time, every word from its kept bitmap`);
}

async function allUrns(c: OpenedCatalog): Promise<string[]> {
  const q = { terms: [], where: { all: [] }, sort: { by: 'name' as const, descending: false } };
  const { total } = await c.store.searchDocs({ ...q, start: 0, count: 0 });
  return (await c.store.searchDocs({ ...q, start: 0, count: total })).urns;
}

forEachEngine('search facets from bitmaps', (ctx) => {
  let catalog: OpenedCatalog;
  const r = rng(42);
  const N = 240;
  // Every word's bitmap kept, however few documents it has (SQLite): the kept bitmaps are what the writes must update.
  const open = async () => {
    const c = await openCatalog(loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' }));
    facetsOf(c).words.min = 0;
    return c;
  };

  before(async () => {
    catalog = await open();
    await catalog.entities.ingest(Array.from({ length: N }, (_, i) => dataset(i, r)).flat(), systemActor());
    await catalog.changeLog.catchUpIndexes();
  });
  after(async () => catalog?.close());

  test('counts equal brute force for every query shape on a generated catalog', async () => {
    await checkAll(catalog, 'loaded', ctx.engine);
  });

  test('after inserts, updates that change facet values, soft deletes and hard deletes (the writer sees them at once)', async () => {
    const items: ChangeItem[] = [];
    for (let i = N; i < N + 30; i++) items.push(...dataset(i, r));
    for (let i = 0; i < 60; i += 3) items.push(...dataset(i, r, 3));
    for (let i = 1; i < 40; i += 7) items.push({ urn: urnOf(i), entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', value: { removed: true }, systemMetadata: null });
    await catalog.entities.ingest(items, systemActor());
    await catalog.changeLog.catchUpIndexes();
    for (let i = 2; i < 50; i += 11) await catalog.entities.deleteEntity(urnOf(i));
    await catalog.changeLog.catchUpIndexes();
    assert.equal(facetsOf(catalog).stats.builds, 1, 'kept up to date, not rebuilt');
    const wordReads = facetsOf(catalog).stats.wordReads;
    await checkAll(catalog, 'after writes', ctx.engine);
    // SQLite: every word's bitmap, kept from the first test, was updated by the writes rather than read again.
    if (ctx.engine === 'sqlite') assert.equal(facetsOf(catalog).stats.wordReads, wordReads, 'the kept word bitmaps followed the writes');
    const removed = await catalog.store.searchFacets({ terms: [], where: { all: [{ column: 'removed', value: true }] } }, [{ kind: 'entityType' }]);
    assert.deepEqual(removed, [[{ value: 'dataset', count: 6 }]], 'the soft-deleted ones, counted when asked for');
  });

  test('after a restart the bitmaps are rebuilt from the tables', async () => {
    await catalog.close();
    catalog = await open();
    await checkAll(catalog, 'restarted', ctx.engine);
    // A wholesale rewrite: built again, the second build superseding the first.
    facetsOf(catalog).invalidate();
    facetsOf(catalog).invalidate();
    await checkAll(catalog, 'invalidated twice', ctx.engine);
  });

  test("another server's writes are read back through the change log before the next count", async () => {
    const other = await open();
    try {
      assert.equal(await facetsOf(other).ready(), true, 'the other server built its bitmaps');
      await facetsOf(catalog).ready();
      const items: ChangeItem[] = [];
      for (let i = 100; i < 140; i += 4) items.push(...dataset(i, r, 5));
      items.push(...dataset(N + 100, r));
      items.push({ urn: urnOf(9), entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', value: { removed: true }, systemMetadata: null });
      await other.entities.ingest(items, systemActor());
      await other.changeLog.catchUpIndexes();
      await other.entities.deleteEntity(urnOf(17));
      await other.changeLog.catchUpIndexes();
      const builds = facetsOf(catalog).stats.builds;
      await checkAll(catalog, 'written by another server', ctx.engine);
      assert.equal(facetsOf(catalog).stats.builds, builds, 'followed through the log, not rebuilt');
    } finally {
      await other.close();
    }
  });

  test("another server's deletion is read back when this server's own index step is the one that covers it", async () => {
    const other = await open();
    try {
      await facetsOf(catalog).ready();
      await catalog.changeLog.catchUpIndexes();
      await checkAll(catalog, 'before', ctx.engine);
      // The other server removes the entity's document in the deletion's own transaction and leaves its log entry to
      // the index consumers; this server's step takes it and finds no document to remove.
      await other.entities.deleteEntity(urnOf(21));
      await other.entities.deleteEntity(urnOf(22));
      await catalog.changeLog.catchUpIndexes();
      assert.equal(await catalog.store.lastChangeSeq(), (await catalog.store.consumerOffsets()).get('search'), 'this server indexed the deletions');
      await checkAll(catalog, 'deleted by another server, indexed here', ctx.engine);
    } finally {
      await other.close();
    }
  });
});

forEachEngine('facet bitmaps built in a worker thread', (ctx) => {
  // SQLite on a file (a worker's connection cannot open an in-memory database); PostgreSQL as the suite made it.
  let url = '';
  let cleanup = async () => {};
  const r = rng(43);
  const N = 200;
  // Builds are what these tests are about: no snapshot loaded or saved (the suite below tests those).
  const open = async () => {
    FacetIndex.useSnapshots = false;
    try {
      const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      facetsOf(c).words.min = 0;
      return c;
    } finally {
      FacetIndex.useSnapshots = true;
    }
  };
  const engineOf = (c: OpenedCatalog) => (facetsOf(c) as unknown as { engine: FacetEngine }).engine;

  // Built in a worker however small the catalog (the usual threshold is FacetIndex.workerFrom documents).
  const workerFrom = FacetIndex.workerFrom;
  before(async () => {
    FacetIndex.workerFrom = 0;
    if (ctx.engine === 'sqlite') ({ url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    else url = ctx.url;
    const c = await open();
    await c.entities.ingest(Array.from({ length: N }, (_, i) => dataset(i, r)).flat(), systemActor());
    await c.changeLog.catchUpIndexes();
    await c.close();
  });
  after(async () => { FacetIndex.workerFrom = workerFrom; await cleanup(); });

  test('a start builds in a worker; counts equal brute force, and equal a build in the main thread', async () => {
    const c = await open();
    try {
      await checkAll(c, 'built in a worker', ctx.engine);
      assert.deepEqual([facetsOf(c).stats.builds, facetsOf(c).stats.workerBuilds], [1, 1], 'one build, in a worker');
      facetsOf(c).inWorker = false;
      facetsOf(c).invalidate();
      await checkAll(c, 'built in the main thread', ctx.engine);
      assert.deepEqual([facetsOf(c).stats.builds, facetsOf(c).stats.workerBuilds], [2, 1], 'the second build in the main thread');
    } finally {
      await c.close();
    }
  });

  test("writes of this server and of another one while the worker builds are all in the structure it hands over", async () => {
    const other = await open();
    const c = await open();
    try {
      // Written at once, while c's worker is starting or reading (its snapshot may or may not hold them).
      const mine: ChangeItem[] = [];
      for (let i = 0; i < 40; i += 3) mine.push(...dataset(i, r, 7));
      mine.push(...dataset(N + 1, r));
      mine.push({ urn: urnOf(5), entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', value: { removed: true }, systemMetadata: null });
      const theirs: ChangeItem[] = [];
      for (let i = 1; i < 40; i += 3) theirs.push(...dataset(i, r, 8));
      theirs.push(...dataset(N + 2, r));
      await Promise.all([
        (async () => { await c.entities.ingest(mine, systemActor()); await c.changeLog.catchUpIndexes(); await c.entities.deleteEntity(urnOf(11)); })(),
        (async () => { await other.entities.ingest(theirs, systemActor()); await other.changeLog.catchUpIndexes(); await other.entities.deleteEntity(urnOf(13)); })(),
      ]);
      // c's own index step covers the other server's deletion (whose document went in the deletion's transaction).
      await c.changeLog.catchUpIndexes();
      await checkAll(c, 'written during the build', ctx.engine);
      assert.equal(facetsOf(c).stats.workerBuilds, 1, 'built in a worker');
    } finally {
      await other.close();
      await c.close();
    }
  });

  test('a build superseded or closed while its worker runs stops it; a worker that cannot read leaves the build to the main thread', async () => {
    const c = await open();
    let workerBuilds = 0;
    try {
      // Superseded twice before the first worker answers: the last build is the one kept.
      facetsOf(c).invalidate();
      facetsOf(c).invalidate();
      await checkAll(c, 'after two invalidations', ctx.engine);
      workerBuilds = facetsOf(c).stats.workerBuilds;
      // A database the worker cannot open: the build falls back to this thread, and counts stay exact.
      const engine = engineOf(c);
      const real = engine.databaseUrl;
      engine.databaseUrl = () => (ctx.engine === 'sqlite' ? 'sqlite:/nonexistent/almanac.db' : 'postgres://postgres@127.0.0.1:5432/almanac_no_such_database');
      try {
        facetsOf(c).invalidate();
        await checkAll(c, 'built in the main thread after the worker failed', ctx.engine);
      } finally {
        engine.databaseUrl = real;
      }
      assert.equal(facetsOf(c).stats.workerBuilds, workerBuilds, 'the failed worker built nothing');
    } finally {
      // Closed as a build starts: its worker is not started (or stopped), its result never taken.
      facetsOf(c).invalidate();
      await c.close();
    }
    assert.equal(facetsOf(c).stats.workerBuilds, workerBuilds, 'the build closed as it started handed nothing over');
    const again = await open();
    try {
      await checkAll(again, 'reopened', ctx.engine);
    } finally {
      await again.close();
    }
  });
});

forEachEngine('facet structure saved in the database and loaded at start', (ctx) => {
  // SQLite on a file (a worker's connection cannot open an in-memory database); PostgreSQL as the suite made it.
  let url = '';
  let cleanup = async () => {};
  const r = rng(44);
  const N = 200;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-facet-snapshot-'));
  const workerFrom = FacetIndex.workerFrom;
  const warn = FacetIndex.warn;
  const warnings: string[] = [];
  /** A server; `saves`: whether it saves the structure at its close (the other servers of these tests do not). */
  const open = async (saves = true) => {
    const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
    facetsOf(c).words.min = 0;
    if (!saves) facetsOf(c).snapshots = false;
    return c;
  };
  const engineOf = (c: OpenedCatalog) => (facetsOf(c) as unknown as { engine: FacetEngine }).engine;
  const snapshotRow = async (c: OpenedCatalog) => {
    const p = new SqlParams(ctx.engine);
    const [row] = await engineOf(c).rows({ sql: `SELECT synced_to, rebuilds, data FROM ${FACET_SNAPSHOT_TABLE} WHERE name = ${p.add('search')}`, params: p.list });
    return row ? { syncedTo: Number(row.synced_to), rebuilds: Number(row.rebuilds), data: Buffer.from(row.data as Uint8Array) } : null;
  };
  /** Opens a server that must load the snapshot (no build) and count exactly. */
  const loads = async (label: string) => {
    const c = await open();
    try {
      await checkAll(c, label, ctx.engine);
      const f = facetsOf(c);
      assert.deepEqual([f.refused, f.stats.snapshotLoads, f.stats.builds, f.stats.workerBuilds], [null, 1, 1, 0], `${label}: loaded, not built`);
    } finally {
      await c.close();
    }
  };
  /** Opens a server that must refuse the snapshot for `why`, build, count exactly and save its build. */
  const refuses = async (label: string, why: RegExp) => {
    const c = await open();
    try {
      await checkAll(c, label, ctx.engine);
      const f = facetsOf(c);
      assert.match(f.refused ?? '', why, `${label}: refused`);
      assert.deepEqual([f.stats.snapshotLoads, f.stats.builds], [0, 1], `${label}: built`);
      assert.ok(warnings.some((w) => why.test(w)), `${label}: one warning says why (${warnings.join(' | ')})`);
      warnings.length = 0;
    } finally {
      await c.close();
    }
  };
  const item = (urn: string, aspect: string, value: unknown): ChangeItem => ({ urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null });

  before(async () => {
    FacetIndex.warn = (m) => warnings.push(m);
    if (ctx.engine === 'sqlite') ({ url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    else url = ctx.url;
    const c = await open();
    await c.entities.ingest(Array.from({ length: N }, (_, i) => dataset(i, r)).flat(), systemActor());
    await c.changeLog.catchUpIndexes();
    assert.equal(await facetsOf(c).ready(), true);
    await c.close();
  });
  after(async () => {
    FacetIndex.workerFrom = workerFrom;
    FacetIndex.warn = warn;
    rmSync(dir, { recursive: true, force: true });
    await cleanup();
  });

  test('a clean close saves the structure with the offset it covers; a start loads it (here, then in a worker) and counts equal brute force', async () => {
    const c = await open();
    const row = await snapshotRow(c);
    await c.close();
    assert.ok(row && row.data.byteLength > 0, 'a snapshot is stored');
    assert.equal(row.syncedTo, await (async () => { const o = await open(false); try { return (await o.store.consumerOffsets()).get('search'); } finally { await o.close(); } })(),
      'it covers the log up to the search index\'s offset');
    await loads('loaded in the main thread');
    FacetIndex.workerFrom = 0;
    try {
      await loads('loaded in a worker');
      // A count asked for as the server opens waits for the snapshot rather than counting in SQL.
      const c = await open();
      try {
        const q: SearchDocQuery = { terms: ['orders'], where: live() };
        const got = (await c.store.searchFacets(q, SPECS)).map(sorted);
        assert.deepEqual([facetsOf(c).stats.memory, facetsOf(c).stats.sql], [1, 0], 'the first count, from the loaded structure');
        assert.deepEqual(got, bruteForce((await c.search.documents(await allUrns(c))).search!.upsert, q));
      } finally {
        await c.close();
      }
    } finally {
      FacetIndex.workerFrom = workerFrom;
    }
  });

  test('none saved (a new catalog, or one an older version wrote): built without a warning, then saved at close', async () => {
    const c = await open(false);
    const p = new SqlParams(ctx.engine);
    await engineOf(c).rows({ sql: `DELETE FROM ${FACET_SNAPSHOT_TABLE} WHERE name = ${p.add('search')} RETURNING name`, params: p.list });
    assert.equal(await snapshotRow(c), null);
    await c.close();
    warnings.length = 0;
    const d = await open();
    try {
      await checkAll(d, 'none saved', ctx.engine);
      const f = facetsOf(d);
      assert.deepEqual([f.refused, f.stats.snapshotLoads, f.stats.builds, warnings], ['there is none', 0, 1, []], 'built, no warning');
    } finally {
      await d.close();
    }
    await loads('saved by the build\'s close');
  });

  test('opened to start at the first count (a CLI command): nothing loaded while it only writes, the snapshot left as it was; its first count loads it', async () => {
    const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const before = await (async () => { const o = await open(false); try { return await snapshotRow(o); } finally { await o.close(); } })();
    assert.ok(before, 'a snapshot is stored');
    const c = await openCatalog(config, undefined, { facetStart: 'first-count' });
    try {
      await c.entities.ingest([item(urnOf(3), 'globalTags', { tags: [{ tag: 'urn:li:tag:cli' }] })], systemActor());
      await c.changeLog.catchUpIndexes();
      const f = facetsOf(c);
      assert.deepEqual([f.stats.builds, f.stats.snapshotLoads, f.bytes()], [0, 0, 0], 'neither built nor loaded');
    } finally {
      await c.close();
    }
    const o = await open(false);
    try {
      assert.deepEqual(await snapshotRow(o), before, 'the close saved nothing');
    } finally {
      await o.close();
    }
    const d = await openCatalog(config, undefined, { facetStart: 'first-count' });
    facetsOf(d).words.min = 0;
    try {
      const q: SearchDocQuery = { terms: [], where: live([{ field: 'tags', op: 'EQUAL', values: ['urn:li:tag:cli'] }]) };
      const got = (await d.store.searchFacets(q, SPECS)).map(sorted);
      const f = facetsOf(d);
      assert.deepEqual([f.stats.builds, f.stats.snapshotLoads, f.stats.memory, f.stats.sql], [1, 1, 1, 0], 'its first count loaded the snapshot and counted from it');
      assert.deepEqual(got, bruteForce((await d.search.documents(await allUrns(d))).search!.upsert, q), 'the write after the snapshot is counted');
      assert.equal(got[0]![0]!.count, 1);
      await checkAll(d, 'started by a count', ctx.engine);
    } finally {
      await d.close();
    }
  });

  test("writes after the snapshot (another server's and this one's: updates, soft and hard deletes, new entities) are read back from the log at start", async () => {
    const other = await open(false);
    try {
      const items: ChangeItem[] = [];
      for (let i = 0; i < 60; i += 4) items.push(...dataset(i, r, 9));
      items.push(...dataset(N + 7, r), ...dataset(N + 8, r));
      items.push(item(urnOf(3), 'status', { removed: true }));
      await other.entities.ingest(items, systemActor());
      await other.changeLog.catchUpIndexes();
      await other.entities.deleteEntity(urnOf(6));
      await other.entities.deleteEntity(urnOf(N + 8));
      await other.changeLog.catchUpIndexes();
      assert.ok((await snapshotRow(other))!.syncedTo < (await other.store.lastChangeSeq()), 'the snapshot is older than these writes');
    } finally {
      await other.close();
    }
    FacetIndex.workerFrom = 0;
    try {
      await loads('loaded in a worker, then caught up');
    } finally {
      FacetIndex.workerFrom = workerFrom;
    }
    // A server that loaded it writes, and a second one that loaded it too counts those writes (PostgreSQL: servers sharing it).
    const a = await open(false);
    const b = await open(false);
    try {
      assert.equal(await facetsOf(a).ready(), true);
      assert.equal(await facetsOf(b).ready(), true);
      await a.entities.ingest([...dataset(9, r, 11), ...dataset(N + 9, r)], systemActor());
      await a.changeLog.catchUpIndexes();
      await a.entities.deleteEntity(urnOf(10));
      await a.changeLog.catchUpIndexes();
      await checkAll(b, 'another server loaded the same snapshot', ctx.engine);
      await checkAll(a, 'the writer', ctx.engine);
      assert.deepEqual([facetsOf(a).stats.snapshotLoads, facetsOf(b).stats.snapshotLoads, facetsOf(b).stats.builds], [1, 1, 1]);
      // Saved while serving (from a worker: what the timer does), then not again while unchanged.
      facetsOf(b).snapshots = true;
      assert.equal(await facetsOf(b).saveInBackground(), true, 'saved while serving');
      assert.equal(await facetsOf(b).saveInBackground(), false, 'unchanged: not saved again');
      assert.equal((await snapshotRow(b))!.syncedTo, (await b.store.consumerOffsets()).get('search'), 'the snapshot covers the log up to the offset');
    } finally {
      await a.close();
      await b.close();
    }
    await loads('after more writes');
  });

  test('a snapshot whose log entries were trimmed is refused: built from the tables, counts exact', async () => {
    const other = await open(false);
    try {
      await other.entities.ingest([...dataset(20, r, 13), item(urnOf(21), 'status', { removed: true })], systemActor());
      await other.changeLog.catchUpIndexes();
      assert.ok(await other.store.trimChanges(Date.now() + 60_000, 1_000_000) > 0, 'entries trimmed');
    } finally {
      await other.close();
    }
    await refuses('after a trim', /trimmed/);
    await loads('saved again by the build');
  });

  test('a reindex after the snapshot refuses it (the documents it rewrote are in no log entry); one by the server that saves is taken in', async () => {
    // Documents that differ from what the aspects say, written without the log (what a reindex repairs), then saved.
    const c = await open();
    const wrong = (await c.search.documents([urnOf(30), urnOf(31)])).search!.upsert.map((d) => ({ ...d, values: [...d.values, ['tags', 'urn:li:tag:stray'] as [string, string]] }));
    await c.store.upsertSearchDocs(wrong);
    assert.deepEqual(await c.store.searchFacets({ terms: [], where: live([{ field: 'tags', op: 'EQUAL', values: ['urn:li:tag:stray'] }]) }, [{ kind: 'entityType' }]),
      [[{ value: 'dataset', count: 2 }]], 'the stray values are in the tables and the structure');
    await c.close();
    // Another server repairs them (and does not save).
    const other = await open(false);
    try {
      await other.changeLog.rebuild('search');
    } finally {
      await other.close();
    }
    await refuses('after another server\'s reindex', /rebuilt/);
    // The same, but the reindex runs in the server that saves: its structure followed every page, its snapshot stands.
    const d = await open();
    try {
      await d.store.upsertSearchDocs(wrong);
      assert.equal(await d.changeLog.rebuildAll(), true);
      await checkAll(d, 'reindexed here', ctx.engine);
    } finally {
      await d.close();
    }
    await loads('after this server\'s reindex');
  });

  test('a bulk load after the snapshot (by another process) is counted at the next start', async () => {
    const file = path.join(dir, 'bulk.jsonl');
    await writeProposalFile(file, catalogProposals({ datasets: 60 }));
    const other = await open(false);
    try {
      Object.assign(other.changeLog.bulk, { keyOrder: 'always', scanPage: 7 });
      const summary = await ingestFiles(other.entities, [file], systemActor());
      assert.equal(summary.failures.length, 0);
    } finally {
      await other.close();
    }
    const c = await open();
    try {
      await checkAll(c, 'after a bulk load', ctx.engine);
      assert.equal(facetsOf(c).stats.snapshotLoads, 0, 'its key-order catch-up rewrote documents: the snapshot was refused');
      assert.match(facetsOf(c).refused ?? '', /rebuilt/);
    } finally {
      await c.close();
    }
    warnings.length = 0;
    await loads('after the bulk load, saved again');
  });

  test('a damaged snapshot (one byte changed) is refused: built from the tables, counts exact', async () => {
    const c = await open(false);
    const row = (await snapshotRow(c))!;
    const damaged = Buffer.from(row.data);
    damaged[Math.floor(damaged.length / 2)]! ^= 0x40;
    const put = async (data: Buffer) => {
      const p = new SqlParams(ctx.engine);
      await engineOf(c).rows({ sql: `UPDATE ${FACET_SNAPSHOT_TABLE} SET data = ${p.add(data)} WHERE name = ${p.add('search')} RETURNING name`, params: p.list });
    };
    await put(damaged);
    await c.close();
    await refuses('damaged', /checksum/);
    await loads('saved again by the build');
  });
});
