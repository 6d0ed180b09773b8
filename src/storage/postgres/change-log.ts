import pg from 'pg';
import { ASPECT_TABLE, WEBHOOK_DEAD_LETTER_TABLE, WEBHOOK_TABLE } from '../schema.js';
import { deadLetterOf, webhookOf } from '../webhook-rows.js';
import { CHANGE_CHANNEL, CHANGE_COLUMNS, CHANGE_LOG_TABLE, CONSUMER_TABLE, changeSelect, LOG_REF_PREVIOUS, LOG_REF_VALUE, toChange, withoutReferenced,
  type ChangeLogRow, type ChangeRow, type OwnEntries } from '../change-log.js';
import type { ChangeRecord, WebhookDeadLetter, WebhookRow } from '../types.js';
import { prepared, unavailableOr, type PostgresConnection } from './connection.js';
import { COPY_FROM_ROWS, copyRows } from './copy.js';

/**
 * The change log and its subscribers on PostgreSQL: appending (in the writer's statement), reading and trimming the
 * log, consumers' offsets, the followers' wake-up signal (LISTEN/NOTIFY), webhooks.
 */

/**
 * Held from a writer's first log entry to its commit: offsets are drawn from the sequence under it, so they follow
 * the order in which transactions commit, and a reader that has seen offset N has seen every entry before N.
 */
const CHANGE_LOG_LOCK = 727_100_002;

/** Held (session lock) by the process running an index step: see serialIndexStep. */
const INDEX_STEP_LOCK = 727_100_003;

/** Reconnection delays of the LISTEN connection (watchChanges), doubling from the first to the last. */
const WATCH_BACKOFF_MIN = 100;
const WATCH_BACKOFF_MAX = 10_000;

/**
 * Data-modifying parts (`name AS (...)`, parameters added through `$` to `params`) as one statement, with `log`'s
 * entries appended to the change log and announced to followers (NOTIFY, delivered on commit) when there are any.
 * `refs`: what each entry names rather than copies (LOG_REF_*; migration 31), the versions written with the offsets of
 * their entries — read from the part `logged` (the entries appended, listed first so that the parts can read it), or
 * drawn ahead (`seqs`, drawOffsets: the entries then go by COPY with them).
 */
export async function runTogether(c: pg.PoolClient, parts: string[], params: unknown[], $: (v: unknown) => string,
  log: readonly ChangeRow[], refs?: readonly number[], seqs?: readonly number[]): Promise<void> {
  if (seqs || log.length >= COPY_FROM_ROWS) {
    if (refs && !seqs) throw new Error('entries by reference sent by COPY need their offsets drawn ahead');
    if (parts.length) await c.query(prepared(`WITH ${parts.join(',\n')} SELECT 1`, params));
    await copyChanges(c, log, refs, seqs);
  } else if (log.length) {
    parts.unshift(`logged AS (${logInsert(log, $, refs)})`);
    // The announcement carries the entries (without values) when they fit, so that followers need not read them.
    const text = `WITH ${parts.join(',\n')} SELECT pg_notify(${$(CHANGE_CHANNEL)},
      CASE WHEN octet_length(x.entries) <= ${MAX_ANNOUNCED_BYTES} THEN x.entries ELSE x.last::text END), x.last, x.entries
      FROM (SELECT MAX(seq) AS last, json_agg(json_build_array(${ANNOUNCED_COLUMNS}) ORDER BY seq)
        FILTER (WHERE ${$(log.length <= MAX_ANNOUNCED_ENTRIES)}::boolean)::text AS entries FROM logged) x`;
    const { rows } = commitsWithLog.delete(c) ? await queryThenCommit(c, text, params) : await c.query(prepared(text, params));
    noteOwnEntries(c, rows[0] as { last: string | number | null; entries: string | null } | undefined, log.length);
  } else if (parts.length) {
    await c.query(prepared(`WITH ${parts.join(',\n')} SELECT 1`, params));
  }
}

/**
 * Many entries (a bulk load's batch): sent by COPY (copy.ts) under the log's lock, taken first and held to the commit,
 * then announced by their newest offset (too many to carry), the COMMIT sent with that when it is the transaction's
 * last statement. The lock is held over one round trip more than runTogether's single statement holds it.
 */
