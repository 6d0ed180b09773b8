import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Relationship, Store } from '../src/storage/types.js';
import { sqliteBeforeMigration19 } from './support/before-migration-19.js';
import { rng } from './support/random.js';
import { forEachEngine, freshSharedDatabaseUrl, storeFor } from './support/engines.js';

/**
 * The relationship index against brute force, on both engines: random edges (stamps, hand-drawn ones) written per
 * source, rewritten and emptied; then every urn's edges both ways (with types or not, a page at a time, in the order of
 * the other end then the type), the walks' unpaged reads and the count are compared with what was last written. On
 * SQLite (migration 19: urns numbered once, edges of numbers) and PostgreSQL (migration 32, the same) a database from
 * before upgrades in place, every edge kept, also when a bulk load had left the old incoming index to be built again.
 */

const TYPES = ['Consumes', 'DownstreamOf', 'OwnedBy', 'TaggedWith'];
const ds = (i: number) => `urn:li:dataset:(urn:li:dataPlatform:hive,edge_${String(i).padStart(3, '0')},PROD)`;
const tag = (i: number) => `urn:li:tag:tag_${String(i).padStart(2, '0')}`;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function randomEdges(source: string, r: () => number): Relationship[] {
  const out = new Map<string, Relationship>();
  for (let k = Math.floor(r() * 7); k > 0; k--) {
    const type = TYPES[Math.floor(r() * TYPES.length)]!;
    const destination = type === 'TaggedWith' ? tag(Math.floor(r() * 6)) : ds(Math.floor(r() * 40));
    const e: Relationship = { source, type, destination };
    if (r() < 0.3) Object.assign(e, { updatedOn: 1000 + Math.floor(r() * 1000), updatedActor: `urn:li:corpuser:u${Math.floor(r() * 3)}` });
    if (r() < 0.1) Object.assign(e, { createdOn: 5, createdActor: 'urn:li:corpuser:drawer', manual: true });
    out.set(`${type}\0${destination}`, e);
  }
  return [...out.values()];
}

/** Every urn's edges both ways, as the index gives them and as written. */
async function compare(store: Store, written: ReadonlyMap<string, Relationship[]>): Promise<void> {
  const all = [...written.values()].flat();
  const urns = [...new Set(all.flatMap((e) => [e.source, e.destination]))].sort();
  assert.equal(await store.countRelationships(), all.length);
  for (const urn of [...urns, 'urn:li:tag:never_named']) {
    for (const direction of ['OUTGOING', 'INCOMING'] as const) {
      const [self, other] = direction === 'OUTGOING' ? ['source', 'destination'] as const : ['destination', 'source'] as const;
      for (const types of [undefined, ['DownstreamOf'], ['TaggedWith', 'OwnedBy', 'NoSuchType']]) {
        const expected = all.filter((e) => e[self] === urn && (!types || types.includes(e.type)))
          .sort((a, b) => cmp(a[other], b[other]) || cmp(a.type, b.type));
        const whole = await store.relationships({ urn, direction, types, start: 0, count: 1000 });
        assert.deepEqual(whole, { total: expected.length, edges: expected }, `${urn} ${direction} ${types}`);
        const page = await store.relationships({ urn, direction, types, start: 1, count: 2 });
        assert.deepEqual(page, { total: expected.length, edges: expected.slice(1, 3) }, `${urn} ${direction} ${types}, page`);
      }
    }
  }
  // Unpaged, for several urns at once, with and without stamps.
  const some = urns.filter((_, i) => i % 3 === 0);
  for (const direction of ['OUTGOING', 'INCOMING'] as const) {
    const self = direction === 'OUTGOING' ? 'source' : 'destination';
    const key = (e: Relationship) => JSON.stringify([e.source, e.type, e.destination]);
    const expected = all.filter((e) => some.includes(e[self]) && e.type !== 'Consumes');
    const types = ['DownstreamOf', 'OwnedBy', 'TaggedWith', 'NoSuchType'];
    const withStamps = await store.relationshipsOf({ urns: some, direction, types });
    assert.deepEqual(withStamps.sort((a, b) => cmp(key(a), key(b))), expected.sort((a, b) => cmp(key(a), key(b))), direction);
    const bare = await store.relationshipsOf({ urns: some, direction, types, stamps: false });
    assert.deepEqual(bare.map(key).sort(), expected.map(key).sort(), `${direction}, no stamps`);
  }
}

