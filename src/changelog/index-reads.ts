import type { Store } from '../storage/types.js';

/** The store's reads of the derived indexes (search documents and facets, relationships). */
const INDEX_READS: ReadonlySet<string | symbol> = new Set(['searchDocs', 'searchFacets', 'countSearchDocs', 'relationships', 'relationshipsOf',
  'countRelationships']);

/**
 * The store, with every read of a derived index waiting first for `current` (the change log's `indexesCurrent`): the
 * indexes apply this process's writes after their answers, and a read must still see every write answered before it.
 * `current` returns nothing when nothing is pending, so that reads made then take no extra turn.
 */
export function awaitingIndexes(store: Store, current: () => Promise<void> | undefined): Store {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function' || !INDEX_READS.has(prop)) return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => Promise<unknown>;
        fn = function (...args: unknown[]) {
          const pending = current();
          return pending ? pending.then(() => method.apply(target, args)) : method.apply(target, args);
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
