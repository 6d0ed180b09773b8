import { Command } from 'commander';
import { AlmanacError } from '../errors.js';
import { ALMANAC_VERSION, DATAHUB_VERSION } from '../version.js';
import { fail } from './context.js';
import { registerDoctor } from './doctor.js';
import { registerBackup, registerExport } from './export.js';
import { registerIngest } from './ingest.js';
import { registerPassword } from './password.js';
import { registerReindex } from './reindex.js';
import { registerServe } from './serve.js';
import { registerTests } from './tests-command.js';
import { registerTimeseries } from './timeseries.js';
import { registerToken } from './token.js';

const program = new Command('almanac')
  .description(`Almanac: a metadata catalog that speaks the DataHub ${DATAHUB_VERSION} API`)
  .version(ALMANAC_VERSION);
registerServe(program);
registerIngest(program);
registerToken(program);
registerPassword(program);
registerReindex(program);
registerDoctor(program);
registerTimeseries(program);
registerTests(program);
registerExport(program);
registerBackup(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  // A user's mistake is one line; anything else is a fault of Almanac's, with its stack trace.
  if (e instanceof AlmanacError) fail(`almanac: ${e.message}`);
  throw e;
}