async function copyChanges(c: pg.PoolClient, log: readonly ChangeRow[], refs?: readonly number[], seqs?: readonly number[]): Promise<void> {
  if (seqs) {
    // Drawn under the lock, held since (drawOffsets).
    if (seqs.length !== log.length) throw new Error(`${seqs.length} offsets drawn for ${log.length} entries`);
    await copyRows(c, CHANGE_LOG_TABLE, ['seq', ...CHANGE_COLUMNS, 'refs'], log.map((r, i) => {
      const ref = refs?.[i] ?? 0;
      return [seqs[i]!, ...withoutReferenced(r, ref), ref || null];
    }));
  } else {
    await c.query('SELECT pg_advisory_xact_lock($1)', [CHANGE_LOG_LOCK]);
    await copyRows(c, CHANGE_LOG_TABLE, CHANGE_COLUMNS, log);
  }
  // The offsets this session drew last (under the lock, so no other writer's came between).
  const text = `SELECT pg_notify($1, x.last::text), x.last FROM (SELECT currval(pg_get_serial_sequence('${CHANGE_LOG_TABLE}', 'seq')) AS last) x`;
  const { rows } = commitsWithLog.delete(c) ? await queryThenCommit(c, text, [CHANGE_CHANNEL]) : await c.query(text, [CHANGE_CHANNEL]);
  noteOwnEntries(c, { last: rows[0].last as number, entries: null }, log.length);
}

/**
 * Transactions whose next log append is their last statement (a group commit's last run): the append and the COMMIT
 * are sent together, in one round trip, rather than the COMMIT after the append's answer. One round trip fewer per
 * write transaction, and the log's lock (held from the append to the commit) is no longer held across a round trip
 * back to this process: with several servers, the other servers' writers wait on it for that long.
 */
export const commitsWithLog = new WeakSet<pg.PoolClient>();
/** Transactions committed by their last statement's round trip (queryThenCommit): PostgresStore.tx sends no COMMIT. */
export const committedWithLog = new WeakSet<pg.PoolClient>();

/**
 * A statement and COMMIT pipelined (the driver's pipeline mode, for these two only). A statement that fails leaves the
 * transaction aborted, and the COMMIT then only ends it (PostgreSQL answers ROLLBACK): its error is the one thrown.
 */
async function queryThenCommit(c: pg.PoolClient, text: string, params: unknown[]): Promise<pg.QueryResult> {
  const client = c as pg.PoolClient & { pipeline: boolean };
  // On until both are answered: the driver hands the second its answers only in pipeline mode.
  client.pipeline = true;
  let result: PromiseSettledResult<pg.QueryResult>;
  let committed: PromiseSettledResult<pg.QueryResult>;
  try {
    [result, committed] = await Promise.allSettled([c.query(prepared(text, params)), c.query('COMMIT')]);
  } finally {
    client.pipeline = false;
  }
  if (result.status === 'rejected') throw result.reason;
  if (committed.status === 'rejected') throw committed.reason;
  if (committed.value.command !== 'COMMIT') throw new Error(`the transaction ended with ${committed.value.command}, not COMMIT`);
  committedWithLog.add(c);
  return result.value;
}

/**
 * The entries this process's transactions append, by the connection of each transaction (PostgresStore.tx registers
 * it): the newest offset is noted at once, and the entries are handed to the store's follower once the transaction
 * commits, unless some of them are not known here (a batch of more than MAX_ANNOUNCED_ENTRIES: then the log is read).
 */
export const ownEntriesOf = new WeakMap<pg.PoolClient, { own: OwnEntries; entries: ChangeRecord[]; complete: boolean }>();

function noteOwnEntries(c: pg.PoolClient, row: { last: string | number | null; entries: string | null } | undefined, count: number): void {
  const tx = ownEntriesOf.get(c);
  if (!tx || !row || row.last === null) return;
  tx.own.appended(Number(row.last));
  const { entries } = announcedEntries(row.entries ?? undefined);
  if (entries && entries.length === count) tx.entries.push(...entries);
  else tx.complete = false;
}

