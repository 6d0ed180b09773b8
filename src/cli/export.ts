import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { backsUpItself, backupDatabase, PG_DUMP_ADVICE } from '../services/backup.js';
import { exportToFile } from '../services/export.js';
import { fail, withCatalog } from './context.js';
import { progressBar } from './progress.js';

/** A time as an ISO 8601 date or date-time (UTC unless it says), or milliseconds since the epoch. */
export function parseSince(raw: string): number {
  const text = raw.trim();
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) fail(`almanac: --since must be a date or time (2026-11-01, 2026-11-01T12:00:00Z) or epoch milliseconds, got '${raw}'`);
  return ms;
}

export function registerExport(program: Command) {
  program
    .command('export')
    .description("write the catalog as a file of DataHub MCPs (the format `almanac ingest` and DataHub's file source read): "
      + "every entity's latest aspects and time-series rows")
    .argument('<file>', 'the file to write (replaced when it exists)')
    .option('--since <time>', 'only aspects changed (time-series rows timestamped) at or after this time: ISO 8601 or epoch ms', parseSince)
    .option('--entity-type <types>', 'only entities of these types (repeat, or separate with commas)',
      (v: string, prev: string[] = []) => [...prev, ...v.split(',').map((t) => t.trim()).filter(Boolean)])
    .action(async (file: string, opts: { since?: number; entityType?: string[] }) => {
      await withCatalog(async (catalog) => {
        const started = Date.now();
        const bar = progressBar(`Exporting to ${file}`);
        const s = await exportToFile(catalog.store, file, { since: opts.since, entityTypes: opts.entityType,
          onProgress: (done, total) => bar.update(done, total) });
        bar.done();
        process.stdout.write(`Exported ${s.entities} entities to ${file} in ${Date.now() - started} ms: ${s.aspects} aspects, `
          + `${s.timeseriesRows} time-series rows, ${s.bytes} bytes\n`);
      });
    });
}

export function registerBackup(program: Command) {
  program
    .command('backup')
    .description('copy a SQLite catalog to a new file while servers keep using it (PostgreSQL: use pg_dump)')
    .argument('<file>', 'the new database file')
    .action(async (file: string) => {
      let url: string;
      try {
        url = loadConfig().databaseUrl;
      } catch (e) {
        fail(e instanceof ConfigError ? `almanac: invalid configuration: ${e.message}` : String(e));
      }
      if (!backsUpItself(url)) {
        process.stderr.write(`almanac: ${PG_DUMP_ADVICE}\n`);
        process.exit(2);
      }
      const r = await backupDatabase(url, file);
      process.stdout.write(`Backed up ${url.slice('sqlite:'.length)} to ${file} in ${r.ms} ms: ${r.pages} pages, ${r.bytes} bytes\n`);
    });
}
