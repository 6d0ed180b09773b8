import { MIGRATIONS_TABLE, migrations, timeseriesTableStatements } from '../schema.js';
import { restoreIndexes } from './bulk-load.js';
import { NO_TIME_LIMIT, timed, type PostgresConnection } from './connection.js';

/** Serialises migrations of several servers starting at once on one database. */
const MIGRATION_LOCK = 727_100_001;

/**
 * Applies the migrations not applied yet, makes the time-series tables the registry names, and builds the indexes an
 * interrupted bulk load left dropped: in one transaction, under a lock that several servers starting at once share.
 */
export async function migrate(db: PostgresConnection): Promise<void> {
  await db.tx(async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await c.query('SET LOCAL statement_timeout = 0');
    await c.query(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, applied_on BIGINT NOT NULL)`);
    const done = new Set((await c.query(`SELECT version FROM ${MIGRATIONS_TABLE}`)).rows.map((r) => r.version as number));
    for (const m of migrations('postgres')) {
      if (done.has(m.version)) continue;
      // A migration may rewrite a large table: no time limit.
      for (const s of m.statements) await c.query(timed(s, NO_TIME_LIMIT));
      await c.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, applied_on) VALUES ($1, $2)`, [m.version, Date.now()]);
    }
    for (const s of timeseriesTableStatements('postgres')) await c.query(s);
    await restoreIndexes(c);
  });
}
