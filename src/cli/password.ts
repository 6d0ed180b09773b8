import type { Command } from 'commander';
import { rootActor } from '../model/actor.js';
import { MIN_PASSWORD_LENGTH } from '../services/native-users.js';
import { fail, withCatalog } from './context.js';

/** Reads the password: typed at a terminal without echo, else the first line of stdin (piped), less its line break. */
async function readPassword(): Promise<string> {
  if (process.stdin.isTTY) return readHidden();
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer);
    if (Buffer.concat(chunks).includes(0x0a)) break;
  }
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

/**
 * Reads a line typed at the terminal with echo off (raw mode): Enter or Ctrl-D ends it, Backspace takes back a
 * character, Ctrl-U the whole line, Ctrl-C gives up (exit code 130); escape sequences (arrow keys) are ignored.
 */
function readHidden(): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt shows: keys typed (or pasted) as soon as it appears are not echoed.
  stdin.setRawMode(true);
  process.stderr.write('Password: ');
  stdin.setEncoding('utf8');
  return new Promise((resolve) => {
    let value: string[] = [];
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          resolve(value.join(''));
          return;
        }
        if (ch === '\u0003') {
          finish();
          process.exit(130);
        }
        if (ch === '\u001b') return; // the rest of the chunk is the sequence
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else if (ch === '\u0015') value = [];
        else if (ch >= ' ') value.push(ch);
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}

export function registerPassword(program: Command) {
  const password = program.command('password')
    .description("native users' passwords: how one signs in to Almanac's own web UI, and to DataHub's web app");
  password
    .command('set')
    .description(`set the password a user signs in with, to Almanac's own web UI (user name and password) and to DataHub's `
      + `web app, making them a native user (created if needed). Typed at a terminal it is not shown; piped, the first line `
      + `of stdin is read. At least ${MIN_PASSWORD_LENGTH} characters.`)
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
