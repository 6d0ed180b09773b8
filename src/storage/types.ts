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
  /**
   * How many versions the aspect had when this one was written: 1 for the first, counting on whatever history is
   * kept. A history row's revision is its version number. Expected versions (If-Version-Match) name it.
   */
  revision: number;
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

/** What an update's modify function decides to write (and delete), all in the one transaction. */
export interface AspectUpdate {
  writes: AspectWrite[];
  timeseries?: TimeseriesWrite[];
  /** Versioned aspects to delete (every version), each logged with the value it held. */
  deletes?: (AspectKey & { actor: string })[];
  /** Every time-series row of one entity's aspect to delete. */
  timeseriesDeletes?: { urn: string; entityType: string; aspect: string; actor: string }[];
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
  /** Who wrote it (the change log's actor); the system when absent. */
  actor?: string;
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

/** One ingestion run: its id, how many latest aspect versions name it, and when it last wrote (epoch ms). */
export interface RunSummary {
  runId: string;
  rows: number;
  timestamp: number;
}

/** A latest aspect version written by a run: when (its `lastObserved`, else its write time) and whether its entity is soft-deleted. */
export interface RunAspectRow {
  urn: string;
  aspect: string;
  timestamp: number;
  removed: boolean;
}

export interface Relationship {
  source: string;
  /** DataHub's relationship name: DownstreamOf, IsPartOf, OwnedBy, … */
  type: string;
  destination: string;
  /** When and by whom the edge was created and last updated, where the aspect says (lineage edges); absent otherwise. */
  createdOn?: number;
  createdActor?: string;
  updatedOn?: number;
  updatedActor?: string;
  /** Drawn by hand in the UI (the edge's properties.source is 'UI'); absent when false. */
  manual?: boolean;
}

export interface SearchDoc {
  urn: string;
  entityType: string;
  /** Lower-case words of the entity's name: ranked above the rest of the text. */
  name: string;
  /** Lower-case words of everything else the entity says about itself (descriptions, columns, tags, terms). */
  text: string;
  /** How the entity sorts by name (its display name, lower case). */
  sortName: string;
  /**
   * The display name's words, lower case, one space apart (`Payments_Daily` → `payments daily`): searches put the
   * documents whose key equals or starts with the query's first. Without it, derived from sortName.
   */
  nameKey?: string;
  /** The urn's own name as a key where it differs from nameKey (`db.schema.payments`): an exact match comes first too. */
  qualifiedKey?: string;
  /** Soft-deleted (`status.removed`): left out of searches unless a condition asks about removal. */
  removed: boolean;
  /** Keyword values of the filter fields, in DataHub's field names: each [field, value] once. */
  values: readonly (readonly [string, string])[];
}

/**
 * Which documents a search keeps, as a small tree the engines render to SQL. Columns are the document's own
 * (entity type, urn, removal); `field` conditions test the keyword values of one filter field.
 */
export type SearchCondition =
  | { all: readonly SearchCondition[] }
  | { any: readonly SearchCondition[] }
  | { not: SearchCondition }
  | { column: 'entityType' | 'urn'; values: readonly string[] }
  | { column: 'removed'; value: boolean }
  | { field: string; op: SearchOp; values: readonly string[] };

/** EQUAL: any value equals one given; CONTAIN / START_WITH / END_WITH: as text; GT…LTE: as numbers; EXISTS: any value at all. */
export type SearchOp = 'EQUAL' | 'CONTAIN' | 'START_WITH' | 'END_WITH' | 'GREATER_THAN' | 'GREATER_THAN_OR_EQUAL_TO' | 'LESS_THAN'
  | 'LESS_THAN_OR_EQUAL_TO' | 'EXISTS';

export interface SearchDocQuery {
  /** Every term must match the start of a word of the name or text; none: every document. */
  terms: readonly string[];
  /** The query as a name key (see SearchDoc.nameKey), when it differs from the terms joined by spaces. */
  nameKey?: string;
  where: SearchCondition;
}

/** Relevance (then name), name, or a field's numeric value (documents without one last). */
export type SearchSort = { by: 'relevance' } | { by: 'name'; descending: boolean } | { by: 'field'; field: string; descending: boolean };

/** A facet to count: values of one field, entity types, or entity types each with a field's values under it. */
export type FacetSpec = { kind: 'field'; field: string } | { kind: 'entityType' } | { kind: 'entityTypeThen'; field: string };

/** One count: `value` is the field's value, the entity type, or [entity type, value] for entityTypeThen. */
export interface FacetCount {
  value: string;
  /** The nested value under an entity type (entityTypeThen only); absent on the entity type's own row. */
  sub?: string;
  count: number;
}

/**
 * One entry of the change log: what changed, in the order the changes committed (`seq`). Values are kept as the JSON
 * text stored (DataHub's MetadataChangeLog carries them as text too); `urn` is null for a time-series deletion that
 * spans every entity of a type; `aspect` is never null except for such rows of unknown aspect (none today).
 */
export interface ChangeRecord {
  seq: number;
  time: number;
  urn: string | null;
  entityType: string;
  aspect: string | null;
  changeType: 'UPSERT' | 'DELETE';
  /** Absent (null) when read without values, and for deletions. */
  valueJson: string | null;
  previousValueJson: string | null;
  systemMetadata: SystemMetadata | null;
  previousSystemMetadata: SystemMetadata | null;
  actor: string;
  /** The aspect's revision after an upsert of a versioned aspect; null otherwise. */
  revision: number | null;
}

/** A registered webhook as stored (JSON lists and the creator as text; the signing secret encrypted). */
export interface WebhookRow {
  id: string;
  url: string;
  /** Entity types and aspect names matched; empty: all. */
  entityTypes: string[];
  aspects: string[];
  secret: string;
  /** The creating actor (JSON: `{ urn, kind }`), whose read privileges every delivery is checked against. */
  createdBy: string;
  createdOn: number;
  description: string | null;
}

/** An event a webhook gave up on after its retries. */
export interface WebhookDeadLetter {
  id: number;
  webhookId: string;
  /** The event's offset in the change log. */
  seq: number;
  at: number;
  attempts: number;
  /** The receiver's last HTTP status; null when no answer came (refused, timed out). */
  status: number | null;
  error: string;
  /** The body that was sent. */
  event: string;
}

/** Updates of the derived indexes, applied by their consumers. */
export interface IndexUpdate {
  search?: { upsert: SearchDoc[]; remove: readonly string[] };
  relationships?: { sources: readonly string[]; edges: Relationship[] };
}

/**
 * When an index update may be applied: `from`/`to` — the consumer has applied the log up to `from` (else someone else
 * moved it: nothing is written) and now up to `to`; `unchangedAfter` — no entry after that offset names any of these
 * urns (a rebuild's batch, computed from what the store held at that offset). Either way the consumer's row is locked
 * first, so updates of one index never interleave. An update of several indexes carries one guard each, and is
 * written only when all hold.
 */
export type IndexGuard = { consumer: string; from: number; to: number }
  | { consumer: string; unchangedAfter: number; urns: readonly string[] };

export interface EntityRow {
  urn: string;
  entityType: string;
}

/** A connection pool's state: connections open, of which idle; callers waiting for one; the pool's limit. */
/** Read replicas as /health and /metrics show them (src/storage/postgres-replicas.ts). */
export interface ReadReplicas {
  status: { name: string; up: boolean; lagBytes: number | null; lagSeconds: number | null }[];
  stats: { replica: number; primaryFallback: number; retriedOnPrimary: number };
}

export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Applies pending schema migrations; safe to call on every start. */
  migrate(): Promise<void>;
  close(): Promise<void>;
  /** The connection pool's use now, where the engine has one (PostgreSQL; SQLite has none): read by the metrics. */
  connections?(): PoolUse;
  /** PostgreSQL with DATABASE_READ_URL: each read replica's state and lag, and where reads went. */
  readReplicas?(): ReadReplicas | undefined;

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
  /** Deletes the named aspects (all versions) of one entity; returns rows removed. Logged as done by `actor`. */
  deleteAspects(urn: string, aspects: readonly string[], actor?: string): Promise<number>;

