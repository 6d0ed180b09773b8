import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import type { ChangeRecord, Store, TimeseriesWrite } from '../src/storage/types.js';
import { forEachEngine, freshSharedDatabaseUrl, storeFor } from './support/engines.js';
import { entriesAsFirstRead } from './support/log-entries.js';
import { sqliteBeforeMigration18 } from './support/series-log.js';

/**
 * SQLite's change log entries of time-series rows name the row holding their value and system metadata (migration 18)
 * and get a copy of them when the row is overwritten or deleted. Whatever happens to the rows afterwards, every entry
 * reads back exactly as it read when it was written; on both engines (PostgreSQL keeps every entry whole).
 */
const A = 'urn:li:corpuser:alice';
const ds = (n: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,series_refs_${n},PROD)`;

function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor(s / 65536) % n;
  };
}

const profile = (urn: string, at: number, rows: number, run: string, partition = ''): TimeseriesWrite => ({
  urn, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: at, partition, granularity: '', messageId: '',
  value: { timestampMillis: at, rowCount: rows, ...(partition ? { partitionSpec: { partition, type: 'PARTITION' } } : {}) },
  systemMetadata: { runId: run, lastObserved: at }, actor: A,
});

/** What an entry of a time-series write must read as: the whole value and system metadata as written. */
const expectedEntry = (w: TimeseriesWrite) => ({
  urn: w.urn, entityType: 'dataset', aspect: 'datasetProfile', changeType: 'UPSERT', valueJson: JSON.stringify(w.value), previousValueJson: null,
  systemMetadata: w.systemMetadata, previousSystemMetadata: null, actor: A, revision: null,
});
const withoutOffsets = (e: ChangeRecord) => {
  const { seq: _seq, time: _time, ...rest } = e;
  return rest;
};

forEachEngine('change log entries of time-series rows by reference', (ctx) => {
  let store: Store;
  let cleanup = async () => {};
  before(async () => {
    ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl(ctx.engine));
    store = await storeFor(ctx);
  });
  after(async () => { await store?.close(); await cleanup(); });

  test('every entry reads as written after overwrites (alone and in one batch), range deletions, retention, run deletions and entity deletions', async () => {
    const from = await store.lastChangeSeq();
    const { note, unchanged } = entriesAsFirstRead(store, from);
    const written: TimeseriesWrite[] = [];
    const next = random(11);
    for (let step = 0; step < 300; step++) {
      const urn = ds(next(3));
      const op = next(12);
      const row = () => profile(urn, 100 + next(6) * 10, step * 10 + next(10), `r${step % 4}`, next(4) === 0 ? 'p1' : '');
      if (op < 5) {
        const w = row();
        await store.upsertTimeseries([w]);
        written.push(w);
      } else if (op < 7) {
        // One batch writing the same key twice (and others): the first entry keeps what it wrote.
        const w = row();
        const batch = [w, row(), { ...w, value: { ...w.value as object, rowCount: -step }, systemMetadata: { runId: `b${step}` } }];
        await store.writeAspects([], 20, batch);
        written.push(...batch);
      } else if (op < 8) {
        await store.writeAspects([{ urn, entityType: 'dataset', aspect: 'status', value: { removed: step % 2 === 0 }, actor: A }], 20, [row()].map((w) => {
          written.push(w);
          return w;
        }));
      } else if (op < 9) {
        await store.deleteTimeseriesRange(urn, 'dataset', 'datasetProfile', 100 + next(6) * 10, 100 + next(6) * 10 + 20, A);
      } else if (op < 10) {
        await store.deleteTimeseriesBefore('dataset', 'datasetProfile', 100 + next(6) * 10, 1 + next(3), A);
      } else if (op < 11) {
        await store.deleteTimeseriesOfRun(`r${next(4)}`, A);
      } else {
        await store.deleteEntity(urn, A);
      }
      await note();
    }
    const now = await unchanged();
    // The upserts of time-series rows, in order, are exactly the writes (whole values and system metadata).
    const upserts = now.filter((e) => e.aspect === 'datasetProfile' && e.changeType === 'UPSERT').map(withoutOffsets);
    assert.deepEqual(upserts, written.map(expectedEntry));
    assert.ok(upserts.length > 150, `${upserts.length} upserts`);
  });

  // Declared on SQLite only: PostgreSQL keeps every entry whole, so there is nothing of the kind to check there.
  if (ctx.engine === 'sqlite') {
    test('SQLite: a time-series row is stored once, its entry naming it; an overwrite copies the old values into the entry that wrote them', async () => {
      const urn = ds(100);
      const from = await store.lastChangeSeq();
      const first = profile(urn, 5, 1, 'one');
      const second = profile(urn, 5, 2, 'two');
      const other = profile(urn, 6, 3, 'three');
      await store.upsertTimeseries([first, other]);
      await store.upsertTimeseries([second]);
      const db = new Database(ctx.url.slice('sqlite:'.length), { readonly: true });
      try {
        const rows = db.prepare(`SELECT value, system_metadata, refs FROM almanac_change_log WHERE seq > ? ORDER BY seq`).all(from);
        assert.deepEqual(rows, [
          { value: JSON.stringify(first.value), system_metadata: JSON.stringify(first.systemMetadata), refs: null },
          { value: null, system_metadata: null, refs: 4 },
          { value: null, system_metadata: null, refs: 4 },
        ]);
        assert.deepEqual(db.prepare(`SELECT timestamp_millis, log_seq - ? AS entry FROM dataset_datasetprofileaspect_v1 WHERE urn = ?
          ORDER BY timestamp_millis`).all(from, urn), [{ timestamp_millis: 5, entry: 3 }, { timestamp_millis: 6, entry: 2 }]);
      } finally {
        db.close();
      }
      assert.deepEqual((await store.changesAfter(from, 100, true)).map(withoutOffsets), [first, other, second].map(expectedEntry));
    });

    test('SQLite: a database from before migration 18 upgrades in place; its entries read as they did, old and new alike', async () => {
      const file = ctx.url.slice('sqlite:'.length);
      const urn = ds(200);
      const from = await store.lastChangeSeq();
      const old = [profile(urn, 1, 1, 'a'), profile(urn, 2, 2, 'b')];
      await store.upsertTimeseries(old);
      const before = await store.changesAfter(from, 100, true);
      await store.close();
      const db = new Database(file);
      sqliteBeforeMigration18(db);
      assert.deepEqual(db.prepare(`SELECT count(*) AS n FROM pragma_table_info('dataset_datasetprofileaspect_v1') WHERE name = 'log_seq'`).get(), { n: 0 });
      db.close();
      store = await storeFor(ctx);
      assert.deepEqual(await store.changesAfter(from, 100, true), before);
      // New rows, one overwriting an old row's key, then a deletion of all: every entry reads as written.
      const later = [profile(urn, 2, 20, 'c'), profile(urn, 3, 3, 'd')];
      await store.upsertTimeseries(later);
      const all = await store.changesAfter(from, 100, true);
      assert.deepEqual(all.slice(0, 2), before);
      assert.deepEqual(all.map(withoutOffsets), [...old, ...later].map(expectedEntry));
      await store.deleteTimeseriesRange(urn, 'dataset', 'datasetProfile', undefined, undefined, A);
      assert.deepEqual((await store.changesAfter(from, 100, true)).slice(0, 4), all);
      const check = new Database(file, { readonly: true });
      try {
        assert.deepEqual(check.prepare(`SELECT version FROM almanac_migrations WHERE version = 18`).all(), [{ version: 18 }]);
        assert.deepEqual(check.prepare(`SELECT refs FROM almanac_change_log WHERE seq > ? ORDER BY seq`).all(from).map((r: any) => r.refs),
          [null, null, null, null, null]);
      } finally {
        check.close();
      }
    });
  }
});
