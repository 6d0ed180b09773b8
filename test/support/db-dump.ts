import Database from 'better-sqlite3';
import pg from 'pg';

export interface DatabaseDump {
  /**
   * Everything the database holds, as one comparable string: its tables and indexes as defined, then every row of
   * every table (aspects with their history, time-series rows, tokens, search documents, relationships, settings,
   * migrations, …), tables by name, rows sorted.
   */
  dump(): Promise<string>;
  close(): Promise<void>;
}

const rowText = (row: unknown) => JSON.stringify(row, (_k, v) =>
  typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v);

/**
 * Reads a database over a connection of its own, so that what it sees is what the store committed, whatever the
 * store's code does. A SQLite database must be a file (`sqlite:<path>`): an in-memory one has no second connection.
 */
export async function openDump(databaseUrl: string): Promise<DatabaseDump> {
  if (databaseUrl.startsWith('sqlite:')) {
    const file = databaseUrl.slice('sqlite:'.length);
    if (file === ':memory:') throw new Error('openDump needs a SQLite file, not sqlite::memory:');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    return {
      async dump() {
        const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string | null }[];
        // A full-text table keeps its rows in shadow tables named after it; its own rows are the ones that count.
        const virtual = tables.filter((t) => /^CREATE VIRTUAL TABLE/i.test(t.sql ?? '')).map((t) => t.name);
        const names = tables.map((t) => t.name).filter((n) => !n.startsWith('sqlite_') && !virtual.some((v) => n.startsWith(`${v}_`)));
        const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").raw().all();
        return JSON.stringify([schema, names.map((n) => [n, db.prepare(`SELECT * FROM "${n}"`).raw().all().map(rowText).sort()])]);
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {}); // the suite's database may be dropped (with its connections) before close()
  await client.connect();
  return {
    async dump() {
      // Two round trips: the table names, then the schema and every table's rows (as text, sorted, one value per
      // table) in one statement list.
      const tables = (await client.query(`SELECT table_name FROM information_schema.tables
        WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`)).rows.map((r) => r.table_name as string);
      const results = await client.query(`
        SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
          WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position;
        SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname;
        ${tables.map((n) => `SELECT '${n}' AS name, coalesce(string_agg(x::text, E'\\n' ORDER BY x::text), '') AS rows FROM "${n}" x`).join(' UNION ALL ')}
      `) as unknown as pg.QueryResult[];
      return JSON.stringify(results.map((r) => r.rows));
    },
    async close() {
      await client.end().catch(() => {});
    },
  };
}

/** A query's rows as arrays, over a connection of its own (either engine): what the store committed. */
export async function queryRows(databaseUrl: string, sql: string): Promise<unknown[][]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).raw().all() as unknown[][];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query({ text: sql, rowMode: 'array' })).rows as unknown[][];
  } finally {
    await c.end();
  }
}