  // Entities
  /** Which of these urns exist (have any aspect, time-series included). */
  existing(urns: readonly string[]): Promise<Set<string>>;
  listEntities(opts: { entityType?: string; start?: number; count?: number; after?: string }): Promise<EntityRow[]>;
  countEntities(entityType?: string): Promise<number>;
  /** Removes the entity, all its aspects, time-series rows and index entries, in one transaction, logged as done by `actor`. */
  deleteEntity(urn: string, actor?: string): Promise<{ rows: number; timeseriesRows: number }>;

  // Time series
  upsertTimeseries(rows: TimeseriesWrite[]): Promise<void>;
  queryTimeseries(q: TimeseriesQuery): Promise<TimeseriesRecord[]>;
  countTimeseries(entityType: string, aspect: string, beforeMillis?: number): Promise<number>;
  /** Deletes up to batchSize rows older than endTimeMillis; returns how many went. */
  deleteTimeseriesBefore(entityType: string, aspect: string, endTimeMillis: number, batchSize: number, actor?: string): Promise<number>;
  deleteTimeseriesRange(urn: string, entityType: string, aspect: string, startTimeMillis?: number, endTimeMillis?: number, actor?: string): Promise<number>;
  /**
   * Gives the space of deleted rows back. `rewrite` asks for the table to be rebuilt smaller where the engine
   * needs that (PostgreSQL: VACUUM FULL, which locks the table while it copies the remaining rows).
   */
  reclaimTimeseriesSpace(entityType: string, aspect: string, rewrite: boolean): Promise<void>;
  timeseriesSizes(): Promise<TableSize[]>;

