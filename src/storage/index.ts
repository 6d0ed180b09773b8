import type { PostgresOptions } from './postgres.js';
import type { Store } from './types.js';

export type { Store } from './types.js';

/** PostgreSQL's pool, time limits and read replicas; SQLite's page cache (the stores' defaults when not given). */
export type StoreOptions = PostgresOptions & { sqliteCacheMb?: number; sqliteBulkCacheMb?: number };
export type { FacetStart } from './facet-index.js';

/** Opens the store a DATABASE_URL names (`sqlite:<path>`, `sqlite::memory:`, `postgres://…`) and migrates it. */
export async function openStore(databaseUrl: string, options?: StoreOptions): Promise<Store> {
  // Only the engine in use is loaded (its driver too): a CLI command on SQLite starts without pg's modules.
  const store: Store = databaseUrl.startsWith('sqlite:')
    ? new (await import('./sqlite.js')).SqliteStore(databaseUrl.slice('sqlite:'.length), { cacheMb: options?.sqliteCacheMb, bulkCacheMb: options?.sqliteBulkCacheMb, facetStart: options?.facetStart })
    : new (await import('./postgres.js')).PostgresStore(databaseUrl, options);
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
