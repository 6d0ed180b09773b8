import type { Command } from 'commander';
import type { IndexName } from '../changelog/service.js';
import { withCatalog } from './context.js';
import { progressBar } from './progress.js';

export function registerReindex(program: Command) {
  program
    .command('reindex')
    .description('rebuild the search and relationship indexes from the stored aspects; online: a running server keeps serving and writing')
    .option('--search', 'rebuild the search index')
    .option('--relationships', 'rebuild the relationship index')
    .action(async (opts: { search?: boolean; relationships?: boolean }) => {
      // Neither named: both.
      const names: IndexName[] = opts.search || opts.relationships
        ? [...(opts.search ? ['search' as const] : []), ...(opts.relationships ? ['relationships' as const] : [])]
        : ['search', 'relationships'];
      await withCatalog(async (catalog) => {
        if (names.length === 2) {
          // Both: one pass over the entities for the two (a page of aspects read once), unless a page kept being written
          // to, when each is rebuilt on its own below.
          const started = Date.now();
          const bar = progressBar('Rebuilding the search and relationships indexes');
          let entities = 0;
          const rebuilt = await catalog.changeLog.rebuildAll((done, total) => { entities = done; bar.update(done, total); });
          bar.done();
          if (rebuilt) {
            process.stderr.write(`Rebuilt the search and relationships indexes from ${entities} entities in ${Date.now() - started} ms\n`);
            return;
          }
        }
        for (const name of names) {
          const started = Date.now();
          const bar = progressBar(`Rebuilding the ${name} index`);
          let entities = 0;
          await catalog.changeLog.rebuild(name, (done, total) => { entities = done; bar.update(done, total); });
          bar.done();
          process.stderr.write(`Rebuilt the ${name} index from ${entities} entities in ${Date.now() - started} ms\n`);
        }
      });
    });
}
