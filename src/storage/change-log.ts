import type { AspectWrite, ChangeRecord, SystemMetadata, TimeseriesWrite } from './types.js';

/**
 * The change log's rows, built once for both engines. Every change to the catalog appends rows in the same
 * transaction as the change itself: a new version of an aspect (with the value it replaced), a time-series row, an
 * aspect or entity deleted (with the values that went), a time-series range truncated. The engines only insert the
 * rows these functions build and read them back through `toChange`.
 */

export const CHANGE_LOG_TABLE = 'almanac_change_log';
/** Each durable consumer of the log (search, relationships, webhooks): the last offset it applied. */
export const CONSUMER_TABLE = 'almanac_consumers';
/** PostgreSQL: the channel a committed change is announced on (the offset follows in the log). */
export const CHANGE_CHANNEL = 'almanac_changes';
/** The actor of changes made by the catalog itself (retention, truncation with no caller named). */
export const SYSTEM_ACTOR = 'urn:li:corpuser:__datahub_system';

/** The columns after `seq`, in insert order. */
export const CHANGE_COLUMNS = ['at', 'urn', 'entity_type', 'aspect', 'change_type', 'value', 'previous_value', 'system_metadata',
  'previous_system_metadata', 'actor', 'revision'] as const;

/** One row as inserted: JSON as text, exactly as the aspect table keeps it (no parse or re-serialisation). */
export type ChangeRow = readonly [
  at: number, urn: string | null, entityType: string, aspect: string | null, changeType: 'UPSERT' | 'DELETE',
  value: string | null, previousValue: string | null, systemMetadata: string | null, previousSystemMetadata: string | null,
  actor: string, revision: number | null,
];

/** The stored latest row of an aspect, as the engines read it under lock. */
export interface StoredLatest {
  metadata: string;
  systemmetadata: string | null;
  revision: number;
}

/** A new version of a versioned aspect; `previous` is the value it replaced (none for the first). */
export function upsertChange(w: AspectWrite, json: string, sys: string | null, previous: StoredLatest | undefined, revision: number,
  at: number): ChangeRow {
  return [at, w.urn, w.entityType, w.aspect, 'UPSERT', json, previous?.metadata ?? null, sys, previous?.systemmetadata ?? null,
    w.actor, revision];
}

/** A time-series row written (or overwritten: time series keep no previous value). */
export function timeseriesChange(r: TimeseriesWrite, json: string, sys: string | null, at: number): ChangeRow {
  return [at, r.urn, r.entityType, r.aspect, 'UPSERT', json, null, sys, null, r.actor ?? SYSTEM_ACTOR, null];
}

/** A versioned aspect deleted (alone, or with its entity): what it held goes with the entry. */
export function deleteChange(urn: string, entityType: string, aspect: string, previous: StoredLatest, actor: string, at: number): ChangeRow {
  return [at, urn, entityType, aspect, 'DELETE', null, previous.metadata, null, previous.systemmetadata, actor, null];
}

/**
 * Time-series rows deleted: one entry per deletion (not per row), the range and the number of rows in its
 * system metadata's properties (string values, as DataHub's SystemMetadata.properties are). `urn` is null when the
 * deletion spans every entity (retention, truncation).
 */
export function truncateChange(t: { urn: string | null; entityType: string; aspect: string; startTimeMillis?: number; endTimeMillis?: number;
  runId?: string; rows: number; actor?: string }, at: number): ChangeRow {
  const properties: Record<string, string> = { rowsDeleted: String(t.rows) };
  if (t.startTimeMillis !== undefined) properties.startTimeMillis = String(t.startTimeMillis);
  if (t.endTimeMillis !== undefined) properties.endTimeMillis = String(t.endTimeMillis);
  if (t.runId !== undefined) properties.runId = t.runId;
  return [at, t.urn, t.entityType, t.aspect, 'DELETE', null, null, JSON.stringify({ properties }), null, t.actor ?? SYSTEM_ACTOR, null];
}

/**
 * The log entries this process's own writes append, as the engines note them: `newest`, the newest offset any of them
 * appended (committed or not: a transaction rolled back leaves it ahead of the log for a while), and the entries of
 * each write transaction that hands them on, told to the listeners right after it commits, in commit order and as a
 * read without values gives them. The change log's follower hears this process's writes from here instead of reading
 * them back (src/changelog/service.ts).
 */
export class OwnEntries {
  private newestSeq = 0;
  private readonly listeners: ((entries: readonly ChangeRecord[]) => void)[] = [];

  get newest(): number {
    return this.newestSeq;
  }

  /** An entry appended at `seq`, not committed yet. */
  appended(seq: number): void {
    if (seq > this.newestSeq) this.newestSeq = seq;
  }

