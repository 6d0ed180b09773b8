import { ASPECT_TABLE, tableFor, URN_TABLE, WEBHOOK_DEAD_LETTER_TABLE, WEBHOOK_TABLE } from '../schema.js';
import { deadLetterOf, webhookOf } from '../webhook-rows.js';
import { readJson, readJsonOrNull, storeJson, type StoredJson } from '../stored-json.js';
import { appendedEntry, CHANGE_COLUMNS, CHANGE_LOG_TABLE, CONSUMER_TABLE, LOG_REF_PREVIOUS, LOG_REF_SERIES, LOG_REF_VALUE, toChange,
  type ChangeLogRow, type ChangeRow } from '../change-log.js';
import type { ChangeRecord, WebhookDeadLetter, WebhookRow } from '../types.js';
import type { SqliteConnection } from './connection.js';
import { urnNumberer } from './urn-numbers.js';

/** The change log and its subscribers on SQLite: appending, reading and trimming the log, consumers' offsets, webhooks. */

/**
 * Statements of every write and every follower's step, their SQL built once. From migration 19 an entry names its urn,
 * entity type, aspect and actor by their numbers (`urn_id`, `type_id`, `aspect_id`, `actor_id`: the urn table of
 * src/storage/sqlite/urn-numbers.ts), its `urn` and `aspect` NULL, `entity_type` and `actor` empty; entries written
 * before keep their text. URN, ASPECT and NAMED read either.
 */
const INSERT_CHANGE = `INSERT INTO ${CHANGE_LOG_TABLE} (${CHANGE_COLUMNS.join(', ')}, refs, urn_id, type_id, aspect_id, actor_id)
  VALUES (${CHANGE_COLUMNS.map(() => '?').join(', ')}, ?, ?, ?, ?, ?)`;
const NAMES = `LEFT JOIN ${URN_TABLE} lu ON lu.id = l.urn_id LEFT JOIN ${URN_TABLE} lt ON lt.id = l.type_id
  LEFT JOIN ${URN_TABLE} lp ON lp.id = l.aspect_id LEFT JOIN ${URN_TABLE} la ON la.id = l.actor_id`;
const URN = 'COALESCE(lu.urn, l.urn)';
const ASPECT = 'COALESCE(lp.urn, l.aspect)';
const NAMED = `${URN} AS urn, COALESCE(lt.urn, l.entity_type) AS entity_type, ${ASPECT} AS aspect, l.change_type, COALESCE(la.urn, l.actor) AS actor`;
const CHANGES_AFTER = `SELECT l.seq, l.at, ${NAMED}, l.revision FROM ${CHANGE_LOG_TABLE} l ${NAMES} WHERE l.seq > ? ORDER BY l.seq LIMIT ?`;
/** An entry's values: its own, or those of the versions it names (migration 16), found by their primary key. */
const version = (alias: string, rev: string) => `LEFT JOIN ${ASPECT_TABLE} ${alias} ON l.refs & ${alias === 'v' ? LOG_REF_VALUE : LOG_REF_PREVIOUS}
  AND ${alias}.urn = ${URN} AND ${alias}.aspect = ${ASPECT} AND ${alias}.version IN (0, ${rev}) AND ${alias}.revision = ${rev}`;
const CHANGES_AFTER_WITH_VALUES = `SELECT l.seq, l.at, ${NAMED}, l.revision, l.refs,
    CASE WHEN l.refs & ${LOG_REF_VALUE} THEN v.metadata ELSE l.value END AS value,
    CASE WHEN l.refs & ${LOG_REF_VALUE} THEN v.systemmetadata ELSE l.system_metadata END AS system_metadata,
    CASE WHEN l.refs & ${LOG_REF_PREVIOUS} THEN p.metadata ELSE l.previous_value END AS previous_value,
    CASE WHEN l.refs & ${LOG_REF_PREVIOUS} THEN p.systemmetadata ELSE l.previous_system_metadata END AS previous_system_metadata,
    v.urn IS NULL AS no_value, p.urn IS NULL AS no_previous
  FROM ${CHANGE_LOG_TABLE} l ${NAMES} ${version('v', 'l.revision')} ${version('p', 'l.revision - 1')} WHERE l.seq > ? ORDER BY l.seq LIMIT ?`;
/** The urns of the entries after an offset (an index update's guard). */
const URNS_AFTER = `SELECT DISTINCT ${URN} FROM ${CHANGE_LOG_TABLE} l LEFT JOIN ${URN_TABLE} lu ON lu.id = l.urn_id WHERE l.seq > ?`;

type StoredChangeLogRow = Omit<ChangeLogRow, 'value' | 'previous_value'> & { value?: StoredJson | null; previous_value?: StoredJson | null;
  refs?: number | null; no_value?: number; no_previous?: number };

