import type { Config } from '../config.js';
import type { Store } from '../storage/types.js';
import type { TimeseriesService } from './timeseries.js';

/** The job's name among timed jobs (one server runs it at a time: Store.runExclusive). */
export const RETENTION_JOB = 'timeseries-retention';

/**
 * Applies the configured time-series retention every `retentionIntervalMs` (first run one interval after
 * start), on one server at a time when several share the database. Returns a function that stops it and waits for
 * a run under way. Runs never overlap.
 */
export function startRetentionJob(store: Store, timeseries: TimeseriesService, config: Pick<Config, 'timeseriesRetention' | 'retentionIntervalMs'>,
  onError: (e: unknown) => void): () => Promise<void> {
  const retention = config.timeseriesRetention;
  if (retention.length === 0) return async () => {};
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = store.runExclusive(RETENTION_JOB, async (lost) => {
      await timeseries.cleanup(retention, { dryRun: false, signal: lost });
    })
      .then(() => {}, onError)
      .finally(() => { running = null; });
  }, config.retentionIntervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
