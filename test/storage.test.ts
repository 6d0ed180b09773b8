import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../src/storage/index.js';
import { ParsedValues } from '../src/storage/parsed-values.js';
import { SETTINGS_TABLE, type AspectRow } from '../src/storage/schema.js';
import type { LatestAspects, SearchCondition, Store } from '../src/storage/types.js';
import { checkExpectedRevision } from '../src/storage/aspect-updates.js';
import { openDump } from './support/db-dump.js';
import { forEachEngine, freshSharedDatabaseUrl, storeFor } from './support/engines.js';

const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const ACTOR = 'urn:li:corpuser:datahub';
/** A dataset urn of one test's own: tests share the suite's store, never each other's data. */
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

forEachEngine('aspect store', (ctx) => {
  let store: Store;
  before(async () => { store = await storeFor(ctx); });
  after(async () => store.close());

  test('migrate is idempotent: again on a migrated database, by the same store or a new one, it changes nothing', async () => {
    const db = await freshSharedDatabaseUrl(ctx.engine);
    // The facet structure is not started: a start where none is saved builds it and saves it in the database, at a
    // moment of its own (a row the dumps below would see appear between them).
    const first = await openStore(db.url, { facetStart: 'first-count' }); // opening migrates
    const dump = await openDump(db.url);
    try {
      await first.writeAspects([{ urn: 'urn:li:tag:migrated', entityType: 'tag', aspect: 'tagProperties', value: { name: 'kept' },
        actor: ACTOR, time: 1 }], 20);
      await first.upsertTimeseries([{ urn: DS, entityType: 'dataset', aspect: 'operation', timestampMillis: 1, partition: '',
        granularity: '', messageId: '', value: { timestampMillis: 1 } }]);
      const before = await dump.dump(); // schema, indexes, every row (the migrations table's included)
      await first.migrate();
      await first.migrate();
      assert.equal(await dump.dump(), before);
      const second = await openStore(db.url, { facetStart: 'first-count' }); // a second server starting on the same database
      try {
        assert.equal(await dump.dump(), before);
        assert.deepEqual((await second.getLatest(['urn:li:tag:migrated'])).get('urn:li:tag:migrated')?.get('tagProperties')?.value, { name: 'kept' });
      } finally {
        await second.close();
      }
    } finally {
      await dump.close();
      await first.close();
      await db.cleanup();
    }
  });

  test('first write is version 0 with its actor, time and system metadata', async () => {
    const DS = ds('first_write');
    const res = await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false },
      systemMetadata: { runId: 'r1', lastObserved: 5 }, actor: ACTOR, time: 1000 }], 20);
    assert.deepEqual(res, [{ urn: DS, aspect: 'status', changed: true }]);
    assert.deepEqual(await store.getVersion(DS, 'status', 0), {
      urn: DS, aspect: 'status', version: 0, value: { removed: false }, systemMetadata: { runId: 'r1', lastObserved: 5 },
      createdOn: 1000, createdBy: ACTOR, revision: 1,
    });
    assert.deepEqual(await store.existing([DS, 'urn:li:tag:nope']), new Set([DS]));
  });

  test('an identical value makes no version but refreshes system metadata: lastObserved and lastRunId, the runId kept', async () => {
    const DS = ds('identical');
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false },
      systemMetadata: { runId: 'r1', lastObserved: 5, lastRunId: 'r1' }, actor: ACTOR, time: 1000 }], 20);
    const res = await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false },
      systemMetadata: { runId: 'r2', lastObserved: 6, lastRunId: 'r2' }, actor: 'urn:li:corpuser:other', time: 2000 }], 20);
    assert.deepEqual(res, [{ urn: DS, aspect: 'status', changed: false }]);
    const versions = await store.listVersions(DS, 'status');
    assert.equal(versions.length, 1);
    assert.deepEqual(versions[0], { urn: DS, aspect: 'status', version: 0, value: { removed: false },
      systemMetadata: { runId: 'r1', lastObserved: 6, lastRunId: 'r2' }, createdOn: 1000, createdBy: ACTOR, revision: 1 });
  });

  test('key order does not make a value different', async () => {
    const DS = ds('key_order');
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: ['a'], x: 1 }, actor: ACTOR }], 20);
    const res = await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'subTypes', value: { x: 1, typeNames: ['a'] }, actor: ACTOR }], 20);
    assert.equal(res[0]!.changed, false);
  });

  test('nested key order makes no version; a change anywhere in the value does', async () => {
    const DS = ds('nested_order');
    const write = async (value: unknown) => (await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'institutionalMemory', value,
      actor: ACTOR }], 20))[0]!.changed;
    const link = (url: string) => ({ url, description: 'd', createStamp: { time: 1, actor: ACTOR } });
    assert.equal(await write({ elements: [link('https://a'), link('https://b')] }), true);
    // The same value, every object's keys in another order.
    assert.equal(await write({ elements: [{ createStamp: { actor: ACTOR, time: 1 }, description: 'd', url: 'https://a' },
      { description: 'd', url: 'https://b', createStamp: { actor: ACTOR, time: 1 } }] }), false);
    // Elements in another order, a nested value changed, a key added, a key removed: each a new version.
    assert.equal(await write({ elements: [link('https://b'), link('https://a')] }), true);
    assert.equal(await write({ elements: [link('https://b'), { ...link('https://a'), createStamp: { time: 2, actor: ACTOR } }] }), true);
    assert.equal(await write({ elements: [link('https://b'), { ...link('https://a'), createStamp: { time: 2, actor: ACTOR, impersonator: ACTOR } }] }), true);
    assert.equal(await write({ elements: [link('https://b'), { url: 'https://a', createStamp: { time: 2, actor: ACTOR, impersonator: ACTOR } }] }), true);
    assert.equal((await store.listVersions(DS, 'institutionalMemory')).length, 5);
  });

  test('a new value moves the old latest into history: v1 oldest, higher newer', async () => {
    const DS = ds('history');
    for (let i = 1; i <= 3; i++) {
      await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'datasetProperties', value: { description: `d${i}` },
        actor: ACTOR, time: i }], 20);
    }
    const versions = await store.listVersions(DS, 'datasetProperties');
    assert.deepEqual(versions.map((v) => [v.version, (v.value as { description: string }).description, v.createdOn]),
      [[0, 'd3', 3], [2, 'd2', 2], [1, 'd1', 1]]);
    assert.deepEqual((await store.getVersion(DS, 'datasetProperties', 1))?.value, { description: 'd1' });
    assert.equal(await store.getVersion(DS, 'datasetProperties', 9), null);
  });

  test('urns with quotes and backslashes are locked, read and written as given by concurrent writes, new-entity-only writes included', async () => {
    // PostgreSQL's group commit sends its locks and reads as literals (one round trip with BEGIN).
    const urns = [`urn:li:tag:it's`, 'urn:li:tag:back\\slash', `urn:li:tag:\\'both'\\`, `urn:li:tag:E'x'`, 'urn:li:tag:ünï'];
    const results = await Promise.all(urns.map((urn, i) => store.writeAspects([{ urn, entityType: 'tag', aspect: 'tagProperties',
      value: { name: `n${i}` }, actor: ACTOR }], 3)));
    assert.deepEqual(results.map((r) => r.map((x) => x.changed)), urns.map(() => [true]));
    // For new entities only: skipped where the entity exists, made for the one that does not.
    const fresh = `urn:li:tag:new'one\\`;
    await Promise.all([...urns, fresh].map((urn) => store.writeAspects([{ urn, entityType: 'tag', aspect: 'ownership', value: { owners: [] },
      actor: ACTOR, onlyNewEntity: true }], 3)));
    const latest = await store.getLatest([...urns, fresh]);
    assert.deepEqual([...urns, fresh].map((u) => [u, [...(latest.get(u)?.keys() ?? [])].sort()]),
      [...urns.map((u) => [u, ['tagProperties']]), [fresh, ['ownership']]]);
    assert.deepEqual(urns.map((u) => latest.get(u)!.get('tagProperties')!.value), urns.map((_, i) => ({ name: `n${i}` })));
  });

  test('history is capped: at most cap versions in all, the oldest go first', async () => {
    const urn = 'urn:li:tag:capped';
    for (let i = 1; i <= 7; i++) {
      await store.writeAspects([{ urn, entityType: 'tag', aspect: 'tagProperties', value: { name: `n${i}` }, actor: ACTOR }], 3);
    }
    const versions = await store.listVersions(urn, 'tagProperties');
    assert.deepEqual(versions.map((v) => [v.version, (v.value as { name: string }).name]), [[0, 'n7'], [6, 'n6'], [5, 'n5']]);
  });

  test('one batch writing an aspect several times versions it as separate writes would, cap and revisions included', async () => {
    const urn = 'urn:li:tag:batched';
    const w = (name: string, runId?: string) => ({ urn, entityType: 'tag', aspect: 'tagProperties', value: { name },
      systemMetadata: runId ? { runId } : null, actor: ACTOR, time: 7 });
    await store.writeAspects([w('a')], 3);
    const res = await store.writeAspects([w('b'), w('c'), w('c', 'later'), w('d'), w('e')], 3);
    assert.deepEqual(res.map((r) => r.changed), [true, true, false, true, true]);
    const versions = await store.listVersions(urn, 'tagProperties');
    assert.deepEqual(versions.map((v) => [v.version, (v.value as { name: string }).name, v.revision, v.systemMetadata]),
      [[0, 'e', 5, null], [4, 'd', 4, null], [3, 'c', 3, { runId: 'later' }]]);
    const unbatched = 'urn:li:tag:unbatched';
    for (const x of [w('a'), w('b'), w('c'), w('c', 'later'), w('d'), w('e')]) await store.writeAspects([{ ...x, urn: unbatched }], 3);
    assert.deepEqual((await store.listVersions(unbatched, 'tagProperties')).map((v) => ({ ...v, urn })), versions);
  });

  test('a batch that touches the stored latest, then changes it past a small cap, leaves what separate writes leave', async () => {
    const w = (urn: string, name: string, runId?: string) => ({ urn, entityType: 'tag', aspect: 'tagProperties', value: { name },
      systemMetadata: runId ? { runId } : null, actor: ACTOR, time: 11 });
    for (const cap of [1, 2]) {
      const [batched, unbatched] = [`urn:li:tag:touched${cap}`, `urn:li:tag:touchedAlone${cap}`];
      const later = (urn: string) => [w(urn, 'a', 'second'), w(urn, 'b'), w(urn, 'c', 'third')];
      for (const urn of [batched, unbatched]) await store.writeAspects([w(urn, 'x'), w(urn, 'a', 'first')], cap);
      const res = await store.writeAspects(later(batched), cap);
      for (const x of later(unbatched)) await store.writeAspects([x], cap);
      assert.deepEqual(res.map((r) => r.changed), [false, true, true]);
      const versions = await store.listVersions(batched, 'tagProperties');
      assert.deepEqual(versions.map((v) => [v.version, (v.value as { name: string }).name, v.revision, v.systemMetadata]), cap === 1
        ? [[0, 'c', 4, { runId: 'third' }]]
        : [[0, 'c', 4, { runId: 'third' }], [3, 'b', 3, null]]);
      assert.deepEqual((await store.listVersions(unbatched, 'tagProperties')).map((v) => ({ ...v, urn: batched })), versions);
      const log = (await store.changesAfter(0, 10_000, true)).filter((e) => e.urn === batched);
      assert.deepEqual(log.map((e) => [e.revision, e.valueJson, e.previousValueJson]), [[1, '{"name":"x"}', null],
        [2, '{"name":"a"}', '{"name":"x"}'], [3, '{"name":"b"}', '{"name":"a"}'], [4, '{"name":"c"}', '{"name":"b"}']]);
    }
  });

  test('several aspects commit together or not at all', async () => {
    const urn = 'urn:li:tag:atomic';
    await assert.rejects(store.writeAspects([
      { urn, entityType: 'tag', aspect: 'tagProperties', value: { name: 'x' }, actor: ACTOR },
      // A value that cannot be serialised fails inside the transaction, after the first write.
      { urn, entityType: 'tag', aspect: 'status', value: { big: 10n }, actor: ACTOR },
    ], 20));
    assert.deepEqual(await store.getLatest([urn]), new Map());
    assert.deepEqual(await store.existing([urn]), new Set());
  });

  test('writes started together each commit or fail on their own, and the log holds exactly the ones that committed', async () => {
    // SQLite commits the writes requested in one turn of the event loop together (each in a savepoint): a failing
    // one, whether it throws in its own update or fails in the store, must undo only itself.
    const urn = (i: number) => `urn:li:tag:together${i}`;
    const props = (i: number, name: string) => ({ urn: urn(i), entityType: 'tag', aspect: 'tagProperties', value: { name }, actor: ACTOR, time: 9 });
    await store.writeAspects([props(1, 'one')], 20);
    const head = await store.lastChangeSeq();
    const outcomes = await Promise.allSettled([
      store.writeAspects([props(0, 'zero')], 20),
      store.updateAspects([{ urn: urn(1), aspect: 'tagProperties' }], () => { throw new Error('refused by its check'); }, 20),
      store.writeAspects([props(2, 'two'), { ...props(2, 'unserialisable'), aspect: 'status', value: { big: 10n } }], 20),
      store.updateAspects([{ urn: urn(1), aspect: 'tagProperties' }], (current) => ({
        writes: [props(1, `${(current.get(urn(1))!.get('tagProperties')!.value as { name: string }).name} and more`)] }), 20),
      store.writeAspects([props(3, 'three')], 20),
    ]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    assert.equal((outcomes[1] as PromiseRejectedResult).reason.message, 'refused by its check');
    const latest = await store.getLatest([0, 1, 2, 3].map(urn));
    assert.deepEqual([0, 1, 2, 3].map((i) => (latest.get(urn(i))?.get('tagProperties')?.value as { name: string } | undefined)?.name),
      ['zero', 'one and more', undefined, 'three']);
    assert.deepEqual(await store.existing([0, 1, 2, 3].map(urn)), new Set([0, 1, 3].map(urn)));
    // Concurrent writes commit in any order on PostgreSQL (each on its own connection): compared by urn.
    const logged = (await store.changesAfter(head, 100, true)).sort((a, b) => (a.urn! < b.urn! ? -1 : 1));
    assert.deepEqual(logged.map((e) => [e.urn, e.aspect, e.changeType, e.valueJson, e.previousValueJson]), [
      [urn(0), 'tagProperties', 'UPSERT', '{"name":"zero"}', null],
      [urn(1), 'tagProperties', 'UPSERT', '{"name":"one and more"}', '{"name":"one"}'],
      [urn(3), 'tagProperties', 'UPSERT', '{"name":"three"}', null],
    ]);
  });

  test('writes started together, one of them failing: this process hears each committed entry once, as the log holds it, and no other', async () => {
    // SQLite tries a group in one transaction without savepoints, and makes it again with one per write when a write
    // fails: the entries of the first try must not reach the listeners.
    const urn = (i: number) => `urn:li:tag:heardOnce${i}`;
    const props = (i: number, name: string) => ({ urn: urn(i), entityType: 'tag', aspect: 'tagProperties', value: { name }, actor: ACTOR, time: 9 });
    await store.writeAspects([props(1, 'one')], 20);
    const head = await store.lastChangeSeq();
    const heard: [number, string | null, string | null][] = [];
    let listening = true;
    store.onOwnEntries!((entries) => { if (listening) heard.push(...entries.map((e) => [e.seq, e.urn, e.aspect] as [number, string | null, string | null])); });
    let runs = 0;
    const outcomes = await Promise.allSettled([
      store.writeAspects([props(0, 'zero')], 20),
      store.updateAspects([{ urn: urn(1), aspect: 'tagProperties' }], (current) => {
        runs++;
        return { writes: [props(1, `${(current.get(urn(1))!.get('tagProperties')!.value as { name: string }).name} again`)] };
      }, 20),
      store.updateAspects([{ urn: urn(2), aspect: 'tagProperties' }], () => { throw new Error('refused by its check'); }, 20),
      store.writeAspects([props(3, 'three')], 20),
    ]);
    listening = false;
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    assert.ok(runs >= 1, `the update's function ran ${runs} times`);
    const logged = await store.changesAfter(head, 100);
    assert.deepEqual(logged.map((e) => [e.urn, e.aspect]).sort(), [[urn(0), 'tagProperties'], [urn(1), 'tagProperties'], [urn(3), 'tagProperties']]);
    assert.deepEqual(heard.sort((a, b) => a[0] - b[0]), logged.map((e) => [e.seq, e.urn, e.aspect]));
    const latest = await store.getLatest([urn(1)]);
    assert.deepEqual(latest.get(urn(1))?.get('tagProperties')?.value, { name: 'one again' });
  });

  test('updates of one aspect started together each read the one before: none is lost, each is its own version; one conditional write wins', async () => {
    // Both engines make the writes requested together in one transaction: each update must see the value the
    // writes before it leave (revision included), as if it had waited for their commit.
    const urn = 'urn:li:tag:chained';
    const props = (name: string) => ({ urn, entityType: 'tag', aspect: 'tagProperties', value: { name }, actor: ACTOR, time: 9 });
    const key = { urn, aspect: 'tagProperties' };
    const nameOf = (current: LatestAspects) => (current.get(urn)?.get('tagProperties')?.value as { name: string }).name;
    await store.writeAspects([props('start'), { ...props('x'), aspect: 'status', value: { removed: false } }], 20);
    const head = await store.lastChangeSeq();
    const append = (letter: string) => store.updateAspects([key], (current) => ({ writes: [props(`${nameOf(current)} ${letter}`)] }), 20);
    const conditional = (letter: string, revision = 1) => store.updateAspects([key], (current) => {
      checkExpectedRevision(urn, 'tagProperties', revision, current.get(urn)?.get('tagProperties'));
      return { writes: [props(`${nameOf(current)} ${letter}`)] };
    }, 20);
    const outcomes = await Promise.allSettled([
      conditional('c1'), conditional('c2'), append('a'), store.writeAspects([props('reset')], 20), append('b'),
      store.updateAspects([key, { urn, aspect: 'status' }], (current) => ({ writes: [props(nameOf(current))], deletes: [{ urn, aspect: 'status', actor: ACTOR }] }), 20),
      // By now: the winner (revision 2), a, reset, b (5); the write just before changed nothing.
      conditional('d', 5), conditional('e', 5), append('c'),
    ]);
    // Both conditional writes expect the first revision: one commits first, and the other must then be refused.
    assert.deepEqual(outcomes.slice(0, 2).map((o) => o.status).sort(), ['fulfilled', 'rejected']);
    assert.equal((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason.code, 'PRECONDITION_FAILED');
    const results = outcomes.slice(2).map((o) => (o.status === 'fulfilled' ? o.value.map((r) => r.changed) : o.reason));
    assert.deepEqual(results.map((r) => (r instanceof Error ? (r as Error & { code: string }).code : r)),
      [[true], [true], [true], [false], [true], 'PRECONDITION_FAILED', [true]]);
    // Whatever order they committed in, each version is the one before it with one change: read the chain from the log.
    const logged = await store.changesAfter(head, 100, true);
    const names = logged.filter((e) => e.aspect === 'tagProperties').map((e) => [JSON.parse(e.previousValueJson!).name, JSON.parse(e.valueJson!).name]);
    for (let i = 1; i < names.length; i++) assert.equal(names[i]![0], names[i - 1]![1], `entry ${i} follows entry ${i - 1}`);
    assert.equal(names.length, 6);
    assert.equal(names[0]![0], 'start');
    const last = (await store.getLatest([urn])).get(urn)!;
    assert.equal((last.get('tagProperties')!.value as { name: string }).name, names.at(-1)![1]);
    assert.equal(last.get('tagProperties')!.revision, 7);
    assert.equal(last.has('status'), false);
    assert.deepEqual(logged.filter((e) => e.aspect === 'status').map((e) => e.changeType), ['DELETE']);
    assert.deepEqual((await store.listVersions(urn, 'tagProperties')).map((v) => [v.version, v.revision]),
      [[0, 7], [6, 6], [5, 5], [4, 4], [3, 3], [2, 2], [1, 1]]);
    const byName = new Set(names.map((n) => n[1]));
    assert.ok(['a', 'b', 'd', 'c'].every((l) => [...byName].some((n) => n.endsWith(` ${l}`))), `every append made its own version: ${[...byName]}`);
    assert.ok([...byName].some((n) => / c[12]$/.test(n)), 'the conditional write that won made its version');
  });

  test('getLatest reads many entities and aspects in one call', async () => {
    const a = 'urn:li:tag:a';
    const b = 'urn:li:tag:b';
    await store.writeAspects([
      { urn: a, entityType: 'tag', aspect: 'tagProperties', value: { name: 'a' }, actor: ACTOR, time: 7 },
      { urn: b, entityType: 'tag', aspect: 'tagProperties', value: { name: 'b' }, actor: ACTOR, time: 7 },
      { urn: b, entityType: 'tag', aspect: 'status', value: { removed: true }, actor: ACTOR, time: 7 },
    ], 20);
    const latest = await store.getLatest([a, b, 'urn:li:tag:none'], ['tagProperties']);
    assert.deepEqual([...latest.keys()].sort(), [a, b]);
    assert.deepEqual(latest.get(b)?.get('tagProperties')?.value, { name: 'b' });
    assert.equal(latest.get(b)?.has('status'), false);
    assert.deepEqual([...(await store.getLatest([b])).get(b)!.keys()].sort(), ['status', 'tagProperties']);
  });

  test('getLatest and existing answer alike for lists of every length (each length its own statement up to 32, an array beyond)', async () => {
    const urn = (i: number) => `urn:li:tag:listed-${i}`;
    await store.writeAspects(Array.from({ length: 40 }, (_, i) => [
      { urn: urn(i), entityType: 'tag', aspect: 'tagProperties', value: { name: `t${i}` }, actor: ACTOR, time: 7 },
      { urn: urn(i), entityType: 'tag', aspect: 'status', value: { removed: i % 2 === 0 }, actor: ACTOR, time: 7 },
    ]).flat(), 20);
    // Aspect lists of 1, 2 and 33 names (most of them not stored).
    const names = ['status', 'tagProperties', ...Array.from({ length: 31 }, (_, i) => `unknownAspect${i}`)];
    for (const n of [1, 2, 3, 5, 8, 9, 31, 32, 33, 40]) {
      // The first n stored, one urn twice, and n urns never written.
      const asked = [...Array.from({ length: n }, (_, i) => urn(i)), urn(0), ...Array.from({ length: n }, (_, i) => urn(100 + i))];
      assert.deepEqual(await store.existing(asked), new Set(Array.from({ length: n }, (_, i) => urn(i))), `existing, ${n}`);
      for (const aspects of [undefined, ['status'], ['status', 'tagProperties'], names]) {
        const latest = await store.getLatest(asked, aspects);
        const seen = Object.fromEntries([...latest].map(([u, m]) => [u, Object.fromEntries([...m].map(([a, r]) => [a, r.value]))]));
        const expected = Object.fromEntries(Array.from({ length: n }, (_, i) => [urn(i), {
          ...(aspects === undefined || aspects.includes('status') ? { status: { removed: i % 2 === 0 } } : {}),
          ...(aspects === undefined || aspects.includes('tagProperties') ? { tagProperties: { name: `t${i}` } } : {}),
        }]));
        assert.deepEqual(seen, expected, `getLatest of ${asked.length} urns, aspects ${aspects?.length ?? 'all'}`);
        // One entity alone.
        const one = await store.getLatest([urn(0)], aspects);
        assert.deepEqual(Object.fromEntries([...one.get(urn(0))!].map(([a, r]) => [a, r.value])), expected[urn(0)]);
      }
    }
  });

  test('time-series rows upsert on (urn, timestamp, partition, granularity, messageId)', async () => {
    const row = (ts: number, rowCount: number, partition = 'FULL_TABLE_SNAPSHOT') => ({
      urn: DS, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: ts, partition, granularity: 'DAY:1',
      messageId: '', value: { timestampMillis: ts, rowCount }, systemMetadata: { runId: 'p' },
    });
    await store.upsertTimeseries([row(100, 1), row(200, 2), row(100, 3), row(100, 4, 'p2')]);
    const all = await store.queryTimeseries({ entityType: 'dataset', aspect: 'datasetProfile', urn: DS });
    assert.deepEqual(all.map((r) => [r.timestampMillis, (r.value as { rowCount: number }).rowCount]).sort(),
      [[100, 3], [100, 4], [200, 2]]);
    assert.deepEqual((await store.queryTimeseries({ entityType: 'dataset', aspect: 'datasetProfile', limit: 1 }))
      .map((r) => r.timestampMillis), [200]);
    assert.equal(await store.countTimeseries('dataset', 'datasetProfile'), 3);
    assert.equal(await store.countTimeseries('dataset', 'datasetProfile', 200), 2);
  });

  test('a time-series row alone makes an entity exist', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,only_profile,PROD)';
    await store.upsertTimeseries([{ urn, entityType: 'dataset', aspect: 'operation', timestampMillis: 1, partition: '',
      granularity: '', messageId: '', value: { timestampMillis: 1 } }]);
    assert.deepEqual(await store.existing([urn]), new Set([urn]));
  });

  test('deleting before a time removes only older rows, in batches', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,trunc,PROD)';
    await store.upsertTimeseries(Array.from({ length: 10 }, (_, i) => ({ urn, entityType: 'dataset', aspect: 'datasetUsageStatistics',
      timestampMillis: 1000 + i, partition: '', granularity: '', messageId: '', value: { timestampMillis: 1000 + i } })));
    assert.equal(await store.deleteTimeseriesBefore('dataset', 'datasetUsageStatistics', 1005, 3), 3);
    assert.equal(await store.deleteTimeseriesBefore('dataset', 'datasetUsageStatistics', 1005, 3), 2);
    assert.equal(await store.deleteTimeseriesBefore('dataset', 'datasetUsageStatistics', 1005, 3), 0);
    const left = await store.queryTimeseries({ entityType: 'dataset', aspect: 'datasetUsageStatistics', order: 'asc' });
    assert.deepEqual(left.map((r) => r.timestampMillis), [1005, 1006, 1007, 1008, 1009]);
  });

  test('sizes list every time-series table with a positive size for used ones', async () => {
    await store.upsertTimeseries([{ urn: 'urn:li:chart:(looker,sized)', entityType: 'chart', aspect: 'chartUsageStatistics',
      timestampMillis: 1, partition: '', granularity: '', messageId: '', value: { timestampMillis: 1 } }]);
    const sizes = await store.timeseriesSizes();
    const used = sizes.find((s) => s.table === 'chart_chartusagestatisticsaspect_v1');
    assert.ok(used && used.bytes > 0, JSON.stringify(used));
    assert.ok(sizes.every((s) => s.bytes >= 0), JSON.stringify(sizes));
    assert.ok(sizes.some((s) => s.table === 'dataprocessinstance_dataprocessinstanceruneventaspect_v1'), JSON.stringify(sizes));
  });

  test('deleting an entity removes its aspects, history and time-series rows', async () => {
    const DS = ds('deleted');
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false }, actor: ACTOR },
      { urn: DS, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: ['a'] }, actor: ACTOR }], 20);
    for (let i = 1; i <= 3; i++) {
      await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'datasetProperties', value: { description: `d${i}` }, actor: ACTOR }], 20);
    }
    await store.upsertTimeseries([1, 2, 3].map((ts) => ({ urn: DS, entityType: 'dataset', aspect: 'operation', timestampMillis: ts,
      partition: '', granularity: '', messageId: '', value: { timestampMillis: ts } })));
    const res = await store.deleteEntity(DS);
    assert.equal(res.rows, 5); // status, subTypes, and datasetProperties with its two history rows
    assert.equal(res.timeseriesRows, 3);
    assert.deepEqual(await store.getLatest([DS]), new Map());
    assert.deepEqual(await store.existing([DS]), new Set());
  });

  test('listing entities pages by type in urn order', async () => {
    // Domains: a type no other test of this suite writes.
    await store.writeAspects(['c', 'a', 'b'].map((id) => ({ urn: `urn:li:domain:${id}`, entityType: 'domain', aspect: 'domainProperties',
      value: { name: id }, actor: ACTOR })), 20);
    const rows = await store.listEntities({ entityType: 'domain' });
    assert.deepEqual(rows.map((r) => r.urn), ['urn:li:domain:a', 'urn:li:domain:b', 'urn:li:domain:c']);
    assert.deepEqual((await store.listEntities({ entityType: 'domain', start: 1, count: 1 })).map((r) => r.urn), ['urn:li:domain:b']);
    assert.equal(await store.countEntities('domain'), 3);
  });

  test('relationships: outgoing edges are replaced per source; both directions page in order', async () => {
    const a = 'urn:li:dataset:(urn:li:dataPlatform:hive,rel_a,PROD)';
    const b = 'urn:li:dataset:(urn:li:dataPlatform:hive,rel_b,PROD)';
    const c = 'urn:li:dataset:(urn:li:dataPlatform:hive,rel_c,PROD)';
    await store.replaceRelationships([b, c], [
      { source: b, type: 'DownstreamOf', destination: a }, { source: c, type: 'DownstreamOf', destination: a },
      { source: c, type: 'OwnedBy', destination: 'urn:li:corpuser:x' }]);
    assert.deepEqual(await store.relationships({ urn: a, direction: 'INCOMING', types: ['DownstreamOf'], start: 0, count: 10 }), {
      total: 2, edges: [{ source: b, type: 'DownstreamOf', destination: a }, { source: c, type: 'DownstreamOf', destination: a }] });
    assert.deepEqual((await store.relationships({ urn: a, direction: 'INCOMING', start: 1, count: 1 })).edges.map((e) => e.source), [c]);
    await store.replaceRelationships([c], [{ source: c, type: 'OwnedBy', destination: 'urn:li:corpuser:y' }]);
    assert.deepEqual(await store.relationships({ urn: c, direction: 'OUTGOING', start: 0, count: 10 }), {
      total: 1, edges: [{ source: c, type: 'OwnedBy', destination: 'urn:li:corpuser:y' }] });
    assert.equal((await store.relationships({ urn: a, direction: 'INCOMING', start: 0, count: 10 })).total, 1);
    await store.writeAspects([{ urn: b, entityType: 'dataset', aspect: 'status', value: { removed: false }, actor: ACTOR }], 20);
    await store.deleteEntity(b);
    assert.equal((await store.relationships({ urn: a, direction: 'INCOMING', start: 0, count: 10 })).total, 0);
  });

  test('search documents: a rewrite with the same text keeps its words and changes its values; new text and removal replace what is matched', async () => {
    const urn = ds('digest.orders');
    const doc = { urn, entityType: 'dataset', name: 'orders', text: 'quokka order lines', sortName: 'orders', removed: false,
      values: [['platform', 'urn:li:dataPlatform:hive'], ['tags', 'urn:li:tag:Gold']] as const };
    const find = async (terms: string[], where: SearchCondition = { column: 'urn', values: [urn] }) =>
      (await store.searchDocs({ terms, where, sort: { by: 'relevance' }, start: 0, count: 10 })).urns;
    const tagged = (tag: string): SearchCondition => ({ all: [{ column: 'urn', values: [urn] }, { field: 'tags', op: 'EQUAL', values: [tag] }] });
    await store.upsertSearchDocs([doc]);
    assert.deepEqual(await find(['quokka']), [urn]);
    // Same name and text, other values: still found by its words, by its new tag and not its old one.
    await store.upsertSearchDocs([{ ...doc, values: [['platform', 'urn:li:dataPlatform:hive'], ['tags', 'urn:li:tag:Silver']] }]);
    assert.deepEqual(await find(['quokka']), [urn]);
    assert.deepEqual(await find([], tagged('urn:li:tag:Silver')), [urn]);
    assert.deepEqual(await find([], tagged('urn:li:tag:Gold')), []);
    // New text: the old words no longer match, the new ones do.
    await store.upsertSearchDocs([{ ...doc, text: 'wallaby order lines' }]);
    assert.deepEqual(await find(['quokka']), []);
    assert.deepEqual(await find(['wallaby']), [urn]);
    // The same text, removed: searches that leave removed documents out do not find it; asking for removed ones does.
    await store.upsertSearchDocs([{ ...doc, text: 'wallaby order lines', removed: true }]);
    assert.deepEqual(await find(['wallaby'], { all: [{ column: 'urn', values: [urn] }, { column: 'removed', value: false }] }), []);
    assert.deepEqual(await find(['wallaby'], { all: [{ column: 'urn', values: [urn] }, { column: 'removed', value: true }] }), [urn]);
    await store.deleteSearchDocs([urn]);
    assert.deepEqual(await find(['wallaby']), []);
  });

  test('latest values are parsed once and shared while their text is unchanged; another server\'s write is seen at once; a shared value cannot be changed in place', async () => {
    const db = await freshSharedDatabaseUrl(ctx.engine);
    const [here, there] = [await openStore(db.url), await openStore(db.url)]; // two servers on one database
    const urn = ds('parsed_once');
    const write = (s: Store, value: unknown) => s.writeAspects([{ urn, entityType: 'dataset', aspect: 'schemaMetadata', value, actor: ACTOR }], 20);
    const latest = async (s: Store) => (await s.getLatest([urn])).get(urn)?.get('schemaMetadata')?.value as Record<string, any>;
    const first = { schemaName: 't', fields: [{ fieldPath: 'a', description: 'one' }] };
    try {
      await write(here, first);
      assert.deepEqual(await latest(here), first);
      const read = await latest(here);
      assert.equal(await latest(here), read, 'the same object while the text is unchanged');
      let seen: unknown;
      await here.updateAspects([{ urn, aspect: 'schemaMetadata' }], (current) => {
        seen = current.get(urn)?.get('schemaMetadata')?.value;
        return { writes: [] };
      }, 20);
      assert.equal(seen, read, 'a locked read shares it too');
      assert.throws(() => { read.fields.push({ fieldPath: 'b' }); }, TypeError);
      assert.throws(() => { read.fields[0].description = 'changed'; }, TypeError);
      assert.throws(() => { read.schemaName = 'u'; }, TypeError);
      assert.deepEqual(await latest(here), first, 'the kept value is as stored');

      const second = { schemaName: 't', fields: [{ fieldPath: 'a', description: 'two' }] };
      await write(there, second);
      assert.deepEqual(await latest(here), second, 'a write through another server is read at once');
      // Deleted and written again through the other server, its revision starts over: still not the old value.
      await there.deleteAspects(urn, ['schemaMetadata']);
      await write(there, first);
      assert.deepEqual(await latest(here), first);
      assert.deepEqual((await here.getVersion(urn, 'schemaMetadata', 0))?.value, first);
    } finally {
      await here.close();
      await there.close();
      await db.cleanup();
    }
  });

  test('large values (a 200-column schema, a large profile) read back exactly from the latest, history, the log and time series; SQLite stores them compressed', async () => {
    const db = await freshSharedDatabaseUrl(ctx.engine);
    const s = await openStore(db.url);
    const urn = ds('large_values');
    const schema = (n: number) => ({ schemaName: 'large', platform: 'urn:li:dataPlatform:hive', version: n, hash: '',
      fields: Array.from({ length: 200 }, (_, i) => ({ fieldPath: `column_${i}`, nativeDataType: 'varchar(64)', nullable: i % 2 === 0,
        type: { type: { 'com.linkedin.schema.StringType': {} } }, description: `Column ${i} of version ${n}: ünïcödé ✓` })) });
    const profile = { timestampMillis: 7, rowCount: 10, fieldProfiles: Array.from({ length: 200 }, (_, i) => ({ fieldPath: `column_${i}`, nullCount: i })) };
    try {
      const head = await s.lastChangeSeq();
      await s.writeAspects([{ urn, entityType: 'dataset', aspect: 'schemaMetadata', value: schema(1), actor: ACTOR, time: 1 }], 20);
      await s.writeAspects([{ urn, entityType: 'dataset', aspect: 'schemaMetadata', value: schema(2), actor: ACTOR, time: 2 }], 20);
      // Written again unchanged: no version, as for small values.
      assert.deepEqual(await s.writeAspects([{ urn, entityType: 'dataset', aspect: 'schemaMetadata', value: schema(2), actor: ACTOR, time: 3 }], 20),
        [{ urn, aspect: 'schemaMetadata', changed: false }]);
      // A locked update reads the compressed latest and writes the next version through the synchronous path.
      await s.updateAspects([{ urn, aspect: 'schemaMetadata' }], (current) => {
        assert.deepEqual(current.get(urn)?.get('schemaMetadata')?.value, schema(2));
        return { writes: [{ urn, entityType: 'dataset', aspect: 'schemaMetadata', value: schema(3), actor: ACTOR, time: 4 }] };
      }, 20);
      await s.upsertTimeseries([{ urn, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: 7, partition: '', granularity: '',
        messageId: '', value: profile }]);
      assert.deepEqual((await s.getLatest([urn])).get(urn)?.get('schemaMetadata')?.value, schema(3));
      assert.deepEqual((await s.listVersions(urn, 'schemaMetadata')).map((v) => [v.version, v.value]),
        [[0, schema(3)], [2, schema(2)], [1, schema(1)]]);
      assert.deepEqual((await s.getVersion(urn, 'schemaMetadata', 1))?.value, schema(1));
      const log = (await s.changesAfter(head, 100, true)).filter((c) => c.urn === urn);
      assert.deepEqual(log.map((c) => [c.aspect, c.changeType, c.valueJson && JSON.parse(c.valueJson), c.previousValueJson && JSON.parse(c.previousValueJson)]), [
        ['schemaMetadata', 'UPSERT', schema(1), null],
        ['schemaMetadata', 'UPSERT', schema(2), schema(1)],
        ['schemaMetadata', 'UPSERT', schema(3), schema(2)],
        ['datasetProfile', 'UPSERT', profile, null],
      ]);
      assert.deepEqual((await s.queryTimeseries({ urn, entityType: 'dataset', aspect: 'datasetProfile', limit: 10 })).map((r) => r.value), [profile]);
      await s.deleteAspects(urn, ['schemaMetadata']);
      const deleted = (await s.changesAfter(head, 100, true)).filter((c) => c.urn === urn && c.changeType === 'DELETE');
      assert.deepEqual(deleted.map((c) => c.previousValueJson && JSON.parse(c.previousValueJson)), [schema(3)], 'a deletion logs the value that went');
      if (ctx.engine === 'sqlite') {
        const raw = new Database(db.url.slice('sqlite:'.length), { readonly: true });
        try {
          // The versions' entries got their values copied when the aspect was deleted; the time-series entry names its
          // row (migration 18), which holds the compressed event.
          const kinds = raw.prepare(`SELECT typeof(value) AS value, typeof(previous_value) AS previous FROM almanac_change_log
            WHERE urn_id = (SELECT id FROM almanac_urns WHERE urn = ?) ORDER BY seq`).all(urn);
          assert.deepEqual(kinds, [{ value: 'blob', previous: 'null' }, { value: 'blob', previous: 'blob' }, { value: 'blob', previous: 'blob' },
            { value: 'null', previous: 'null' }, { value: 'null', previous: 'blob' }]);
          const event = raw.prepare('SELECT event FROM dataset_datasetprofileaspect_v1 WHERE urn = ?').pluck().get(urn) as Buffer;
          assert.ok(Buffer.isBuffer(event) && event.length * 4 < JSON.stringify(profile).length, 'the profile is stored compressed, under a quarter of its text');
        } finally {
          raw.close();
        }
      }
    } finally {
      await s.close();
      await db.cleanup();
    }
  });

  test('settings: the first value written wins', async () => {
    assert.equal(await store.getOrSetSetting('k', 'one'), 'one');
    assert.equal(await store.getOrSetSetting('k', 'two'), 'one');
  });

  // PostgreSQL only: one process holds a SQLite file's write lock at a time.
  if (ctx.engine === 'postgres') test('settings: a value set by another server at the same moment is the one read (servers starting together)', async () => {
    // Another server's insert of the key, not yet committed: ours waits for it, and must then read its row.
    const other = new pg.Client({ connectionString: ctx.url });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query(`INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ('together', 'theirs')`);
      const ours = store.getOrSetSetting('together', 'ours');
      await new Promise((r) => setTimeout(r, 200)); // ours is waiting on their row's lock by then
      await other.query('COMMIT');
      assert.equal(await ours, 'theirs');
    } finally {
      await other.end();
    }
  });

  // PostgreSQL only: SQLite stores a NUL character; PostgreSQL refuses it in the group's last statement.
  if (ctx.engine === 'postgres') test('writers answered together and writing again a moment later share one group commit, not two', async () => {
    // Eight writers (a server's clients), each writing again 2 ms after its answer. Without waiting for them, the
    // first to come back started a group of its own and the other seven the next: two transactions per round.
    const prefix = 'urn:li:tag:gathered_';
    let transactions = 0;
    let counting = true;
    store.onOwnEntries?.((entries) => { if (counting && entries.some((e) => e.urn?.startsWith(prefix))) transactions++; });
    const rounds = 6;
    try {
      await Promise.all(Array.from({ length: 8 }, async (_, w) => {
        for (let r = 0; r < rounds; r++) {
          await store.writeAspects([{ urn: `${prefix}${w}`, entityType: 'tag', aspect: 'tagProperties', value: { name: `round ${r}` }, actor: ACTOR, time: 1 }], 20);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }));
    } finally {
      counting = false;
    }
    const latest = await store.getLatest(Array.from({ length: 8 }, (_, w) => `${prefix}${w}`));
    assert.deepEqual([...latest.values()].map((m) => (m.get('tagProperties')!.value as { name: string }).name), Array(8).fill(`round ${rounds - 1}`));
    // One transaction per round, and the first round's lone first write: 7 (2 per round before: 12 or more).
    assert.ok(transactions <= rounds + 3, `${transactions} transactions for ${rounds} rounds of 8 writers`);
  });

  if (ctx.engine === 'postgres') test('a group commit that fails in its last statement (sent with its COMMIT) is rolled back whole; its other writes commit alone', async () => {
    const urn = (i: number) => `urn:li:tag:lastStatement${i}`;
    const props = (i: number, actor = ACTOR) => ({ urn: urn(i), entityType: 'tag', aspect: 'tagProperties', value: { name: `n${i}` }, actor, time: 9 });
    const head = await store.lastChangeSeq();
    // Started together: a group of the three (the actor is first sent in the group's last statement, with its COMMIT).
    const outcomes = await Promise.allSettled([store.writeAspects([props(0)], 20), store.writeAspects([props(1, 'urn:li:corpuser:a\u0000b')], 20),
      store.writeAspects([props(2)], 20)]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /0x00/);
    assert.deepEqual(await store.existing([0, 1, 2].map(urn)), new Set([0, 2].map(urn)));
    assert.deepEqual((await store.changesAfter(head, 100)).map((e) => e.urn).sort(), [urn(0), urn(2)]);
    // Every connection of the pool is back out of its transaction, and writes go on.
    const open = new pg.Client({ connectionString: ctx.url });
    await open.connect();
    try {
      const { rows } = await open.query(`SELECT COUNT(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`);
      assert.equal(rows[0].n, 0, 'no connection is left in a transaction');
    } finally {
      await open.end();
    }
    await store.writeAspects([props(3)], 20);
    assert.deepEqual(await store.existing([urn(3)]), new Set([urn(3)]));
  });
});

