import type { Command } from 'commander';
import { systemActor } from '../services/actor.js';
import { expandPaths, ingestFiles } from '../services/ingest-files.js';
import { withCatalog } from './context.js';
import { progressBar } from './progress.js';

export function registerIngest(program: Command) {
  program
    .command('ingest')
    .description("ingest files in DataHub's file format (lists of MCEs and/or MCPs) straight into the database")
    .argument('<paths...>', 'JSON files or folders of them')
    .action(async (paths: string[]) => {
      const code = await withCatalog(async (catalog) => {
        const files = await expandPaths(paths);
        const started = Date.now();
        let bar: ReturnType<typeof progressBar> | undefined;
        let current = '';
        const summary = await ingestFiles(catalog.entities, files, systemActor(), (file, done, total, unit) => {
          if (file !== current) { bar?.done(); current = file; bar = total >= 1000 ? progressBar(file) : undefined; }
          bar?.update(done, total, unit);
        });
        bar?.done();
        for (const f of summary.failures) {
          process.stderr.write(`refused: ${f.file}${f.index >= 0 ? ` record ${f.index}` : ''}${f.urn ? ` (${f.urn})` : ''}: ${f.reason}\n`);
        }
        const ok = summary.records - summary.failures.filter((f) => f.index >= 0).length;
        process.stdout.write(`Ingested ${ok} of ${summary.records} records from ${summary.files} file(s) ` +
          `(${summary.mce} MCE, ${summary.mcp} MCP): ${summary.aspectsChanged} aspect versions written, ` +
          `${summary.aspectsUnchanged} unchanged, ${summary.timeseriesRows} time-series rows, ` +
          `${summary.failures.length} refused, in ${Date.now() - started} ms\n`);
        return summary.failures.length ? 1 : 0;
      });
      process.exitCode = code;
    });
}