/**
 * What an announcement (NOTIFY) of committed entries says: the entries themselves, without values, as a JSON array
 * of [seq, at, urn, entity_type, aspect, change_type, actor, revision] when there are few enough to fit PostgreSQL's
 * payload limit (8000 bytes); otherwise the newest offset alone, and the followers read the log.
 */
const ANNOUNCED_COLUMNS = 'seq, at, urn, entity_type, aspect, change_type, actor, revision';
const MAX_ANNOUNCED_ENTRIES = 32;
const MAX_ANNOUNCED_BYTES = 7900;

/** The entries an announcement carries (none when it names only the newest offset), oldest first. */
export function announcedEntries(payload: string | undefined): { last?: number; entries?: ChangeRecord[] } {
  if (!payload) return {};
  if (/^\d+$/.test(payload)) return { last: Number(payload) };
  if (!payload.startsWith('[')) return {};
  try {
    const rows = JSON.parse(payload) as [number, number, string | null, string, string | null, string, string, number | null][];
    const entries = rows.map(([seq, at, urn, entity_type, aspect, change_type, actor, revision]) =>
      toChange({ seq, at, urn, entity_type, aspect, change_type, actor, revision }));
    return entries.length ? { last: entries[entries.length - 1]!.seq, entries } : {};
  } catch {
    return {};
  }
}

/**
 * The log's INSERT for some entries, returning their offsets; `$` adds a parameter. In one round trip with what it
 * logs: the log's lock is an InitPlan of the row filter, so it is taken before the first row draws its offset, and it
 * is held to the commit (offsets are committed in order).
 */
function logInsert(rows: readonly ChangeRow[], $: (v: unknown) => string, refs?: readonly number[]): string {
  const types = ['bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint'];
  const stored = refs ? rows.map((r, i) => withoutReferenced(r, refs[i] ?? 0)) : rows;
  const columns = CHANGE_COLUMNS.map((_, i) => `${$(stored.map((r) => r[i]))}::${types[i]}[]`);
  if (refs) columns.push(`${$(rows.map((_, i) => refs[i] || null))}::smallint[]`);
  return `INSERT INTO ${CHANGE_LOG_TABLE} (${CHANGE_COLUMNS.join(', ')}${refs ? ', refs' : ''}) SELECT * FROM UNNEST(${columns.join(', ')})
    WHERE (SELECT pg_advisory_xact_lock(${$(CHANGE_LOG_LOCK)}) IS NOT NULL) RETURNING ${ANNOUNCED_COLUMNS}`;
}

/**
 * Offsets for `n` entries, drawn ahead under the log's lock (held to the commit, as an append holds it), in order: a
 * bulk batch's versions are written with the offsets of their entries (by COPY) before the entries are.
 */
export async function drawOffsets(c: pg.PoolClient, n: number): Promise<number[]> {
  const { rows } = await c.query(`SELECT nextval(pg_get_serial_sequence('${CHANGE_LOG_TABLE}', 'seq')) AS seq FROM generate_series(1, $2)
    WHERE (SELECT pg_advisory_xact_lock($1) IS NOT NULL)`, [CHANGE_LOG_LOCK, n]);
  return rows.map((r) => Number(r.seq)).sort((a, b) => a - b);
}

/**
 * Inserts log entries as the transaction's last step, under the log's lock (held to commit), and announces them
 * to the servers that follow the log (NOTIFY is delivered on commit).
 */
export async function appendChanges(c: pg.PoolClient, rows: readonly ChangeRow[]): Promise<void> {
  const params: unknown[] = [];
  await runTogether(c, [], params, (v) => { params.push(v); return `$${params.length}`; }, rows);
}

/** An entry's values: its own, or those of the versions it names (migration 31), found by their primary key. */
const version = (alias: string, ref: number, rev: string) => `LEFT JOIN LATERAL (SELECT a.metadata, a.systemmetadata FROM ${ASPECT_TABLE} a
  WHERE l.refs & ${ref} <> 0 AND a.urn = l.urn AND a.aspect = l.aspect AND a.version IN (0, ${rev}) AND a.revision = ${rev} LIMIT 1) ${alias} ON true`;
