import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { rootActor } from '../src/model/actor.js';
import { ChangeLogService } from '../src/changelog/service.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { openStore } from '../src/storage/index.js';
import type { Store } from '../src/storage/types.js';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine, freshDatabaseUrl, freshSharedDatabaseUrl, type Engine } from './support/engines.js';
import { BIN, freePort, runCli } from './support/processes.js';

const A = 'urn:li:corpuser:alice';
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const upsert = (urn: string, aspect: string, value: unknown, extra: Partial<ChangeItem> = {}): ChangeItem =>
  ({ urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null, ...extra });

/** Entries after an offset, without their offsets and times (checked apart: increasing, and numbers). */
async function entriesAfter(store: Store, seq: number) {
  const entries = await store.changesAfter(seq, 1000, true);
  entries.forEach((e, i) => {
    assert.ok(i === 0 ? e.seq > seq : e.seq > entries[i - 1]!.seq, 'offsets increase in commit order');
    assert.equal(typeof e.time, 'number');
  });
  return entries.map(({ seq: _s, time: _t, ...rest }) => rest);
}

forEachEngine('change log: every change appended in its transaction', (ctx) => {
  let t: TestApp;
  let cleanup = async () => {};
  before(async () => {
    // SQLite on a file, so that a second connection can reach the same database.
    if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    t = await startApp(ctx);
  });
  after(async () => { await t?.close(); await cleanup(); });

  test('upserts carry the value they replaced and the revision; unchanged values, none; deletions what went', async () => {
    const store = t.catalog.store;
    const DS = ds('logged');
    const from = await store.lastChangeSeq();
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false }, systemMetadata: { runId: 'r1', lastRunId: 'r1' },
      actor: A, time: 1000 }], 20);
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: false }, systemMetadata: { runId: 'r2', lastRunId: 'r2' },
      actor: A, time: 1500 }], 20);
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'status', value: { removed: true }, actor: A, time: 2000 }], 20);
    await store.upsertTimeseries([{ urn: DS, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: 5, partition: '', granularity: '',
      messageId: '', value: { timestampMillis: 5, rowCount: 3 }, actor: A }]);
    await store.deleteAspects(DS, ['status'], A);
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: ['Table'] }, actor: A, time: 3000 }], 20);
    assert.deepEqual(await store.deleteEntity(DS, A), { rows: 1, timeseriesRows: 1 });
    const base = { urn: DS, entityType: 'dataset', actor: A };
    assert.deepEqual(await entriesAfter(store, from), [
      { ...base, aspect: 'status', changeType: 'UPSERT', valueJson: '{"removed":false}', previousValueJson: null,
        systemMetadata: { runId: 'r1', lastRunId: 'r1' }, previousSystemMetadata: null, revision: 1 },
      // The unchanged write made no version and no entry; its lastRunId (the runId stays r1's, as DataHub keeps it) is in what
      // the next entry replaced.
      { ...base, aspect: 'status', changeType: 'UPSERT', valueJson: '{"removed":true}', previousValueJson: '{"removed":false}',
        systemMetadata: null, previousSystemMetadata: { runId: 'r1', lastRunId: 'r2' }, revision: 2 },
      { ...base, aspect: 'datasetProfile', changeType: 'UPSERT', valueJson: '{"timestampMillis":5,"rowCount":3}', previousValueJson: null,
        systemMetadata: null, previousSystemMetadata: null, revision: null },
      { ...base, aspect: 'status', changeType: 'DELETE', valueJson: null, previousValueJson: '{"removed":true}',
        systemMetadata: null, previousSystemMetadata: null, revision: null },
      { ...base, aspect: 'subTypes', changeType: 'UPSERT', valueJson: '{"typeNames":["Table"]}', previousValueJson: null,
        systemMetadata: null, previousSystemMetadata: null, revision: 1 },
      // The hard delete: each aspect with what it held, then each time series with how many rows went.
      { ...base, aspect: 'subTypes', changeType: 'DELETE', valueJson: null, previousValueJson: '{"typeNames":["Table"]}',
        systemMetadata: null, previousSystemMetadata: null, revision: null },
      { ...base, aspect: 'datasetProfile', changeType: 'DELETE', valueJson: null, previousValueJson: null,
        systemMetadata: { properties: { rowsDeleted: '1' } }, previousSystemMetadata: null, revision: null },
    ]);
  });

  test('time-series truncation is one entry, naming the range and the rows it removed', async () => {
    const store = t.catalog.store;
    const rows = [1, 2, 3].map((i) => ({ urn: ds(`trunc_${i}`), entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: i * 10,
      partition: '', granularity: '', messageId: '', value: { timestampMillis: i * 10 } }));
    await store.upsertTimeseries(rows);
    const from = await store.lastChangeSeq();
    assert.equal(await store.deleteTimeseriesBefore('dataset', 'datasetProfile', 25, 1000, A), 2);
    assert.equal(await store.deleteTimeseriesBefore('dataset', 'datasetProfile', 25, 1000, A), 0);
    assert.deepEqual(await entriesAfter(store, from), [
      { urn: null, entityType: 'dataset', aspect: 'datasetProfile', actor: A, changeType: 'DELETE', valueJson: null, previousValueJson: null,
        systemMetadata: { properties: { rowsDeleted: '2', endTimeMillis: '25' } }, previousSystemMetadata: null, revision: null },
    ]);
  });

  test('a batch is one transaction: a refused item leaves no value, no deletion and no entry', async () => {
    const DS = ds('batch_atomic');
    const { entities, store } = t.catalog;
    await entities.ingest([upsert(DS, 'status', { removed: false }), upsert(DS, 'subTypes', { typeNames: ['View'] })], rootActor());
    const from = await store.lastChangeSeq();
    const before = await store.getLatest([DS]);
    // A deletion, an upsert, then a patch whose result fails validation: nothing of it may stay.
    await assert.rejects(entities.ingest([
      { ...upsert(DS, 'status', null), changeType: 'DELETE' },
      upsert(DS, 'datasetProperties', { description: 'kept?' }),
      { ...upsert(DS, 'subTypes', [{ op: 'add', path: '/typeNames', value: 'not a list' }]), changeType: 'PATCH' },
    ], rootActor()), (e: Error & { code?: string }) => e.code === 'UNPROCESSABLE');
    assert.deepEqual(await store.getLatest([DS]), before);
    assert.equal(await store.lastChangeSeq(), from);
    // The same deletion and upsert alone: both, with their entries, together.
    await entities.ingest([{ ...upsert(DS, 'status', null), changeType: 'DELETE' }, upsert(DS, 'datasetProperties', { description: 'kept' })],
      rootActor());
    assert.deepEqual((await entriesAfter(store, from)).map((e) => [e.changeType, e.aspect]), [['UPSERT', 'datasetProperties'], ['DELETE', 'status']]);
    assert.deepEqual([...(await store.getLatest([DS])).get(DS)!.keys()].sort(), ['datasetKey', 'datasetProperties', 'subTypes']);
  });

  test('a hard delete that fails midway leaves everything in place, and logs nothing', async () => {
    const DS = ds('delete_midway');
    const { entities, store } = t.catalog;
    await entities.ingest([upsert(DS, 'status', { removed: false }),
      upsert(DS, 'datasetProfile', { timestampMillis: 7, rowCount: 1 }), upsert(DS, 'datasetProperties', { description: 'still here' })], rootActor());
    const from = await store.lastChangeSeq();
    const before = await store.getLatest([DS]);
    // A real fault inside the delete's transaction: the last time-series table it empties is gone.
    const table = 'dataset_datasetusagestatisticsaspect_v1';
    await rawExec(ctx.engine, ctx.url, store, `ALTER TABLE ${table} RENAME TO ${table}_away`);
    try {
      await assert.rejects(entities.deleteEntity(DS, rootActor()));
    } finally {
      await rawExec(ctx.engine, ctx.url, store, `ALTER TABLE ${table}_away RENAME TO ${table}`);
    }
    assert.deepEqual(await store.getLatest([DS]), before);
    assert.equal((await store.queryTimeseries({ entityType: 'dataset', aspect: 'datasetProfile', urn: DS })).length, 1);
    assert.equal(await store.lastChangeSeq(), from);
    const found = await t.graphql(`{ search(input: { type: DATASET, query: "delete_midway" }) { total } }`);
    assert.deepEqual(found.body.data, { search: { total: 1 } });
  });

  test('expected versions (If-Version-Match): -1 creates only, a number must be the stored revision, else 412 and nothing written', async () => {
    const DS = ds('conditional');
    const { entities, store } = t.catalog;
    const props = (description: string, expectedVersion: number) => upsert(DS, 'datasetProperties', { description }, { expectedVersion });
    await entities.ingest([props('one', -1)], rootActor());
    await assert.rejects(entities.ingest([props('again', -1)], rootActor()), { code: 'PRECONDITION_FAILED',
      message: `Aspect datasetProperties of ${DS} is at version 1, not the expected absent (-1)` });
    await entities.ingest([props('two', 1)], rootActor());
    const from = await store.lastChangeSeq();
    await assert.rejects(entities.ingest([upsert(DS, 'status', { removed: false }), props('stale', 1)], rootActor()),
      { code: 'PRECONDITION_FAILED', message: `Aspect datasetProperties of ${DS} is at version 2, not the expected 1` });
    assert.equal(await store.lastChangeSeq(), from);
    assert.equal((await store.getLatest([DS], ['status'])).size, 0);
    const latest = (await store.getLatest([DS], ['datasetProperties'])).get(DS)!.get('datasetProperties')!;
    assert.deepEqual([latest.value, latest.revision], [{ description: 'two' }, 2]);

    // Over REST: the proposal's headers, or the request's If-Version-Match header.
    const post = (proposal: object, headers: Record<string, string> = {}) => t.app.inject({ method: 'POST',
      url: '/aspects?action=ingestProposal', headers: { ...t.auth, ...headers }, payload: { proposal } });
    const proposal = (description: string) => ({ entityType: 'dataset', entityUrn: DS, changeType: 'UPSERT', aspectName: 'datasetProperties',
      aspect: { contentType: 'application/json', value: JSON.stringify({ description }) } });
    const stale = await post({ ...proposal('three'), headers: { 'If-Version-Match': '1' } });
    assert.equal(stale.statusCode, 412);
    assert.deepEqual(stale.json(), { status: 412, code: 'PRECONDITION_FAILED', message: `Aspect datasetProperties of ${DS} is at version 2, not the expected 1`,
      urn: DS, aspect: 'datasetProperties', expectedVersion: '1', actualVersion: '2' });
    assert.equal((await post({ ...proposal('three'), headers: { 'If-Version-Match': '2' } })).statusCode, 200);
    assert.equal((await post(proposal('four'), { 'If-Version-Match': '2' })).statusCode, 412);
    assert.equal((await post(proposal('four'), { 'If-Version-Match': '3' })).statusCode, 200);
    const bad = await post(proposal('five'), { 'If-Version-Match': 'latest' });
    assert.deepEqual([bad.statusCode, bad.json().code], [400, 'BAD_REQUEST']);
    const onTimeseries = await post({ entityType: 'dataset', entityUrn: DS, changeType: 'UPSERT', aspectName: 'datasetProfile',
      aspect: { contentType: 'application/json', value: JSON.stringify({ timestampMillis: 1 }) }, headers: { 'If-Version-Match': '1' } });
    assert.deepEqual([onTimeseries.statusCode, onTimeseries.json().message],
      [400, "If-Version-Match applies to versioned aspects; 'datasetProfile' is a time-series aspect"]);
    assert.deepEqual((await store.getLatest([DS], ['datasetProperties'])).get(DS)!.get('datasetProperties')!.value, { description: 'four' });
  });

  test('indexes are consumers: each stores the offset it applied, and catches up with entries it missed', async (c) => {
    // On a database and app of its own that follows no log: a follower would catch the indexes up by itself.
    const db = await freshDatabaseUrl(ctx.engine);
    // Nor does it index its own writes after they answer (a minute later): only the catch-up below applies anything.
    const t = await startApp({ engine: ctx.engine, url: db.url }, { indexDelayMs: 60_000 }, { follow: false });
    c.after(async () => { await t.close(); await db.cleanup(); });
    const { store, changeLog } = t.catalog;
    // The app's own writes (its token) applied first: a read of the index would otherwise apply everything pending.
    await changeLog.catchUpIndexes();
    const DS = ds('missed_by_index');
    // Written straight to the store, as a crash between commit and index update would leave it.
    await store.writeAspects([{ urn: DS, entityType: 'dataset', aspect: 'datasetProperties', value: { description: 'quokkafish' }, actor: A },
      { urn: DS, entityType: 'dataset', aspect: 'upstreamLineage', actor: A,
        value: { upstreams: [{ dataset: ds('upstream_of_missed'), type: 'TRANSFORMED', auditStamp: { time: 0, actor: A } }] } }], 20);
    const head = await store.lastChangeSeq();
    const offsets = await store.consumerOffsets();
    assert.deepEqual([offsets.get('search')! < head, offsets.get('relationships')! < head], [true, true], 'both indexes are behind');
    const search = () => t.graphql(`{ search(input: { type: DATASET, query: "quokkafish" }) { total } }`);
    // SQLite: behind until a catch-up (at the next start, or the next write). PostgreSQL, whose database other servers
    // share: a read of the index first applies whatever the log holds beyond it, so the search itself catches up.
    assert.deepEqual((await search()).body.data, { search: { total: ctx.engine === 'postgres' ? 1 : 0 } });
    await changeLog.catchUpIndexes();
    assert.deepEqual((await search()).body.data, { search: { total: 1 } });
    assert.deepEqual((await store.relationships({ urn: DS, direction: 'OUTGOING', start: 0, count: 10 })).edges,
      [{ source: DS, type: 'DownstreamOf', destination: ds('upstream_of_missed'), updatedActor: A }]);
    assert.deepEqual(await store.consumerOffsets(), new Map([['relationships', head], ['search', head]]));
  });

  test('trimming keeps what a consumer has not applied', async () => {
    const { store } = t.catalog;
    await store.registerConsumer('slow_subscriber', await store.lastChangeSeq());
    const kept = await store.lastChangeSeq();
    await store.writeAspects([{ urn: ds('trim_me'), entityType: 'dataset', aspect: 'status', value: { removed: false }, actor: A }], 20);
    await store.trimChanges(Date.now() + 1000, 100_000);
    assert.equal(await store.firstChangeSeq(), kept + 1);
    await store.removeConsumer('slow_subscriber');
    await t.catalog.changeLog.catchUpIndexes();
    await store.trimChanges(Date.now() + 1000, 100_000);
    assert.equal(await store.firstChangeSeq(), null);
    assert.equal(await store.lastChangeSeq() >= kept + 1, true);
  });
});

