import type pg from 'pg';
import { DEFERRED_INDEX_KEY, deferredIndexes } from '../deferred-indexes.js';
import { RELATIONSHIP_TABLE, SEARCH_DOCS, SEARCH_TEXT, SEARCH_VALUES, SEARCH_WORDS, SETTINGS_TABLE } from '../schema.js';
import { NO_TIME_LIMIT, timed, type PostgresConnection } from './connection.js';

/** The indexes a bulk load drops while it writes and builds again at its end (src/storage/deferred-indexes.ts), on PostgreSQL. */

/** Drops them, each one's definition kept in the settings table until it is built again. */
export async function dropDeferredIndexes(db: PostgresConnection): Promise<void> {
  await db.tx(async (c) => {
    const { rows } = await c.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1)`,
      [deferredIndexes('postgres')]);
    for (const r of rows) {
      await c.query(`INSERT INTO ${SETTINGS_TABLE} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING`, [`${DEFERRED_INDEX_KEY}${r.indexname}`, r.indexdef]);
      await c.query(`DROP INDEX ${r.indexname}`);
    }
  });
}

/** The derived tables' indexes that a bulk load updates in place (their keys), rebuilt compact at its end. */
const REBUILT_AFTER_LOAD = [`${SEARCH_VALUES}_pkey`, `${SEARCH_VALUES}_doc`, `${SEARCH_WORDS}_pkey`, `${RELATIONSHIP_TABLE}_pkey`];

/** Creates the indexes a bulk load dropped (deferIndexes), if any: after its catch-up, or at the next start after a crash. */
export async function restoreIndexes(c: pg.PoolClient): Promise<void> {
  const { rows } = await c.query(`SELECT key, value FROM ${SETTINGS_TABLE} WHERE starts_with(key, $1)`, [DEFERRED_INDEX_KEY]);
  if (rows.length === 0) return;
  // Building an index sorts in memory up to maintenance_work_mem (64 MB by default), then on disk.
  await c.query(`SET LOCAL maintenance_work_mem = '256MB'`);
  for (const r of rows) {
    await c.query(timed(String(r.value).replace(/^CREATE INDEX /, 'CREATE INDEX IF NOT EXISTS '), NO_TIME_LIMIT));
    await c.query(`DELETE FROM ${SETTINGS_TABLE} WHERE key = $1`, [r.key]);
  }
  // The indexes kept during the load took its rows in random order and split their pages half full as they filled:
  // built again once, sorted, they take 30–40 % less (at 5,000 datasets 5.8 kB a dataset less in all). Reads meanwhile
  // wait for each index (seconds), as they wait for the ones just created.
  for (const index of REBUILT_AFTER_LOAD) await c.query(timed(`REINDEX INDEX ${index}`, NO_TIME_LIMIT));
  // The words too: without their statistics the planner guessed 9,530 rows for every prefix range at 20,000 bench
  // datasets, whether it held 1 or 35,074, and planned by that.
  await c.query(`ANALYZE ${SEARCH_DOCS}, ${SEARCH_TEXT}, ${SEARCH_WORDS}, ${RELATIONSHIP_TABLE}`);
}

/** The derived tables whose reads are index-only scans: words (search), filter values (facets), edges (lineage). */
const VACUUMED_AFTER_LOAD = [SEARCH_WORDS, SEARCH_VALUES, RELATIONSHIP_TABLE];

/**
 * After a bulk load's catch-up: VACUUM marks the freshly written pages all-visible, which index-only scans need. Until
 * autovacuum came round to them, each index-only scan of a word range also read the table's pages: a search for two
 * words found in most documents took 370 ms at 20,000 bench datasets, 115–150 ms once vacuumed. Outside any
 * transaction (VACUUM cannot run in one).
 */
export async function vacuumAfterLoad(db: PostgresConnection): Promise<void> {
  await db.pool.query(timed(`VACUUM ${VACUUMED_AFTER_LOAD.join(', ')}`, NO_TIME_LIMIT));
}
