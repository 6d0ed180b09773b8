import { PostgresStore, type PostgresTimeouts } from './postgres.js';
import { SqliteStore } from './sqlite.js';
import type { Store } from './types.js';

export type { Store } from './types.js';

/**
 * Opens the store a DATABASE_URL names (`sqlite:<path>`, `sqlite::memory:`, `postgres://…`) and migrates it.
 * `timeouts`: PostgreSQL's connection and statement time limits (the store's defaults when not given).
 */
export async function openStore(databaseUrl: string, timeouts?: PostgresTimeouts): Promise<Store> {
  const store: Store = databaseUrl.startsWith('sqlite:')
    ? new SqliteStore(databaseUrl.slice('sqlite:'.length))
    : new PostgresStore(databaseUrl, undefined, timeouts);
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
