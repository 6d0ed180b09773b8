import { databaseUnavailable } from '../../errors.js';
import { timed, unavailableOr, type PostgresConnection } from './connection.js';

/** How often a job's lock connection is checked (runExclusive), and how long it has to answer. */
const LOCK_CHECK_MS = 5_000;
const LOCK_CHECK_TIMEOUT_MS = 10_000;

/**
 * Runs a job unless another server runs it: under the job's session advisory lock, on a connection of the pool held
 * for the run. The lock lives as long as that session: a database restart (or a cut connection) ends it, and another
 * server may then take the job. So the run hears of it — `lost` aborts on the connection's error event, or when the
 * session stops answering the check made every LOCK_CHECK_MS — and is expected to stop at once; runExclusive then
 * fails (a 503-typed error), and the job is run again only once its lock is taken anew.
 */
export async function runExclusive(db: PostgresConnection, job: string, fn: (lost: AbortSignal) => Promise<void>): Promise<boolean> {
  const c = await db.connect();
  const lost = new AbortController();
  const onError = (e: Error) => lost.abort(e);
  c.on('error', onError);
  let broken: Error | undefined;
  let check: NodeJS.Timeout | undefined;
  try {
    const key = `almanac:job:${job}`;
    let got: boolean;
    try {
      got = (await c.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS got', [key])).rows[0].got as boolean;
    } catch (e) {
      broken = e as Error;
      throw unavailableOr(e);
    }
    if (!got) return false;
    check = setInterval(() => {
      c.query(timed('SELECT 1', LOCK_CHECK_TIMEOUT_MS)).catch((e: Error) => lost.abort(e));
    }, LOCK_CHECK_MS);
    check.unref();
    try {
      await fn(lost.signal);
    } finally {
      clearInterval(check);
      if (lost.signal.aborted) broken = lost.signal.reason as Error;
      else await c.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]).catch((e: Error) => { broken = e; });
    }
    if (lost.signal.aborted) {
      throw Object.assign(databaseUnavailable(`The lock of job ${job} was lost with its connection`), { cause: lost.signal.reason });
    }
    return true;
  } finally {
    c.removeListener('error', onError);
    // A connection that could not unlock (or lost its session) is closed rather than pooled: closing it releases the lock.
    c.release(broken);
  }
}
