import type { Command } from 'commander';
import { rootActor } from '../model/actor.js';
import { DURATIONS } from '../services/tokens.js';
import { fail, withCatalog } from './context.js';
import { printTable } from './table.js';

/** `30d`, `12h`, `90m`, or one of DataHub's duration names (ONE_DAY…, NO_EXPIRY). */
export function parseExpiry(s: string): number | null {
  const named = s.toUpperCase();
  if (named in DURATIONS) return DURATIONS[named]!;
  const m = /^(\d+)\s*([mhdw])$/i.exec(s.trim());
  if (!m) fail(`almanac: --expires must be like 30d, 12h, 90m, 2w or one of ${Object.keys(DURATIONS).join(', ')}; got '${s}'`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[m[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}

export function registerToken(program: Command) {
  const token = program.command('token').description('personal access tokens');
  token
    .command('create')
    .description('create a personal access token and print it alone on stdout')
    .requiredOption('--user <username|urn>', 'the user the token acts as, e.g. datahub or urn:li:corpuser:datahub; it must exist '
      + '(the root user datahub always does)')
    .option('--create-user', 'create the user first if it does not exist (a user with no password, active)')
    .option('--name <name>', 'a name to recognise the token by', 'CLI token')
    .option('--description <text>', 'what the token is for')
    .option('--expires <duration>', 'lifetime: 30d, 12h, ONE_MONTH, NO_EXPIRY…', '30d')
    .action(async (opts: { user: string; createUser?: boolean; name: string; description?: string; expires: string }) => {
      const actorUrn = opts.user.startsWith('urn:') ? opts.user : `urn:li:corpuser:${opts.user}`;
      const durationMs = parseExpiry(opts.expires);
      await withCatalog(async (catalog) => {
        try {
          // A mistyped name must not become a working credential: only on request is a new user made.
          if (!(await catalog.nativeUsers.userExists(actorUrn))) {
            if (!opts.createUser) fail(`almanac: there is no user ${actorUrn} (check the name, or pass --create-user to create it)`);
            await catalog.nativeUsers.createUser(actorUrn, rootActor());
          }
          const { accessToken } = await catalog.tokens.create(
            { actorUrn, ownerUrn: actorUrn, name: opts.name, description: opts.description, durationMs }, rootActor());
          process.stdout.write(`${accessToken}\n`);
        } catch (e) {
          fail(`almanac: ${(e as Error).message}`);
        }
      });
    });

  token
    .command('list')
    .description('list stored tokens (newest expiry first): id, name, user, expiry')
    .option('--user <username|urn>', 'only the tokens of this user')
    .action(async (opts: { user?: string }) => {
      const ownerUrn = opts.user ? (opts.user.startsWith('urn:') ? opts.user : `urn:li:corpuser:${opts.user}`) : undefined;
      await withCatalog(async (catalog) => {
        const { tokens } = await catalog.tokens.list({ ownerUrn, start: 0, count: 100_000 });
        const rows = tokens.map((t) => [t.id, t.name, t.actorUrn, t.expiresAt ? new Date(t.expiresAt).toISOString() : 'never']);
        printTable(['ID', 'NAME', 'USER', 'EXPIRES'], rows);
      });
    });
  token
    .command('revoke')
    .description('revoke a token by its id (see token list); it stops working at once on this database')
    .argument('<id>', 'the token id')
    .action(async (id: string) => {
      await withCatalog(async (catalog) => {
        try {
          await catalog.tokens.revoke(id);
          process.stdout.write(`Revoked ${id}\n`);
        } catch (e) {
          fail(`almanac: ${(e as Error).message}`);
        }
      });
    });
}

