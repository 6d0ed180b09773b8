import type pg from 'pg';
import { DEFERRED_INDEX_KEY, deferredIndexes } from '../deferred-indexes.js';
import { ASPECT_TABLE, EDGE_TABLE, ENTITY_TABLE, SEARCH_DOCS, SEARCH_TERM_DOCS, SEARCH_TERMS, SEARCH_TEXT, SEARCH_WORDS, SETTINGS_TABLE, URN_TABLE } from '../schema.js';
import { NO_TIME_LIMIT, timed, type PostgresConnection } from './connection.js';

/** The indexes a bulk load drops while it writes and builds again at its end (src/storage/deferred-indexes.ts), on PostgreSQL. */

/**
 * The primary key of the text's words goes too: a catch-up inserts their rows in document order, which is random in
 * the key's order (word), and at 5,000 generated datasets those insertions (with the filter values', then keyed the
 * same way) took about a third of the index phase's database time. The key is added again at the end (a sort, then
 * one pass), as the indexes are. Meanwhile a rewritten document's words are found by a stand-in index on the document
 * (`_bulk_doc`) made for the catch-up and dropped at its end — appended to in document order, it costs little. No
 * statement relies on the key for anything else: the triggers' inserts of words conflict with nothing (a document's
 * words are distinct, and new to it). (The filter values' pairs are keyed by document since migration 30: appended to
 * in document order; their index by term is deferred with the indexes.)
 */
const DEFERRED_KEYS: readonly { table: string; standIn?: string }[] = [{ table: SEARCH_WORDS, standIn: `${SEARCH_WORDS}_bulk_doc` }];

/** Drops them, each one's definition (or what undoes it: a stand-in's DROP) kept in the settings table until it is built again. */
export async function dropDeferredIndexes(db: PostgresConnection): Promise<void> {
  await db.tx(async (c) => {
    const keep = (name: string, sql: string) => c.query(`INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`,
      [`${DEFERRED_INDEX_KEY}${name}`, sql]);
    const { rows } = await c.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)`,
      [deferredIndexes('postgres')]);
    for (const r of rows) {
      await keep(r.indexname as string, r.indexdef as string);
      await c.query(`DROP INDEX ${r.indexname}`);
    }
    for (const k of DEFERRED_KEYS) {
      const key = (await c.query(`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'`,
        [k.table])).rows[0] as { conname: string; def: string } | undefined;
      if (!key) continue;
      if (k.standIn) {
        await c.query(timed(`CREATE INDEX IF NOT EXISTS ${k.standIn} ON ${k.table} (doc_id)`, NO_TIME_LIMIT));
        await keep(k.standIn, `DROP INDEX IF EXISTS ${k.standIn}`);
      }
      await keep(key.conname, `ALTER TABLE ${k.table} ADD CONSTRAINT ${key.conname} ${key.def}`);
      await c.query(`ALTER TABLE ${k.table} DROP CONSTRAINT ${key.conname}`);
    }
  });
}

/** The derived tables' indexes that a bulk load updates in place (their keys), rebuilt compact at its end unless it built them. */
const REBUILT_AFTER_LOAD = [`${SEARCH_TERM_DOCS}_pkey`, `${SEARCH_WORDS}_pkey`, `${EDGE_TABLE}_pkey`];