const CHANGES_AFTER_WITH_VALUES = `SELECT l.seq, l.at, l.urn, l.entity_type, l.aspect, l.change_type, l.actor, l.revision,
    CASE WHEN l.refs & ${LOG_REF_VALUE} <> 0 THEN v.metadata ELSE l.value END AS value,
    CASE WHEN l.refs & ${LOG_REF_VALUE} <> 0 THEN v.systemmetadata ELSE l.system_metadata END AS system_metadata,
    CASE WHEN l.refs & ${LOG_REF_PREVIOUS} <> 0 THEN p.metadata ELSE l.previous_value END AS previous_value,
    CASE WHEN l.refs & ${LOG_REF_PREVIOUS} <> 0 THEN p.systemmetadata ELSE l.previous_system_metadata END AS previous_system_metadata,
    (l.refs & ${LOG_REF_VALUE} <> 0 AND v.metadata IS NULL) OR (l.refs & ${LOG_REF_PREVIOUS} <> 0 AND p.metadata IS NULL) AS missing
  FROM ${CHANGE_LOG_TABLE} l ${version('v', LOG_REF_VALUE, 'l.revision')} ${version('p', LOG_REF_PREVIOUS, 'l.revision - 1')}
  WHERE l.seq > $1 ORDER BY l.seq LIMIT $2`;

export async function changesAfter(db: PostgresConnection, after: number, limit: number, withValues = false): Promise<ChangeRecord[]> {
  // With values, prepared: the versions' lookups made its planning most of a small read's time.
  const { rows } = await db.query(withValues ? prepared(CHANGES_AFTER_WITH_VALUES, [after, limit])
    : { text: `SELECT ${changeSelect(false)} FROM ${CHANGE_LOG_TABLE} WHERE seq > $1 ORDER BY seq LIMIT $2`, values: [after, limit] });
  // Whoever applies these entries (dropping caches) must not then read a replica that has not replayed them.
  if (rows.length && db.replicas) await db.replicas.observePrimary().catch((e) => { throw unavailableOr(e); });
  // The triggers of migration 31 keep every version an entry names until its values are copied into it.
  const missing = withValues ? rows.find((r) => r.missing) : undefined;
  if (missing) throw new Error(`change log entry ${missing.seq} names a version of ${missing.urn} ${missing.aspect} that is not stored`);
  return (rows as ChangeLogRow[]).map(toChange);
}

export async function lastChangeSeq(db: PostgresConnection): Promise<number> {
  // Offsets are drawn under the log's lock and committed in order: the newest row is the head. A log trimmed empty
  // falls back on the consumers' offsets, which only ever name committed entries (the sequence may be ahead of
  // every commit: an open transaction holds its next value).
  const { rows } = await db.query(`SELECT GREATEST((SELECT COALESCE(MAX(seq), 0) FROM ${CHANGE_LOG_TABLE}),
    (SELECT COALESCE(MAX(seq), 0) FROM ${CONSUMER_TABLE})) AS seq`);
  return Number(rows[0].seq);
}

export async function firstChangeSeq(db: PostgresConnection): Promise<number | null> {
  const { rows } = await db.query(`SELECT MIN(seq) AS seq FROM ${CHANGE_LOG_TABLE}`);
  return rows[0].seq === null ? null : Number(rows[0].seq);
}

export async function consumerOffsets(db: PostgresConnection): Promise<Map<string, number>> {
  const { rows } = await db.query(`SELECT name, seq FROM ${CONSUMER_TABLE} ORDER BY name COLLATE "C"`);
  return new Map(rows.map((r) => [r.name as string, Number(r.seq)]));
}

export async function registerConsumer(db: PostgresConnection, name: string, seq: number): Promise<number> {
  const { rows } = await db.query(`WITH ins AS (INSERT INTO ${CONSUMER_TABLE} (name, seq, updated_on) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO NOTHING RETURNING seq) SELECT seq FROM ins UNION ALL SELECT seq FROM ${CONSUMER_TABLE} WHERE name = $1 LIMIT 1`,
  [name, seq, Date.now()]);
  return Number(rows[0].seq);
}

