import { RELATIONSHIP_TABLE, SEARCH_DOCS, SEARCH_TERM_INDEX } from './schema.js';

/**
 * A bulk load's indexes built once at its end (Store.deferIndexes): the derived tables' secondary indexes that a
 * catch-up updates one random page at a time — documents by name, type and word count, edges by destination, on
 * PostgreSQL the names' word index, and the filter values' pairs by term — are dropped before it and created
 * after it (a sort, then one pass). Each definition is kept in the settings table, under DEFERRED_INDEX_KEY and its
 * name, in the transaction that drops it, so that a crash in between leaves it to be created at the next start.
 */
export function deferredIndexes(d: 'sqlite' | 'postgres'): string[] {
  const common = [`${SEARCH_DOCS}_sort`, `${SEARCH_DOCS}_type`, `${SEARCH_DOCS}_name_key`, `${SEARCH_DOCS}_qualified_key`,
    `${SEARCH_DOCS}_text_words`, `${RELATIONSHIP_TABLE}_incoming`];
  // (PostgreSQL's text words live in a table of their own whose key the triggers that fill it need: not deferred.)
  return d === 'sqlite' ? [...common, `${SEARCH_DOCS}_name_length`, SEARCH_TERM_INDEX] : [...common, `${SEARCH_DOCS}_name_words`, SEARCH_TERM_INDEX];
}

export { DEFERRED_INDEX_KEY } from './schema.js';

/**
 * Worth it when the backlog is most of what the indexes will hold: at least this many log entries and four times the
 * documents indexed already (rebuilding a large index for a small load would cost more than it saves).
 */
export const DEFER_INDEXES_FROM = 50_000;

export const worthDeferring = (backlog: number, documents: number) => backlog >= DEFER_INDEXES_FROM && backlog >= 4 * documents;
