import type { Command } from 'commander';
import { fail, withCatalog } from './context.js';
import { progressBar } from './progress.js';
import { printTable } from './table.js';

/** `almanac timeseries sizes|truncate|cleanup`: the getIndexSizes figures, truncation and retention. */
export function parseTime(s: string, now = Date.now()): number {
  if (/^\d+$/.test(s)) return Number(s);
  const ago = /^(\d+)\s*([mhdw])(?:\s+ago)?$/i.exec(s.trim());
  if (ago) return now - Number(ago[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[ago[2]!.toLowerCase() as 'm']!;
  const t = Date.parse(s);
  if (Number.isNaN(t)) fail(`almanac: '${s}' is not a time (milliseconds, an ISO date, or an age like 7d)`);
  return t;
}

export function registerTimeseries(program: Command) {
  const ts = program.command('timeseries').description('time-series aspects: sizes, truncation, retention');
  ts.command('sizes')
    .description('the size of every time-series table, as getIndexSizes reports it')
    .action(async () => {
      await withCatalog(async (catalog) => {
        const sizes = await catalog.timeseries.indexSizes();
        const rows = await Promise.all(sizes.map(async (s) => {
          const idx = catalog.timeseries.index(s.entityName, s.aspectName);
          return [s.indexName, s.entityName, s.aspectName, String(await catalog.store.countTimeseries(idx.entityType, idx.aspect)), s.sizeMb.toFixed(3)];
        }));
        printTable(['INDEX', 'ENTITY', 'ASPECT', 'ROWS', 'SIZE (MB)'], rows);
      });
    });
  ts.command('truncate')
    .description('delete rows older than --end from one time-series aspect (a dry run unless --execute)')
    .requiredOption('--entity-type <type>', 'e.g. dataset')
    .requiredOption('--aspect <aspect>', 'e.g. datasetProfile')
    .requiredOption('--end <time>', 'keep rows from this time on: milliseconds, an ISO date, or an age like 7d')
    .option('--execute', 'really delete (the default is a dry run)')
    .action(async (opts: { entityType: string; aspect: string; end: string; execute?: boolean }) => {
      await withCatalog(async (catalog) => {
        try {
          const out = await catalog.timeseries.truncate({ entityType: opts.entityType, aspect: opts.aspect,
            endTimeMillis: parseTime(opts.end), dryRun: !opts.execute, executeHint: 'Add --execute to delete them.' });
          process.stdout.write(`${out}\n`);
        } catch (e) {
          fail(`almanac: ${(e as Error).message}`);
        }
      });
    });
  ts.command('cleanup')
    .description('apply ALMANAC_TIMESERIES_RETENTION now')
    .option('--dry-run', 'only count what would go')
    .action(async (opts: { dryRun?: boolean }) => {
      await withCatalog(async (catalog) => {
        const retention = catalog.config.timeseriesRetention;
        if (retention.length === 0) fail('almanac: no retention configured (set ALMANAC_TIMESERIES_RETENTION, e.g. datasetProfile:90d,operation:30d)');
        const bar = progressBar('cleanup');
        const report = await catalog.timeseries.cleanup(retention, { dryRun: !!opts.dryRun, onProgress: (i, n) => bar.update(i, n) });
        bar.done();
        printTable(['INDEX', 'OLDER THAN', opts.dryRun ? 'WOULD DELETE' : 'DELETED'],
          report.map((r) => [r.indexName, new Date(r.cutoff).toISOString(), String(r.rows)]));
      });
    });
}