/**
 * Inserts log entries; inside the write's transaction, so the offsets follow the order of commits. Values are stored
 * as the aspect table stores them (`known`: the stored form of texts this write already encoded). `entries` gets the
 * entries as a read without values would give them. `number`: the transaction's urn numbers, when the caller appends
 * entries more than once in it (each time a new numberer would look the same type, aspect and actor up again).
 */
export function appendChanges(c: SqliteConnection, rows: readonly ChangeRow[], known?: Map<string, StoredJson>,
  entries?: ChangeRecord[], refs?: readonly number[], number: (urn: string) => number = urnNumberer(c)): number[] {
  if (rows.length === 0) return [];
  const insert = c.stmt(INSERT_CHANGE);
  const encode = (text: string | null) => {
    if (text === null) return null;
    let stored = known?.get(text);
    if (stored === undefined) {
      stored = storeJson(text);
      known?.set(text, stored);
    }
    return stored;
  };
  return rows.map((r, i) => {
    const ref = refs?.[i] ?? 0;
    // What the entry names a version or a time-series row for (LOG_REF_*) is not copied.
    const byValue = (ref & (LOG_REF_VALUE | LOG_REF_SERIES)) !== 0;
    const byPrevious = (ref & LOG_REF_PREVIOUS) !== 0;
    // The row's fields by index, in CHANGE_COLUMNS order (not destructured: that goes through the iterator protocol).
    const seq = Number(insert.run(r[0], null, '', null, r[4], byValue ? null : encode(r[5]), byPrevious ? null : encode(r[6]),
      byValue ? null : r[7], byPrevious ? null : r[8], '', r[10], ref || null, r[1] === null ? null : number(r[1]), number(r[2]),
      r[3] === null ? null : number(r[3]), number(r[9])).lastInsertRowid);
    // Noted for the follower (src/storage/change-log.ts OwnEntries); `entries` gets them when the caller hands them on.
    c.own?.appended(seq);
    entries?.push(appendedEntry(seq, r));
    return seq;
  });
}

export function changesAfter(c: SqliteConnection, after: number, limit: number, withValues = false): ChangeRecord[] {
  const rows = c.stmt(withValues ? CHANGES_AFTER_WITH_VALUES : CHANGES_AFTER).all(after, limit) as StoredChangeLogRow[];
  // Without values (what every follower's step reads), the rows are log rows as they are.
  if (!withValues) return (rows as ChangeLogRow[]).map(toChange);
  return rows.map((r) => {
    if (r.refs === LOG_REF_SERIES) {
      // The triggers of migration 18 keep the row an entry names until its values are copied into it.
      const row = c.stmt(`SELECT event, system_metadata FROM ${tableFor(r.entity_type, r.aspect!)} WHERE log_seq = ?`).get(r.seq) as
        { event: StoredJson; system_metadata: string | null } | undefined;
      if (!row) throw new Error(`change log entry ${r.seq} names a time-series row of ${r.urn} ${r.aspect} that is not stored`);
      return toChange({ ...r, value: readJson(row.event), previous_value: null, system_metadata: row.system_metadata });
    }
    // The triggers of migration 16 keep every version an entry names until its values are copied into it.
    if (r.refs && ((r.refs & LOG_REF_VALUE && r.no_value) || (r.refs & LOG_REF_PREVIOUS && r.no_previous))) {
      throw new Error(`change log entry ${r.seq} names a version of ${r.urn} ${r.aspect} that is not stored`);
    }
    return toChange({ ...r, value: readJsonOrNull(r.value), previous_value: readJsonOrNull(r.previous_value) });
  });
}

export function urnsChangedAfter(c: SqliteConnection, after: number): (string | null)[] {
  return c.stmt(URNS_AFTER).pluck().all(after) as (string | null)[];
}

export function lastChangeSeq(c: SqliteConnection): number {
  // AUTOINCREMENT keeps the highest offset ever given in sqlite_sequence, even when the log has been trimmed empty.
  return (c.stmt(`SELECT seq FROM sqlite_sequence WHERE name = ?`).pluck().get(CHANGE_LOG_TABLE) as number | undefined) ?? 0;
}

export function firstChangeSeq(c: SqliteConnection): number | null {
  return (c.stmt(`SELECT MIN(seq) FROM ${CHANGE_LOG_TABLE}`).pluck().get() as number | null) ?? null;
}

export function consumerOffsets(c: SqliteConnection): Map<string, number> {
  const rows = c.stmt(`SELECT name, seq FROM ${CONSUMER_TABLE} ORDER BY name`).all() as { name: string; seq: number }[];
  return new Map(rows.map((r) => [r.name, r.seq]));
}

