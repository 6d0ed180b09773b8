import type pg from 'pg';
import { CHANGE_LOG_TABLE, CONSUMER_TABLE } from '../change-log.js';
import { SEARCH_CONSUMER, type FacetIndex } from '../facet-index.js';
import { bumpRebuildsSql, rebuilding, REBUILDS_KEY } from '../facet-snapshot.js';
import { indexedWithoutEntitySql } from '../index-consistency.js';
import type { IndexGuard, IndexUpdate } from '../types.js';
import { prepared, type PostgresConnection } from './connection.js';
import * as relations from './relationships.js';
import type { FacetChanges, PostgresSearch } from './search.js';

/** The derived indexes' updates on PostgreSQL: search documents and relationships, with their consumers' offsets. */

/**
 * Applies an index update if every guard holds, in one transaction; false (nothing written) otherwise. `facetTx`: each
 * transaction's changes for the facet index, by connection (the search consumer's move among them).
 */
export async function applyIndexUpdate(db: PostgresConnection, search: PostgresSearch, facetTx: ReadonlyMap<pg.PoolClient, FacetChanges>,
  update: IndexUpdate, guards: readonly IndexGuard[], facets?: FacetIndex): Promise<boolean> {
  let rebuilt: number | null = null;
  const applied = await db.tx(async (c) => {
    // The consumers' rows, locked first and in one order: updates of one index (and a rebuild's batches) wait for
    // each other, and two updates of several indexes cannot deadlock.
    const names = [...new Set(guards.map((g) => g.consumer))].sort();
    const { rows } = await c.query(prepared(`SELECT name, seq FROM ${CONSUMER_TABLE} WHERE name = ANY($1) ORDER BY name FOR UPDATE`, [names]));
    const held = new Map(rows.map((r) => [r.name as string, Number(r.seq)]));
    for (const guard of guards) {
      const at = held.get(guard.consumer);
      if (at === undefined) return false;
      if ('from' in guard) {
        if (at !== guard.from) return false;
      } else if (guard.urns.length
        // In offset order: read from the log's key, from the offset on (few entries). Without it, on a log never analyzed
        // (a bulk load's, just written) the planner took `seq >` for a third of the rows and scanned the whole log: 10 ms a
        // page of a key-order catch-up at 5,000 generated datasets, growing with the log.
        && (await c.query(`SELECT 1 FROM ${CHANGE_LOG_TABLE} WHERE seq > $1 AND urn = ANY($2) ORDER BY seq LIMIT 1`, [guard.unchangedAfter, guard.urns])).rows.length) {
        return false;
      }
    }
    // Every guard held: nothing was written before this point, so a refusal above commits only the locks' release.
    const moves = guards.flatMap((g) => ('from' in g ? [g] : []));
    const searchMove = moves.find((m) => m.consumer === SEARCH_CONSUMER);
    if (searchMove) facetTx.get(c)!.move = { from: searchMove.from, to: searchMove.to };
    if (moves.length) {
      await c.query(prepared(`UPDATE ${CONSUMER_TABLE} c SET seq = m.seq, updated_on = $3 FROM UNNEST($1::text[], $2::bigint[]) AS m(name, seq)
        WHERE c.name = m.name`, [moves.map((m) => m.consumer), moves.map((m) => m.to), Date.now()]));
    }
    if (update.search) {
      // Written without the log (a reindex, a bulk load's key-order catch-up): a facet snapshot taken before is refused.
      if (rebuilding(guards)) rebuilt = Number((await c.query(prepared(bumpRebuildsSql('postgres'), [REBUILDS_KEY]))).rows[0].value);
      await search.writeSearchDocs(c, update.search.upsert);
      if (update.search.remove.length) await search.removeSearchDocs(c, update.search.remove);
    }
    if (update.relationships) await relations.writeRelationships(c, update.relationships.sources, update.relationships.edges);
    return true;
  });
  if (applied && rebuilt !== null) facets?.rebuilt(rebuilt - 1, rebuilt);
  return applied;
}

/** Urns an index holds entries for that are not in the store: at most `limit`. */
export async function indexedWithoutEntity(db: PostgresConnection, index: 'search' | 'relationships', limit: number): Promise<string[]> {
  const { rows } = await db.query(indexedWithoutEntitySql(index, '$1'), [limit]);
  return rows.map((r) => r.urn as string);
}