export async function moveConsumer(db: PostgresConnection, name: string, from: number, to: number): Promise<boolean> {
  const r = await db.query(`UPDATE ${CONSUMER_TABLE} SET seq = $1, updated_on = $2 WHERE name = $3 AND seq = $4`, [to, Date.now(), name, from]);
  return r.rowCount === 1;
}

export async function removeConsumer(db: PostgresConnection, name: string): Promise<void> {
  await db.query(`DELETE FROM ${CONSUMER_TABLE} WHERE name = $1`, [name]);
}

/**
 * The oldest entries, up to the first not older than `beforeTime` (offsets follow time, bar a clock moved back: such an
 * entry waits for the ones before it), walked by offset, as SQLite's: the log keeps no index by time (migration 31).
 */
export async function trimChanges(db: PostgresConnection, beforeTime: number, batchSize: number): Promise<number> {
  const r = await db.query(`WITH oldest AS (SELECT seq, at FROM ${CHANGE_LOG_TABLE}
      WHERE seq <= (SELECT COALESCE(MIN(seq), ${Number.MAX_SAFE_INTEGER}) FROM ${CONSUMER_TABLE}) ORDER BY seq LIMIT $2)
    DELETE FROM ${CHANGE_LOG_TABLE} WHERE seq <= COALESCE((SELECT MIN(seq) - 1 FROM oldest WHERE at >= $1), (SELECT MAX(seq) FROM oldest))`,
  [beforeTime, batchSize]);
  return r.rowCount ?? 0;
}

/**
 * An index step on one server at a time. Steps are guarded (compare-and-set on the consumers' offsets), so two at once
 * are never wrong, but the loser throws its computed update away and computes again: with N servers writing, much of
 * the indexing work would be done several times over. Waiting for the lock instead costs a connection of the pool
 * held meanwhile (one per process: a process runs its steps one after the other), and the waiter then starts from the
 * offsets as the other step left them, usually past what it had to apply.
 */
export async function serialIndexStep<T>(db: PostgresConnection, fn: (stored: Map<string, number>) => Promise<T>): Promise<T> {
  // The step's own statements need a connection besides the lock's: with a pool of one, the guards alone.
  if ((db.pool.options.max ?? 10) < 2) return fn(await consumerOffsets(db));
  const c = await db.connect().catch((e) => { throw unavailableOr(e); });
  const offsets = `(SELECT COALESCE(json_object_agg(name, seq), '{}') FROM ${CONSUMER_TABLE}) AS offsets`;
  let broken: Error | undefined;
  try {
    let stored: Record<string, string>;
    try {
      // Free at once (the usual case): the offsets come with the lock, in one round trip.
      const first = (await c.query(`SELECT pg_try_advisory_lock($1) AS got, ${offsets}`, [INDEX_STEP_LOCK])).rows[0];
      stored = first.offsets;
      if (!first.got) {
        await c.query('SELECT pg_advisory_lock($1)', [INDEX_STEP_LOCK]);
        stored = (await c.query(`SELECT ${offsets}`)).rows[0].offsets;
      }
    } catch (e) {
      broken = e as Error;
      throw unavailableOr(e);
    }
    try {
      return await fn(new Map(Object.entries(stored).map(([name, seq]) => [name, Number(seq)])));
    } finally {
      await c.query('SELECT pg_advisory_unlock($1)', [INDEX_STEP_LOCK]).catch((e: Error) => { broken = e; });
    }
  } finally {
    // A connection that could not unlock is closed rather than pooled: closing it releases the lock.
    c.release(broken);
  }
}

