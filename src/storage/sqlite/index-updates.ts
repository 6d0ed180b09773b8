import { CONSUMER_TABLE } from '../change-log.js';
import { SEARCH_CONSUMER, type FacetIndex } from '../facet-index.js';
import { bumpRebuildsSql, rebuilding, REBUILDS_KEY } from '../facet-snapshot.js';
import { indexedWithoutEntitySql } from '../index-consistency.js';
import type { IndexGuard, IndexUpdate } from '../types.js';
import * as changeLog from './change-log.js';
import type { SqliteConnection } from './connection.js';
import * as relations from './relationships.js';
import type { SqliteSearch } from './search.js';

/** The derived indexes' updates on SQLite: search documents and relationships, with their consumers' offsets. */

/** Applies an index update if every guard holds, in one transaction; false (nothing written) otherwise. */
export function applyIndexUpdate(c: SqliteConnection, search: SqliteSearch, facets: FacetIndex, update: IndexUpdate, guards: readonly IndexGuard[]): boolean {
  const move = guards.find((g) => g.consumer === SEARCH_CONSUMER && 'from' in g) as { from: number; to: number } | undefined;
  let rebuilt: number | null = null;
  const applied = search.withFacets(() => c.db.transaction(() => {
    // Every guard checked before any offset moves, so a refusal writes nothing.
    for (const guard of guards) {
      if ('from' in guard) {
        if (c.stmt(`SELECT seq FROM ${CONSUMER_TABLE} WHERE name = ?`).pluck().get(guard.consumer) !== guard.from) return false;
      } else if (guard.urns.length) {
        const wanted = new Set(guard.urns);
        const later = changeLog.urnsChangedAfter(c, guard.unchangedAfter);
        if (later.some((u) => u !== null && wanted.has(u))) return false;
      }
    }
    for (const guard of guards) if ('from' in guard) changeLog.moveConsumerRow(c, guard.consumer, guard.from, guard.to);
    if (update.search) {
      // Written without the log (a reindex, a bulk load's key-order catch-up): a facet snapshot taken before is refused.
      if (rebuilding(guards)) rebuilt = Number(c.stmt(bumpRebuildsSql('sqlite')).pluck().get(REBUILDS_KEY));
      search.writeSearchDocs(update.search.upsert);
      search.removeSearchDocs(update.search.remove);
    }
    if (update.relationships) relations.writeRelationships(c, update.relationships.sources, update.relationships.edges);
    return true;
  }).immediate(), move);
  if (applied && rebuilt !== null) facets.rebuilt(rebuilt - 1, rebuilt);
  return applied;
}

/** Urns an index holds entries for that are not in the store: at most `limit`. */
export function indexedWithoutEntity(c: SqliteConnection, index: 'search' | 'relationships', limit: number): string[] {
  if (index === 'relationships') return relations.sourcesWithoutEntity(c, limit);
  return c.stmt(indexedWithoutEntitySql(index, '?')).pluck().all(limit) as string[];
}