/** Runs one statement on the database over a connection of its own (SQLite: the store's file is shared). */
async function rawExec(engine: Engine, url: string, _store: Store, sql: string) {
  if (engine === 'sqlite') {
    const db = new Database(url.slice('sqlite:'.length));
    try { db.exec(sql); } finally { db.close(); }
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { await c.query(sql); } finally { await c.end(); }
}

forEachEngine('change log: a server hears its own entries as they commit, ahead of other servers\' not heard yet', (ctx) => {
  let mine: Store;
  let other: Store;
  let cleanup = async () => {};
  before(async () => {
    // Two stores on one database: this server's and another server's (SQLite on a file, so that both reach it).
    if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    mine = await openStore(ctx.url);
    other = await openStore(ctx.url);
  });
  after(async () => { await mine?.close(); await other?.close(); await cleanup(); });

  test('heard at once without reading the log, handed on once; the offset moves past them when the gap is heard', async () => {
    const changeLog = new ChangeLogService(mine, 60_000);
    await changeLog.start();
    const heard: [number, string | null][][] = [];
    changeLog.onChange((entries) => heard.push(entries.map((e) => [e.seq, e.aspect])));
    let reads = 0;
    const read = mine.changesAfter.bind(mine);
    mine.changesAfter = (...args) => { reads++; return read(...args); };
    const write = (s: Store, name: string, aspect: string, value: unknown) =>
      s.writeAspects([{ urn: ds(name), entityType: 'dataset', aspect, value, actor: A, time: 1000 }], 20);
    try {
      const from = changeLog.followedTo()!;
      // Another server commits first (its announcement not heard here yet), then this server.
      await write(other, 'theirs', 'status', { removed: false });
      await write(mine, 'mine', 'subTypes', { typeNames: ['Table'] });
      await changeLog.afterCommit();
      assert.deepEqual(heard, [[[from + 2, 'subTypes']]]);
      assert.equal(changeLog.followedTo(), from, 'not past the entry not heard yet');
      assert.equal(reads, 0, 'its own entries not read back');
      // The other server's announcement: its entry heard, and the offset past both.
      const [theirs, own] = await other.changesAfter(from, 10);
      await changeLog.announced([theirs!]);
      assert.deepEqual(heard, [[[from + 2, 'subTypes']], [[from + 1, 'status']]]);
      assert.equal(changeLog.followedTo(), from + 2);
      // This server's own announcement, a read of the log: nothing heard again.
      await changeLog.announced([own!]);
      await changeLog.follow();
      assert.equal(reads, 1);
      assert.deepEqual(heard, [[[from + 2, 'subTypes']], [[from + 1, 'status']]]);

      // The same, the gap read from the log (an announcement too large to carry its entries): the read hands on the
      // other server's entry only.
      await write(other, 'theirs', 'status', { removed: true });
      await write(mine, 'mine', 'subTypes', { typeNames: ['View'] });
      await write(other, 'theirs2', 'status', { removed: false });
      await changeLog.afterCommit();
      assert.equal(reads, 1);
      await changeLog.follow();
      assert.deepEqual(heard.slice(2), [[[from + 4, 'subTypes']], [[from + 3, 'status'], [from + 5, 'status']]]);
      assert.equal(changeLog.followedTo(), from + 5);
    } finally {
      await changeLog.stop();
    }
  });
});
