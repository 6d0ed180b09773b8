/**
 * The search index's SQL, written once for both engines (src/storage/search-sql/, one file a part of it): each
 * statement is rendered with the engine's parameter style and the few functions that differ.
 */
export * from './search-sql/params.js';
export * from './search-sql/text-match.js';
export * from './search-sql/counts.js';
export * from './search-sql/paging.js';
export * from './search-sql/facets.js';
export * from './search-sql/documents.js';
