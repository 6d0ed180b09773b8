import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rootActor } from '../src/model/actor.js';
import { MAX_INDEX_LAG } from '../src/changelog/service.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { openStore } from '../src/storage/index.js';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';

/**
 * The indexes apply a server's writes after the writes answer (ALMANAC_INDEX_DELAY_MS later, many writes in one step),
 * and every read of an index in that server first waits for the writes it has answered: a search right after a
 * write sees it. Here the delay is a minute, so that only reads (or the lag bound, or closing) can have applied them,
 * and there is no change-log follower to catch the indexes up behind the test's back.
 */
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const LATER = { indexDelayMs: 60_000 };

forEachEngine('indexes applied after the answer', (ctx) => {
  let cleanup = async () => {};
  let t: TestApp;
  let closed = false;
  before(async () => {
    // SQLite on a file: the last test reopens the database after the server closed.
    if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    t = await startApp(ctx, LATER, { follow: false });
  });
  after(async () => { if (!closed) await t?.close(); await cleanup(); });

  /** The search and relationship indexes' stored offsets, and the log's head. */
  const positions = async (store = t.catalog.store) => {
    const offsets = await store.consumerOffsets();
    return { search: offsets.get('search'), relationships: offsets.get('relationships'), head: await store.lastChangeSeq() };
  };

  test('a search right after a write sees it, though the write answered before its index step', async () => {
    const DS = ds('quokka_ledger');
    await t.put(DS, 'datasetProperties', { name: 'quokka_ledger', description: 'Ledger of quokka sightings', customProperties: {}, tags: [] });
    const written = await positions();
    assert.ok(written.search! < written.head && written.relationships! < written.head, `answered before indexed: ${JSON.stringify(written)}`);
    const res = await t.graphql('{ search(input: { type: DATASET, query: "quokka_ledger" }) { total searchResults { entity { urn } } } }');
    assert.deepEqual(res.body, { data: { search: { total: 1, searchResults: [{ entity: { urn: DS } }] } }, extensions: {} });
    assert.deepEqual(await positions(), { search: written.head, relationships: written.head, head: written.head });
  });

  test('a relationship read right after a lineage write sees the new edge, even where its earlier answer was kept', async () => {
    const [UP, DOWN] = [ds('wombat_raw'), ds('wombat_clean')];
    await t.put(UP, 'status', { removed: false });
    const incoming = `{ dataset(urn: "${UP}") { relationships(input: { types: ["DownstreamOf"], direction: INCOMING }) { total relationships { entity { urn } } } } }`;
    const none = { data: { dataset: { relationships: { total: 0, relationships: [] } } }, extensions: {} };
    assert.deepEqual((await t.graphql(incoming)).body, none);
    assert.deepEqual((await t.graphql(incoming)).body, none, 'asked twice: the second answer may be the kept one');
    await t.put(DOWN, 'upstreamLineage', { upstreams: [{ dataset: UP, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' } }] });
    const written = await positions();
    assert.ok(written.relationships! < written.head, 'answered before indexed');
    assert.deepEqual((await t.graphql(incoming)).body,
      { data: { dataset: { relationships: { total: 1, relationships: [{ entity: { urn: DOWN } }] } } }, extensions: {} });
  });

  test('under sustained writes the steps are computed in a worker thread (SQLite): a read right after a write still sees it', async () => {
    const changeLog = t.catalog.changeLog;
    changeLog.ongoingWorkerAfter = 0;
    // Only where a bulk load's catch-up would use one: SQLite on a file (PostgreSQL's steps stay in the process).
    assert.equal(await changeLog.startOngoingWorker(), ctx.engine === 'sqlite');
    const [UP, DOWN] = [ds('bilby_raw'), ds('bilby_clean')];
    await t.put(UP, 'datasetProperties', { name: 'bilby_raw', description: 'Raw bilby burrow counts', customProperties: {}, tags: [] });
    await t.put(DOWN, 'upstreamLineage', { upstreams: [{ dataset: UP, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' } }] });
    const written = await positions();
    assert.ok(written.search! < written.head && written.relationships! < written.head, `answered before indexed: ${JSON.stringify(written)}`);
    const search = '{ search(input: { type: DATASET, query: "bilby_raw" }) { total searchResults { entity { urn } } } }';
    assert.deepEqual((await t.graphql(search)).body, { data: { search: { total: 1, searchResults: [{ entity: { urn: UP } }] } }, extensions: {} });
    const incoming = `{ dataset(urn: "${UP}") { relationships(input: { types: ["DownstreamOf"], direction: INCOMING }) { total relationships { entity { urn } } } } }`;
    assert.deepEqual((await t.graphql(incoming)).body,
      { data: { dataset: { relationships: { total: 1, relationships: [{ entity: { urn: DOWN } }] } } }, extensions: {} });
    assert.deepEqual(await positions(), { search: written.head, relationships: written.head, head: written.head });
    // An entity deleted: gone from the index at the next read, its edges too.
    await t.catalog.entities.deleteEntity(DOWN, rootActor());
    assert.deepEqual((await t.graphql(incoming)).body, { data: { dataset: { relationships: { total: 0, relationships: [] } } }, extensions: {} });
    await t.catalog.entities.deleteEntity(UP, rootActor());
    assert.deepEqual((await t.graphql(search)).body, { data: { search: { total: 0, searchResults: [] } }, extensions: {} });
    if (ctx.engine === 'sqlite') assert.ok(changeLog.ongoingWorkerSteps >= 2, `the worker computed the steps (${changeLog.ongoingWorkerSteps})`);
    else assert.equal(changeLog.ongoingWorkerSteps, 0);
  });

  test(`a write waits for the indexes once they are more than ${MAX_INDEX_LAG} entries behind`, async () => {
    const before = await positions();
    const batch = (from: number, n: number): ChangeItem[] => Array.from({ length: n }, (_, i) => ({
      urn: ds(`numbat_${from + i}`), entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', value: { removed: false }, systemMetadata: null,
    }));
    // A few entries behind: the write answers without them applied.
    await t.catalog.entities.ingest(batch(0, 10), rootActor());
    let now = await positions();
    assert.ok(now.search! <= before.head && now.head > before.head, JSON.stringify({ before, now }));
    // Each new dataset logs its key aspect and its status: this batch takes the lag past the bound.
    await t.catalog.entities.ingest(batch(10, Math.ceil(MAX_INDEX_LAG / 2) + 1), rootActor());
    now = await positions();
    assert.deepEqual(now, { search: now.head, relationships: now.head, head: now.head });
  });

  // Two servers on one PostgreSQL behind a proxy's round robin: the writer's server indexes after answering, so the
  // other applies what is missing before it reads. (Servers do not share a SQLite file; its other writers, the CLI's
  // commands, index before they return.)
  if (ctx.engine === 'postgres') {
    test('a search through another server sharing the database sees a write at once', async () => {
      const other = await startApp(ctx, LATER, { follow: false });
      try {
        const DS = ds('dunnart_shared');
        await t.put(DS, 'datasetProperties', { name: 'dunnart_shared', description: 'Written through the first server', customProperties: {}, tags: [] });
        const written = await positions();
        assert.ok(written.search! < written.head, `answered before indexed: ${JSON.stringify(written)}`);
        const res = await other.graphql('{ search(input: { type: DATASET, query: "dunnart_shared" }) { total searchResults { entity { urn } } } }');
        assert.deepEqual(res.body, { data: { search: { total: 1, searchResults: [{ entity: { urn: DS } }] } }, extensions: {} });
        assert.deepEqual(await positions(), { search: written.head, relationships: written.head, head: written.head });
        // The first server's own next read finds the work done: it re-reads the offsets rather than indexing again.
        const again = await t.graphql('{ search(input: { type: DATASET, query: "dunnart_shared" }) { total } }');
        assert.deepEqual(again.body, { data: { search: { total: 1 } }, extensions: {} });
      } finally {
        await other.close();
      }
    });

    test('a bulk load\'s backlog is not taken on by another server\'s search: its loader indexes it at the end', async () => {
      const other = await startApp(ctx, LATER, { follow: false });
      try {
        const loaded = Array.from({ length: Math.ceil(MAX_INDEX_LAG / 2) + 1 }, (_, i): ChangeItem => ({
          urn: ds(`quoll_bulk_${i}`), entityType: 'dataset', aspect: 'status', changeType: 'UPSERT', value: { removed: false }, systemMetadata: null }));
        await t.catalog.entities.ingest(loaded, rootActor(), { indexLater: true });
        const written = await positions();
        assert.ok(written.head - written.search! > MAX_INDEX_LAG, JSON.stringify(written));
        const count = '{ search(input: { type: DATASET, query: "quoll_bulk_*" }) { total } }';
        assert.deepEqual((await other.graphql(count)).body, { data: { search: { total: 0 } }, extensions: {} });
        assert.deepEqual(await positions(), written, 'the search left the backlog alone');
        await t.catalog.entities.committed({ bulk: true });
        assert.deepEqual((await other.graphql(count)).body, { data: { search: { total: loaded.length } }, extensions: {} });
      } finally {
        await other.close();
      }
    });
  }

  test('without any read, the indexes apply the writes once the delay is over', async () => {
    const quick = await startApp(ctx, { indexDelayMs: 10 }, { follow: false });
    try {
      await quick.put(ds('bilby_quick'), 'status', { removed: false });
      const written = await positions(quick.catalog.store);
      for (let i = 0; i < 500; i++) {
        const now = await positions(quick.catalog.store);
        if (now.search === written.head && now.relationships === written.head) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.fail(`not applied within 5 s: ${JSON.stringify(await positions(quick.catalog.store))}`);
    } finally {
      await quick.close();
    }
  });

  test('closing applies what is pending first', async () => {
    await t.put(ds('potoroo_last'), 'status', { removed: false });
    assert.ok((await positions()).search! < (await positions()).head, 'pending before closing');
    closed = true;
    await t.close();
    const store = await openStore(ctx.url);
    try {
      const now = await positions(store);
      assert.deepEqual(now, { search: now.head, relationships: now.head, head: now.head });
    } finally {
      await store.close();
    }
  });
});
