import type { Catalog } from '../catalog.js';

/** The job's name among timed jobs (one server runs it at a time: Store.runExclusive). */
export const RETENTION_JOB = 'timeseries-retention';

/**
 * Applies the configured time-series retention every `retentionIntervalMs` (first run one interval after
 * start), on one server at a time when several share the database. Returns a function that stops it and waits for
 * a run under way. Runs never overlap.
 */
export function startRetentionJob(catalog: Catalog, onError: (e: unknown) => void): () => Promise<void> {
  const retention = catalog.config.timeseriesRetention;
  if (retention.length === 0) return async () => {};
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = catalog.store.runExclusive(RETENTION_JOB, async (lost) => {
      await catalog.timeseries.cleanup(retention, { dryRun: false, signal: lost });
    })
      .then(() => {}, onError)
      .finally(() => { running = null; });
  }, catalog.config.retentionIntervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