export function registerConsumer(c: SqliteConnection, name: string, seq: number): number {
  return c.db.transaction(() => {
    c.stmt(`INSERT OR IGNORE INTO ${CONSUMER_TABLE} (name, seq, updated_on) VALUES (?, ?, ?)`).run(name, seq, Date.now());
    return c.stmt(`SELECT seq FROM ${CONSUMER_TABLE} WHERE name = ?`).pluck().get(name) as number;
  }).immediate();
}

export function moveConsumer(c: SqliteConnection, name: string, from: number, to: number): boolean {
  return c.db.transaction(() => moveConsumerRow(c, name, from, to)).immediate();
}

export function moveConsumerRow(c: SqliteConnection, name: string, from: number, to: number): boolean {
  return c.stmt(`UPDATE ${CONSUMER_TABLE} SET seq = ?, updated_on = ? WHERE name = ? AND seq = ?`).run(to, Date.now(), name, from).changes === 1;
}

export function removeConsumer(c: SqliteConnection, name: string): void {
  c.stmt(`DELETE FROM ${CONSUMER_TABLE} WHERE name = ?`).run(name);
}

/**
 * The oldest entries, up to the first not older than `beforeTime` (offsets follow time, bar a clock moved back: such an
 * entry waits for the ones before it), walked by offset: the log keeps no index by time (migration 19).
 */
export function trimChanges(c: SqliteConnection, beforeTime: number, batchSize: number): number {
  return c.db.transaction(() => {
    const keepFrom = c.stmt(`SELECT MIN(seq) FROM ${CONSUMER_TABLE}`).pluck().get() as number | null;
    const oldest = c.stmt(`SELECT seq, at FROM ${CHANGE_LOG_TABLE} WHERE seq <= ? ORDER BY seq LIMIT ?`)
      .all(keepFrom ?? Number.MAX_SAFE_INTEGER, batchSize) as { seq: number; at: number }[];
    const newer = oldest.findIndex((r) => r.at >= beforeTime);
    const last = oldest[(newer === -1 ? oldest.length : newer) - 1];
    return last === undefined ? 0 : c.stmt(`DELETE FROM ${CHANGE_LOG_TABLE} WHERE seq <= ?`).run(last.seq).changes;
  }).immediate();
}

export function createWebhook(c: SqliteConnection, w: WebhookRow, seq: number): void {
  c.db.transaction(() => {
    c.stmt(`INSERT INTO ${WEBHOOK_TABLE} (id, url, entity_types, aspects, secret, created_by, created_on, description)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(w.id, w.url, JSON.stringify(w.entityTypes), JSON.stringify(w.aspects), w.secret, w.createdBy,
      w.createdOn, w.description);
    c.stmt(`INSERT OR IGNORE INTO ${CONSUMER_TABLE} (name, seq, updated_on) VALUES (?, ?, ?)`).run(`webhook:${w.id}`, seq, Date.now());
  }).immediate();
}

export function listWebhooks(c: SqliteConnection): WebhookRow[] {
  return (c.stmt(`SELECT * FROM ${WEBHOOK_TABLE} ORDER BY created_on, id`).all() as Record<string, any>[]).map(webhookOf);
}

export function deleteWebhook(c: SqliteConnection, id: string): boolean {
  return c.db.transaction(() => {
    c.stmt(`DELETE FROM ${WEBHOOK_DEAD_LETTER_TABLE} WHERE webhook_id = ?`).run(id);
    c.stmt(`DELETE FROM ${CONSUMER_TABLE} WHERE name = ?`).run(`webhook:${id}`);
    return c.stmt(`DELETE FROM ${WEBHOOK_TABLE} WHERE id = ?`).run(id).changes === 1;
  }).immediate();
}

export function addWebhookDeadLetter(c: SqliteConnection, d: Omit<WebhookDeadLetter, 'id'>, from: number, to: number): boolean {
  return c.db.transaction(() => {
    if (!moveConsumerRow(c, `webhook:${d.webhookId}`, from, to)) return false;
    c.stmt(`INSERT INTO ${WEBHOOK_DEAD_LETTER_TABLE} (webhook_id, seq, at, attempts, status, error, event) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(d.webhookId, d.seq, d.at, d.attempts, d.status, d.error, d.event);
    return true;
  }).immediate();
}

export function webhookDeadLetters(c: SqliteConnection, webhookId: string, after: number, limit: number): WebhookDeadLetter[] {
  return (c.stmt(`SELECT * FROM ${WEBHOOK_DEAD_LETTER_TABLE} WHERE webhook_id = ? AND id > ? ORDER BY id LIMIT ?`)
    .all(webhookId, after, limit) as Record<string, any>[]).map(deadLetterOf);
}
