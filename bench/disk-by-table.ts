import Database from 'better-sqlite3';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { postgresEngine, sqliteEngine } from './harness.js';
import { batches, generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';

/**
 * `node --import tsx bench/disk-by-table.ts <datasets> [sqlite|postgres]`: a bulk load of generated datasets (the scale
 * benchmark's, indexes caught up at its end), then each table's size on disk with its indexes, in kB a dataset
 * (SQLite: dbstat's pages, per table and per index; PostgreSQL: pg_total_relation_size, TOAST and indexes included, after
 * a VACUUM; first each table's heap, TOAST and indexes apart, each index, and pg_database_size).
 */
const n = Number(process.argv[2] ?? 5000);
const engine = process.argv[3] === 'postgres' ? await postgresEngine() : await sqliteEngine();
if (!engine) throw new Error('PostgreSQL unreachable');
const kb = (bytes: number) => +(bytes / n / 1000).toFixed(3);
try {
  const catalog = await openCatalog({ ...loadConfig({ ...process.env, DATABASE_URL: engine.url, LOG_LEVEL: 'silent' }) });
  try {
    await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
    for (const batch of batches(generatedDatasets({ datasets: n }), 2000)) {
      await catalog.entities.ingest(batch.map(changeFromProposal), systemActor(), { indexLater: true });
    }
    await catalog.entities.committed({ bulk: true });
  } finally {
    await catalog.close();
  }
  let sizes: { name: string; bytes: number }[];
  if (engine.name === 'sqlite') {
    const db = new Database(engine.url.slice('sqlite:'.length), { readonly: true });
    try {
      sizes = db.prepare(`SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name`).all() as { name: string; bytes: number }[];
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: engine.url });
    await client.connect();
    try {
      await client.query('VACUUM');
      sizes = (await client.query(`SELECT c.relname AS name, pg_total_relation_size(c.oid)::float8 AS bytes FROM pg_class c
        JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.relkind = 'r' AND s.nspname = current_schema()`)).rows;
      // Each table's heap, TOAST and indexes apart, each index, and the database's whole size (the catalog's fixed part
      // included: an empty catalog's database is about 9.4 MB).
      const parts = (await client.query(`SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS heap,
          COALESCE(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), 0)::float8 AS toast, pg_indexes_size(c.oid)::float8 AS indexes
        FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.relkind = 'r' AND s.nspname = current_schema()
        ORDER BY pg_total_relation_size(c.oid) DESC`)).rows;
      const indexes = (await client.query(`SELECT c.relname AS name, pg_relation_size(c.oid)::float8 AS bytes FROM pg_class c
        JOIN pg_namespace s ON s.oid = c.relnamespace WHERE c.relkind = 'i' AND s.nspname = current_schema() ORDER BY 2 DESC`)).rows;
      const database = (await client.query(`SELECT pg_database_size(current_database())::float8 AS bytes`)).rows[0].bytes as number;
      console.log(JSON.stringify({ databaseKbPerDataset: kb(database),
        parts: Object.fromEntries(parts.filter((r) => kb(r.heap + r.toast + r.indexes) >= 0.01).map((r) => [r.name, { heap: kb(r.heap), toast: kb(r.toast), indexes: kb(r.indexes) }])),
        indexes: Object.fromEntries(indexes.filter((r) => kb(r.bytes) >= 0.01).map((r) => [r.name, kb(r.bytes)])) }, null, 1));
    } finally {
      await client.end();
    }
  }
  sizes.sort((a, b) => b.bytes - a.bytes);
  const total = sizes.reduce((s, r) => s + Number(r.bytes), 0);
  console.log(JSON.stringify({ engine: engine.name, datasets: n, kBPerDataset: kb(total),
    tables: Object.fromEntries(sizes.filter((r) => kb(r.bytes) >= 0.01).map((r) => [r.name, kb(r.bytes)])) }, null, 1));
} finally {
  await engine.cleanup();
}
