import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { SAMPLES } from './support/app.js';
import { runCli, startServer } from './support/processes.js';
import { loadConfig } from '../src/config.js';
import { openCatalog } from '../src/catalog.js';
import { TokenService } from '../src/services/tokens.js';

// The CLI and the server as real child processes, the way a user runs them.
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';

const SAMPLE_FILES = () => readdirSync(SAMPLES).filter((f) => f.endsWith('.json')).map((f) => path.join(SAMPLES, f));

forEachEngine('CLI and server processes', (ctx) => {
  let dir: string;
  let env: Record<string, string>;
  /** A root token made with the CLI, on the suite's database, where the CLI has loaded the samples. */
  let token: string;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-cli-'));
    env = { DATABASE_URL: ctx.engine === 'sqlite' ? `sqlite:${path.join(dir, 'almanac.db')}` : ctx.url };
    const made = await runCli(['token', 'create', '--user', 'datahub'], env);
    assert.equal(made.code, 0, made.stderr);
    token = made.stdout.trim();
    const loaded = await runCli(['ingest', ...SAMPLE_FILES()], env);
    assert.equal(loaded.code, 0, loaded.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('token create prints the token alone on stdout', async () => {
    const res = await runCli(['token', 'create', '--user', 'datahub'], env);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/);
  });

  test('token create refuses a user that does not exist, unless --create-user makes them', async () => {
    const typo = await runCli(['token', 'create', '--user', 'nobody-here'], env);
    assert.deepEqual([typo.code, typo.stdout, typo.stderr], [1, '',
      'almanac: there is no user urn:li:corpuser:nobody-here (check the name, or pass --create-user to create it)\n']);
    const catalog = await openCatalog(loadConfig({ DATABASE_URL: env.DATABASE_URL! }));
    try {
      assert.deepEqual(await catalog.tokens.list({ actorUrn: 'urn:li:corpuser:nobody-here', start: 0, count: 10 }), { total: 0, tokens: [] });
      assert.deepEqual(await catalog.store.existing(['urn:li:corpuser:nobody-here']), new Set());
      // A user that exists (from the samples) needs no flag.
      const jdoe = await runCli(['token', 'create', '--user', 'jdoe'], env);
      assert.deepEqual([jdoe.code, jdoe.stderr], [0, '']);
      assert.deepEqual(await catalog.tokens.authenticate(jdoe.stdout.trim()),
        { urn: 'urn:li:corpuser:jdoe', kind: 'user', tokenId: TokenService.hash(jdoe.stdout.trim()) });

      const made = await runCli(['token', 'create', '--user', 'newcomer', '--create-user'], env);
      assert.deepEqual([made.code, made.stderr], [0, '']);
      const token = made.stdout.trim();
      assert.deepEqual(await catalog.tokens.authenticate(token), { urn: 'urn:li:corpuser:newcomer', kind: 'user', tokenId: TokenService.hash(token) });
      // The user as made: what a native user gets, less the password (and the email and title nobody gave).
      const stored = await catalog.store.getLatest(['urn:li:corpuser:newcomer']);
      const values = Object.fromEntries([...stored.get('urn:li:corpuser:newcomer')!].map(([a, r]) => [a, r.value]));
      const time = (values.corpUserStatus as { lastModified: { time: number } }).lastModified.time;
      assert.equal(typeof time, 'number');
      assert.deepEqual(values, {
        corpUserInfo: { active: true, fullName: 'newcomer', displayName: 'newcomer' },
        corpUserStatus: { status: 'ACTIVE', lastModified: { time, actor: 'urn:li:corpuser:datahub' } },
      });
      // Once made, no flag is needed; the flag on an existing user changes nothing.
      for (const args of [['--user', 'newcomer'], ['--user', 'newcomer', '--create-user']]) {
        const again = await runCli(['token', 'create', ...args], env);
        assert.deepEqual([again.code, again.stderr], [0, '']);
      }
      assert.deepEqual(Object.fromEntries([...(await catalog.store.getLatest(['urn:li:corpuser:newcomer'])).get('urn:li:corpuser:newcomer')!]
        .map(([a, r]) => [a, r.value])), values);
    } finally {
      await catalog.close();
    }
  });

  test('token create --user datahub works on a fresh database, where the root user is not stored', async () => {
    const db = await freshSharedDatabaseUrl(ctx.engine);
    try {
      const res = await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: db.url });
      assert.deepEqual([res.code, res.stderr], [0, '']);
      const catalog = await openCatalog(loadConfig({ DATABASE_URL: db.url }));
      try {
        assert.equal(await catalog.store.countEntities('corpuser'), 0, 'no user was made');
        assert.deepEqual(await catalog.tokens.authenticate(res.stdout.trim()),
          { urn: 'urn:li:corpuser:datahub', kind: 'user', tokenId: TokenService.hash(res.stdout.trim()) });
      } finally {
        await catalog.close();
      }
    } finally {
      await db.cleanup();
    }
  });

  test('ingest loads every sample file and reports counts', async () => {
    // Into a database of its own: the counts are those of a first load.
    const db = await freshSharedDatabaseUrl(ctx.engine);
    let res;
    try {
      res = await runCli(['ingest', ...SAMPLE_FILES()], { DATABASE_URL: db.url });
    } finally {
      await db.cleanup();
    }
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stderr, '');
    assert.equal(res.stdout.replace(/ in \d+ ms:/, ' in <n> ms:'), 'Ingested 190 of 190 records from 10 files (113 MCE, 77 MCP) in <n> ms: ' +
      "254 aspect versions written (new entities' key aspects included), 9 unchanged, 54 time-series rows; nothing refused\n");
  });

  test('ingest names each refused record and exits 1, keeping the good ones', async () => {
    const file = path.join(dir, 'mixed.json');
    writeFileSync(file, JSON.stringify([
      { entityType: 'tag', entityUrn: 'urn:li:tag:cli_good', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: { json: { name: 'good' } } },
      { entityType: 'tag', entityUrn: 'urn:li:tag:cli_bad', changeType: 'UPSERT', aspectName: 'tagProperties', aspect: { json: { name: 7 } } },
      { something: 'else' },
    ]));
    const res = await runCli(['ingest', file], env);
    assert.equal(res.code, 1);
    assert.equal(res.stderr,
      `refused: ${file} record 1 (urn:li:tag:cli_bad): Invalid aspect tagProperties: name: expected a string, got number\n` +
      `refused: ${file} record 2: record is neither an MCE (proposedSnapshot) nor an MCP (aspectName, aspect)\n`);
    // The good record made its entity: its key aspect and tagProperties.
    assert.equal(res.stdout.replace(/ in \d+ ms:/, ' in <n> ms:'), 'Ingested 1 of 3 records from 1 file (0 MCE, 2 MCP) in <n> ms: ' +
      "2 aspect versions written (new entities' key aspects included), 0 unchanged, 0 time-series rows; " +
      'refused, each named on stderr with its reason: 1 record refused by validation, 1 record not a valid MCE or MCP\n');
  });

  test('ingest of a missing file, or a folder with no JSON files, is one line on stderr and exit code 1, nothing ingested', async () => {
    const empty = path.join(dir, 'empty');
    mkdirSync(empty, { recursive: true });
    const good = path.join(dir, 'one-tag.json');
    writeFileSync(good, JSON.stringify([{ entityType: 'tag', entityUrn: 'urn:li:tag:cli_never', changeType: 'UPSERT', aspectName: 'tagProperties',
      aspect: { json: { name: 'never' } } }]));
    const missing = path.join(dir, 'missing.json');
    assert.deepEqual(await runCli(['ingest', good, missing], env),
      { code: 1, stdout: '', stderr: `almanac: ${missing}: no such file or folder\n` });
    assert.deepEqual(await runCli(['ingest', empty], env),
      { code: 1, stdout: '', stderr: `almanac: ${empty}: a folder with no .json files in it\n` });
    const { child, base, exited } = await startServer(env);
    try {
      const res = await fetch(`${base}/aspects/${encodeURIComponent('urn:li:tag:cli_never')}?aspect=tagProperties`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 404, 'nothing of the good file was ingested');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('a file that is not JSON is refused with the line and column where it breaks, nothing of it ingested', async () => {
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '[\n  {"entityType": "tag", "entityUrn": "urn:li:tag:cli_broken",}\n]\n');
    const res = await runCli(['ingest', broken], env);
    assert.deepEqual({ ...res, stdout: res.stdout.replace(/ in \d+ ms:/, ' in <n> ms:') }, { code: 1,
      stderr: `refused: ${broken}: not valid JSON at line 2, column 62: expected a property name in double quotes, found '}'; ` +
        'nothing in this file was ingested\n',
      stdout: "Ingested 0 of 0 records from 0 of 1 file (0 MCE, 0 MCP) in <n> ms: 0 aspect versions written (new entities' key aspects included), " +
        '0 unchanged, 0 time-series rows; refused, each named on stderr with its reason: 1 file not valid JSON\n' });
    const cut = path.join(dir, 'cut.json');
    writeFileSync(cut, '[{"a": 1}, {"b": tru}');
    const whole = await runCli(['ingest', cut], env);
    assert.equal(whole.stderr, `refused: ${cut}: not valid JSON at line 1, column 18: expected a value, found 't'; nothing in this file was ingested\n`);
  });

  test('timeseries truncate: a dry run names the option that deletes, --execute', async () => {
    const args = ['timeseries', 'truncate', '--entity-type', 'dataset', '--aspect', 'datasetProfile', '--end', '1629010800000'];
    assert.deepEqual(await runCli(args, env), { code: 0, stderr: '',
      stdout: 'Delete 4 out of 46 rows (8.70%). Issuing a delete by query request. This was a dry run. Add --execute to delete them.\n' });
  });

  test('the server reads back what the CLI ingested, with the CLI token', async () => {
    const { child, base, exited } = await startServer(env);
    try {
      const res = await fetch(`${base}/aspects/${encodeURIComponent(HDFS)}?aspect=schemaMetadata`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      const body = await res.json() as any;
      assert.equal(body.aspect['com.linkedin.schema.SchemaMetadata'].schemaName, 'SampleHdfsSchema');
      const gql = await fetch(`${base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ dataset(urn: "${HDFS}") { urn } }` }) });
      assert.deepEqual(await gql.json(), { data: { dataset: { urn: HDFS } }, extensions: {} });
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, 'SIGTERM shuts down cleanly with exit code 0');
    }
  });

  test('a JSON Patch path through __proto__ leaves a running server sound: refused, no privilege gained, root unaffected', async () => {
    const { child, base, exited } = await startServer(env);
    const gql = async (authorization: string, query: string) => (await fetch(`${base}/api/graphql`, { method: 'POST',
      headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ query }) })).json() as Promise<any>;
    const ingestProposal = (authorization: string, proposal: object) => fetch(`${base}/aspects?action=ingestProposal`, { method: 'POST',
      headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify({ proposal }) });
    const patch = (ops: object[]) => ({ entityType: 'dataset', entityUrn: HDFS, changeType: 'PATCH', aspectName: 'globalTags',
      aspect: { value: JSON.stringify(ops), contentType: 'application/json-patch+json' } });
    try {
      const root = `Bearer ${token}`;
      // alice may edit one dataset: the attacker of the report.
      const created = await gql(root, `mutation { createPolicy(input: { type: METADATA, name: "alice edits hdfs", state: ACTIVE,
        privileges: ["EDIT_ENTITY"], resources: { resources: ["${HDFS}"], allResources: false },
        actors: { users: ["urn:li:corpuser:alice"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
      assert.equal(created.errors, undefined, JSON.stringify(created.errors));
      const aliceToken = await runCli(['token', 'create', '--user', 'alice', '--create-user'], env);
      assert.equal(aliceToken.code, 0, aliceToken.stderr);
      const alice = `Bearer ${aliceToken.stdout.trim()}`;

      for (const [path, value] of [['/__proto__/allUsers', true], ['/__proto__/users', ['urn:li:corpuser:alice']],
        ['/constructor/prototype/allUsers', true]] as const) {
        const res = await ingestProposal(alice, patch([{ op: 'add', path, value }]));
        assert.equal(res.status, 422, path);
        assert.deepEqual(await res.json(), { status: 422, code: 'UNPROCESSABLE', field: 'aspect[0].path',
          message: `Patch operation 0: path '${path}' has the segment '${path.split('/')[1]}', which is not allowed: it names an object's prototype` });
      }
      const denied = { message: 'Unauthorized to perform this action. Please contact your DataHub administrator.', code: 403 };
      const policies = await gql(alice, '{ listPolicies(input: { start: 0, count: 10 }) { total } }');
      assert.deepEqual(policies.errors.map((e: any) => ({ message: e.message, code: e.extensions.code })), [denied]);
      const rootToken = await gql(alice, 'mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "r" }) { accessToken } }');
      assert.deepEqual(rootToken.errors.map((e: any) => ({ message: e.message, code: e.extensions.code })), [denied]);
      // Privilege checks still work for everyone (the `users` variant once made every one of them throw).
      const rootPolicies = await gql(root, '{ listPolicies(input: { start: 0, count: 100 }) { total } }');
      assert.equal(rootPolicies.errors, undefined, JSON.stringify(rootPolicies.errors));
      assert.ok(rootPolicies.data.listPolicies.total >= 1, JSON.stringify(rootPolicies));
      const legit = await ingestProposal(alice, patch([{ op: 'add', path: '/tags/urn:li:tag:Legacy', value: { tag: 'urn:li:tag:Legacy' } }]));
      assert.deepEqual([legit.status, await legit.json()], [200, { value: HDFS }]);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  test('kill -9 right after an acknowledged write loses nothing', async () => {
    const first = await startServer(env);
    const urn = 'urn:li:tag:survives_kill';
    const res = await fetch(`${first.base}/aspects?action=ingestProposal`, { method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ proposal: { entityType: 'tag', entityUrn: urn, changeType: 'UPSERT', aspectName: 'tagProperties',
        aspect: { value: JSON.stringify({ name: 'Survivor' }), contentType: 'application/json' } } }) });
    assert.deepEqual(await res.json(), { value: urn });
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServer(env);
    try {
      const read = await fetch(`${second.base}/aspects/${encodeURIComponent(urn)}?aspect=tagProperties`, { headers: { authorization: `Bearer ${token}` } });
      assert.deepEqual(await read.json(), { version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: 'Survivor' } } });
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  test('invalid configuration stops start-up with one clear line', async () => {
    const res = await runCli(['serve'], { ...env, PORT: 'eighty' });
    assert.equal(res.code, 1);
    assert.equal(res.stderr, "almanac: invalid configuration: PORT must be a whole number, got 'eighty'\n");
    const db = await runCli(['serve'], { DATABASE_URL: 'mysql://x' });
    assert.equal(db.stderr, "almanac: invalid configuration: DATABASE_URL must be sqlite:<path> or postgres://…, got 'mysql://x'\n");
  });
});
