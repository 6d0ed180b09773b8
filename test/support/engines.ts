import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/storage/index.js';
import type { Store } from '../../src/storage/types.js';

/**
 * Runs a suite against every storage engine: SQLite (a fresh in-memory or temp database) and PostgreSQL (a
 * throwaway database created for the suite and dropped after). Without a reachable PostgreSQL the PostgreSQL
 * half is skipped loudly — except under CI=true, where it fails.
 */
export const PG_ADMIN_URL = process.env.ALMANAC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export type Engine = 'sqlite' | 'postgres';

let pgReachable: Promise<string | null> | undefined;
/** Null when reachable, else why not. */
function checkPostgres(): Promise<string | null> {
  pgReachable ??= (async () => {
    const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return null;
    } catch (e) {
      return (e as Error).message || String(e);
    } finally {
      await c.end().catch(() => {});
    }
  })();
  return pgReachable;
}

/** Creates an empty database and returns its URL and a function that drops it. */
export async function throwawayPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `almanac_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(PG_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: PG_ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

/** A DATABASE_URL for a fresh database of the engine, and its clean-up. */
export async function freshDatabaseUrl(engine: Engine): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (engine === 'sqlite') return { url: 'sqlite::memory:', cleanup: async () => {} };
  const { url, drop } = await throwawayPostgres();
  return { url, cleanup: drop };
}

export interface EngineContext {
  engine: Engine;
  /** The DATABASE_URL of this suite's fresh database. */
  url: string;
}

/**
 * `forEachEngine('store', (ctx) => { test(...) })` declares the suite twice. `ctx.url` is set in `before`.
 */
export function forEachEngine(name: string, body: (ctx: EngineContext) => void) {
  for (const engine of ['sqlite', 'postgres'] as const) {
    describe(`${name} [${engine}]`, async () => {
      const ctx: EngineContext = { engine, url: '' };
      let cleanup = async () => {};
      if (engine === 'postgres') {
        const why = await checkPostgres();
        if (why) {
          if (IN_CI) throw new Error(`PostgreSQL is required in CI but ${PG_ADMIN_URL} is unreachable: ${why}`);
          console.warn(`\n!!! SKIPPING PostgreSQL suite "${name}": ${PG_ADMIN_URL} unreachable (${why}) !!!\n`);
          return;
        }
      }
      before(async () => {
        const db = await freshDatabaseUrl(engine);
        ctx.url = db.url;
        cleanup = db.cleanup;
      });
      after(async () => cleanup());
      body(ctx);
    });
  }
}

/** Opens a migrated store on the suite's database. */
export function storeFor(ctx: EngineContext): Promise<Store> {
  return openStore(ctx.url);
}
