import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../src/storage/index.js';
import type { Store } from '../src/storage/types.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';

/**
 * Hot statements are prepared once per connection (PostgreSQL: named statements, src/storage/postgres/connection.ts
 * `prepared`). A table that changes shape under them — a migration run by another server while this one is up —
 * must not break reads or writes: PostgreSQL refuses a prepared statement whose result columns changed, and the
 * store then prepares its statements anew. SQLite re-prepares by itself; both engines are held to the same answers.
 */

const A = 'urn:li:corpuser:prepared';
const ds = (n: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,prepared.${n},PROD)`;

/** getLatest's answer as plain data (times left out: each write has its own). */
async function latest(store: Store, urns: string[]): Promise<unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [urn, aspects] of await store.getLatest(urns)) {
    out[urn] = {};
    for (const [aspect, r] of aspects) out[urn][aspect] = { version: r.version, value: r.value, createdBy: r.createdBy, revision: r.revision };
  }
  return out;
}

/** A column added to the aspect table behind the store's back, as another server's migration would. */
async function addColumn(url: string): Promise<void> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length));
    try { db.exec('ALTER TABLE metadata_aspect_v2 ADD COLUMN prepared_test_extra TEXT'); } finally { db.close(); }
    return;
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { await c.query('ALTER TABLE metadata_aspect_v2 ADD COLUMN prepared_test_extra TEXT'); } finally { await c.end(); }
}

forEachEngine('prepared statements', (ctx) => {
  describe('a table changing shape under them', () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => { for (const c of cleanups) await c(); });

    test('reads and writes answer as before the change, and the writes are stored', async () => {
      const db = await freshSharedDatabaseUrl(ctx.engine);
      cleanups.push(db.cleanup);
      const store = await openStore(db.url);
      try {
        const urns = [ds('one'), ds('two')];
        await store.writeAspects(urns.map((urn, i) => ({ urn, entityType: 'dataset', aspect: 'status', value: { removed: i === 1 }, actor: A })), 20);
        const before = {
          [ds('one')]: { status: { version: 0, value: { removed: false }, createdBy: A, revision: 1 } },
          [ds('two')]: { status: { version: 0, value: { removed: true }, createdBy: A, revision: 1 } },
        };
        // Past PostgreSQL's five custom plans, so that the statements run on a cached generic plan.
        for (let i = 0; i < 7; i++) {
          assert.deepEqual(await latest(store, urns), before, `read ${i + 1} before the change`);
          assert.deepEqual([...await store.existing([...urns, ds('absent')])].sort(), urns, `entities read ${i + 1} before the change`);
        }

        await addColumn(db.url);

        assert.deepEqual(await latest(store, urns), before, 'read after the change');
        assert.deepEqual([...await store.existing([...urns, ds('absent')])].sort(), urns, 'entities read after the change');
        const written = await store.writeAspects([{ urn: ds('one'), entityType: 'dataset', aspect: 'status', value: { removed: true }, actor: A }], 20);
        assert.deepEqual(written, [{ urn: ds('one'), aspect: 'status', changed: true }]);
        assert.deepEqual(await latest(store, urns), {
          ...before, [ds('one')]: { status: { version: 0, value: { removed: true }, createdBy: A, revision: 2 } },
        }, 'the write after the change is read back');
        assert.deepEqual((await store.listVersions(ds('one'), 'status')).map((r) => ({ version: r.version, value: r.value })),
          [{ version: 0, value: { removed: true } }, { version: 1, value: { removed: false } }], 'the replaced value kept as history');
      } finally {
        await store.close();
      }
    });
  });
});
