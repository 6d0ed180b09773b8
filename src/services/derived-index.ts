import type { Store } from '../storage/types.js';

/**
 * Indexes derived from aspects (search, relationships) are rebuilt from every entity, page by page, when they
 * are empty but the catalog is not: the first start after an upgrade that added them.
 */
export async function rebuildIfEmpty(store: Store, indexedCount: number, index: (urns: string[]) => Promise<void>): Promise<void> {
  if (indexedCount > 0 || (await store.countEntities()) === 0) return;
  let after: string | undefined;
  for (;;) {
    const rows = await store.listEntities({ after, count: 500 });
    if (rows.length === 0) break;
    await index(rows.map((r) => r.urn));
    after = rows[rows.length - 1]!.urn;
  }
}
