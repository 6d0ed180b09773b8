import type { Command } from 'commander';
import { systemActor } from '../model/actor.js';
import { withCatalog } from './context.js';

/**
 * `almanac doctor`: checks what is stored for what no read can serve. Today: entities whose urn no write accepts
 * (stored before writes checked urns, or by an older build). Searches and lists leave them out with a warning; this
 * names them, with how to delete them, or deletes them (`--delete-invalid`).
 */
export function registerDoctor(program: Command) {
  program
    .command('doctor')
    .description('list stored entities with an invalid urn (left out of searches and lists); exits 1 when there are any')
    .option('--delete-invalid', 'delete those entities (every aspect, time-series row and index entry of each)')
    .action(async (opts: { deleteInvalid?: boolean }) => {
      const found = await withCatalog(async (catalog) => {
        const invalid = await catalog.entities.invalidUrns();
        for (const e of invalid) {
          if (opts.deleteInvalid) {
            await catalog.entities.deleteEntity(e.urn, systemActor());
            process.stdout.write(`deleted ${e.urn}\n`);
          } else {
            process.stdout.write(`${e.urn}\t${e.entityType}\t${e.problem}\n`);
          }
        }
        return invalid.length;
      });
      if (found === 0) {
        process.stderr.write('No stored entity has an invalid urn.\n');
      } else if (opts.deleteInvalid) {
        process.stderr.write(`Deleted ${found} ${found === 1 ? 'entity' : 'entities'} with an invalid urn.\n`);
      } else {
        process.stderr.write(`${found} stored ${found === 1 ? 'entity has' : 'entities have'} an invalid urn: searches and lists leave `
          + 'them out. Delete them with `almanac doctor --delete-invalid`, or one by one with POST /entities?action=delete '
          + '{"urn": "<urn>"} (DataHub\'s `datahub delete --urn <urn> --hard`).\n');
        process.exitCode = 1;
      }
    });
}
