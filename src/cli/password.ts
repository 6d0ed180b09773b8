import type { Command } from 'commander';
import { rootActor } from '../services/actor.js';
import { fail, withCatalog } from './context.js';

/** Reads the password: the first line of stdin (piped, or typed at the terminal), less its line break. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Password: ');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(0x0a)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export function registerPassword(program: Command) {
  const password = program.command('password').description("native users' passwords, for signing in to DataHub's web app");
  password
    .command('set')
    .description('set the password a user signs in with (read from stdin), making them a native user')
    .requiredOption('--user <username|urn>', 'the user, e.g. datahub or urn:li:corpuser:datahub')
    .action(async (opts: { user: string }) => {
      const userUrn = opts.user.startsWith('urn:') ? opts.user : `urn:li:corpuser:${opts.user}`;
      const secret = await readPassword();
      if (secret === '') fail('almanac: the password must not be empty');
      await withCatalog(async (catalog) => {
        try {
          await catalog.nativeUsers.setPassword(userUrn, secret, rootActor());
          process.stderr.write(`Password set for ${userUrn}\n`);
        } catch (e) {
          fail(`almanac: ${(e as Error).message}`);
        }
      });
    });
}
