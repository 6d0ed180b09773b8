import { WEBHOOK_DEAD_LETTER_TABLE, WEBHOOK_TABLE } from '../schema.js';
import { deadLetterOf, webhookOf } from '../webhook-rows.js';
import { readJsonOrNull, storeJson, type StoredJson } from '../stored-json.js';
import { appendedEntry, CHANGE_COLUMNS, CHANGE_LOG_TABLE, CONSUMER_TABLE, changeSelect, toChange, type ChangeLogRow, type ChangeRow } from '../change-log.js';
import type { ChangeRecord, WebhookDeadLetter, WebhookRow } from '../types.js';
import type { SqliteConnection } from './connection.js';

/** The change log and its subscribers on SQLite: appending, reading and trimming the log, consumers' offsets, webhooks. */

/** Statements of every write and every follower's step, their SQL built once. */
const INSERT_CHANGE = `INSERT INTO ${CHANGE_LOG_TABLE} (${CHANGE_COLUMNS.join(', ')}) VALUES (${CHANGE_COLUMNS.map(() => '?').join(', ')})`;
const CHANGES_AFTER = `SELECT ${changeSelect(false)} FROM ${CHANGE_LOG_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?`;
const CHANGES_AFTER_WITH_VALUES = `SELECT ${changeSelect(true)} FROM ${CHANGE_LOG_TABLE} WHERE seq > ? ORDER BY seq LIMIT ?`;

type StoredChangeLogRow = Omit<ChangeLogRow, 'value' | 'previous_value'> & { value?: StoredJson | null; previous_value?: StoredJson | null };

/**
 * Inserts log entries; inside the write's transaction, so the offsets follow the order of commits. Values are stored
 * as the aspect table stores them (`known`: the stored form of texts this write already encoded). `entries` gets the
 * entries as a read without values would give them.
 */
export function appendChanges(c: SqliteConnection, rows: readonly ChangeRow[], known?: ReadonlyMap<string, StoredJson>,
  entries?: ChangeRecord[]): void {
  if (rows.length === 0) return;
  const insert = c.stmt(INSERT_CHANGE);
  const encode = (text: string | null) => (text === null ? null : known?.get(text) ?? storeJson(text));
  for (const r of rows) {
    const [at, urn, entityType, aspect, changeType, value, previous, ...rest] = r;
    const seq = Number(insert.run(at, urn, entityType, aspect, changeType, encode(value), encode(previous), ...rest).lastInsertRowid);
    // Noted for the follower (src/storage/change-log.ts OwnEntries); `entries` gets them when the caller hands them on.
    c.own?.appended(seq);
    entries?.push(appendedEntry(seq, r));
  }
}

export function changesAfter(c: SqliteConnection, after: number, limit: number, withValues = false): ChangeRecord[] {
  const rows = c.stmt(withValues ? CHANGES_AFTER_WITH_VALUES : CHANGES_AFTER).all(after, limit) as StoredChangeLogRow[];
  // Without values (what every follower's step reads), the rows are log rows as they are.
  if (!withValues) return (rows as ChangeLogRow[]).map(toChange);
  return rows.map((r) => toChange({ ...r, value: readJsonOrNull(r.value), previous_value: readJsonOrNull(r.previous_value) }));
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

export function trimChanges(c: SqliteConnection, beforeTime: number, batchSize: number): number {
  return c.db.transaction(() => {
    const keepFrom = c.stmt(`SELECT MIN(seq) FROM ${CONSUMER_TABLE}`).pluck().get() as number | null;
    return c.stmt(`DELETE FROM ${CHANGE_LOG_TABLE} WHERE seq IN (SELECT seq FROM ${CHANGE_LOG_TABLE}
      WHERE at < ? AND seq <= ? ORDER BY seq LIMIT ?)`).run(beforeTime, keepFrom ?? Number.MAX_SAFE_INTEGER, batchSize).changes;
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
