import type { PostgresTimeouts } from './postgres.js';
import type { Store } from './types.js';

export type { Store } from './types.js';

/**
 * Opens the store a DATABASE_URL names (`sqlite:<path>`, `sqlite::memory:`, `postgres://…`) and migrates it.
 * `timeouts`: PostgreSQL's connection and statement time limits (the store's defaults when not given).
 */
export async function openStore(databaseUrl: string, timeouts?: PostgresTimeouts): Promise<Store> {
  // Only the engine in use is loaded (its driver too): a CLI command on SQLite starts without pg's modules.
  const store: Store = databaseUrl.startsWith('sqlite:')
    ? new (await import('./sqlite.js')).SqliteStore(databaseUrl.slice('sqlite:'.length))
    : new (await import('./postgres.js')).PostgresStore(databaseUrl, undefined, timeouts);
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
