import type { Catalog } from './catalog.js';

/**
 * Applies the configured time-series retention every `retentionIntervalMs` (first run one interval after
 * start). Returns a function that stops it. Runs never overlap.
 */
export function startRetentionJob(catalog: Catalog, onError: (e: unknown) => void): () => void {
  const retention = catalog.config.timeseriesRetention;
  if (retention.length === 0) return () => {};
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    catalog.timeseries.cleanup(retention, { dryRun: false }).catch(onError).finally(() => { running = false; });
  }, catalog.config.retentionIntervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
