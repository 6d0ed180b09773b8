import type { Command } from 'commander';
import { systemActor } from '../model/actor.js';
import { fail, withCatalog } from './context.js';
import { progressBar } from './progress.js';
import { printTable } from './table.js';

/** `almanac tests run [--push] [--type dataset]`: evaluate every metadata test over the whole catalog. */
export function registerTests(program: Command) {
  const tests = program.command('tests').description('metadata tests');
  tests.command('run')
    .description('evaluate every test against every entity it selects and print a pass/fail table')
    .option('--push', 'store the results on each entity (testResults)')
    .option('--type <entityType>', 'only entities of this type, e.g. dataset')
    .action(async (opts: { push?: boolean; type?: string }) => {
      await withCatalog(async (catalog) => {
        const bar = progressBar('tests');
        try {
          const started = Date.now();
          const res = await catalog.metadataTests.runAll({ push: !!opts.push, entityType: opts.type, onProgress: (d, n) => bar.update(d, n) }, systemActor());
          bar.done();
          const names = new Map((await catalog.metadataTests.all()).map((t) => [t.urn, t.info.name]));
          printTable(['TEST', 'NAME', 'PASSING', 'FAILING'], res.tests.map((t) => [t.urn, names.get(t.urn) ?? '', String(t.passing), String(t.failing)]));
          process.stdout.write(`${res.entities} entities looked at in ${Date.now() - started} ms${opts.push ? '; results stored' : ''}\n`);
          if (res.unstoredTypes.length) {
            process.stdout.write(`results not stored for ${res.unstoredTypes.join(', ')} (no testResults aspect on that type)\n`);
          }
        } catch (e) {
          bar.done();
          fail(`almanac: ${(e as Error).message}`);
        }
      });
    });
}
