import pg from 'pg';
import { lsnValue, readContext } from '../model/read-context.js';

/** One replica as /health and /metrics show it. */
export interface ReplicaStatus {
  /** host:port/database, never the credentials. */
  name: string;
  /** In rotation: reachable, a standby, and answering. */
  up: boolean;
  /** WAL the primary has written that the replica has not replayed yet, at the last check (null: unknown). */
  lagBytes: number | null;
  /** Seconds since the replica replayed the last commit it has, when it is behind (0 when caught up). */
  lagSeconds: number | null;
}

/** Counts of reads by where they went (for /metrics). */
export interface ReadRoutingStats {
  replica: number;
  /** Reads that could have gone to a replica but went to the primary: none in rotation, or none caught up in time. */
  primaryFallback: number;
  /** Replica reads that failed because the replica went away (or cancelled them) and were run again on the primary. */
  retriedOnPrimary: number;
}

export interface ReplicaOptions {
  /** How long a read waits for a replica to replay past the position it needs before the primary serves it. */
  waitMs: number;
  /** How often each replica's position and health is checked (and a replica out of rotation tried again). */
  checkMs?: number;
  /** Tells whether an error means the server is out of reach (postgres.ts's isDatabaseUnreachable). */
  unreachable: (e: unknown) => boolean;
  log: (level: 'warn' | 'info', message: string) => void;
}

/** A statement that only reads, and so may run on a standby (writes, locks and sequence calls go to the primary). */
const READ_ONLY = /^\s*(SELECT|WITH)\b/i;
const NOT_READ_ONLY = /\b(INSERT|UPDATE|DELETE|FOR\s+(NO\s+KEY\s+)?UPDATE|FOR\s+(KEY\s+)?SHARE|nextval|setval|pg_advisory\w*|pg_try_advisory\w*|pg_current_wal\w*)\b/i;
export const replicaCanRun = (sql: string): boolean => READ_ONLY.test(sql) && !NOT_READ_ONLY.test(sql);

/** A statement cancelled by our time limits: the replica is slow at this one, not gone. */
const TIMED_OUT = (e: unknown) => (e as { code?: string }).code === '57014' || /^Query read timeout/.test(String((e as Error)?.message));
/** read_only_sql_transaction, serialization failure (a standby cancels queries that conflict with recovery). */
const RETRY_ON_PRIMARY = new Set(['25006', '40001']);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Replica {
  readonly pool: pg.Pool;
  up = false;
  /** Replay position at the last check; -1: unknown. */
  replay = -1n;
  lagBytes: number | null = null;
  lagSeconds: number | null = null;
  /** Whether "out of rotation" was logged (one warning per outage). */
  warned = false;
  private refreshing?: Promise<void>;

  constructor(readonly name: string, config: pg.PoolConfig, private readonly set: ReplicaSet) {
    this.pool = new pg.Pool(config);
    this.pool.on('error', () => {});
    this.pool.on('connect', (c) => c.on('error', () => {}));
  }

  /** The replay position now; one question in flight at a time, however many reads wait on it. */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const { rows } = await this.pool.query('SELECT pg_last_wal_replay_lsn()::text AS replay');
        if (rows[0].replay === null) throw new Error('not a standby (promoted, or not replicating)');
        this.replay = lsnValue(rows[0].replay);
      } catch (e) {
        this.set.down(this, e);
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}

