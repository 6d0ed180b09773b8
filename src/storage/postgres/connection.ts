import { createHash } from 'node:crypto';
import pg from 'pg';
import { databaseUnavailable } from '../../errors.js';
import type { ReplicaSet } from '../postgres-replicas.js';

/** What each concern of the PostgreSQL store works through. */
export interface PostgresConnection {
  /** A statement on a connection of the pool (or a caught-up replica for a request's reads); unreachable is a typed 503. */
  query(text: string | pg.QueryConfig | pg.QueryArrayConfig, params?: unknown[]): Promise<pg.QueryResult>;
  /**
   * A transaction on one connection of the pool, its facet changes applied once it commits. `opening`: statements
   * sent with the BEGIN in one round trip (texts alone: one simple query; with statements with parameters among them,
   * such as prepared ones, pipelined; each statement takes its own snapshot), their results handed to `fn` in order.
   */
  tx<T>(fn: (c: pg.PoolClient, opened: pg.QueryResult[]) => Promise<T>, opening?: readonly (string | pg.QueryConfig)[]): Promise<T>;
  /** A connection of the pool, for what must run outside a transaction; unreachable is a typed 503. */
  connect(): Promise<pg.PoolClient>;
  /** The primary's pool, for statements that bypass the replicas and the 503 mapping. */
  readonly pool: pg.Pool;
  /** What every connection of the store is made with (the pool's, the LISTEN connection). */
  readonly clientConfig: pg.ClientConfig;
  /** Read replicas, when DATABASE_READ_URL names some. */
  readonly replicas?: ReplicaSet;
}

/** A statement with a time limit of its own (the driver takes `query_timeout` per statement; its types lack it). */
export function timed(text: string, ms: number): pg.QueryConfig {
  return { text, query_timeout: ms } as pg.QueryConfig;
}

/**
 * The database restarting, failing over or out of reach. A restart or failover ends every session (FATAL 57P01
 * admin_shutdown, 57P02 crash_shutdown), refuses new ones for a while (57P03 cannot_connect_now, ECONNREFUSED), and
 * cuts connections (ECONNRESET, class 08); a database that does not answer runs into our time limits.
 */
export function isDatabaseUnreachable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  const code = typeof err.code === 'string' ? err.code : '';
  if (UNREACHABLE_SYSCALL_CODES.has(code) || UNREACHABLE_STATES.has(code) || code.startsWith('08')) return true;
  return typeof err.message === 'string' && UNREACHABLE_MESSAGES.test(err.message);
}
const UNREACHABLE_SYSCALL_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH',
  'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections, query_canceled (a statement timeout), and
 * read_only_sql_transaction: Almanac never writes in a read-only transaction, so a write refused so reached a standby
 * (a failover under way: the address already leads to a server not yet promoted).
 */
const UNREACHABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '25006']);
/** What the pg driver says of a connection it lost or gave up on (its errors carry no code). */
const UNREACHABLE_MESSAGES = /^(Connection terminated|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/;

/** A database error as the catalog's typed "database unavailable" (503) when it is one, else itself. */
export function unavailableOr(e: unknown): unknown {
  if (!isDatabaseUnreachable(e)) return e;
  return Object.assign(databaseUnavailable(), { cause: e });
}

/** The time limit of statements that may rightly take long (migrations, VACUUM): none, in effect (setTimeout's largest). */
export const NO_TIME_LIMIT = 2 ** 31 - 1;

/** Transaction-scoped advisory locks on some names, taken in the order given (callers sort them: no deadlocks). */
export async function lockInOrder(c: pg.PoolClient, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await c.query(prepared(lockInOrderSql(`$1::text[]`), [names]));
}

/** lockInOrder's statement, with the names given as an array expression (`$1::text[]`, or textArray's literal). */
export function lockInOrderSql(names: string): string {
  return `SELECT pg_advisory_xact_lock(hashtextextended(name, 0))
    FROM (SELECT name FROM UNNEST(${names}) WITH ORDINALITY AS l(name, i) ORDER BY i) AS ordered`;
}

/** A text[] literal of some strings, for a statement without parameters (each escaped as a literal of its own). */
export function textArray(values: readonly string[]): string {
  return `ARRAY[${values.map(literal).join(', ')}]::text[]`;
}

/**
 * pg.escapeLiteral's result, without its walk through the string a character at a time where nothing needs escaping
 * (most urns): a group commit of a bulk batch spells about 6,000 of them (locks, keys, entities), 0.2 s a batch so.
 */
function literal(v: string): string {
  return v.includes("'") || v.includes('\\') ? pg.escapeLiteral(v) : `'${v}'`;
}

/**
 * A statement prepared once per connection under a name taken from its text: later runs send only Bind and Execute,
 * and PostgreSQL keeps its plan (from the sixth run a generic plan, when that is estimated no dearer than the custom
 * ones) instead of parsing and planning it each time. Planning was ~40 % of PostgreSQL's time on the hot point reads,
 * which went unnamed. Only for statements whose text does not vary with their arguments (lists as array parameters,
 * `= ANY($1)`) and whose best plan does not depend on them (key probes, set-based writes): the names per connection stay
 * few, and past PREPARED_TEXTS different texts in a process a statement goes unnamed. Names live in a session:
 * PgBouncer's session mode keeps them; transaction mode does not (docs/scale-out.md).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined) {
    if (preparedNames.size >= PREPARED_TEXTS) return { text, values };
    name = `almanac_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    preparedNames.set(text, name);
  }
  return { name: planGeneration === 0 ? name : `${name}_${planGeneration}`, text, values };
}
const preparedNames = new Map<string, string>();
const PREPARED_TEXTS = 500;
/**
 * Bumped when a prepared statement's result columns changed under it (a migration run by another server: PostgreSQL
 * refuses to run the statement, "cached plan must not change result type"): statements get names not yet prepared on
 * any connection, and are parsed anew.
 */
let planGeneration = 0;

/** Whether a statement failed because its prepared plan's result type changed; if so, prepared() names it anew. */
export function staleNamedPlan(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  const stale = !!err && err.code === '0A000' && typeof err.message === 'string' && err.message.includes('cached plan must not change result type');
  if (stale) planGeneration++;
  return stale;
}
