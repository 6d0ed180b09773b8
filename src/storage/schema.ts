import { TIMESERIES_INDICES, findTimeseriesIndex } from '../registry/registry.js';
import { CHANGE_LOG_TABLE, changeLogNumberStatements, changeLogReferenceStatements, changeLogStatements, pgChangeLogReferenceStatements } from './change-log.js';
import { readJson, type StoredJson } from './stored-json.js';
import type { AspectRecord, TableSize } from './types.js';

/**
 * Table layout shared by both engines. Migrations are numbered; each engine renders them in its dialect.
 * Time-series tables are named after DataHub's index names so operators see the same names in both systems.
 */
export const ASPECT_TABLE = 'metadata_aspect_v2';
export const ENTITY_TABLE = 'almanac_entities';
export const SETTINGS_TABLE = 'almanac_settings';
/** The settings rows holding the definitions of the indexes a bulk load dropped (src/storage/deferred-indexes.ts). */
export const DEFERRED_INDEX_KEY = 'deferred-index:';
export const MIGRATIONS_TABLE = 'almanac_migrations';
/** Before migration 5: one table of urn, type and text. */
export const SEARCH_TABLE_V1 = 'almanac_search';
/** One row per searchable entity: the integer id keys the text index and the filter values. */
export const SEARCH_DOCS = 'almanac_search_docs';
/** SQLite: the FTS5 index of the name and text, rowid = the document's id (PostgreSQL keeps a tsvector in SEARCH_DOCS). */
export const SEARCH_FTS = 'almanac_search_fts';
/** PostgreSQL: each document's words as a tsvector (name weighted above the rest), beside the narrow documents table. */
export const SEARCH_TEXT = 'almanac_search_text';
/** PostgreSQL: each (word, document) of the text index, in a B-tree (kept from SEARCH_TEXT by triggers; migration 15). */
export const SEARCH_WORDS = 'almanac_search_words';
/**
 * Keyword values of the filter fields: (field, value, doc_id), with the value as a number where it is one. On SQLite
 * from migration 17 a view over SEARCH_TERMS and SEARCH_TERM_DOCS (the statements that read it are shared with
 * PostgreSQL, where it stays a table).
 */
export const SEARCH_VALUES = 'almanac_search_values';
/** SQLite (migration 17): each distinct (field, value) of the filter values once, numbered. */
export const SEARCH_TERMS = 'almanac_search_terms';
/** SQLite (migration 17): which documents have each term, as two integers a row, keyed both ways. */
export const SEARCH_TERM_DOCS = 'almanac_search_term_docs';
/** SQLite (migration 25): the pairs' index by term (the table is keyed by document); a bulk load builds it at its end. */
export const SEARCH_TERM_INDEX = `${SEARCH_TERM_DOCS}_term`;
/** How many documents have each (field, value) per entity type and removal: facets without a query or filter read these. */
export const SEARCH_COUNTS = 'almanac_search_counts';
export const RELATIONSHIP_TABLE = 'almanac_relationships';
/** The facet structure saved, with the change-log offset it covers (migration 26; src/storage/facet-snapshot.ts). */
export const FACET_SNAPSHOT_TABLE = 'almanac_facet_snapshots';
/**
 * SQLite (migration 19): each urn and relationship type an edge names, numbered once; RELATIONSHIP_TABLE is from then a
 * view of EDGE_TABLE's numbers as text, for statements shared with PostgreSQL (where it stays a table of text).
 */
export const URN_TABLE = 'almanac_urns';
/** SQLite (migration 19): the edges as numbers of URN_TABLE; its incoming index keeps the name `${RELATIONSHIP_TABLE}_incoming`. */
export const EDGE_TABLE = 'almanac_edges';
/** Per user: entities recently viewed and queries recently searched (migration 7). */
export const ACTIVITY_TABLE = 'almanac_activity';
/** The web app's usage events (its POSTs to /track), for the analytics charts (migration 8). */
export const USAGE_EVENT_TABLE = 'almanac_usage_events';
/** Registered webhooks, and the events they gave up on (migration 10). */
export const WEBHOOK_TABLE = 'almanac_webhooks';
export const WEBHOOK_DEAD_LETTER_TABLE = 'almanac_webhook_dead_letters';

const SAFE_NAME = /^[a-z][a-z0-9_]*$/;

export function timeseriesTableNames(): string[] {
  return TIMESERIES_INDICES.map((i) => {
    if (!SAFE_NAME.test(i.indexName)) throw new Error(`unsafe table name ${i.indexName}`);
    return i.indexName;
  });
}

/** Each time-series table with the entity type and aspect it holds. */
export function timeseriesTables(): { table: string; entityType: string; aspect: string }[] {
  const names = timeseriesTableNames();
  return TIMESERIES_INDICES.map((i, n) => ({ table: names[n]!, entityType: i.entityType, aspect: i.aspect }));
}

export type Dialect = 'sqlite' | 'postgres';

/** Aspect names earlier Almanac versions used → DataHub 0.12.1's names for them (migration 4). */
const RENAMED_ASPECTS: Readonly<Record<string, string>> = {
  trainingData: 'mlModelTrainingData', evaluationData: 'mlModelEvaluationData', metrics: 'mlModelMetrics',
  ethicalConsiderations: 'mlModelEthicalConsiderations', caveatsAndRecommendations: 'mlModelCaveatsAndRecommendations',
  quantitativeAnalyses: 'mlModelQuantitativeAnalyses', editableMLModelProperties: 'editableMlModelProperties',
  editableMLFeatureTableProperties: 'editableMlFeatureTableProperties',
};