  // The change log (appended by every write above, in its transaction) and its durable consumers
  /** Entries after an offset, oldest first, at most `limit`; without values unless asked. */
  changesAfter(after: number, limit: number, withValues?: boolean): Promise<ChangeRecord[]>;
  /** The newest entry's offset (0 when the log has never had one). */
  lastChangeSeq(): Promise<number>;
  /** The oldest entry kept (null when the log is empty): offsets before it were trimmed. */
  firstChangeSeq(): Promise<number | null>;
  /** Every durable consumer and the offset it has applied up to. */
  consumerOffsets(): Promise<Map<string, number>>;
  /** Registers a consumer at an offset unless it exists; returns its stored offset. */
  registerConsumer(name: string, seq: number): Promise<number>;
  /** Moves a consumer from `from` to `to`; false (and nothing changed) when it was not at `from`. */
  moveConsumer(name: string, from: number, to: number): Promise<boolean>;
  removeConsumer(name: string): Promise<void>;

  // Webhooks (migration 10): each is also a consumer named `webhook:<id>`
  /** Stores a webhook and registers its consumer at `seq`, in one transaction. */
  createWebhook(w: WebhookRow, seq: number): Promise<void>;
  listWebhooks(): Promise<WebhookRow[]>;
  /** Deletes a webhook, its dead letters and its consumer; false when there was none. */
  deleteWebhook(id: string): Promise<boolean>;
  /**
   * Records a dead letter and moves the webhook's consumer from `from` to `to`, in one transaction; false (nothing
   * written) when the consumer was not at `from` (another dispatcher moved it).
   */
  addWebhookDeadLetter(d: Omit<WebhookDeadLetter, 'id'>, from: number, to: number): Promise<boolean>;
  /** A webhook's dead letters, oldest first, after an id, at most `limit`. */
  webhookDeadLetters(webhookId: string, after: number, limit: number): Promise<WebhookDeadLetter[]>;
  /**
   * Deletes entries older than a time, never one a consumer has not applied; at most `batchSize`. Returns how many
   * went.
   */
  trimChanges(beforeTime: number, batchSize: number): Promise<number>;
  /** Urns an index holds entries for (search documents, relationship sources) that are not in the store: at most `limit`. */
  indexedWithoutEntity(index: 'search' | 'relationships', limit: number): Promise<string[]>;
  /**
   * Whether another connection (another process on the same SQLite file) committed since the last call; cheap enough
   * for every request. False where other writers are announced instead (PostgreSQL: LISTEN/NOTIFY).
   */
  externalWrites(): boolean;
  /**
   * Applies an index update under its guards (one per index it updates), in one transaction with the consumers'
   * offsets; false, and nothing written, when any guard failed.
   */
  applyIndexUpdate(update: IndexUpdate, guards: readonly IndexGuard[]): Promise<boolean>;

