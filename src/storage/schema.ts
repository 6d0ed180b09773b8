import { TIMESERIES_INDICES, findTimeseriesIndex } from '../model/registry.js';
import type { AspectRecord, TableSize } from './types.js';

/**
 * Table layout shared by both engines. Migrations are numbered; each engine renders them in its dialect.
 * Time-series tables are named after DataHub's index names so operators see the same names in both systems.
 */
export const ASPECT_TABLE = 'metadata_aspect_v2';
export const ENTITY_TABLE = 'almanac_entities';
export const SETTINGS_TABLE = 'almanac_settings';
export const MIGRATIONS_TABLE = 'almanac_migrations';
export const SEARCH_TABLE = 'almanac_search';
export const RELATIONSHIP_TABLE = 'almanac_relationships';

const SAFE_NAME = /^[a-z][a-z0-9_]*$/;

export function timeseriesTableNames(): string[] {
  return TIMESERIES_INDICES.map((i) => {
    if (!SAFE_NAME.test(i.indexName)) throw new Error(`unsafe table name ${i.indexName}`);
    return i.indexName;
  });
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
        ? [`CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(urn UNINDEXED, entity_type UNINDEXED, body, tokenize = 'unicode61')`]
        : [
          `CREATE TABLE ${SEARCH_TABLE} (urn TEXT PRIMARY KEY, entity_type TEXT NOT NULL, body TEXT NOT NULL,
             tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)`,
          `CREATE INDEX ${SEARCH_TABLE}_tsv ON ${SEARCH_TABLE} USING GIN (tsv)`,
          `CREATE INDEX ${SEARCH_TABLE}_type ON ${SEARCH_TABLE} (entity_type, urn)`,
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

/** A row of the aspect table as both drivers return it. */
export interface AspectRow {
  urn: string;
  aspect: string;
  version: number;
  metadata: string;
  systemmetadata: string | null;
  createdon: number;
  createdby: string;
}

export const toRecord = (r: AspectRow): AspectRecord => ({
  urn: r.urn,
  aspect: r.aspect,
  version: r.version,
  value: JSON.parse(r.metadata),
  systemMetadata: r.systemmetadata ? JSON.parse(r.systemmetadata) : null,
  createdOn: r.createdon,
  createdBy: r.createdby,
});