/** Creates the indexes a bulk load dropped (deferIndexes), if any: after its catch-up, or at the next start after a crash. */
export async function restoreIndexes(c: pg.PoolClient): Promise<void> {
  await dropUnfinishedRebuilds(c);
  const { rows } = await c.query(`SELECT key, value FROM ${SETTINGS_TABLE} WHERE starts_with(key, $1)`, [DEFERRED_INDEX_KEY]);
  if (rows.length === 0) return;
  // Building an index sorts in memory up to maintenance_work_mem (64 MB by default), then on disk.
  await c.query(`SET LOCAL maintenance_work_mem = '256MB'`);
  const built = new Set<string>();
  for (const r of rows) {
    await c.query(timed(String(r.value).replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '), NO_TIME_LIMIT));
    await c.query(`DELETE FROM ${SETTINGS_TABLE} WHERE key = $1`, [r.key]);
    built.add(String(r.key).slice(DEFERRED_INDEX_KEY.length));
  }
  // The indexes kept during the load took its rows in random order and split their pages half full as they filled:
  // built again once, sorted, they take 30–40 % less (at 5,000 datasets 5.8 kB a dataset less in all). Reads meanwhile
  // wait for each index (seconds), as they wait for the ones just created.
  for (const index of REBUILT_AFTER_LOAD) if (!built.has(index)) await c.query(timed(`REINDEX INDEX ${index}`, NO_TIME_LIMIT));
  // The words too: without their statistics the planner guessed 9,530 rows for every prefix range at 20,000 bench
  // datasets, whether it held 1 or 35,074, and planned by that.
  await c.query(`ANALYZE ${SEARCH_DOCS}, ${SEARCH_TEXT}, ${SEARCH_WORDS}, ${SEARCH_TERMS}, ${SEARCH_TERM_DOCS}, ${URN_TABLE}, ${EDGE_TABLE}`);
}

/** The derived tables whose reads are index-only scans: words (search), filter values (facets), edges (lineage). */
const VACUUMED_AFTER_LOAD = [SEARCH_WORDS, SEARCH_TERM_DOCS, EDGE_TABLE];

/**
 * After a bulk load's catch-up: VACUUM marks the freshly written pages all-visible, which index-only scans need. Until
 * autovacuum came round to them, each index-only scan of a word range also read the table's pages: a search for two
 * words found in most documents took 370 ms at 20,000 bench datasets, 115–150 ms once vacuumed. Outside any
 * transaction (VACUUM cannot run in one).
 */
export async function vacuumAfterLoad(db: PostgresConnection): Promise<void> {
  await db.pool.query(timed(`VACUUM ${VACUUMED_AFTER_LOAD.join(', ')}`, NO_TIME_LIMIT));
}

/**
 * The keys of the tables a bulk load writes in its input's order rather than in key order (the aspects, the entities,
 * the documents' urns), rebuilt once it is done: filled at random, their pages were split half full (the aspects' key
 * took 2.09 kB a dataset after a bulk load of 20,000 generated datasets, 1.25 rebuilt; the three others 0.54 → 0.32).
 * Concurrently (REINDEX ... CONCURRENTLY, outside any transaction): reads and writes go on meanwhile, the old index
 * serving them until the new one replaces it.
 */
const COMPACTED_AFTER_LOAD = [`${ASPECT_TABLE}_pkey`, `${ENTITY_TABLE}_pkey`, `${ENTITY_TABLE}_type`, `${SEARCH_DOCS}_urn_key`];

/**
 * After a bulk load's catch-up and vacuum. Only space is at stake: a rebuild that fails (a server stopped midway, or
 * another starting and dropping the unfinished copy) leaves the index as it was, warned about; the unfinished copy it
 * leaves is dropped at the next start (dropUnfinishedRebuilds).
 */
export async function compactAfterLoad(db: PostgresConnection): Promise<void> {
  for (const index of COMPACTED_AFTER_LOAD) {
    try {
      await db.pool.query(timed(`REINDEX INDEX CONCURRENTLY ${index}`, NO_TIME_LIMIT));
    } catch (e) {
      process.emitWarning(`rebuilding ${index} after a bulk load failed (it stays as it was): ${String((e as Error).message ?? e)}`);
    }
  }
}

/** The copies a concurrent rebuild stopped midway leaves (invalid, named `<index>_ccnew` or `_ccold`), dropped. */
async function dropUnfinishedRebuilds(c: pg.PoolClient): Promise<void> {
  const { rows } = await c.query(`SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND NOT i.indisvalid AND c.relname = ANY($1)`,
  [COMPACTED_AFTER_LOAD.flatMap((x) => ['', '1', '2', '3'].flatMap((k) => [`${x}_ccnew${k}`, `${x}_ccold${k}`]))]);
  for (const r of rows) await c.query(`DROP INDEX IF EXISTS ${r.relname as string}`);
}