/**
 * Streaming replicas that serve reads (DATABASE_READ_URL). A read goes to a replica only once the replica has replayed
 * past `floor` — the newest commit this server has seen: its own writes, and the change-log entries its follower has
 * applied (so a cache dropped for an entry is never filled again from a replica that has not replayed it) — and past
 * the position the request presented (another server's write). A replica behind after `waitMs` leaves the read to
 * the primary; one that fails is taken out of rotation (the read runs again on the primary) and put back by the
 * periodic check once it answers as a standby again.
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  private floor = 0n;
  private next = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  readonly stats: ReadRoutingStats = { replica: 0, primaryFallback: 0, retriedOnPrimary: 0 };

  constructor(urls: readonly string[], config: pg.PoolConfig, private readonly primary: pg.Pool, private readonly opts: ReplicaOptions) {
    this.replicas = urls.map((url) => {
      const u = new URL(url);
      return new Replica(`${u.hostname}:${u.port || 5432}${u.pathname}`, { ...config, connectionString: url,
        // A replica that does not answer is left for the primary quickly rather than holding the read.
        connectionTimeoutMillis: Math.min(config.connectionTimeoutMillis ?? 2000, 2000) }, this);
    });
  }

  /** Checks every replica now, then every `checkMs`. */
  async start(): Promise<void> {
    await this.check();
    const tick = async () => {
      await this.check().catch(() => {});
      if (!this.closed) this.timer = setTimeout(tick, this.opts.checkMs ?? 1000).unref();
    };
    this.timer = setTimeout(tick, this.opts.checkMs ?? 1000).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.replicas.map((r) => r.pool.end().catch(() => {})));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((r) => ({ name: r.name, up: r.up, lagBytes: r.lagBytes, lagSeconds: r.lagSeconds }));
  }

  /** Raises the floor to `lsn` (a commit this server has seen). */
  advance(lsn: string): void {
    const v = lsnValue(lsn);
    if (v > this.floor) this.floor = v;
  }

  /** After a commit on `c`: its position raises the floor and is the request's to return (X-Almanac-Commit-Lsn). */
  async committed(c: pg.ClientBase): Promise<void> {
    const lsn = (await c.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string;
    this.advance(lsn);
    const ctx = readContext();
    if (ctx && (ctx.commitLsn === undefined || lsnValue(lsn) > lsnValue(ctx.commitLsn))) ctx.commitLsn = lsn;
  }

  /** Before applying change-log entries read from the primary: every one of them committed before this position. */
  async observePrimary(): Promise<void> {
    this.advance((await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string);
  }

  /**
   * Runs `sql` on a replica when the request allows it and one is caught up, else (or when the replica fails it) on
   * the primary through `onPrimary`.
   */
  async query(statement: string | pg.QueryConfig | pg.QueryArrayConfig, params: unknown[] | undefined, onPrimary: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    const ctx = readContext();
    if (!ctx?.replicaOk || !replicaCanRun(typeof statement === 'string' ? statement : statement.text)) return onPrimary();
    const needed = ctx.minLsn && lsnValue(ctx.minLsn) > this.floor ? lsnValue(ctx.minLsn) : this.floor;
    const replica = await this.pick(needed);
    if (!replica) {
      this.stats.primaryFallback++;
      return onPrimary();
    }
    try {
      // Unnamed on a replica: with named (prepared) statements, reads hung while a standby stopped and started again
      // (test/pg-replicas.test.ts, 17 requests in 35 s against hundreds); the cause was not found.
      const result = await replica.pool.query((typeof statement === 'object' ? { text: statement.text, values: statement.values } : statement) as string, params);
      this.stats.replica++;
      return result;
    } catch (e) {
      if (TIMED_OUT(e)) throw e;
      const code = (e as { code?: string }).code ?? '';
      if (!RETRY_ON_PRIMARY.has(code)) {
        if (!this.opts.unreachable(e)) throw e;
        this.down(replica, e);
      }
      // A read is safe to run twice: the primary answers it instead, and the caller never sees the replica's failure.
      this.stats.retriedOnPrimary++;
      return onPrimary();
    }
  }

  /** A replica in rotation that has replayed past `needed`, waiting up to waitMs for one; none: the primary's turn. */
  private async pick(needed: bigint): Promise<Replica | undefined> {
    const ready = () => {
      const up = this.replicas.filter((r) => r.up && r.replay >= needed);
      return up.length ? up[this.next++ % up.length] : undefined;
    };
    let found = ready();
    if (found || !this.replicas.some((r) => r.up)) return found;
    const end = performance.now() + this.opts.waitMs;
    while (!found && performance.now() < end) {
      await Promise.all(this.replicas.filter((r) => r.up).map((r) => r.refresh()));
      found = ready();
      if (!found && this.replicas.some((r) => r.up)) await sleep(2);
      else break;
    }
    return found;
  }

  down(r: Replica, e: unknown): void {
    const wasUp = r.up;
    r.up = false;
    r.lagBytes = null;
    r.lagSeconds = null;
    if ((wasUp || !r.warned) && !this.closed) {
      r.warned = true;
      this.opts.log('warn', `read replica ${r.name} is out of rotation (reads go to the primary until it answers again): ${(e as Error)?.message ?? e}`);
    }
  }

  /** Each replica's position and lag against the primary's; a replica that answers as a standby is (back) in rotation. */
  private async check(): Promise<void> {
    let primaryLsn: bigint | undefined;
    try {
      primaryLsn = lsnValue((await this.primary.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn as string);
    } catch { /* the primary out of reach: lag unknown this round */ }
    await Promise.all(this.replicas.map(async (r) => {
      try {
        const { rows } = await r.pool.query(`SELECT pg_last_wal_replay_lsn()::text AS replay,
          COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)::float8 AS since`);
        if (rows[0].replay === null) throw new Error('not a standby (promoted, or not replicating)');
        r.replay = lsnValue(rows[0].replay);
        r.lagBytes = primaryLsn === undefined ? null : Number(primaryLsn > r.replay ? primaryLsn - r.replay : 0n);
        // Idle, the last replayed commit grows old without the replica being behind: no lag when nothing is missing.
        r.lagSeconds = r.lagBytes === 0 ? 0 : r.lagBytes === null ? null : Number(rows[0].since);
        if (!r.up) {
          r.up = true;
          if (r.warned) this.opts.log('info', `read replica ${r.name} is back in rotation`);
          r.warned = false;
        }
      } catch (e) {
        this.down(r, e);
      }
    }));
  }
}