/** Migration N → list of statements. Never edit a released migration; add a new one. */
export function migrations(d: Dialect): { version: number; statements: string[] }[] {
  const bigint = d === 'sqlite' ? 'INTEGER' : 'BIGINT';
  return [
    {
      version: 1,
      statements: [
        `CREATE TABLE ${ENTITY_TABLE} (urn TEXT PRIMARY KEY, entity_type TEXT NOT NULL, created_on ${bigint} NOT NULL)`,
        `CREATE INDEX ${ENTITY_TABLE}_type ON ${ENTITY_TABLE} (entity_type, urn)`,
        `CREATE TABLE ${ASPECT_TABLE} (urn TEXT NOT NULL, aspect TEXT NOT NULL, version ${bigint} NOT NULL,
           metadata TEXT NOT NULL, systemmetadata TEXT, createdon ${bigint} NOT NULL, createdby TEXT NOT NULL,
           PRIMARY KEY (urn, aspect, version))`,
        `CREATE TABLE ${SETTINGS_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      ],
    },
    {
      version: 2,
      statements: d === 'sqlite'
        ? [`CREATE VIRTUAL TABLE ${SEARCH_TABLE_V1} USING fts5(urn UNINDEXED, entity_type UNINDEXED, body, tokenize = 'unicode61')`]
        : [
          `CREATE TABLE ${SEARCH_TABLE_V1} (urn TEXT PRIMARY KEY, entity_type TEXT NOT NULL, body TEXT NOT NULL,
             tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)`,
          `CREATE INDEX ${SEARCH_TABLE_V1}_tsv ON ${SEARCH_TABLE_V1} USING GIN (tsv)`,
          `CREATE INDEX ${SEARCH_TABLE_V1}_type ON ${SEARCH_TABLE_V1} (entity_type, urn)`,
        ],
    },
    {
      version: 3,
      statements: [
        `CREATE TABLE ${RELATIONSHIP_TABLE} (source TEXT NOT NULL, type TEXT NOT NULL, destination TEXT NOT NULL,
           PRIMARY KEY (source, type, destination))`,
        `CREATE INDEX ${RELATIONSHIP_TABLE}_incoming ON ${RELATIONSHIP_TABLE} (destination, type, source)`,
      ],
    },
    {
      // Earlier versions stored some ML model aspects under names of Almanac's making; DataHub's names from now on.
      version: 4,
      statements: Object.entries(RENAMED_ASPECTS).map(([from, to]) => `UPDATE ${ASPECT_TABLE} SET aspect = '${to}' WHERE aspect = '${from}'`),
    },
    {
      // The search index keyed by an integer id (the FTS row is deleted by rowid, not by scanning for its urn), with
      // filter values and facet counts in tables of their own. The index is rebuilt from the aspects on next start.
      version: 5,
      statements: searchIndexStatements(d),
    },
    {
      // Lineage edges keep when and by whom they were created and updated, and whether they were drawn by hand. The
      // index is emptied so that the next start derives it again from the aspects, stamps included.
      version: 6,
      statements: [
        `ALTER TABLE ${RELATIONSHIP_TABLE} ADD COLUMN created_on ${bigint}`,
        `ALTER TABLE ${RELATIONSHIP_TABLE} ADD COLUMN created_actor TEXT`,
        `ALTER TABLE ${RELATIONSHIP_TABLE} ADD COLUMN updated_on ${bigint}`,
        `ALTER TABLE ${RELATIONSHIP_TABLE} ADD COLUMN updated_actor TEXT`,
        `ALTER TABLE ${RELATIONSHIP_TABLE} ADD COLUMN manual INTEGER NOT NULL DEFAULT 0`,
        `DELETE FROM ${RELATIONSHIP_TABLE}`,
      ],
    },
    {
      // What each user recently viewed and searched (recommendations), newest kept per user and kind; and an index
      // to find the aspects a user wrote last ("recently edited").
      version: 7,
      statements: [
        `CREATE TABLE ${ACTIVITY_TABLE} (actor TEXT NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, at ${bigint} NOT NULL,
           PRIMARY KEY (actor, kind, value))`,
        `CREATE INDEX ${ACTIVITY_TABLE}_recent ON ${ACTIVITY_TABLE} (actor, kind, at)`,
        `CREATE INDEX ${ASPECT_TABLE}_createdby ON ${ASPECT_TABLE} (createdby, createdon)`,
      ],
    },
    {
      // Usage events the web app posts to /track (page and entity views, searches, actions), one row each: the
      // fields the analytics charts group by as columns, the whole event as sent in `event`.
      version: 8,
      statements: [
        `CREATE TABLE ${USAGE_EVENT_TABLE} (id ${d === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGSERIAL PRIMARY KEY'},
           at ${bigint} NOT NULL, type TEXT NOT NULL, actor TEXT, browser_id TEXT, entity_urn TEXT, entity_type TEXT, query TEXT,
           section TEXT, action_type TEXT, event TEXT NOT NULL)`,
        `CREATE INDEX ${USAGE_EVENT_TABLE}_type_at ON ${USAGE_EVENT_TABLE} (type, at)`,
        `CREATE INDEX ${USAGE_EVENT_TABLE}_at ON ${USAGE_EVENT_TABLE} (at)`,
      ],
    },
    {
      // The change log, appended in every write's transaction, and the offsets its durable consumers (the search and
      // relationship indexes, webhooks) have applied; each aspect version's revision (src/storage/change-log.ts).
      version: 9,
      statements: changeLogStatements(d, ASPECT_TABLE, Date.now()),
    },
    {
      // Webhooks (durable consumers of the change log, named `webhook:<id>` in the consumers table) and the events
      // each gave up on after its retries (src/changelog/webhooks.ts). JSON as text; the signing secret encrypted.
      version: 10,
      statements: [
        `CREATE TABLE ${WEBHOOK_TABLE} (id TEXT PRIMARY KEY, url TEXT NOT NULL, entity_types TEXT NOT NULL, aspects TEXT NOT NULL,
           secret TEXT NOT NULL, created_by TEXT NOT NULL, created_on ${bigint} NOT NULL, description TEXT)`,
        `CREATE TABLE ${WEBHOOK_DEAD_LETTER_TABLE} (id ${d === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGSERIAL PRIMARY KEY'},
           webhook_id TEXT NOT NULL, seq ${bigint} NOT NULL, at ${bigint} NOT NULL, attempts INTEGER NOT NULL, status INTEGER,
           error TEXT NOT NULL, event TEXT NOT NULL)`,
        `CREATE INDEX ${WEBHOOK_DEAD_LETTER_TABLE}_webhook ON ${WEBHOOK_DEAD_LETTER_TABLE} (webhook_id, id)`,
      ],
    },
    {
      // The digest of each document's indexed text (textDigest in src/storage/search-sql.ts): a document rewritten
      // with the same text keeps its text index entry. Empty until a document is next written.
      version: 11,
      statements: [`ALTER TABLE ${SEARCH_DOCS} ADD COLUMN text_digest TEXT`],
    },
    {
      // Each document's name as a key (its words, lower case, one space apart; nameKey in src/services/search.ts) and,
      // where it differs, its urn's name as one: exact and prefix name matches come first in a search whatever the
      // number of matches. The index is emptied so that the next start rebuilds it with the keys.
      version: 12,
      statements: nameKeyStatements(d),
    },
    {
      // SQLite: the relationships table keyed by its primary key alone (WITHOUT ROWID). With a rowid, each edge was
      // stored three times (the rows, the key's index, the incoming index); now twice, about 1.7 kB less a dataset.
      version: 13,
      statements: d === 'sqlite'
        ? [
          `CREATE TABLE ${RELATIONSHIP_TABLE}_keyed (source TEXT NOT NULL, type TEXT NOT NULL, destination TEXT NOT NULL,
             created_on INTEGER, created_actor TEXT, updated_on INTEGER, updated_actor TEXT, manual INTEGER NOT NULL DEFAULT 0,
             PRIMARY KEY (source, type, destination)) WITHOUT ROWID`,
          `INSERT INTO ${RELATIONSHIP_TABLE}_keyed SELECT source, type, destination, created_on, created_actor, updated_on,
             updated_actor, manual FROM ${RELATIONSHIP_TABLE}`,
          `DROP TABLE ${RELATIONSHIP_TABLE}`,
          `ALTER TABLE ${RELATIONSHIP_TABLE}_keyed RENAME TO ${RELATIONSHIP_TABLE}`,
          `CREATE INDEX ${RELATIONSHIP_TABLE}_incoming ON ${RELATIONSHIP_TABLE} (destination, type, source)`,
        ]
        : [],
    },
    {
      // PostgreSQL: the text index's words in a B-tree of (word, document), which a prefix reads as one range from the
      // index alone; the GIN index it replaces visits a heap row of the text table for every match (at 100,000
      // documents a word in most of them took 100–150 ms to match, 10–20 ms here). SQLite's FTS5 is unchanged.
      version: 15,
      statements: [...(d === 'postgres' ? searchWordStatements() : []), ...textWordsStatements(d)],
    },
    {
      // SQLite: the change log names the stored versions that hold its entries' values rather than copying them (the
      // log held each value a second time: 7.4 of 27 kB a dataset after a bulk load). Entries written before keep theirs.
      version: 16,
      statements: changeLogReferenceStatements(d, ASPECT_TABLE),
    },
    {
      // SQLite: the filter values as integers. Each (field, value) was stored in full in every row and again in the
      // doc_id index (about 56 rows, 4.4 kB a dataset after a bulk load, where a catalog has a few thousand distinct
      // pairs); now numbered once, each row two integers. PostgreSQL is unchanged (the runner needs no empty step).
      version: 17,
      statements: d === 'sqlite' ? searchTermStatements() : [],
    },
    {
      // SQLite: the change log's entries of time-series rows name the row holding their value and system metadata
      // rather than copying them (about 1.1 kB a dataset after a bulk load). Each time-series table gets the column,
      // index and triggers for it with the tables themselves at every start (timeseriesLogStatements; a table the
      // registry adds later gets them too), in this migration's transaction. Entries written before keep their copies.
      version: 18,
      statements: [],
    },
    {
      // SQLite: urns as numbers. Each urn was stored in full in every edge and again in the incoming index (3.4 kB a
      // dataset after a bulk load, 12 edges a dataset naming a few urns each), and in every change-log entry with its
      // actor, entity type and aspect (1.5 kB); now numbered once, an edge a few integers, an entry's names four. And the
      // entities table keyed by its urn alone (WITHOUT ROWID): the urn was stored twice, in the rows and the key's index.
      version: 19,
      statements: d === 'sqlite' ? [...edgeNumberStatements(d), ...changeLogNumberStatements(), ...entityKeyStatements()] : [],
    },
    {
      // PostgreSQL: the large values (aspects, the log's copies of them, documents' words) compressed with LZ4 rather
      // than pglz where the server has it: at 4,000 generated datasets a bulk load's writes took 24 % less of the
      // database's CPU for the same size, and reading them back (the indexes' reads of aspects) decompresses faster.
      // Values stored before keep pglz (both are read alike); a server without LZ4 (built without it, before 14) keeps pglz.
      // (Migration 19 is SQLite's.)
      version: 20,
      statements: d === 'postgres' ? [lz4Statement()] : [],
    },
    {
      // SQLite: the (term, document) pairs keyed by document first, the term-first key an index beside them. Keyed by
      // term, each document a catch-up wrote inserted its ~56 pairs into as many places of the table, and the index by
      // document beside it took them again (5.6 million pairs at 100,000 datasets: 24 s of CPU where keyed by document,
      // one statement a document and the term index built at the end took 7.4, 2026-11-28); a bulk load now defers the
      // term index (src/storage/deferred-indexes.ts). Reads are as before: each key is the other's index.
      version: 25,
      statements: d === 'sqlite' ? termDocsByDocumentStatements() : [],
    },
    {
      // The facet structure saved (src/storage/facet-snapshot.ts): a start loads it and follows the log from its offset
      // rather than building it from the search tables (over 20 s of a worker's time at 1,000,000 generated datasets).
      // PostgreSQL: stored as it is (it is dense binary: compressing it costs time and saves little).
      version: 26,
      statements: [
        `CREATE TABLE ${FACET_SNAPSHOT_TABLE} (name TEXT PRIMARY KEY, synced_to ${bigint} NOT NULL, rebuilds ${bigint} NOT NULL,
           saved_on ${bigint} NOT NULL, data ${d === 'sqlite' ? 'BLOB' : 'BYTEA'} NOT NULL)`,
        ...(d === 'postgres' ? [`ALTER TABLE ${FACET_SNAPSHOT_TABLE} ALTER COLUMN data SET STORAGE EXTERNAL`] : []),
      ],
    },
    {
      // PostgreSQL: the filter values as numbered terms and (document, term) pairs of integers, as SQLite has them
      // since migrations 17 and 25, with a view of the old table's name and columns over them. Each (field, value) was
      // stored in full in every row and twice more in its two indexes: 9.7 kB a dataset after a bulk load of 20,000
      // generated datasets (56 values each), where a catalog has a few thousand distinct pairs. And the text's words
      // keyed by a 4-byte document number (95 rows a dataset there: 8 bytes less in each row and in each key entry).
      version: 30,
      statements: d === 'postgres' ? pgSearchTermStatements() : [],
    },
    {
      // PostgreSQL: the change log names the stored versions that hold its entries' values rather than copying them, as
      // SQLite's does since migration 16 (the log held each value a second time: 8.6 of 39 kB a dataset after a bulk
      // load of 20,000 generated datasets). Entries written before keep theirs. Two columns and two triggers: no rewrite.
      version: 31,
      statements: d === 'postgres' ? pgChangeLogReferenceStatements(ASPECT_TABLE) : [],
    },
    {
      // PostgreSQL: urns as numbers in the edges, as SQLite's since migration 19. Each urn was stored in full in every
      // edge and again in both of its indexes (5.9 kB a dataset after a bulk load of 20,000 generated datasets, 12 edges
      // a dataset); now numbered once, an edge four integers (and its stamps), each index entry three. The relationships
      // table becomes a view of the edges' numbers as text, for the statements that read it as before.
      version: 32,
      statements: d === 'postgres' ? edgeNumberStatements(d) : [],
    },
  ];
}

/**
 * PostgreSQL (migration 30): the filter values' table replaced by numbered terms and (document, term) pairs keyed by
 * document, the term-first index beside them (deferred by a bulk load), and a view of the old name and columns. The
 * definitions an interrupted bulk load kept of the old table's key and index go: the new table has its own. Both
 * columns of a pair (and the words' document) are 4-byte integers (a document's number as a BIGSERIAL holds far below 2^31): 36 bytes a row
 * where (bigint, integer) would take 44, and 16-byte index entries where it would take 24.
 */
function pgSearchTermStatements(): string[] {
  return [
    `CREATE TABLE ${SEARCH_TERMS} (id SERIAL PRIMARY KEY, field TEXT COLLATE "C" NOT NULL, value TEXT COLLATE "C" NOT NULL,
       num DOUBLE PRECISION, UNIQUE (field, value))`,
    `INSERT INTO ${SEARCH_TERMS} (field, value, num) SELECT field, value, MAX(num) FROM ${SEARCH_VALUES} GROUP BY field, value ORDER BY field, value`,
    `CREATE TABLE ${SEARCH_TERM_DOCS} (doc_id INTEGER NOT NULL, term INTEGER NOT NULL, PRIMARY KEY (doc_id, term))`,
    `INSERT INTO ${SEARCH_TERM_DOCS} (doc_id, term) SELECT DISTINCT v.doc_id, t.id FROM ${SEARCH_VALUES} v
       JOIN ${SEARCH_TERMS} t ON t.field = v.field AND t.value = v.value ORDER BY 1, 2`,
    `CREATE INDEX ${SEARCH_TERM_INDEX} ON ${SEARCH_TERM_DOCS} (term, doc_id)`,
    `DROP TABLE ${SEARCH_VALUES}`,
    `DELETE FROM ${SETTINGS_TABLE} WHERE key IN ('${DEFERRED_INDEX_KEY}${SEARCH_VALUES}_pkey', '${DEFERRED_INDEX_KEY}${SEARCH_VALUES}_doc')`,
    searchValuesView(),
    `ANALYZE ${SEARCH_TERMS}, ${SEARCH_TERM_DOCS}`,
    // (The triggers filling it from the text table's BIGINT ids store them by assignment; a key an interrupted bulk
    // load dropped is added again on the same columns.)
    `ALTER TABLE ${SEARCH_WORDS} ALTER COLUMN doc_id TYPE INTEGER`,
  ];
}

/** The columns of RELATIONSHIP_TABLE as SQLite's view gives them (EDGE_COLUMNS), read from EDGE_TABLE `r` by `edgeJoins`. */
export const EDGE_VIEW_COLUMNS = 's.urn AS source, t.urn AS type, d.urn AS destination, r.created_on, r.created_actor, r.updated_on, r.updated_actor, r.manual';
export const edgeJoins = (r = 'r') => `JOIN ${URN_TABLE} s ON s.id = ${r}.source JOIN ${URN_TABLE} t ON t.id = ${r}.type
  JOIN ${URN_TABLE} d ON d.id = ${r}.destination`;

/** SQLite: the entities table rebuilt WITHOUT ROWID (its urn once, not in the rows and again in the key's index). */
function entityKeyStatements(): string[] {
  return [
    `CREATE TABLE ${ENTITY_TABLE}_keyed (urn TEXT PRIMARY KEY, entity_type TEXT NOT NULL, created_on INTEGER NOT NULL) WITHOUT ROWID`,
    `INSERT INTO ${ENTITY_TABLE}_keyed SELECT urn, entity_type, created_on FROM ${ENTITY_TABLE} ORDER BY urn`,
    `DROP TABLE ${ENTITY_TABLE}`,
    `ALTER TABLE ${ENTITY_TABLE}_keyed RENAME TO ${ENTITY_TABLE}`,
    `CREATE INDEX ${ENTITY_TABLE}_type ON ${ENTITY_TABLE} (entity_type, urn)`,
  ];
}

/**
 * The relationships table replaced by numbered urns and edges of numbers (source, type, destination keyed both ways, as
 * before), with a view of the old name and columns over them (EDGE_VIEW_COLUMNS): SQLite's migration 19, PostgreSQL's
 * 32. On PostgreSQL the edge's integers come first, then its stamps (no padding before the 8-byte times). A bulk load
 * interrupted with the old incoming index dropped kept its definition to build again (src/storage/deferred-indexes.ts):
 * the new one is built here instead. The actors of the stamps stay text (one edge in twelve has one).
 */
function edgeNumberStatements(d: Dialect): string[] {
  const pg = d === 'postgres';
  const columns = pg ? ['manual', 'created_on', 'updated_on', 'created_actor', 'updated_actor'] : ['created_on', 'created_actor', 'updated_on', 'updated_actor', 'manual'];
  const types: Record<string, string> = { manual: 'INTEGER NOT NULL DEFAULT 0', created_on: pg ? 'BIGINT' : 'INTEGER', updated_on: pg ? 'BIGINT' : 'INTEGER',
    created_actor: 'TEXT', updated_actor: 'TEXT' };
  return [
    `CREATE TABLE ${URN_TABLE} (id ${pg ? 'SERIAL' : 'INTEGER'} PRIMARY KEY, urn TEXT NOT NULL UNIQUE)`,
    `INSERT INTO ${URN_TABLE} (urn) SELECT source FROM ${RELATIONSHIP_TABLE} UNION SELECT type FROM ${RELATIONSHIP_TABLE}
       UNION SELECT destination FROM ${RELATIONSHIP_TABLE} ORDER BY 1`,
    `CREATE TABLE ${EDGE_TABLE} (source INTEGER NOT NULL, type INTEGER NOT NULL, destination INTEGER NOT NULL, ${columns.map((c) => `${c} ${types[c]}`).join(', ')},
       PRIMARY KEY (source, type, destination))${pg ? '' : ' WITHOUT ROWID'}`,
    `INSERT INTO ${EDGE_TABLE} (source, type, destination, ${columns.join(', ')})
       SELECT s.id, t.id, d.id, ${columns.map((c) => `r.${c}`).join(', ')}
       FROM ${RELATIONSHIP_TABLE} r JOIN ${URN_TABLE} s ON s.urn = r.source JOIN ${URN_TABLE} t ON t.urn = r.type
       JOIN ${URN_TABLE} d ON d.urn = r.destination ORDER BY 1, 2, 3`,
    `DROP TABLE ${RELATIONSHIP_TABLE}`,
    `DELETE FROM ${SETTINGS_TABLE} WHERE key = '${DEFERRED_INDEX_KEY}${RELATIONSHIP_TABLE}_incoming'`,
    `CREATE INDEX ${RELATIONSHIP_TABLE}_incoming ON ${EDGE_TABLE} (destination, type, source)`,
    `CREATE VIEW ${RELATIONSHIP_TABLE} (source, type, destination, created_on, created_actor, updated_on, updated_actor, manual) AS
       SELECT ${EDGE_VIEW_COLUMNS} FROM ${EDGE_TABLE} r ${edgeJoins()}`,
    ...(pg ? [`ANALYZE ${URN_TABLE}, ${EDGE_TABLE}`] : []),
  ];
}

/** Migration 20: LZ4 for the columns holding large values, unless the server cannot (the statement then does nothing). */
function lz4Statement(): string {
  const columns: [string, string[]][] = [
    [ASPECT_TABLE, ['metadata', 'systemmetadata']],
    [CHANGE_LOG_TABLE, ['value', 'previous_value', 'system_metadata', 'previous_system_metadata']],
    [SEARCH_TEXT, ['tsv']],
  ];
  const alters = columns.map(([table, cols]) => `EXECUTE 'ALTER TABLE ${table} ${cols.map((c) => `ALTER COLUMN ${c} SET COMPRESSION lz4`).join(', ')}';`);
  return `DO $$ BEGIN ${alters.join(' ')} EXCEPTION WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN NULL; END $$`;
}

/**
 * Each document's number of words (name and text): where more documents match than are ranked, the matches outside
 * the name tiers come by it, fewest first (with the word found once, BM25 puts the shorter document first), rather
 * than by name. The documents already indexed are counted from the text index (SQLite: FTS5's record of each one's
 * size, read by FTS_WORDS_FUNCTION; PostgreSQL: the positions of its words). The indexes let a page of dense matches
 * be read in that order without sorting them all.
 */
function textWordsStatements(d: Dialect): string[] {
  return [
    `ALTER TABLE ${SEARCH_DOCS} ADD COLUMN text_words INTEGER`,
    d === 'postgres'
      ? `UPDATE ${SEARCH_DOCS} d SET text_words = (SELECT COALESCE(SUM(COALESCE(array_length(x.positions, 1), 1)), 0) FROM unnest(t.tsv) x)
          FROM ${SEARCH_TEXT} t WHERE t.doc_id = d.id`
      : `UPDATE ${SEARCH_DOCS} SET text_words = (SELECT ${FTS_WORDS_FUNCTION}(sz) FROM ${SEARCH_FTS}_docsize s WHERE s.id = ${SEARCH_DOCS}.id)`,
    `CREATE INDEX ${SEARCH_DOCS}_text_words ON ${SEARCH_DOCS} (removed, text_words, sort_name${d === 'postgres' ? ', id' : ''})`,
    // SQLite walks dense name matches in this order; PostgreSQL sorts the matches of its name-words index (where an
    // index in this order would be taken for the prefix tier's order, scanning every live document).
    ...(d === 'sqlite' ? [`CREATE INDEX ${SEARCH_DOCS}_name_length ON ${SEARCH_DOCS} (removed, length(name_key), sort_name)`] : []),
  ];
}

/** SQLite: the SQL function migration 15 reads FTS5's document sizes with (ftsWords). */
export const FTS_WORDS_FUNCTION = 'almanac_fts_words';

/**
 * The words of the name and text columns in an FTS5 document-size record: one varint a column (name, body, flags),
 * in SQLite's varint format (big-endian, 7 bits a byte while the high bit is set).
 */
export function ftsWords(sz: Uint8Array): number {
  let total = 0;
  let at = 0;
  for (let column = 0; column < 2 && at < sz.length; column++) {
    let v = 0;
    for (let i = 0; i < 9 && at < sz.length; i++) {
      const b = sz[at++]!;
      if (i === 8) { v = v * 256 + b; break; }
      v = v * 128 + (b & 0x7f);
      if (!(b & 0x80)) break;
    }
    total += v;
  }
  return total;
}

/**
 * The words table and the triggers that keep it in step with every write of the text table (the write path, a bulk
 * load, a restore, a truncation): set by set, from each statement's old and new rows.
 */
function searchWordStatements(): string[] {
  const words = (rows: string) => `SELECT x.word, r.doc_id FROM ${rows} r CROSS JOIN unnest(tsvector_to_array(r.tsv)) AS x(word)`;
  const fn = (name: string, body: string) => `CREATE FUNCTION ${SEARCH_WORDS}_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN ${body}; RETURN NULL; END $$`;
  const trigger = (name: string, event: string, tables: string) => `CREATE TRIGGER ${SEARCH_WORDS}_${name} AFTER ${event} ON ${SEARCH_TEXT}
    REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION ${SEARCH_WORDS}_${name}()`;
  const remove = (rows: string) => `DELETE FROM ${SEARCH_WORDS} w USING (${rows}) g(word, doc_id) WHERE w.word = g.word AND w.doc_id = g.doc_id`;
  const insert = (rows: string) => `INSERT INTO ${SEARCH_WORDS} (word, doc_id) ${rows} ON CONFLICT DO NOTHING`;
  return [
    `CREATE TABLE ${SEARCH_WORDS} (word TEXT COLLATE "C" NOT NULL, doc_id BIGINT NOT NULL, PRIMARY KEY (word, doc_id))`,
    fn('inserted', insert(words('added'))),
    fn('deleted', remove(words('gone'))),
    // A rewritten document moves only the words that came or went (a new description moves a few of its dozens).
    fn('updated', `${remove(`${words('gone')} EXCEPT ${words('added')}`)}; ${insert(`${words('added')} EXCEPT ${words('gone')}`)}`),
    trigger('inserted', 'INSERT', 'NEW TABLE AS added'),
    trigger('deleted', 'DELETE', 'OLD TABLE AS gone'),
    trigger('updated', 'UPDATE', 'OLD TABLE AS gone NEW TABLE AS added'),
    fn('truncated', `TRUNCATE ${SEARCH_WORDS}`),
    `CREATE TRIGGER ${SEARCH_WORDS}_truncated AFTER TRUNCATE ON ${SEARCH_TEXT} FOR EACH STATEMENT EXECUTE FUNCTION ${SEARCH_WORDS}_truncated()`,
    `INSERT INTO ${SEARCH_WORDS} (word, doc_id) SELECT x.word, t.doc_id FROM ${SEARCH_TEXT} t CROSS JOIN unnest(tsvector_to_array(t.tsv)) AS x(word)
      ORDER BY 1, 2`,
    `DROP INDEX ${SEARCH_TEXT}_tsv`,
  ];
}

function searchIndexStatements(d: Dialect): string[] {
  // PostgreSQL compares the text of keys byte by byte (COLLATE "C"), as SQLite does, so prefix ranges agree.
  const text = d === 'sqlite' ? 'TEXT' : 'TEXT COLLATE "C"';
  const common = [
    `CREATE TABLE ${SEARCH_VALUES} (field ${text} NOT NULL, value ${text} NOT NULL, doc_id BIGINT NOT NULL,
       num ${d === 'sqlite' ? 'REAL' : 'DOUBLE PRECISION'}, PRIMARY KEY (field, value, doc_id))${d === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
    `CREATE INDEX ${SEARCH_VALUES}_doc ON ${SEARCH_VALUES} (doc_id, field, num)`,
    // Which values a field has depends on the field: without this, PostgreSQL estimates (field, value) pairs as if
    // independent and plans for a few hundred rows where there are thousands.
    ...(d === 'postgres' ? [`CREATE STATISTICS ${SEARCH_VALUES}_field_value (dependencies, mcv) ON field, value FROM ${SEARCH_VALUES}`] : []),
    `CREATE TABLE ${SEARCH_COUNTS} (field ${text} NOT NULL, value ${text} NOT NULL, entity_type ${text} NOT NULL,
       removed ${d === 'sqlite' ? 'INTEGER' : 'BOOLEAN'} NOT NULL, n BIGINT NOT NULL,
       PRIMARY KEY (field, removed, entity_type, value))${d === 'sqlite' ? ' WITHOUT ROWID' : ''}`,
  ];
  if (d === 'sqlite') {
    return [
      `DROP TABLE IF EXISTS ${SEARCH_TABLE_V1}`,
      `CREATE TABLE ${SEARCH_DOCS} (id INTEGER PRIMARY KEY, urn TEXT NOT NULL UNIQUE, entity_type TEXT NOT NULL,
         removed INTEGER NOT NULL, sort_name TEXT NOT NULL)`,
      `CREATE INDEX ${SEARCH_DOCS}_sort ON ${SEARCH_DOCS} (removed, sort_name, urn)`,
      `CREATE INDEX ${SEARCH_DOCS}_type ON ${SEARCH_DOCS} (entity_type, removed, sort_name)`,
      // contentless: the text lives in the aspects; contentless_delete lets a document's row go by rowid.
      `CREATE VIRTUAL TABLE ${SEARCH_FTS} USING fts5(name, body, flags, content = '', contentless_delete = 1,
         tokenize = 'unicode61', prefix = '2 3')`,
      ...common,
    ];
  }
  return [
    `DROP TABLE IF EXISTS ${SEARCH_TABLE_V1}`,
    // The documents table stays narrow (scanned and joined by every search); the words live in a table of their own.
    `CREATE TABLE ${SEARCH_DOCS} (id BIGSERIAL PRIMARY KEY, urn TEXT NOT NULL UNIQUE, entity_type ${text} NOT NULL,
       removed BOOLEAN NOT NULL, sort_name ${text} NOT NULL)`,
    `CREATE TABLE ${SEARCH_TEXT} (doc_id BIGINT PRIMARY KEY, tsv tsvector NOT NULL)`,
    `CREATE INDEX ${SEARCH_TEXT}_tsv ON ${SEARCH_TEXT} USING GIN (tsv)`,
    `CREATE INDEX ${SEARCH_DOCS}_sort ON ${SEARCH_DOCS} (removed, sort_name, urn)`,
    `CREATE INDEX ${SEARCH_DOCS}_type ON ${SEARCH_DOCS} (entity_type, removed, sort_name)`,
    ...common,
  ];
}

/**
 * SQLite: the filter values' table replaced by numbered terms and (term, document) pairs, with a view of the old name
 * and columns over them, so that the statements shared with PostgreSQL read it as before (SQLite flattens the view
 * into each statement: a field and value are found by the terms' key, a document's values by the pairs' second key).
 */
function searchTermStatements(): string[] {
  return [
    `CREATE TABLE ${SEARCH_TERMS} (id INTEGER PRIMARY KEY, field TEXT NOT NULL, value TEXT NOT NULL, num REAL, UNIQUE (field, value))`,
    `INSERT INTO ${SEARCH_TERMS} (field, value, num) SELECT field, value, MAX(num) FROM ${SEARCH_VALUES} GROUP BY field, value ORDER BY field, value`,
    `CREATE TABLE ${SEARCH_TERM_DOCS} (term INTEGER NOT NULL, doc_id INTEGER NOT NULL, PRIMARY KEY (term, doc_id)) WITHOUT ROWID`,
    `INSERT INTO ${SEARCH_TERM_DOCS} (term, doc_id) SELECT t.id, v.doc_id FROM ${SEARCH_VALUES} v
       JOIN ${SEARCH_TERMS} t ON t.field = v.field AND t.value = v.value ORDER BY 1, 2`,
    `CREATE INDEX ${SEARCH_TERM_DOCS}_doc ON ${SEARCH_TERM_DOCS} (doc_id, term)`,
    `DROP TABLE ${SEARCH_VALUES}`,
    searchValuesView(),
  ];
}

/** SQLite (migration 25): the pairs table rebuilt keyed (doc_id, term), its term-first index (deferred by a bulk load). */
function termDocsByDocumentStatements(): string[] {
  return [
    `DROP VIEW ${SEARCH_VALUES}`,
    `CREATE TABLE ${SEARCH_TERM_DOCS}_by_doc (doc_id INTEGER NOT NULL, term INTEGER NOT NULL, PRIMARY KEY (doc_id, term)) WITHOUT ROWID`,
    `INSERT INTO ${SEARCH_TERM_DOCS}_by_doc (doc_id, term) SELECT doc_id, term FROM ${SEARCH_TERM_DOCS} ORDER BY doc_id, term`,
    `DROP TABLE ${SEARCH_TERM_DOCS}`,
    `ALTER TABLE ${SEARCH_TERM_DOCS}_by_doc RENAME TO ${SEARCH_TERM_DOCS}`,
    `CREATE INDEX ${SEARCH_TERM_INDEX} ON ${SEARCH_TERM_DOCS} (term, doc_id)`,
    searchValuesView(),
  ];
}

/** SQLite: the filter values' old table as a view over the terms and their pairs (migrations 17 and 25). */
const searchValuesView = () => `CREATE VIEW ${SEARCH_VALUES} (field, value, doc_id, num) AS SELECT t.field, t.value, p.doc_id, t.num
       FROM ${SEARCH_TERM_DOCS} p JOIN ${SEARCH_TERMS} t ON t.id = p.term`;

/** PostgreSQL: the words of a document's name keys (its columns name_key and qualified_key), as indexed. */
export const NAME_WORDS_PG = `to_tsvector('simple'::regconfig, COALESCE(name_key, '') || ' ' || COALESCE(qualified_key, ''))`;

function nameKeyStatements(d: Dialect): string[] {
  const text = d === 'sqlite' ? 'TEXT' : 'TEXT COLLATE "C"';
  return [
    `ALTER TABLE ${SEARCH_DOCS} ADD COLUMN name_key ${text}`,
    `ALTER TABLE ${SEARCH_DOCS} ADD COLUMN qualified_key ${text}`,
    // Removal and type beside the key, and (PostgreSQL; SQLite's rowid is in every index) the id: the tiers of a search
    // are counted and ordered from the index alone (at 1M documents, 50,000 names starting with the query: 24 ms, not 130).
    `CREATE INDEX ${SEARCH_DOCS}_name_key ON ${SEARCH_DOCS} (name_key, removed, entity_type)${d === 'postgres' ? ' INCLUDE (id)' : ''}`,
    `CREATE INDEX ${SEARCH_DOCS}_qualified_key ON ${SEARCH_DOCS} (qualified_key) WHERE qualified_key IS NOT NULL`,
    // PostgreSQL: the words of the name keys, so that "matches in the name" is an index lookup (the text index's
    // weight-A test rechecks every document holding the word anywhere). SQLite's FTS name column answers it.
    ...(d === 'postgres' ? [`CREATE INDEX ${SEARCH_DOCS}_name_words ON ${SEARCH_DOCS} USING GIN ((${NAME_WORDS_PG}))`] : []),
    ...(d === 'sqlite'
      ? [`INSERT INTO ${SEARCH_FTS} (${SEARCH_FTS}) VALUES ('delete-all')`, `DELETE FROM ${SEARCH_VALUES}`, `DELETE FROM ${SEARCH_COUNTS}`,
        `DELETE FROM ${SEARCH_DOCS}`]
      : [`TRUNCATE ${SEARCH_TEXT}, ${SEARCH_VALUES}, ${SEARCH_COUNTS}, ${SEARCH_DOCS}`]),
  ];
}

/** Idempotent: run on every start so aspects added to the registry get their table. */
export function timeseriesTableStatements(d: Dialect): string[] {
  const bigint = d === 'sqlite' ? 'INTEGER' : 'BIGINT';
  return timeseriesTableNames().flatMap((t) => [
    `CREATE TABLE IF NOT EXISTS ${t} (urn TEXT NOT NULL, timestamp_millis ${bigint} NOT NULL,
       partition_key TEXT NOT NULL DEFAULT '', granularity TEXT NOT NULL DEFAULT '', message_id TEXT NOT NULL DEFAULT '',
       event TEXT NOT NULL, system_metadata TEXT, run_id TEXT,
       ${d === 'postgres' ? 'CONSTRAINT ' + t + '_key ' : ''}UNIQUE (urn, timestamp_millis, partition_key, granularity, message_id))`,
    `CREATE INDEX IF NOT EXISTS ${t}_time ON ${t} (timestamp_millis)`,
  ]);
}

/** The table of one time-series aspect; callers validated the pair, so a miss is a programming error. */
export function tableFor(entityType: string, aspect: string): string {
  const idx = findTimeseriesIndex(entityType, aspect);
  if (!idx) throw new Error(`no time-series table for ${entityType}.${aspect}`);
  return idx.indexName;
}

/** One size row per registered time-series table, in registry order. */
export function sizesFor(bytes: Map<string, number>): TableSize[] {
  return TIMESERIES_INDICES.map((i) => ({
    entityType: i.entityType, aspect: i.aspect, table: i.indexName, bytes: Number(bytes.get(i.indexName) ?? 0),
  }));
}

/** A row of the aspect table as both drivers return it (PostgreSQL's values are always text: `AspectRow<string>`). */
export interface AspectRow<Value extends StoredJson = StoredJson> {
  urn: string;
  aspect: string;
  version: number;
  /** Text on PostgreSQL; on SQLite large values come compressed (src/storage/stored-json.ts). */
  metadata: Value;
  systemmetadata: string | null;
  createdon: number;
  createdby: string;
  revision: number;
}

export const toRecord = (r: AspectRow): AspectRecord => recordOf(r, JSON.parse(readJson(r.metadata)));

/** A row's record with its metadata already parsed (by the caller, who may share it). */
export const recordOf = (r: AspectRow, value: unknown): AspectRecord => ({
  urn: r.urn,
  aspect: r.aspect,
  version: r.version,
  value,
  systemMetadata: r.systemmetadata ? JSON.parse(r.systemmetadata) : null,
  createdOn: r.createdon,
  createdBy: r.createdby,
  revision: Number(r.revision),
});
