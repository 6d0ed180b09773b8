import { ENTITY_TABLE, RELATIONSHIP_TABLE, SEARCH_DOCS } from './schema.js';

/**
 * The urns an index (search documents, relationship sources) holds entries for that are not in the store, as one
 * column `urn`, at most the bound parameter `limit` (`?` or `$1`): both engines' statement.
 */
export function indexedWithoutEntitySql(index: 'search' | 'relationships', limit: string): string {
  const [table, column] = index === 'search' ? [SEARCH_DOCS, 'urn'] : [RELATIONSHIP_TABLE, 'source'];
  return `SELECT DISTINCT x.${column} AS urn FROM ${table} x WHERE NOT EXISTS (SELECT 1 FROM ${ENTITY_TABLE} e WHERE e.urn = x.${column})
    LIMIT ${limit}`;
}
