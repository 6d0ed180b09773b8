/**
 * The storage interface: one contract, one implementation per engine (sqlite.ts, postgres.ts).
 * Values cross this boundary as parsed JSON; no SQL or driver type leaves the storage folder.
 */

export interface SystemMetadata {
  lastObserved?: number;
  runId?: string;
  lastRunId?: string;
  [key: string]: unknown;
}

export interface AspectRecord {
  urn: string;
  aspect: string;
  /** 0 is the latest; 1 the oldest kept, higher numbers newer history. */
  version: number;
  value: unknown;
  systemMetadata: SystemMetadata | null;
  createdOn: number;
  createdBy: string;
}

export interface AspectWrite {
  urn: string;
  entityType: string;
  aspect: string;
  value: unknown;
  systemMetadata?: SystemMetadata | null;
  actor: string;
  /** Write time in ms; defaults to now. */
  time?: number;
}

/** One aspect of one entity, whether or not a value is stored for it. */
export interface AspectKey {
  urn: string;
  aspect: string;
}

/** Latest records by urn, then by aspect name; an aspect with no stored value is absent. */
export type LatestAspects = Map<string, Map<string, AspectRecord>>;

/** What an update's modify function decides to write. */
export interface AspectUpdate {
  writes: AspectWrite[];
  timeseries?: TimeseriesWrite[];
}

export interface AspectWriteResult {
  urn: string;
  aspect: string;
  /** False when the value equalled the latest one: no version was made, only system metadata refreshed. */
  changed: boolean;
}

export interface TimeseriesWrite {
  urn: string;
  entityType: string;
  aspect: string;
  timestampMillis: number;
  /** Upsert key parts beyond (urn, timestamp): '' when absent. */
  partition: string;
  granularity: string;
  messageId: string;
  value: unknown;
  systemMetadata?: SystemMetadata | null;
}

export interface TimeseriesRecord {
  urn: string;
  timestampMillis: number;
  value: unknown;
  systemMetadata: SystemMetadata | null;
}

export interface TimeseriesQuery {
  entityType: string;
  aspect: string;
  urn?: string;
  startTimeMillis?: number;
  endTimeMillis?: number;
  limit?: number;
  /** Newest first unless 'asc'. */
  order?: 'asc' | 'desc';
}

export interface TableSize {
  entityType: string;
  aspect: string;
  table: string;
  /** Table plus its indexes, as the engine measures them. */
  bytes: number;
}

export interface Relationship {
  source: string;
  /** DataHub's relationship name: DownstreamOf, IsPartOf, OwnedBy, … */
  type: string;
  destination: string;
}

export interface SearchDoc {
  urn: string;
  entityType: string;
  /** Lower-case words separated by spaces, names first. */
  text: string;
}

export interface EntityRow {
  urn: string;
  entityType: string;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Applies pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;

  // Versioned aspects
  /** Writes all aspects (and time-series rows, when given) in one transaction: every one or none. */
  writeAspects(writes: AspectWrite[], historyCap: number, timeseries?: TimeseriesWrite[]): Promise<AspectWriteResult[]>;
  /**
   * Read-modify-write with no lost update. In one transaction: locks the given aspects against every other writer
   * of them (absent aspects too, so concurrent creators queue as well), reads their latest values, calls `modify`
   * with them and writes what it returns, versioned exactly as writeAspects does. Concurrent updates of one aspect
   * thus run one after another, each seeing the one before. `modify` is synchronous (better-sqlite3 transactions
   * are), does no I/O, and may write only the aspects it was given; when it throws, nothing is written and the
   * error is rethrown.
   */
  updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number): Promise<AspectWriteResult[]>;
  /** Latest values of the given aspects (all when omitted) of many entities, in one round trip. */
  getLatest(urns: readonly string[], aspects?: readonly string[]): Promise<Map<string, Map<string, AspectRecord>>>;
  getVersion(urn: string, aspect: string, version: number): Promise<AspectRecord | null>;
  /** Every stored version of one aspect, latest (0) first then newest history first. */
  listVersions(urn: string, aspect: string): Promise<AspectRecord[]>;
  /** Deletes the named aspects (all versions) of one entity; returns rows removed. */
  deleteAspects(urn: string, aspects: readonly string[]): Promise<number>;

  // Entities
  /** Which of these urns exist (have any aspect, time-series included). */
  existing(urns: readonly string[]): Promise<Set<string>>;
  listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]>;
  countEntities(entityType?: string): Promise<number>;
  /** Removes the entity, all its aspects and time-series rows. */
  deleteEntity(urn: string): Promise<{ rows: number; timeseriesRows: number }>;

  // Time series
  upsertTimeseries(rows: TimeseriesWrite[]): Promise<void>;
  queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]>;
  countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number>;
  /** Deletes up to batchSize rows older than endTimeMillis; returns how many went. */
  deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number): Promise<number>;
  deleteTimeseriesRange(urn: string, entityType: string, aspect: string, startTimeMillis?: number, endTimeMillis?: number): Promise<number>;
  /**
   * Gives the space of deleted rows back. `rewrite` asks for the table to be rebuilt smaller where the engine
   * needs that (PostgreSQL: VACUUM FULL, which locks the table while it copies the remaining rows).
   */
  reclaimTimeseriesSpace(entityType: string, aspect: string, rewrite: boolean): Promise<void>;
  timeseriesSizes(): Promise<TableSize[]>;

  // Search documents (text prepared by the search service; the engine indexes it)
  upsertSearchDocs(docs: SearchDoc[]): Promise<void>;
  deleteSearchDocs(urns: readonly string[]): Promise<void>;
  /** Documents whose text has every term as a word prefix (all documents when `terms` is empty), best first. */
  searchDocs(q: { terms: string[]; entityTypes?: string[]; start: number; count: number }): Promise<{ total: number; urns: string[] }>;
  countSearchDocs(): Promise<number>;

  // Relationships between entities (derived from aspects by the relationship service)
  /** Replaces every outgoing edge of these sources. */
  replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void>;
  /** Edges into (or out of) an entity, of the given types (all when empty), ordered by the other end. */
  relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }): Promise<{ total: number; edges: Relationship[] }>;
  countRelationships(): Promise<number>;

  // Settings (signing key and the like)
  /** Returns the stored value, storing `value` first when the key is absent (first writer wins). */
  getOrSetSetting(key: string, value: string): Promise<string>;
}
