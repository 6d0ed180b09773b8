import { addLatest } from './aspect-updates.js';
import { type AspectRow } from './schema.js';
import { readJson } from './stored-json.js';
import type { AspectRecord } from './interfaces/aspects.js';
import type { SystemMetadata } from './interfaces/system-metadata.js';
import * as sqliteReads from './sqlite/aspect-reads.js';
import * as postgresReads from './postgres/aspect-reads.js';
import type { LatestAspects, Store } from './types.js';

/**
 * The reads an index's computation makes (which entities exist, their latest aspects), over a connection of its own
 * to the database a store holds: what a worker thread computing a bulk load's index updates reads through, so that
 * reading the values back, decompressing and parsing them happens on another core than the writes'. Values are
 * parsed fresh (not shared). Read only.
 */
export type IndexReads = Pick<Store, 'existing' | 'getLatest'> & { close(): Promise<void> };

/** Opens reads of the database a DATABASE_URL names (`sqlite:<file>` or `postgres://…`; not an in-memory one). */
export async function openIndexReads(databaseUrl: string): Promise<IndexReads> {
  if (databaseUrl.startsWith('sqlite:')) {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const stmts = new Map<string, import('better-sqlite3').Statement>();
    const conn = {
      stmt(sql: string) {
        let s = stmts.get(sql);
        if (!s) stmts.set(sql, (s = db.prepare(sql)));
        return s;
      },
    };
    return {
      async existing(urns) {
        return sqliteReads.existing(conn, urns);
      },
      async getLatest(urns, aspects) {
        return records(sqliteReads.latestRows(conn, urns, aspects));
      },
      async close() {
        db.close();
      },
    };
  }
  const pg = (await import('pg')).default;
  // As the store reads them (src/storage/postgres.ts): bigint columns as numbers.
  pg.types.setTypeParser(20, (v) => Number(v));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const conn = { query: (text: string, params?: unknown[]) => client.query(text, params) };
  return {
    async existing(urns) {
      return postgresReads.existing(conn, urns);
    },
    async getLatest(urns, aspects) {
      return records(await postgresReads.latestRows(conn, urns, aspects));
    },
    async close() {
      await client.end();
    },
  };
}

/**
 * Rows as records, their values parsed fresh. Each value is frozen at its top (not deeply: that would walk it once
 * more) so that its schema check is done once a step rather than at each of the three places that ask
 * (src/entities/schema.ts fitsSchema keeps the answer for a frozen value); the computations never change a value
 * they read (in the main thread they read deep-frozen ones).
 */
function records(rows: readonly AspectRow[]): LatestAspects {
  const out: LatestAspects = new Map();
  for (const row of rows) {
    const value: unknown = JSON.parse(readJson(row.metadata));
    if (typeof value === 'object' && value !== null) Object.freeze(value);
    addLatest(out, new IndexedRecord(row, value));
  }
  return out;
}

/**
 * A row as a record whose system metadata is parsed only if read: the index computations read values alone (parsing
 * every aspect's system metadata was a few per cent of a bulk load's index worker).
 */
class IndexedRecord implements AspectRecord {
  readonly urn: string;
  readonly aspect: string;
  readonly version: number;
  readonly createdOn: number;
  readonly createdBy: string;
  readonly revision: number;
  private parsed: SystemMetadata | null | undefined;

  constructor(private readonly row: AspectRow, readonly value: unknown) {
    this.urn = row.urn;
    this.aspect = row.aspect;
    this.version = row.version;
    this.createdOn = row.createdon;
    this.createdBy = row.createdby;
    this.revision = Number(row.revision);
  }

  get systemMetadata(): SystemMetadata | null {
    if (this.parsed === undefined) this.parsed = this.row.systemmetadata ? JSON.parse(this.row.systemmetadata) as SystemMetadata : null;
    return this.parsed;
  }
}