  listen(listener: (entries: readonly ChangeRecord[]) => void): void {
    this.listeners.push(listener);
  }

  /** A transaction's entries, once it has committed (oldest first). A listener that throws fails no write. */
  committed(entries: readonly ChangeRecord[]): void {
    if (entries.length === 0) return;
    for (const l of this.listeners) {
      try {
        l(entries);
      } catch (e) {
        process.emitWarning(`a change-log listener failed on this process's own entries: ${String(e)}`);
      }
    }
  }
}

/** The entry a row became at `seq`, as changesAfter reads it without values. */
export function appendedEntry(seq: number, r: ChangeRow): ChangeRecord {
  return { seq, time: r[0], urn: r[1], entityType: r[2], aspect: r[3], changeType: r[4], valueJson: null, previousValueJson: null,
    systemMetadata: null, previousSystemMetadata: null, actor: r[9], revision: r[10] };
}

/** A row as stored when it names versions for some of its values (`ref`, LOG_REF_*): those values are not copied. */
export function withoutReferenced(r: ChangeRow, ref: number): ChangeRow {
  if (!ref) return r;
  const byValue = (ref & (LOG_REF_VALUE | LOG_REF_SERIES)) !== 0;
  const byPrevious = (ref & LOG_REF_PREVIOUS) !== 0;
  return [r[0], r[1], r[2], r[3], r[4], byValue ? null : r[5], byPrevious ? null : r[6], byValue ? null : r[7], byPrevious ? null : r[8],
    r[9], r[10]];
}

/** A log row as both drivers return it. */
export interface ChangeLogRow {
  seq: number;
  at: number;
  urn: string | null;
  entity_type: string;
  aspect: string | null;
  change_type: string;
  value?: string | null;
  previous_value?: string | null;
  system_metadata?: string | null;
  previous_system_metadata?: string | null;
  actor: string;
  revision: number | null;
}

const parse = (json: string | null | undefined): SystemMetadata | null => (json ? JSON.parse(json) : null);

export function toChange(r: ChangeLogRow): ChangeRecord {
  return {
    seq: Number(r.seq), time: Number(r.at), urn: r.urn, entityType: r.entity_type, aspect: r.aspect,
    changeType: r.change_type as ChangeRecord['changeType'],
    valueJson: r.value ?? null, previousValueJson: r.previous_value ?? null,
    systemMetadata: parse(r.system_metadata), previousSystemMetadata: parse(r.previous_system_metadata),
    actor: r.actor, revision: r.revision === null ? null : Number(r.revision),
  };
}

/** The columns a read selects: everything, or only what says which entity and aspect changed. */
export const changeSelect = (withValues: boolean) => withValues
  ? 'seq, at, urn, entity_type, aspect, change_type, value, previous_value, system_metadata, previous_system_metadata, actor, revision'
  : 'seq, at, urn, entity_type, aspect, change_type, actor, revision';

/**
 * SQLite (migration 16): a log entry of a new version names the stored versions holding its values instead of a copy
 * of them (`refs`, LOG_REF_*), since the aspect table keeps the same bytes (the history up to its cap). Each version
 * row keeps the offset of the entry that wrote it (`log_seq`), and triggers copy the values into the entries naming a
 * version before that version is changed (its system metadata touched) or deleted (the history cap, a deletion),
 * unless a copy of the same version is left (the latest copied to history before its replacement). So an entry with
 * `refs` always finds its values, as they were written. PostgreSQL keeps every entry whole (TOAST compresses the large
 * values; the version rows there are written by one set-based statement that the triggers' reads could not follow).
 */
export const LOG_REF_VALUE = 1;
/** The entry's previous value and system metadata are those of the version before (`revision` - 1). */
export const LOG_REF_PREVIOUS = 2;

/**
 * SQLite (migration 18): the entry of a time-series row written takes its value and system metadata from that row (the
 * table of its entity type and aspect, found by the `log_seq` the row keeps), not from a copy: the table holds the same
 * bytes. Triggers copy them into the entry before the row is overwritten (a later write of the same key) or deleted
 * (a deletion, retention), so such an entry always reads as it was written.
 */
export const LOG_REF_SERIES = 4;

