import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { ChangeRecord, Store } from '../src/storage/types.js';
import { forEachEngine, freshSharedDatabaseUrl, storeFor } from './support/engines.js';
import { entriesAsFirstRead } from './support/log-entries.js';
import { sqliteBeforeMigration19 } from './support/before-migration-19.js';
import { sqliteBeforeMigration18 } from './support/series-log.js';

/**
 * The change log names the stored versions holding its entries' values (SQLite: migration 16; PostgreSQL: 31, values only) and gets a copy of them
 * when such a version is touched, trimmed by the history cap, replaced without a copy or deleted. Whatever happens to
 * the aspects afterwards, every entry reads back exactly as it read when it was written; on both engines.
 */
const A = 'urn:li:corpuser:alice';
const ds = (n: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,refs_${n},PROD)`;

/** A small deterministic generator, so that a failure can be replayed. */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return Math.floor(s / 65536) % n;
  };
}

forEachEngine('change log entries by reference', (ctx) => {
  let store: Store;
  let cleanup = async () => {};
  before(async () => {
    ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl(ctx.engine));
    store = await storeFor(ctx);
  });
  after(async () => { await store?.close(); await cleanup(); });

  test('every entry reads as written after touches, history trims, writes in one batch, deletions and entity deletions', async () => {
    const from = await store.lastChangeSeq();
    const { note, unchanged } = entriesAsFirstRead(store, from);
    const next = random(7);
    const aspects = ['status', 'subTypes'];
    const value = (aspect: string, i: number) => (aspect === 'status' ? { removed: i % 2 === 1 } : { typeNames: [`T${i % 3}`] });
    for (let step = 0; step < 400; step++) {
      const urn = ds(next(4));
      const aspect = aspects[next(2)]!;
      const cap = [1, 2, 3, 20][next(4)]!;
      const op = next(10);
      const write = (i: number, run: string) => ({ urn, entityType: 'dataset', aspect, value: value(aspect, i), actor: A,
        systemMetadata: { runId: run, lastRunId: run }, time: 1000 + step });
      if (op < 5) {
        await store.writeAspects([write(next(4), `r${step}`)], cap);
      } else if (op < 7) {
        // One batch: the same aspect several times, some unchanged (a touch of what the batch wrote or of the stored one).
        await store.writeAspects([write(next(4), `a${step}`), write(next(4), `b${step}`), write(next(4), `c${step}`)], cap);
      } else if (op < 8) {
        await store.deleteAspects(urn, [aspect], A);
      } else if (op < 9) {
        await store.deleteEntity(urn, A);
      } else {
        await store.writeAspects([write(next(4), `t${step}`), { ...write(next(4), `u${step}`), aspect: aspects[1 - aspects.indexOf(aspect)]!,
          value: value(aspects[1 - aspects.indexOf(aspect)]!, next(4)) }], cap);
      }
      await note();
    }
    const now = await unchanged();
    assert.ok(now.length > 200, `${now.length} entries`);
    // Every upsert of a version came with its values as written (none lost on the way).
    for (const e of now) if (e.revision !== null) assert.notEqual(e.valueJson, null);
  });

  if (ctx.engine === 'postgres') {
    const query = async (sql: string, params: unknown[] = []) => {
      const c = new pg.Client({ connectionString: ctx.url });
      await c.connect();
      try {
        return (await c.query(sql, params)).rows;
      } finally {
        await c.end();
      }
    };

    test('PostgreSQL: a database from before migration 31 upgrades in place; its entries read as they did, old and new versions alike', async () => {
      const urn = ds(210);
      const write = (i: number) => store.writeAspects([{ urn, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: [`Old${i}`] }, actor: A }], 2);
      const from = await store.lastChangeSeq();
      for (let i = 0; i < 3; i++) await write(i);
      const before = await store.changesAfter(from, 100, true);
      await store.close();
      // The database as migration 30 left it: whole entries, no offsets on the versions, no triggers.
      await query(`DROP TRIGGER almanac_change_log_refs_deleted ON metadata_aspect_v2; DROP TRIGGER almanac_change_log_refs_updated ON metadata_aspect_v2;
        DROP FUNCTION almanac_change_log_refs_deleted(); DROP FUNCTION almanac_change_log_refs_updated();
        UPDATE almanac_change_log l SET value = a.metadata, system_metadata = a.systemmetadata FROM metadata_aspect_v2 a
          WHERE l.refs = 1 AND a.log_seq = l.seq;
        ALTER TABLE almanac_change_log DROP COLUMN refs; ALTER TABLE metadata_aspect_v2 DROP COLUMN log_seq;
        DELETE FROM almanac_migrations WHERE version = 31`);
      store = await storeFor(ctx);
      assert.deepEqual(await store.changesAfter(from, 100, true), before);
      assert.deepEqual(await query(`SELECT refs, value IS NULL AS referenced FROM almanac_change_log WHERE seq > $1 ORDER BY seq`, [from]),
        before.map(() => ({ refs: null, referenced: false })), 'entries from before keep their copies');
      // New versions replace and trim the old ones (a cap of two): every entry, old or new, still reads as written.
      for (let i = 3; i < 6; i++) await write(i);
      const written = await store.changesAfter(from, 100, true);
      assert.deepEqual(written.slice(0, 3), before);
      assert.deepEqual(written.map((e) => [e.valueJson, e.previousValueJson]), [0, 1, 2, 3, 4, 5].map((i) =>
        [`{"typeNames":["Old${i}"]}`, i === 0 ? null : `{"typeNames":["Old${i - 1}"]}`]));
      // The two newest entries name their versions, the latest and its copy in history (the fourth took its value as
      // its version was trimmed).
      assert.deepEqual(await query(`SELECT refs, value IS NULL AS referenced FROM almanac_change_log WHERE seq > $1 ORDER BY seq`, [from]),
        [null, null, null, null, 1, 1].map((refs) => ({ refs, referenced: refs !== null })));
      await store.deleteEntity(urn, A);
      assert.deepEqual((await store.changesAfter(from, 100, true)).slice(0, 6), written);
    });

    test('PostgreSQL: the oldest entries are trimmed by offset (no index by time), up to the first that is not old enough', async () => {
      const urns = [ds(400), ds(401)];
      const from = await store.lastChangeSeq();
      for (let i = 0; i < 3; i++) {
        await store.writeAspects(urns.map((urn) => ({ urn, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: [`Trim${i}`] }, actor: A })), 3);
      }
      const seqs = (await store.changesAfter(from, 100)).map((e) => e.seq);
      assert.equal(seqs.length, 6);
      assert.deepEqual(await query(`SELECT indexname FROM pg_indexes WHERE tablename = 'almanac_change_log' ORDER BY 1`),
        [{ indexname: 'almanac_change_log_pkey' }]);
      // Every consumer past the head; the entries up to the second of ours older than the cut, and one later entry too,
      // which waits behind a newer one.
      await query(`UPDATE almanac_consumers SET seq = $1`, [seqs[5]]);
      await query(`UPDATE almanac_change_log SET at = 0 WHERE seq <= $1 OR seq = $2`, [seqs[1], seqs[3]]);
      const old = (await store.changesAfter(0, 100_000)).filter((e) => e.seq <= seqs[1]!).length;
      assert.equal(await store.trimChanges(1000, 100_000), old);
      assert.deepEqual((await store.changesAfter(0, 100)).map((e) => e.seq), seqs.slice(2));
      assert.equal(await store.trimChanges(1000, 100_000), 0);
      // The bound of a batch: one at a time.
      await query(`UPDATE almanac_change_log SET at = 0`);
      assert.equal(await store.trimChanges(1000, 1), 1);
      assert.deepEqual((await store.changesAfter(0, 100)).map((e) => e.seq), seqs.slice(3));
    });

    test('PostgreSQL: a bulk of new versions (sent by COPY) keeps one copy of each value (in the aspect table)', async () => {
      const from = await store.lastChangeSeq();
      const writes = Array.from({ length: 250 }, (_, i) => ({ urn: ds(1000 + i), entityType: 'dataset', aspect: 'datasetProperties',
        value: { description: 'x'.repeat(100 + i), customProperties: {} }, actor: A, systemMetadata: { runId: `bulk${i}` } }));
      await store.writeAspects(writes, 20);
      assert.deepEqual(await query(`SELECT l.value, l.system_metadata, l.previous_value, l.refs, a.log_seq = l.seq AS named
          FROM almanac_change_log l JOIN metadata_aspect_v2 a ON a.urn = l.urn AND a.aspect = l.aspect AND a.version = 0 WHERE l.seq > $1 ORDER BY l.seq`, [from]),
        writes.map(() => ({ value: null, system_metadata: null, previous_value: null, refs: 1, named: true })));
      const entries = await store.changesAfter(from, 1000, true);
      assert.deepEqual(entries.map((e) => [JSON.parse(e.valueJson!), e.systemMetadata]), writes.map((w) => [w.value, w.systemMetadata]));
      // Rewritten by a second bulk, with a history cap of one (no history kept): the first entries take their values.
      await store.writeAspects(writes.map((w) => ({ ...w, value: { ...w.value, description: 'y' } })), 1);
      const again = await store.changesAfter(from, 1000, true);
      assert.deepEqual(again.slice(0, writes.length), entries);
      assert.deepEqual(again.slice(writes.length).map((e) => [e.valueJson, e.previousValueJson]),
        entries.map((e) => ['{"description":"y","customProperties":{}}', e.valueJson]));
    });
  }

  // Declared on SQLite only: PostgreSQL keeps every entry whole, so there is nothing of the kind to check there.
  if (ctx.engine === 'sqlite') {
    test('SQLite: a database from before migration 16 upgrades in place; its entries read as they did, old and new versions alike', async () => {
      const file = ctx.url.slice('sqlite:'.length);
      const urn = ds(200);
      const write = (i: number) => store.writeAspects([{ urn, entityType: 'dataset', aspect: 'subTypes', value: { typeNames: [`Old${i}`] }, actor: A }], 2);
      const from = await store.lastChangeSeq();
      for (let i = 0; i < 3; i++) await write(i);
      const before = await store.changesAfter(from, 100, true);
      await store.close();
      // The database as migration 15 left it: whole entries, no offsets on the versions, no triggers.
      const db = new Database(file);
      sqliteBeforeMigration18(db);
      db.exec(`DROP TRIGGER almanac_change_log_refs_deleted; DROP TRIGGER almanac_change_log_refs_updated;
        UPDATE almanac_change_log SET value = (SELECT a.metadata FROM metadata_aspect_v2 a WHERE a.urn = almanac_change_log.urn
          AND a.aspect = almanac_change_log.aspect AND a.revision = almanac_change_log.revision LIMIT 1) WHERE refs & 1;
        UPDATE almanac_change_log SET previous_value = (SELECT a.metadata FROM metadata_aspect_v2 a WHERE a.urn = almanac_change_log.urn
          AND a.aspect = almanac_change_log.aspect AND a.revision = almanac_change_log.revision - 1 LIMIT 1) WHERE refs & 2;
        ALTER TABLE almanac_change_log DROP COLUMN refs; ALTER TABLE metadata_aspect_v2 DROP COLUMN log_seq;
        DELETE FROM almanac_migrations WHERE version = 16`);
      db.close();
      store = await storeFor(ctx);
      assert.deepEqual(await store.changesAfter(from, 100, true), before);
      // New versions replace and trim the old ones (a cap of two): every entry, old or new, still reads as written.
      for (let i = 3; i < 6; i++) await write(i);
      const written = await store.changesAfter(from, 100, true);
      assert.deepEqual(written.slice(0, 3), before);
      assert.deepEqual(written.map((e) => [e.valueJson, e.previousValueJson]), [0, 1, 2, 3, 4, 5].map((i) =>
        [`{"typeNames":["Old${i}"]}`, i === 0 ? null : `{"typeNames":["Old${i - 1}"]}`]));
      await store.deleteEntity(urn, A);
      assert.deepEqual((await store.changesAfter(from, 100, true)).slice(0, 6), written);
    });
  }

  // Declared on SQLite only: PostgreSQL keeps every entry whole, so there is nothing of the kind to check there.
  if (ctx.engine === 'sqlite') {
    test('SQLite: a bulk of new versions keeps one copy of each value (in the aspect table)', async () => {
      const from = await store.lastChangeSeq();
      const writes = Array.from({ length: 20 }, (_, i) => ({ urn: ds(100 + i), entityType: 'dataset', aspect: 'datasetProperties',
        value: { description: 'x'.repeat(2000 + i), customProperties: {} }, actor: A }));
      await store.writeAspects(writes, 20);
      const db = new Database(ctx.url.slice('sqlite:'.length), { readonly: true });
      try {
        const rows = db.prepare(`SELECT value, system_metadata, previous_value, refs FROM almanac_change_log WHERE seq > ? ORDER BY seq`).all(from);
        assert.deepEqual(rows, writes.map(() => ({ value: null, system_metadata: null, previous_value: null, refs: 1 })));
      } finally {
        db.close();
      }
      const entries = await store.changesAfter(from, 100, true);
      assert.deepEqual(entries.map((e) => JSON.parse(e.valueJson!)), writes.map((w) => w.value));
    });
  }

  // Declared on SQLite only: PostgreSQL keeps its entries' urns and actors as text.
  if (ctx.engine === 'sqlite') {
    test('SQLite: entries name their urn, entity type, aspect and actor by number (migration 19); entries from before read as they did; the oldest are trimmed by offset', async () => {
      const file = ctx.url.slice('sqlite:'.length);
      const urns = [ds(300), ds(301)];
      const write = (i: number) => store.writeAspects(urns.map((urn) => ({ urn, entityType: 'dataset', aspect: 'subTypes',
        value: { typeNames: [`N${i}`] }, actor: A })), 3);
      const from = await store.lastChangeSeq();
      await write(0);
      await store.upsertTimeseries([{ urn: urns[0]!, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: 5,
        partition: '', granularity: '', messageId: '', value: { timestampMillis: 5, rowCount: 1 }, actor: 'urn:li:corpuser:bob' }]);
      await store.deleteEntity(urns[1]!, 'urn:li:corpuser:carol');
      const before = { bare: await store.changesAfter(from, 100), whole: await store.changesAfter(from, 100, true) };
      const entities = await store.listEntities({ count: 10_000 });
      assert.ok(entities.some((e) => e.urn === urns[0]), 'an entity written');
      assert.deepEqual(before.bare.map((e) => [e.urn, e.aspect, e.changeType, e.actor]), [
        [urns[0], 'subTypes', 'UPSERT', A], [urns[1], 'subTypes', 'UPSERT', A], [urns[0], 'datasetProfile', 'UPSERT', 'urn:li:corpuser:bob'],
        [urns[1], 'subTypes', 'DELETE', 'urn:li:corpuser:carol']]);
      await store.close();
      let db = new Database(file);
      const stored = () => db.prepare(`SELECT l.urn, l.entity_type, l.aspect, l.actor, u.urn, t.urn, p.urn, a.urn FROM almanac_change_log l
        LEFT JOIN almanac_urns u ON u.id = l.urn_id LEFT JOIN almanac_urns t ON t.id = l.type_id LEFT JOIN almanac_urns p ON p.id = l.aspect_id
        LEFT JOIN almanac_urns a ON a.id = l.actor_id WHERE l.seq > ? ORDER BY l.seq`).raw().all(from);
      const numbered = (e: ChangeRecord) => [null, '', null, '', e.urn, e.entityType, e.aspect, e.actor];
      assert.deepEqual(stored(), before.bare.map(numbered), 'urns, types, aspects and actors stored once, named by number');
      // Back to the form before migration 19 (every entry's urn and actor as text), then upgraded again at the start.
      sqliteBeforeMigration19(db);
      db.close();
      store = await storeFor(ctx);
      assert.deepEqual({ bare: await store.changesAfter(from, 100), whole: await store.changesAfter(from, 100, true) }, before);
      // The entities table keyed by its urn alone from migration 19, every entity kept.
      assert.deepEqual(await store.listEntities({ count: 10_000 }), entities);
      await write(1);
      const after19 = await store.changesAfter(from, 100, true);
      assert.deepEqual(after19.slice(0, 4), before.whole);
      assert.deepEqual(after19.slice(4).map((e) => [e.urn, e.actor, e.valueJson]), urns.map((u) => [u, A, '{"typeNames":["N1"]}']));
      await store.close();
      db = new Database(file);
      assert.deepEqual(stored().slice(4), after19.slice(4).map(numbered), 'new entries by number');
      assert.match(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'almanac_entities'`).pluck().get() as string, /WITHOUT ROWID$/);
      assert.deepEqual(stored().slice(0, 4), after19.slice(0, 4).map((e) => [e.urn, e.entityType, e.aspect, e.actor, null, null, null, null]),
        'entries from before keep their text');
      // Trimming: every consumer past the head; the entries up to the second of ours older than the cut, and one later
      // entry too, which waits behind a newer one.
      const seqs = after19.map((e) => e.seq);
      db.prepare(`UPDATE almanac_consumers SET seq = ?`).run(seqs[seqs.length - 1]);
      db.prepare(`UPDATE almanac_change_log SET at = 0 WHERE seq <= ? OR seq = ?`).run(seqs[1], seqs[3]);
      db.close();
      store = await storeFor(ctx);
      const old = (await store.changesAfter(0, 100_000)).filter((e) => e.seq <= seqs[1]!).length;
      assert.equal(await store.trimChanges(1000, 100_000), old);
      assert.deepEqual((await store.changesAfter(0, 100)).map((e) => e.seq), seqs.slice(2));
      assert.equal(await store.trimChanges(1000, 100_000), 0);
      // The bound of a batch: one at a time.
      const db2 = new Database(file);
      db2.prepare(`UPDATE almanac_change_log SET at = 0`).run();
      db2.close();
      assert.equal(await store.trimChanges(1000, 1), 1);
      assert.deepEqual((await store.changesAfter(0, 100)).map((e) => e.seq), seqs.slice(3));
    });
  }
});