test('kept parsed values stay within their budget, least recently read going first; a value over a quarter of it is not kept', () => {
  const values = new ParsedValues(400);
  const row = (urn: string, text: string): AspectRow => ({ urn, aspect: 'a', version: 0, metadata: text, systemmetadata: null,
    createdon: 1, createdby: ACTOR, revision: 1 });
  const text = (n: number) => JSON.stringify({ pad: 'x'.repeat(n - 10) }); // n characters
  const read = (urn: string, n: number) => values.record(row(urn, text(n))).value;
  const [a, b] = [read('u:a', 100), read('u:b', 100)];
  const first = read('u:c', 100);
  assert.equal(read('u:a', 100), a, 'a is read again, so b is now the least recent');
  read('u:d', 100); // 400 characters kept: nothing goes yet
  assert.equal(read('u:b', 100), b);
  read('u:e', 100); // 500: the least recently read (c) goes
  const c = read('u:c', 100);
  assert.notEqual(c, first, 'c was let go: parsed anew');
  assert.deepEqual(c, JSON.parse(text(100)));
  assert.equal(read('u:c', 100), c, 'parsed again, then kept');
  const big = read('u:big', 101);
  assert.notEqual(read('u:big', 101), big, 'over a quarter of the budget: parsed on every read');
  assert.deepEqual(big, JSON.parse(text(101)));
  assert.ok(Object.isFrozen(big), 'frozen all the same, as every shared read is');
  assert.equal(read('u:c', 100), c, 'a value not kept evicts nothing');
  assert.notEqual(read('u:a', 100), a, 'a, then the least recent, went when c came back');
});