forEachEngine('relationship index', (ctx) => {
  let store: Store;
  const written = new Map<string, Relationship[]>();
  let cleanup = async () => {};
  // A database in a file (the SQLite upgrade below rewrites it beside the store).
  before(async () => {
    ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl(ctx.engine));
    store = await storeFor(ctx);
  });
  after(async () => { await store?.close(); await cleanup(); });

  /** A round of writes: sources one at a time and in batches, some emptied. */
  async function writeRound(r: () => number): Promise<void> {
    for (let k = 0; k < 15; k++) {
      const source = ds(Math.floor(r() * 40));
      const edges = randomEdges(source, r);
      await store.replaceRelationships([source], edges);
      written.set(source, edges);
    }
    const sources = [...new Set(Array.from({ length: 8 }, () => ds(Math.floor(r() * 40))))];
    const batch = sources.map((s) => (r() < 0.25 ? [] : randomEdges(s, r)));
    await store.replaceRelationships(sources, batch.flat());
    sources.forEach((s, i) => written.set(s, batch[i]!));
  }

  test('edges read back as last written: both ways, by type, paged in order, unpaged for walks', async () => {
    const r = rng(19);
    for (let round = 0; round < 4; round++) {
      await writeRound(r);
      await compare(store, written);
    }
    assert.ok([...written.values()].flat().length > 40, 'edges to compare');
  });

  if (ctx.engine === 'postgres') {
    const query = async (sql: string) => {
      const c = new pg.Client({ connectionString: ctx.url });
      await c.connect();
      try {
        return (await c.query({ text: sql, rowMode: 'array' })).rows;
      } finally {
        await c.end();
      }
    };

    test('PostgreSQL: edges are stored as numbers, each urn once; a database from before migration 32 (edges as text) upgrades in place, also with its incoming index left to build', async () => {
      const all = [...written.values()].flat();
      const key = (e: { source: string; type: string; destination: string }) => `${e.source} ${e.type} ${e.destination}`;
      assert.deepEqual(await query(`SELECT DISTINCT pg_typeof(source)::text, pg_typeof(type)::text, pg_typeof(destination)::text FROM almanac_edges`),
        [['integer', 'integer', 'integer']]);
      const names = (await query(`SELECT urn FROM almanac_urns`)).map((r) => r[0] as string);
      assert.equal(new Set(names).size, names.length, 'each urn once');
      assert.deepEqual([...new Set(all.flatMap((e) => [e.source, e.type, e.destination]))].filter((u) => !names.includes(u)), [],
        'every end and type numbered');
      const rows = async () => (await query(`SELECT source, type, destination, created_on, created_actor, updated_on, updated_actor, manual
        FROM almanac_relationships ORDER BY 1, 2, 3`)).map((r) => JSON.stringify(r));
      const before = await rows();
      assert.deepEqual(before.length, all.length);
      await store.close();
      // The edges as migration 6 left them (text, keyed by source, indexed by destination), and a bulk load interrupted
      // with that index dropped, its definition kept to build again.
      await query(`CREATE TABLE old_edges (source TEXT NOT NULL, type TEXT NOT NULL, destination TEXT NOT NULL, created_on BIGINT,
          created_actor TEXT, updated_on BIGINT, updated_actor TEXT, manual INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (source, type, destination));
        INSERT INTO old_edges SELECT * FROM almanac_relationships;
        DROP VIEW almanac_relationships; DROP TABLE almanac_edges; DROP TABLE almanac_urns;
        ALTER TABLE old_edges RENAME TO almanac_relationships; ALTER INDEX old_edges_pkey RENAME TO almanac_relationships_pkey;
        INSERT INTO almanac_settings (key, value) VALUES ('deferred-index:almanac_relationships_incoming',
          'CREATE INDEX almanac_relationships_incoming ON public.almanac_relationships USING btree (destination, type, source)');
        DELETE FROM almanac_migrations WHERE version = 32`);
      assert.deepEqual(await rows(), before);
      store = await storeFor(ctx);
      await compare(store, written);
      assert.deepEqual(await rows(), before);
      assert.deepEqual(await query(`SELECT c.relname, c.relkind::text, t.relname FROM pg_class c LEFT JOIN pg_index i ON i.indexrelid = c.oid
          LEFT JOIN pg_class t ON t.oid = i.indrelid WHERE c.relname IN ('almanac_relationships', 'almanac_relationships_incoming') ORDER BY 1`),
        [['almanac_relationships', 'v', null], ['almanac_relationships_incoming', 'i', 'almanac_edges']]);
      assert.deepEqual(await query(`SELECT key FROM almanac_settings WHERE key LIKE 'deferred-index:%'`), []);
      // And it goes on being written as a new database is; an entity deleted takes its outgoing edges with it.
      await writeRound(rng(92));
      await compare(store, written);
      const source = [...written.keys()].find((s) => written.get(s)!.length > 0)!;
      await store.writeAspects([{ urn: source, entityType: 'dataset', aspect: 'status', value: { removed: false }, actor: 'urn:li:corpuser:a' }], 20);
      await store.deleteEntity(source, 'urn:li:corpuser:a');
      written.set(source, []);
      await compare(store, written);
    });
  }

  if (ctx.engine === 'sqlite') {
    test('SQLite: edges are stored as numbers, each urn once', () => {
      const db = new Database(ctx.url.slice('sqlite:'.length), { readonly: true });
      try {
        const all = [...written.values()].flat();
        assert.deepEqual(db.prepare(`SELECT DISTINCT typeof(source), typeof(type), typeof(destination) FROM almanac_edges`).raw().all(),
          [['integer', 'integer', 'integer']]);
        const names = db.prepare(`SELECT urn FROM almanac_urns`).pluck().all() as string[];
        assert.equal(new Set(names).size, names.length, 'each urn once');
        const named = new Set(all.flatMap((e) => [e.source, e.type, e.destination]));
        assert.deepEqual([...named].filter((u) => !names.includes(u)), [], 'every end and type numbered');
        // The view of the old name reads as the table did.
        const key = (e: { source: string; type: string; destination: string }) => `${e.source} ${e.type} ${e.destination}`;
        assert.deepEqual((db.prepare(`SELECT source, type, destination FROM almanac_relationships`).all() as Relationship[]).map(key).sort(),
          all.map(key).sort());
      } finally {
        db.close();
      }
    });

    test('SQLite: a database from before migration 19 (edges as text) upgrades in place, every edge kept, also with its incoming index left to build', async () => {
      await store.close();
      const file = ctx.url.slice('sqlite:'.length);
      const db = new Database(file);
      // The edges as migration 13 left them (text, keyed by source, indexed by destination), and a bulk load interrupted
      // with that index dropped, its definition kept to build again.
      sqliteBeforeMigration19(db);
      db.exec(`DROP INDEX almanac_relationships_incoming;
        INSERT INTO almanac_settings (key, value) VALUES ('deferred-index:almanac_relationships_incoming',
          'CREATE INDEX almanac_relationships_incoming ON almanac_relationships (destination, type, source)')`);
      const all = [...written.values()].flat();
      assert.equal(db.prepare(`SELECT COUNT(*) FROM almanac_relationships`).pluck().get(), all.length);
      db.close();
      store = await storeFor(ctx);
      await compare(store, written);
      const check = new Database(file, { readonly: true });
      try {
        assert.deepEqual(check.prepare(`SELECT type, tbl_name FROM sqlite_master WHERE name IN ('almanac_relationships', 'almanac_relationships_incoming')
          ORDER BY name`).raw().all(), [['view', 'almanac_relationships'], ['index', 'almanac_edges']]);
        assert.deepEqual(check.prepare(`SELECT key FROM almanac_settings WHERE key LIKE 'deferred-index:%'`).pluck().all(), []);
        assert.equal(check.prepare(`SELECT COUNT(*) FROM almanac_edges`).pluck().get(), all.length);
      } finally {
        check.close();
      }
      // And it goes on being written as a new database is.
      const r = rng(91);
      await writeRound(r);
      await compare(store, written);
    });
  }
});