/** SQLite: the index and triggers of one time-series table (column `log_seq` present), each made if missing. */
export function timeseriesLogStatements(table: string): string[] {
  const log = CHANGE_LOG_TABLE;
  const materialize = `UPDATE ${log} SET value = OLD.event, system_metadata = OLD.system_metadata, refs = NULL
    WHERE seq = OLD.log_seq AND refs = ${LOG_REF_SERIES};`;
  return [
    `CREATE INDEX IF NOT EXISTS ${table}_log_seq ON ${table} (log_seq) WHERE log_seq IS NOT NULL`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_log_deleted BEFORE DELETE ON ${table} WHEN OLD.log_seq IS NOT NULL BEGIN ${materialize} END`,
    `CREATE TRIGGER IF NOT EXISTS ${table}_log_updated BEFORE UPDATE ON ${table} WHEN OLD.log_seq IS NOT NULL
      AND (NEW.log_seq IS NOT OLD.log_seq OR NEW.event IS NOT OLD.event OR NEW.system_metadata IS NOT OLD.system_metadata)
      BEGIN ${materialize} END`,
  ];
}

export function changeLogReferenceStatements(d: 'sqlite' | 'postgres', aspectTable: string): string[] {
  if (d !== 'sqlite') return [];
  const log = CHANGE_LOG_TABLE;
  // The entry that wrote OLD takes its values (and the previous ones it names: once OLD is gone nothing leads to it);
  // the entry that replaced OLD (found by the offset the next version keeps) takes its previous values.
  const previousOf = (column: string) => `CASE WHEN refs & ${LOG_REF_PREVIOUS} THEN (SELECT p.${column} FROM ${aspectTable} p
    WHERE p.urn = OLD.urn AND p.aspect = OLD.aspect AND p.version IN (0, OLD.revision - 1) AND p.revision = OLD.revision - 1 LIMIT 1)
    ELSE ${log}.previous_${column === 'metadata' ? 'value' : 'system_metadata'} END`;
  const materialize = `UPDATE ${log} SET value = CASE WHEN refs & ${LOG_REF_VALUE} THEN OLD.metadata ELSE value END,
      system_metadata = CASE WHEN refs & ${LOG_REF_VALUE} THEN OLD.systemmetadata ELSE system_metadata END,
      previous_value = ${previousOf('metadata')}, previous_system_metadata = ${previousOf('systemmetadata')}, refs = NULL
    WHERE seq = OLD.log_seq AND refs IS NOT NULL;
    UPDATE ${log} SET previous_value = OLD.metadata, previous_system_metadata = OLD.systemmetadata, refs = NULLIF(refs & ~${LOG_REF_PREVIOUS}, 0)
    WHERE seq = (SELECT n.log_seq FROM ${aspectTable} n WHERE n.urn = OLD.urn AND n.aspect = OLD.aspect
      AND n.version IN (0, OLD.revision + 1) AND n.revision = OLD.revision + 1 LIMIT 1) AND refs & ${LOG_REF_PREVIOUS};`;
  // The latest replaced after a copy of it went to history: the entries find the copy.
  const copied = `EXISTS (SELECT 1 FROM ${aspectTable} h WHERE OLD.version = 0 AND h.urn = OLD.urn AND h.aspect = OLD.aspect
    AND h.version = OLD.revision AND h.revision = OLD.revision)`;
  return [
    `ALTER TABLE ${aspectTable} ADD COLUMN log_seq INTEGER`,
    `ALTER TABLE ${log} ADD COLUMN refs INTEGER`,
    `CREATE TRIGGER ${log}_refs_deleted BEFORE DELETE ON ${aspectTable} WHEN NOT ${copied} BEGIN ${materialize} END`,
    `CREATE TRIGGER ${log}_refs_updated BEFORE UPDATE ON ${aspectTable}
      WHEN NOT (NEW.revision IS OLD.revision AND NEW.metadata IS OLD.metadata AND NEW.systemmetadata IS OLD.systemmetadata) AND NOT ${copied}
      BEGIN ${materialize} END`,
  ];
}

/**
 * PostgreSQL (migration 31): as SQLite's migration 16, a log entry of a new version names the stored version holding
 * its value and system metadata (`refs` = LOG_REF_VALUE) instead of a copy, each version row keeping the offset of the
 * entry that wrote it (`log_seq`). The previous value stays a copy: a group's versions are written by one statement
 * with data-modifying parts (the latest copied to history, the upsert replacing it, the history trimmed, the log
 * appended), whose triggers fire at its end, each over its own part's rows (transition tables) — the version before
 * an entry's may go in one part (trimmed) and the entry's own in another (replaced), where neither trigger would see
 * both. An entry's own version carries everything its reference needs: the statement-level AFTER triggers copy the
 * values of each row that went or changed (a touch of system metadata, a latest replaced without a copy) into the
 * entry that wrote it, unless a copy of the same version is left (the latest copied to history before its
 * replacement, which they see: AFTER triggers run once the whole statement has). Entries written before keep their
 * copies, and so do time-series entries. And the index by time goes (the trim walks the oldest entries by offset).
 */
export function pgChangeLogReferenceStatements(aspectTable: string): string[] {
  const log = CHANGE_LOG_TABLE;
  const fn = (name: string, from: string) => `CREATE FUNCTION ${log}_refs_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${log} l SET value = o.metadata, system_metadata = o.systemmetadata, refs = NULL
      FROM ${from} AND o.log_seq = l.seq AND l.revision = o.revision AND l.refs = ${LOG_REF_VALUE}
        AND NOT EXISTS (SELECT 1 FROM ${aspectTable} h WHERE o.version = 0 AND h.urn = o.urn AND h.aspect = o.aspect
          AND h.version = o.revision AND h.revision = o.revision);
      RETURN NULL;
    END $$`;
  const trigger = (name: string, event: string, tables: string) => `CREATE TRIGGER ${log}_refs_${name} AFTER ${event} ON ${aspectTable}
    REFERENCING ${tables} FOR EACH STATEMENT EXECUTE FUNCTION ${log}_refs_${name}()`;
  return [
    `ALTER TABLE ${aspectTable} ADD COLUMN log_seq BIGINT`,
    `ALTER TABLE ${log} ADD COLUMN refs SMALLINT`,
    // The trim walks the oldest entries by offset, as SQLite's since its migration 19 (src/storage/postgres/change-log.ts).
    `DROP INDEX IF EXISTS ${log}_at`,
    fn('deleted', `gone o WHERE o.log_seq IS NOT NULL`),
    // A row updated with nothing its entry reads changed (its revision, values and writer's entry) is left alone.
    fn('updated', `gone o JOIN added n USING (urn, aspect, version) WHERE o.log_seq IS NOT NULL AND (n.revision IS DISTINCT FROM o.revision
        OR n.log_seq IS DISTINCT FROM o.log_seq OR n.systemmetadata IS DISTINCT FROM o.systemmetadata OR n.metadata IS DISTINCT FROM o.metadata)`),
    trigger('deleted', 'DELETE', 'OLD TABLE AS gone'),
    trigger('updated', 'UPDATE', 'OLD TABLE AS gone NEW TABLE AS added'),
  ];
}

/**
 * SQLite (migration 19): an entry's urn, entity type, aspect and actor by their numbers in the urn table
 * (src/storage/sqlite/urn-numbers.ts), about 115 of its 160 bytes; entries written before keep their text (and go with
 * the log's retention). The index by time goes too: the trim walks the oldest entries by offset.
 */
export function changeLogNumberStatements(): string[] {
  return [
    `ALTER TABLE ${CHANGE_LOG_TABLE} ADD COLUMN urn_id INTEGER`,
    `ALTER TABLE ${CHANGE_LOG_TABLE} ADD COLUMN type_id INTEGER`,
    `ALTER TABLE ${CHANGE_LOG_TABLE} ADD COLUMN aspect_id INTEGER`,
    `ALTER TABLE ${CHANGE_LOG_TABLE} ADD COLUMN actor_id INTEGER`,
    `DROP INDEX ${CHANGE_LOG_TABLE}_at`,
  ];
}

/** The statements of migration 9 (the change log, its consumers, aspect revisions), in one dialect. */
export function changeLogStatements(d: 'sqlite' | 'postgres', aspectTable: string, now: number): string[] {
  const bigint = d === 'sqlite' ? 'INTEGER' : 'BIGINT';
  return [
    `CREATE TABLE ${CHANGE_LOG_TABLE} (seq ${d === 'sqlite' ? 'INTEGER PRIMARY KEY AUTOINCREMENT' : 'BIGSERIAL PRIMARY KEY'},
       at ${bigint} NOT NULL, urn TEXT, entity_type TEXT NOT NULL, aspect TEXT, change_type TEXT NOT NULL, value TEXT,
       previous_value TEXT, system_metadata TEXT, previous_system_metadata TEXT, actor TEXT NOT NULL, revision ${bigint})`,
    `CREATE INDEX ${CHANGE_LOG_TABLE}_at ON ${CHANGE_LOG_TABLE} (at)`,
    `CREATE TABLE ${CONSUMER_TABLE} (name TEXT PRIMARY KEY, seq ${bigint} NOT NULL, updated_on ${bigint} NOT NULL)`,
    // Every stored version gets a revision: how many versions the aspect has had when it was written (1 for the
    // first). A history row's revision is its version number; the latest's is one above the newest history row.
    `ALTER TABLE ${aspectTable} ADD COLUMN revision ${bigint}`,
    `UPDATE ${aspectTable} SET revision = version WHERE version > 0`,
    `UPDATE ${aspectTable} SET revision = 1 + (SELECT MAX(h.version) FROM ${aspectTable} h
       WHERE h.urn = ${aspectTable}.urn AND h.aspect = ${aspectTable}.aspect) WHERE version = 0`,
    // The indexes existing now are up to date with the aspects: their consumers start at the log's (empty) head.
    `INSERT INTO ${CONSUMER_TABLE} (name, seq, updated_on) VALUES ('search', 0, ${now}), ('relationships', 0, ${now})`,
  ];
}