/** A SQLite store's page cache setting (PRAGMA cache_size: negative in KiB). */
const cacheOf = (s: object) => (s as { db: { pragma(q: string, o: { simple: true }): number } }).db.pragma('cache_size', { simple: true });

test('SQLite page cache: ALMANAC_SQLITE_CACHE_MB sizes it (128 MiB unless set); a value out of range stops the start', async () => {
  const { SqliteStore, DEFAULT_CACHE_MB } = await import('../src/storage/sqlite.js');
  const { loadConfig, ConfigError } = await import('../src/config.js');
  const configured = new SqliteStore(':memory:', { cacheMb: loadConfig({ ALMANAC_SQLITE_CACHE_MB: '64' }).sqliteCacheMb });
  const unset = new SqliteStore(':memory:', { cacheMb: loadConfig({}).sqliteCacheMb });
  try {
    assert.deepEqual([cacheOf(configured), cacheOf(unset), DEFAULT_CACHE_MB], [-64 * 1024, -128 * 1024, 128]);
  } finally {
    await configured.close();
    await unset.close();
  }
  assert.throws(() => loadConfig({ ALMANAC_SQLITE_CACHE_MB: '1' }),
    (e: unknown) => e instanceof ConfigError && e.message === 'ALMANAC_SQLITE_CACHE_MB must be between 2 and 65536, got 1');
});

