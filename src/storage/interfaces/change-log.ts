import type { Relationship } from './relationships.js';
import type { SearchDoc } from './search.js';
import type { SystemMetadata } from './system-metadata.js';

/** The change log, its durable consumers (the derived indexes, webhooks) and their updates: records and the store's part. */

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

export interface ChangeLogStore {
  // The change log (appended by every write of the store, in its transaction) and its durable consumers
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
  /**
   * Runs an index step while no other process on the database runs one (waiting for it), given the consumers' offsets
   * as stored once it may run (consumerOffsets). PostgreSQL only: elsewhere the guards suffice.
   */
  serialIndexStep?<T>(fn: (stored: Map<string, number>) => Promise<T>): Promise<T>;
  /**
   * Before a bulk load's indexes catch up on `backlog` log entries: when that is most of what the indexes will hold,
   * drops the secondary indexes of the derived tables that entries would update one random page at a time, so that
   * the returned function builds each once, sorted. Null when not worth it. The definitions are kept in the database
   * first: a crash in between leaves them to be built at the next start (migrate).
   */
  deferIndexes?(backlog: number): Promise<(() => Promise<void>) | null>;
  /**
   * For a bulk load's catch-up (SQLite): a larger page cache, the returned function setting the usual one back. The
   * pages a catch-up updates at random outgrow the usual cache as the catalog grows, each page missed read back from
   * the OS.
   */
  bulkPageCache?(): () => void;
  /**
   * A DATABASE_URL by which another thread can read what this store holds (src/storage/index-reads.ts), or null (an
   * in-memory database): where a bulk load's index updates are computed on another core.
   */
  readerUrl?(): string | null;
  /**
   * This process's own log entries: `listener` hears the entries (without values) of this store's write transactions
   * right after each commits, in commit order (SQLite: its aspect writes' group commits; PostgreSQL: each transaction
   * whose entries it knows). Entries not handed on are read from the log as those of other processes are.
   */
  onOwnEntries?(listener: (entries: readonly ChangeRecord[]) => void): void;
  /** The newest offset any write of this store appended (committed or not); 0 before the first. */
  newestOwnEntry?(): number;
  // Several servers on one database (issue 16; added for src/changelog/follower.ts and src/services/jobs.ts)
  /**
   * Calls `wake` whenever a writer (any process) announces new change-log entries (with the newest offset it
   * committed, when the signal carries it, and the entries themselves without values when they fit in it), and once
   * each time the signal (re)connects, since announcements made while it was down are lost. PostgreSQL: LISTEN on the
   * log's channel over a
   * connection of its own, reconnected with backoff; `onState` hears it go up (true) and down (false, with why).
   * Null when the engine has no such signal (SQLite: followers poll). The returned function stops it.
   */
  watchChanges(wake: (seq?: number, entries?: readonly ChangeRecord[]) => void, onState?: (listening: boolean, error?: Error) => void): Promise<(() => Promise<void>) | null>;
}