  // Search documents (prepared by the search service; the engine indexes them)
  upsertSearchDocs(docs: SearchDoc[]): Promise<void>;
  deleteSearchDocs(urns: readonly string[]): Promise<void>;
  /**
   * The matching documents' urns in the given order, paged, and how many match in all (exactly). `facetsFollow`: the
   * same query's facets are counted next (the engine may then keep the match set it counted for them).
   */
  searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }): Promise<{ total: number; urns: string[] }>;
  /** Counts per value of each facet over the matching documents, exact; `matches`: how many match, when known. */
  searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]>;
  countSearchDocs(): Promise<number>;

  // Relationships between entities (derived from aspects by the relationship service)
  /** Replaces every outgoing edge of these sources. */
  replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void>;
  /** Edges into (or out of) an entity, of the given types (all when empty), ordered by the other end. */
  relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }): Promise<{ total: number; edges: Relationship[] }>;
  countRelationships(): Promise<number>;
  /** Every edge of the given types out of (OUTGOING) or into (INCOMING) any of these entities, unpaged (lineage walks). */
  relationshipsOf(q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[] }): Promise<Relationship[]>;

  // Settings (signing key and the like)
  /** Returns the stored value, storing `value` first when the key is absent (first writer wins). */
  getOrSetSetting(key: string, value: string): Promise<string>;

  // User activity (recommendations): what each user viewed and searched recently
  /** Records one event, replacing an older one of the same value; then keeps only the `keep` newest of that actor and kind. */
  recordActivity(a: ActivityEvent, keep: number): Promise<void>;
  /** One actor's events of one kind, newest first. */
  recentActivity(actor: string, kind: string, limit: number): Promise<ActivityEvent[]>;
  /** Aspect versions written by one actor (urn and time), newest first, paged. */
  aspectWritesBy(actor: string, start: number, count: number): Promise<{ urn: string; time: number }[]>;
  /** Datasets by the sum of `totalSqlQueries` of their usage statistics since a time, most first (ties by urn), only those above 0. */
  datasetUsageLeaders(sinceMillis: number, limit: number): Promise<{ urn: string; queries: number }[]>;

  // Usage events (the web app's /track): stored one row each, counted for the analytics charts
  recordUsageEvents(events: readonly UsageEventRow[]): Promise<void>;
  /**
   * Events with `at` in [from, to), of the given types (any when absent) and column values, grouped by `groupBy`
   * (a null key where the event has no value), counted as events or as distinct non-null values of `distinct`;
   * groups most first (ties by key), at most `limit`.
   */
  countUsageEvents(q: UsageEventCountQuery): Promise<{ keys: (string | null)[]; count: number }[]>;
  /** Deletes the events older than a time; returns how many went. */
  deleteUsageEventsBefore(time: number): Promise<number>;

  // Rolling back an ingestion run (the runId of the aspects' system metadata)
  /** The latest versions (version 0) whose system metadata names this runId: urn and aspect, by urn and aspect. */
  latestAspectsOfRun(runId: string): Promise<{ urn: string; aspect: string }[]>;
  /**
   * Ingestion runs as DataHub's system-metadata index lists them: each runId the latest versions' system metadata
   * names, with how many latest versions name it and the newest `lastObserved` among them (their write time where
   * they have none); newest first (ties by runId). Without `includeSoft`, a run whose every such version belongs to
   * a soft-deleted entity (status.removed) is left out.
   */
  listRuns(q: { start: number; count: number; includeSoft: boolean }): Promise<RunSummary[]>;
  /**
   * The latest versions a run wrote (their system metadata names it), by urn and aspect, paged; without
   * `includeSoft`, those of soft-deleted entities are left out.
   */
  aspectsOfRun(runId: string, q: { start: number; count: number; includeSoft: boolean }): Promise<RunAspectRow[]>;
  /** Deletes the time-series rows written by this run; returns how many went. */
  deleteTimeseriesOfRun(runId: string, actor?: string): Promise<number>;

  /**
   * Before a bulk load's indexes catch up on `backlog` log entries: when that is most of what the indexes will hold,
   * drops the secondary indexes of the derived tables that entries would update one random page at a time, so that
   * the returned function builds each once, sorted. Null when not worth it. The definitions are kept in the database
   * first: a crash in between leaves them to be built at the next start (migrate).
   */
  deferIndexes?(backlog: number): Promise<(() => Promise<void>) | null>;
  /**
   * A DATABASE_URL by which another thread can read what this store holds (src/storage/index-reads.ts), or null (an
   * in-memory database): where a bulk load's index updates are computed on another core.
   */
  readerUrl?(): string | null;
  // Several servers on one database (issue 16; added for src/changelog/follower.ts and src/services/jobs.ts)
  /**
   * Calls `wake` whenever a writer (any process) announces new change-log entries (with the newest offset it
   * committed, when the signal carries it), and once each time the signal (re)connects, since announcements made
   * while it was down are lost. PostgreSQL: LISTEN on the log's channel over a
   * connection of its own, reconnected with backoff; `onState` hears it go up (true) and down (false, with why).
   * Null when the engine has no such signal (SQLite: followers poll). The returned function stops it.
   */
  watchChanges(wake: (seq?: number) => void, onState?: (listening: boolean, error?: Error) => void): Promise<(() => Promise<void>) | null>;
  /**
   * Runs `fn` unless a process (this one included) is running the job of that name on this database now; true when
   * it ran. PostgreSQL: a session advisory lock held on a connection of its own for the run. If that connection is
   * lost (a database restart), so is the lock: `lost` aborts, `fn` must stop at once (another server may take the job
   * now), and runExclusive rejects with a "database unavailable" error once `fn` returns — the job is run again only
   * under its lock taken anew. SQLite: runs it (`lost` never aborts).
   */
  runExclusive(job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean>;
}