test('SQLite bulk page cache: ALMANAC_SQLITE_BULK_CACHE_MB sizes it (256 MiB unless set); a value out of range stops the start', async () => {
  const { SqliteStore, DEFAULT_BULK_CACHE_MB } = await import('../src/storage/sqlite.js');
  const { loadConfig, ConfigError } = await import('../src/config.js');
  const configured = new SqliteStore(':memory:', { bulkCacheMb: loadConfig({ ALMANAC_SQLITE_BULK_CACHE_MB: '512' }).sqliteBulkCacheMb });
  const unset = new SqliteStore(':memory:', { bulkCacheMb: loadConfig({}).sqliteBulkCacheMb });
  try {
    const during = [configured, unset].map((s) => {
      const restore = s.bulkPageCache();
      const kib = cacheOf(s);
      restore();
      return [kib, cacheOf(s)];
    });
    assert.deepEqual([during, DEFAULT_BULK_CACHE_MB], [[[-512 * 1024, -128 * 1024], [-256 * 1024, -128 * 1024]], 256]);
  } finally {
    await configured.close();
    await unset.close();
  }
  assert.throws(() => loadConfig({ ALMANAC_SQLITE_BULK_CACHE_MB: '1' }),
    (e: unknown) => e instanceof ConfigError && e.message === 'ALMANAC_SQLITE_BULK_CACHE_MB must be between 2 and 65536, got 1');
});
