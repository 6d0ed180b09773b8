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
        // One rebuild with its progress bar and its closing line, unless it gave up (false).
        const shown = async (what: string, rebuild: (progress: (done: number, total: number) => void) => Promise<boolean | void>) => {
          const started = Date.now();
          const bar = progressBar(`Rebuilding the ${what}`);
          let entities = 0;
          const rebuilt = await rebuild((done, total) => { entities = done; bar.update(done, total); });
          bar.done();
          if (rebuilt === false) return false;
          process.stderr.write(`Rebuilt the ${what} from ${entities} entities in ${Date.now() - started} ms\n`);
          return true;
        };
        // Both: one pass over the entities for the two (a page of aspects read once), unless a page kept being written
        // to, when each is rebuilt on its own below.
        if (names.length === 2 && (await shown('search and relationships indexes', (p) => catalog.changeLog.rebuildAll(p)))) return;
        for (const name of names) await shown(`${name} index`, (p) => catalog.changeLog.rebuild(name, p));
      }, { facetStart: 'open' });
    });
}
