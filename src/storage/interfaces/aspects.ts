import type { SystemMetadata } from './system-metadata.js';
import type { TimeseriesWrite } from './timeseries.js';

/** Versioned aspects, the entities they make, and the ingestion runs that wrote them: records and the store's part. */

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
  /**
   * JSON.stringify(value), when the caller has it already (a value decoded in a worker thread, which made the text
   * there): stored as it is, not made again.
   */
  json?: string;
  systemMetadata?: SystemMetadata | null;
  actor: string;
  /** Write time in ms; defaults to now. */
  time?: number;
  /**
   * Written only if the entity does not exist when the write runs (no row in the entity table), decided in its
   * transaction: the key aspect DataHub writes for an entity it has not seen. Left out of the results when not written.
   */
  onlyNewEntity?: boolean;
}

/** The JSON text of a write's value (an aspect or a time-series event): the caller's own when it made it, else made now. */
export function valueJsonOf(w: { value: unknown; json?: string }): string {
  return w.json ?? JSON.stringify(w.value);
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

export interface EntityRow {
  urn: string;
  entityType: string;
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

export interface AspectStore {
  // Versioned aspects
  /** Writes all aspects (and time-series rows, when given) in one transaction: every one or none. */
  writeAspects(writes: AspectWrite[], historyCap: number, timeseries?: TimeseriesWrite[]): Promise<AspectWriteResult[]>;
  /**
   * Read-modify-write with no lost update. In one transaction: locks the given aspects against every other writer
   * of them (absent aspects too, so concurrent creators queue as well), reads their latest values, calls `modify`
   * with them and writes what it returns, versioned exactly as writeAspects does. Concurrent updates of one aspect
   * thus run one after another, each seeing the one before. `modify` is synchronous (better-sqlite3 transactions
   * are), does no I/O, and may write only the aspects it was given; when it throws, nothing is written and the
   * error is rethrown. `mustExist`: entities that must exist when the update runs (checked in its transaction, before
   * `modify` is called): otherwise it fails with NOT_FOUND and nothing is written.
   */
  updateAspects(keys: readonly AspectKey[], modify: (current: LatestAspects) => AspectUpdate, historyCap: number,
    mustExist?: readonly string[]): Promise<AspectWriteResult[]>;
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
}
