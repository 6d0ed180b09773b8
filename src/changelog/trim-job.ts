import type { Store } from '../storage/types.js';

/** The job's name among timed jobs (one server runs it at a time: Store.runExclusive). */
export const TRIM_JOB = 'change-log-trim';
/** Entries deleted per statement. */
export const TRIM_BATCH = 10_000;
const DAY_MS = 86_400_000;

/**
 * Deletes change-log entries older than `retentionDays`, a batch at a time, never one a registered consumer (an
 * index, a webhook) has not applied (Store.trimChanges holds to that). One server at a time; returns how many went,
 * or null when another server was running it.
 */
export async function trimChangeLog(store: Store, retentionDays: number, shouldStop: () => boolean = () => false): Promise<number | null> {
  let trimmed = 0;
  const ran = await store.runExclusive(TRIM_JOB, async (lost) => {
    const before = Date.now() - retentionDays * DAY_MS;
    for (;;) {
      const n = await store.trimChanges(before, TRIM_BATCH);
      trimmed += n;
      // The job's lock lost with its connection: no further batch (another server may be trimming now).
      if (n < TRIM_BATCH || shouldStop() || lost.aborted) return;
    }
  });
  return ran ? trimmed : null;
}

/**
 * Trims the change log once at start and then every `intervalMs`. Returns a function that stops it and waits for a
 * run under way (which stops after its current batch).
 */
export function startChangeLogTrimJob(store: Store, opts: {
  retentionDays: number;
  intervalMs: number;
  onTrimmed?: (n: number) => void;
  onError: (e: unknown) => void;
}): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> | null = null;
  const run = () => {
    if (running || stopped) return;
    running = trimChangeLog(store, opts.retentionDays, () => stopped)
      .then((n) => { if (n) opts.onTrimmed?.(n); }, opts.onError)
      .finally(() => { running = null; });
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, opts.intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
}