/** The columns of a usage event that queries may filter, group and count on. */
export type UsageColumn = 'type' | 'actor' | 'browser_id' | 'entity_urn' | 'entity_type' | 'query' | 'section' | 'action_type';
export const USAGE_COLUMNS: readonly UsageColumn[] = ['type', 'actor', 'browser_id', 'entity_urn', 'entity_type', 'query', 'section', 'action_type'];

export interface UsageEventRow {
  at: number;
  type: string;
  actor: string | null;
  browser_id: string | null;
  entity_urn: string | null;
  entity_type: string | null;
  query: string | null;
  section: string | null;
  action_type: string | null;
  /** The event as sent (JSON). */
  event: string;
}

export interface UsageEventCountQuery {
  from: number;
  to: number;
  types?: readonly string[];
  where?: Partial<Record<UsageColumn, string>>;
  groupBy: readonly UsageColumn[];
  distinct?: UsageColumn;
  limit?: number;
}

/** One thing a user did: kind 'view' (value: an entity urn) or 'search' (value: the query), at a time in ms. */
export interface ActivityEvent {
  actor: string;
  kind: string;
  value: string;
  time: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Export and backup (src/services/export.ts, src/services/backup.ts). Declared apart, merged into Store above by
// TypeScript's interface merging, so that these reads stay out of the way of changes to the write path.

/** A time-series row with its whole upsert key (timestamp, partition, granularity, message id). */
export interface TimeseriesRow {
  urn: string;
  timestampMillis: number;
  partition: string;
  granularity: string;
  messageId: string;
  value: unknown;
  systemMetadata: SystemMetadata | null;
}

/** Where a page of time-series rows starts: after the row with this key. */
export type TimeseriesRowKey = Pick<TimeseriesRow, 'urn' | 'timestampMillis' | 'partition' | 'granularity' | 'messageId'>;

export interface Store {
  /**
   * Entities after a urn (from the first when absent), of the given types (all when absent), at most `limit`, ordered
   * by urn compared byte by byte — the same order on both engines, so that an export is the same file from either.
   */
  entitiesAfter(q: { after?: string; entityTypes?: readonly string[]; limit: number }): Promise<EntityRow[]>;
  /**
   * Rows of one time-series aspect of these entities (`urns` in the order entitiesAfter gives), ordered by urn then key (timestamp, then partition, granularity
   * and message id compared byte by byte), after `after`, at most `limit`; only those at or after `sinceMillis`
   * (their timestampMillis) when given.
   */
  timeseriesRowsAfter(q: { entityType: string; aspect: string; urns: readonly string[]; after?: TimeseriesRowKey; sinceMillis?: number;
    limit: number }): Promise<TimeseriesRow[]>;
  /**
   * Copies the whole database into a new file while it keeps serving (SQLite's online backup API, in one step: the copy
   * is the database as of one moment). `file` must not exist. PostgreSQL has no such copy here (pg_dump does it):
   * throws.
   */
  backupTo(file: string): Promise<{ pages: number }>;
}
