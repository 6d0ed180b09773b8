import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/storage/index.js';
import type { Store } from '../../src/storage/types.js';
import { IN_CI } from './run-env.js';

/**
 * Runs a suite against every storage engine: SQLite (a fresh in-memory or temp database) and PostgreSQL (a
 * throwaway database created for the suite and dropped after). Without a reachable PostgreSQL the PostgreSQL
 * half is skipped loudly — one skipped test per suite, counted in the summary — except in CI (see run-env.ts),
 * where it fails.
 */
export const PG_ADMIN_URL = process.env.ALMANAC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export type Engine = 'sqlite' | 'postgres';

let pgReachable: Promise<string | null> | undefined;
/** Null when reachable, else why not. */
function checkPostgres(): Promise<string | null> {
  pgReachable ??= (async () => {
    // 10 s: on two cores busy with other test files a connection took over 3 s (the suite then failed in CI); one that
    // is refused (no server) fails at once.
    const c = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 10_000 });
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

/**
 * As freshDatabaseUrl, but SQLite on a file in a temporary folder, so that a second connection (another store, a
 * dump of everything stored) can open the same database.
 */
export async function freshSharedDatabaseUrl(engine: Engine): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (engine === 'postgres') return freshDatabaseUrl(engine);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-test-'));
  return { url: `sqlite:${path.join(dir, 'almanac.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
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
          if (IN_CI) { // a failing test, so that the summary counts it (a suite that throws counts no failure)
            test(`PostgreSQL is reachable for "${name}"`, () => {
              throw new Error(`PostgreSQL is required in CI but ${PG_ADMIN_URL} is unreachable: ${why}`);
            });
            return;
          }
          console.warn(`\n!!! SKIPPING PostgreSQL suite "${name}": ${PG_ADMIN_URL} unreachable (${why}) !!!\n`);
          // A suite with no tests would report "ok" and count nothing; this one skipped test shows in the summary.
          test(`every test of "${name}" on PostgreSQL`, { skip: `PostgreSQL unreachable at ${PG_ADMIN_URL}: ${why}` }, () => {});
          return;
        }
      }
      before(async () => {
        const db = await freshDatabaseUrl(engine);
        ctx.url = db.url;
        cleanup = db.cleanup;
      });
      body(ctx);
      // Registered after the body's hooks: node runs a suite's `after` hooks in registration order, and the
      // database must be dropped (WITH FORCE) only once the suite's own `after` hooks have closed its apps.
      after(async () => cleanup());
    });
  }
}

/** Opens a migrated store on the suite's database. */
export function storeFor(ctx: EngineContext): Promise<Store> {
  return openStore(ctx.url);
}