// Several servers on one database (issue 16): the follower's wake-up signal and timed jobs on one server at a time.
export async function watchChanges(db: PostgresConnection, wake: (seq?: number, entries?: readonly ChangeRecord[]) => void,
  onState?: (listening: boolean, error?: Error) => void): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | undefined;
  let backoff = WATCH_BACKOFF_MIN;
  // The announcements received together (in one read of the connection), handed on as one.
  let heard: { last: number | undefined; entries: ChangeRecord[]; whole: boolean } | null = null;
  const hand = () => {
    const h = heard!;
    heard = null;
    // With read replicas, whoever applies entries first notes the primary's position (changesAfter does): they are
    // read from the log then. An announcement without its entries (too many to carry) is read from the log too.
    wake(h.last, db.replicas || !h.whole ? undefined : h.entries);
  };
  const retry = (c: pg.Client, error: Error) => {
    if (stopped || client !== c) return; // stopped, or this connection's loss was already handled
    client = null;
    c.end().catch(() => {});
    onState?.(false, error);
    timer = setTimeout(() => void connect(), backoff);
    backoff = Math.min(backoff * 2, WATCH_BACKOFF_MAX);
  };
  const connect = async () => {
    if (stopped) return;
    const c = new pg.Client(db.clientConfig);
    client = c;
    c.on('notification', (n) => {
      const { last, entries } = announcedEntries(n.payload);
      if (!heard) {
        heard = { last, entries: [], whole: true };
        setImmediate(hand);
      }
      if (last === undefined || (heard.last !== undefined && last > heard.last)) heard.last = last;
      if (entries) heard.entries.push(...entries);
      else heard.whole = false;
    });
    c.on('error', (e) => retry(c, e));
    c.on('end', () => retry(c, new Error('the LISTEN connection ended')));
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANGE_CHANNEL}`);
    } catch (e) {
      retry(c, e as Error);
      return;
    }
    if (stopped || client !== c) return;
    backoff = WATCH_BACKOFF_MIN;
    onState?.(true);
    wake(); // what was announced while no connection listened
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

export async function createWebhook(db: PostgresConnection, w: WebhookRow, seq: number): Promise<void> {
  await db.tx(async (c) => {
    await c.query(`INSERT INTO ${WEBHOOK_TABLE} (id, url, entity_types, aspects, secret, created_by, created_on, description)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [w.id, w.url, JSON.stringify(w.entityTypes), JSON.stringify(w.aspects), w.secret, w.createdBy,
      w.createdOn, w.description]);
    await c.query(`INSERT INTO ${CONSUMER_TABLE} (name, seq, updated_on) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
      [`webhook:${w.id}`, seq, Date.now()]);
  });
}

export async function listWebhooks(db: PostgresConnection): Promise<WebhookRow[]> {
  const { rows } = await db.query(`SELECT * FROM ${WEBHOOK_TABLE} ORDER BY created_on, id COLLATE "C"`);
  return rows.map(webhookOf);
}

export async function deleteWebhook(db: PostgresConnection, id: string): Promise<boolean> {
  return db.tx(async (c) => {
    await c.query(`DELETE FROM ${WEBHOOK_DEAD_LETTER_TABLE} WHERE webhook_id = $1`, [id]);
    await c.query(`DELETE FROM ${CONSUMER_TABLE} WHERE name = $1`, [`webhook:${id}`]);
    return (await c.query(`DELETE FROM ${WEBHOOK_TABLE} WHERE id = $1`, [id])).rowCount === 1;
  });
}

export async function addWebhookDeadLetter(db: PostgresConnection, d: Omit<WebhookDeadLetter, 'id'>, from: number, to: number): Promise<boolean> {
  return db.tx(async (c) => {
    const moved = await c.query(`UPDATE ${CONSUMER_TABLE} SET seq = $1, updated_on = $2 WHERE name = $3 AND seq = $4`,
      [to, Date.now(), `webhook:${d.webhookId}`, from]);
    if (moved.rowCount !== 1) return false;
    await c.query(`INSERT INTO ${WEBHOOK_DEAD_LETTER_TABLE} (webhook_id, seq, at, attempts, status, error, event)
      VALUES ($1, $2, $3, $4, $5, $6, $7)`, [d.webhookId, d.seq, d.at, d.attempts, d.status, d.error, d.event]);
    return true;
  });
}

export async function webhookDeadLetters(db: PostgresConnection, webhookId: string, after: number, limit: number): Promise<WebhookDeadLetter[]> {
  const { rows } = await db.query(`SELECT * FROM ${WEBHOOK_DEAD_LETTER_TABLE} WHERE webhook_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
    [webhookId, after, limit]);
  return rows.map(deadLetterOf);
}
