import { addLatest } from './aspect-updates.js';
import { ASPECT_TABLE, ENTITY_TABLE, toRecord, type AspectRow } from './schema.js';
import type { LatestAspects, Store } from './types.js';

/**
 * The reads an index's computation makes (which entities exist, their latest aspects), over a connection of its own
 * to the database a store holds: what a worker thread computing a bulk load's index updates reads through, so that
 * reading the values back, decompressing and parsing them happens on another core than the writes'. Values are
 * parsed fresh (not shared, so not frozen). Read only.
 */
export type IndexReads = Pick<Store, 'existing' | 'getLatest'> & { close(): Promise<void> };

/** SQLite's limit on bound parameters: IN lists are chunked well below it. */
const CHUNK = 500;

/** Opens reads of the database a DATABASE_URL names (`sqlite:<file>` or `postgres://…`; not an in-memory one). */
export async function openIndexReads(databaseUrl: string): Promise<IndexReads> {
  if (databaseUrl.startsWith('sqlite:')) {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(databaseUrl.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const stmts = new Map<string, import('better-sqlite3').Statement<unknown[]>>();
    const stmt = (sql: string) => {
      let s = stmts.get(sql);
      if (!s) stmts.set(sql, (s = db.prepare(sql)));
      return s;
    };
    const inList = (n: number) => Array(n).fill('?').join(',');
    return {
      async existing(urns) {
        const out = new Set<string>();
        for (let i = 0; i < urns.length; i += CHUNK) {
          const chunk = urns.slice(i, i + CHUNK);
          for (const u of stmt(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn IN (${inList(chunk.length)})`).pluck().all(...chunk) as string[]) out.add(u);
        }
        return out;
      },
      async getLatest(urns, aspects) {
        const out: LatestAspects = new Map();
        if (aspects?.length === 0) return out;
        for (let i = 0; i < urns.length; i += CHUNK) {
          const chunk = urns.slice(i, i + CHUNK);
          const sql = `SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn IN (${inList(chunk.length)})`
            + (aspects ? ` AND aspect IN (${inList(aspects.length)})` : '');
          const params: unknown[] = [...chunk, ...(aspects ?? [])];
          for (const row of stmt(sql).all(...params) as AspectRow[]) addLatest(out, toRecord(row));
        }
        return out;
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
  return {
    async existing(urns) {
      const { rows } = await client.query(`SELECT urn FROM ${ENTITY_TABLE} WHERE urn = ANY($1)`, [urns]);
      return new Set(rows.map((r: { urn: string }) => r.urn));
    },
    async getLatest(urns, aspects) {
      const out: LatestAspects = new Map();
      if (urns.length === 0 || aspects?.length === 0) return out;
      const { rows } = aspects
        ? await client.query(`SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn = ANY($1) AND aspect = ANY($2)`, [urns, aspects])
        : await client.query(`SELECT * FROM ${ASPECT_TABLE} WHERE version = 0 AND urn = ANY($1)`, [urns]);
      for (const row of rows as AspectRow[]) addLatest(out, toRecord(row));
      return out;
    },
    async close() {
      await client.end();
    },
  };
}
