import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ConfigError, loadConfig } from '../src/config.js';
import { openStore } from '../src/storage/index.js';
import { forEachEngine, freshSharedDatabaseUrl, type EngineContext } from './support/engines.js';
import { runCli, startServer, type ServerProcess } from './support/processes.js';

/**
 * Several `almanac serve` processes on one database (issue 16): what one of them writes is seen through every other
 * within a second — reads, search, lineage, token revocations and policy changes — and timed jobs run on one server
 * at a time. On SQLite, a server sees what another process (the CLI) wrote to the same file.
 *
 * Each propagation is measured from the write's commit — the moment a LISTEN connection of the test's own hears the
 * NOTIFY the write sends in its transaction (delivered on commit) — to the start of the first request whose answer
 * shows it, polled every 10 ms. The delays are printed for the record; the bound of one second is measured by `npm run bench`,
 * not asserted here (a loaded machine is no failure of the catalog): the tests wait generously and assert what is seen. On SQLite the
 * commit is seen by watching the log's head from a connection of the test's own.
 */

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

type Server = ServerProcess;

/** `almanac serve` on the database, logging at info (the tests read its log lines). */
const serve = (url: string, env: Record<string, string> = {}): Promise<Server> => startServer({ DATABASE_URL: url, LOG_LEVEL: 'info', ...env });

/** Asks the server to shut down; how it exited (null: it had ended already). */
async function stop(s: Server): Promise<Awaited<Server['exited']> | null> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return null;
  s.child.kill('SIGTERM');
  return s.exited;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` every 10 ms until it returns true, for at most `limitMs`, or fails. Returns when the probe that
 * succeeded started, from `since`: a request sent then already got the new state (so the figure leaves out how long
 * the request itself took, which says nothing about propagation).
 */
async function reached(what: string, since: number, probe: () => Promise<boolean>, limitMs = 10_000): Promise<number> {
  for (;;) {
    const started = performance.now();
    if (await probe()) return Math.max(0, started - since);
    if (performance.now() - since > limitMs) assert.fail(`${what}: not reached within ${limitMs} ms`);
    await sleep(10);
  }
}

function graphql(base: string, token: string, query: string, variables?: object): Promise<{ status: number; body: any }> {
  return fetch(`${base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }) }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

const proposal = (urn: string, aspectName: string, value: object) => ({ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName,
  aspect: { contentType: 'application/json', value: JSON.stringify(value) } });

/** What servers 2 and 3 are asked after the write: the dataset, a search for its word, its lineage. */
const readQuery = (urn: string, word: string) => `{
  dataset(urn: "${urn}") { urn properties { description }
    relationships(input: { types: ["DownstreamOf"], direction: OUTGOING }) { total relationships { type entity { urn } } } }
  search(input: { type: DATASET, query: "${word}" }) { total searchResults { entity { urn } } } }`;

/** The answer to readQuery before the write: no such dataset (404), nothing found. */
function assertAbsent(body: any, urn: string) {
  assert.deepEqual(body.data, { dataset: null, search: { total: 0, searchResults: [] } });
  assert.deepEqual(body.errors.map((e: any) => [e.extensions.code, e.message]), [[404, `Entity ${urn} does not exist`]]);
}

test('ALMANAC_CHANGE_LOG_RETENTION_DAYS: 7 days unless set, a whole number of days from 1', () => {
  assert.equal(loadConfig({}).changeLogRetentionDays, 7);
  assert.equal(loadConfig({ ALMANAC_CHANGE_LOG_RETENTION_DAYS: '30' }).changeLogRetentionDays, 30);
  for (const [value, message] of [['0', 'ALMANAC_CHANGE_LOG_RETENTION_DAYS must be between 1 and 3650, got 0'],
    ['1.5', "ALMANAC_CHANGE_LOG_RETENTION_DAYS must be a whole number, got '1.5'"]]) {
    assert.throws(() => loadConfig({ ALMANAC_CHANGE_LOG_RETENTION_DAYS: value }), (e: unknown) => e instanceof ConfigError && e.message === message);
  }
});

forEachEngine('several servers on one database', (ctx) => {
  if (ctx.engine === 'sqlite') {
    sqliteSuite(ctx);
    return;
  }

  const servers: Server[] = [];
  let admin = '';
  // The commit clock: when this connection heard each NOTIFY of the log's channel.
  const commits: number[] = [];
  let listener: pg.Client | undefined;
  /** How long after the commit of the first write sent after `sent` something took, that `ms` after `sent`. */
  const fromCommit = async (sent: number, ms: number): Promise<number> => {
    await reached('the NOTIFY', sent, async () => commits.some((t) => t >= sent));
    return Math.max(0, ms - (commits.find((t) => t >= sent)! - sent));
  };
  const delays: Record<string, number[]> = {};
  const record = (what: string, ms: number) => (delays[what] ??= []).push(Math.round(ms));

  before(async () => {
    // Three servers starting at once on a new database: migrations, default policies and the signing key are made once.
    servers.push(...await Promise.all([1, 2, 3].map(() => serve(ctx.url, { ALMANAC_RETENTION_INTERVAL_MS: '1000' }))));
    admin = (await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: ctx.url })).stdout.trim();
    listener = new pg.Client({ connectionString: ctx.url, application_name: 'almanac-test-clock' });
    // The test's clock only: an error on its connection is no failure of the servers (and must not crash the file).
    listener.on('error', () => {});
    await listener.connect();
    listener.on('notification', () => commits.push(performance.now()));
    await listener.query('LISTEN almanac_changes');
  });
  after(async () => { // no assertion here (a failing after hook fails the run without naming a test): see the last test
    await listener?.end().catch(() => {});
    await Promise.all(servers.map(stop));
    console.log(`propagation delays (ms, from the commit): ${JSON.stringify(delays)}`);
  });

  test('the store: watchChanges wakes on another connection\'s commit; runExclusive runs a job on one connection at a time', async () => {
    const [a, b] = [await openStore(ctx.url), await openStore(ctx.url)];
    try {
      let woken = 0;
      const states: boolean[] = [];
      const unwatch = await b.watchChanges(() => woken++, (listening) => states.push(listening));
      assert.ok(unwatch, 'watching returns how to stop');
      assert.deepEqual(states, [true]);
      assert.equal(woken, 1, 'once on connecting (what was announced while nobody listened)');
      await a.writeAspects([{ urn: 'urn:li:tag:watched', entityType: 'tag', aspect: 'tagProperties', value: { name: 'watched' }, actor: 'urn:li:corpuser:x' }], 20);
      await reached('the wake-up', performance.now(), async () => woken === 2);
      await unwatch();

      let release = () => {};
      const held = new Promise<void>((r) => (release = r));
      let running = () => {};
      const started = new Promise<void>((r) => (running = r));
      const first = a.runExclusive('test-job', () => { running(); return held; });
      await started; // the first run holds the job
      assert.equal(await b.runExclusive('test-job', async () => assert.fail('ran beside the first')), false, 'another server');
      assert.equal(await a.runExclusive('test-job', async () => assert.fail('ran beside the first')), false, 'the same server');
      let ran = 0;
      assert.equal(await b.runExclusive('another-job', async () => { ran++; }), true, 'another job');
      release();
      assert.equal(await first, true);
      assert.equal(await b.runExclusive('test-job', async () => { ran++; }), true, 'free again');
      await assert.rejects(b.runExclusive('test-job', async () => { throw new Error('the job failed'); }), /the job failed/);
      assert.equal(await a.runExclusive('test-job', async () => { ran++; }), true, 'a failed run lets go of the job');
      assert.equal(ran, 3);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('the store: a job whose lock goes with its connection hears of it and stops; runExclusive fails, and the job is free to take anew', async () => {
    const [a, b] = [await openStore(ctx.url), await openStore(ctx.url)];
    const c = new pg.Client({ connectionString: ctx.url });
    await c.connect();
    let ended = false; // should the test fail before the lock is lost: the job ends, so that the store can close
    try {
      let steps = 0;
      // A job working in steps until its lock is lost (as the trimming does, batch after batch).
      const run = a.runExclusive('lost-job', async (lost) => {
        while (!lost.aborted && !ended) {
          steps++;
          await sleep(20);
        }
      });
      run.catch(() => {}); // awaited below
      const holders = async () => (await c.query(`SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND ((classid::bigint << 32) | objid::bigint) = hashtextextended('almanac:job:lost-job', 0)`)).rows.map((r) => r.pid as number);
      await reached('the lock taken', performance.now(), async () => (await holders()).length === 1);
      assert.equal(await b.runExclusive('lost-job', async () => assert.fail('ran beside the first')), false, 'held by the first');
      // The session holding the lock ends (a database restart ends them all).
      assert.deepEqual((await c.query('SELECT pg_terminate_backend($1) AS done', [(await holders())[0]])).rows, [{ done: true }]);
      await assert.rejects(run, (e: any) => {
        assert.deepEqual({ code: e.code, status: e.status, message: e.message },
          { code: 'UNAVAILABLE', status: 503, message: 'The lock of job lost-job was lost with its connection' });
        return true;
      });
      const stepsThen = steps;
      await sleep(100);
      assert.equal(steps, stepsThen, 'the job stopped');
      // The job is free: another server takes it, and so does this one again (its pool connects anew).
      let ran = 0;
      assert.equal(await b.runExclusive('lost-job', async () => { ran++; }), true, 'another server');
      assert.equal(await a.runExclusive('lost-job', async (lost) => { ran++; assert.equal(lost.aborted, false); }), true, 'the same server, anew');
      assert.equal(ran, 2);
    } finally {
      ended = true;
      await c.end();
      await a.close();
      await b.close();
    }
  });

  test('every server follows the log over LISTEN', async () => {
    for (const s of servers) {
      await reached('the LISTEN connection', performance.now(), async () => s.log().includes("listening for other servers' changes"));
    }
  });

  test('a write through server 1 is read, searched and its lineage seen through servers 2 and 3', async () => {
    for (const [i, word] of ['marmotglade', 'quokkaridge', 'wallabyfen'].entries()) {
      const urn = ds(`spread_${i}`);
      const source = ds(`spread_source_${i}`);
      // Servers 2 and 3 answer first without it (an answer they may keep, which the write must make them drop).
      for (const s of servers.slice(1)) assertAbsent((await graphql(s.base, admin, readQuery(urn, word))).body, urn);
      const expected = { data: {
        dataset: { urn, properties: { description: `the ${word} table` },
          relationships: { total: 1, relationships: [{ type: 'DownstreamOf', entity: { urn: source } }] } },
        search: { total: 1, searchResults: [{ entity: { urn } }] },
      }, extensions: {} };
      const sent = performance.now();
      const res = await fetch(`${servers[0]!.base}/aspects?action=ingestProposalBatch`, { method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ proposals: [
          proposal(urn, 'datasetProperties', { description: `the ${word} table` }),
          proposal(urn, 'upstreamLineage', { upstreams: [{ dataset: source, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] }),
        ] }) });
      assert.equal(res.status, 200, await res.text());
      const seen = await Promise.all(servers.slice(1).map(async (s) => {
        let last: unknown;
        const ms = await reached(`the write on ${s.base}`, sent, async () => {
          last = (await graphql(s.base, admin, readQuery(urn, word))).body;
          return JSON.stringify(last) === JSON.stringify(expected);
        });
        assert.deepEqual(last, expected);
        return fromCommit(sent, ms);
      }));
      for (const ms of seen) record('read+search+lineage', ms);
    }
  });

  test('a token revoked through server 2 is refused by server 3', async () => {
    const created = await graphql(servers[0]!.base, admin, `mutation { createAccessToken(input: { type: PERSONAL,
      actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "short-lived" }) { accessToken metadata { id } } }`);
    const { accessToken, metadata } = created.body.data.createAccessToken;
    const me = async () => (await graphql(servers[2]!.base, accessToken, '{ me { corpUser { urn } } }'));
    // Server 3 has checked the token (and keeps that lookup for a while).
    assert.deepEqual((await me()).body, { data: { me: { corpUser: { urn: 'urn:li:corpuser:datahub' } } }, extensions: {} });
    const sent = performance.now();
    assert.deepEqual((await graphql(servers[1]!.base, admin, `mutation { revokeAccessToken(tokenId: "${metadata.id}") }`)).body,
      { data: { revokeAccessToken: true }, extensions: {} });
    let last: { status: number; body: any } | undefined;
    const ms = await fromCommit(sent, await reached('the revocation on server 3', sent, async () => (last = await me()).status === 401));
    assert.match(JSON.stringify(last!.body), /revoked/);
    record('token revocation', ms);
  });

  test('a user deleted through server 1 (REST): server 2 refuses their token and their web app session', async () => {
    // A native user (the CLI sets a password, making the user), signed in through server 1, with a token of their own.
    const set = await runCli(['password', 'set', '--user', 'quinn'], { DATABASE_URL: ctx.url }, 'quinn passphrase\n');
    assert.deepEqual([set.code, set.stderr], [0, 'Password set for urn:li:corpuser:quinn\n']);
    const login = await fetch(`${servers[0]!.base}/logIn`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'quinn', password: 'quinn passphrase' }) });
    assert.equal(login.status, 200, await login.text());
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const created = await graphql(servers[0]!.base, admin, `mutation { createAccessToken(input: { type: PERSONAL,
      actorUrn: "urn:li:corpuser:quinn", duration: ONE_HOUR, name: "quinn's" }) { accessToken } }`);
    const token = created.body.data.createAccessToken.accessToken as string;
    const me = (headers: Record<string, string>) => fetch(`${servers[1]!.base}/api/graphql`, { method: 'POST',
      headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) })
      .then(async (r) => ({ status: r.status, body: await r.json() }));
    const credentials: Record<string, string>[] = [{ authorization: `Bearer ${token}` }, { cookie }];
    // Server 2 has checked both (and keeps those lookups for a while).
    for (const headers of credentials) {
      assert.deepEqual(await me(headers), { status: 200, body: { data: { me: { corpUser: { urn: 'urn:li:corpuser:quinn' } } }, extensions: {} } });
    }
    const deleted = await fetch(`${servers[0]!.base}/entities?action=delete`, { method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ urn: 'urn:li:corpuser:quinn' }) });
    assert.equal(deleted.status, 200, await deleted.text());
    const revoked = { status: 401, body: { status: 401, code: 'UNAUTHENTICATED', message: 'Failed to validate DataHub token: Token has been revoked.' } };
    for (const headers of credentials) {
      let last: { status: number; body: unknown } | undefined;
      // A generous bound (the issue asks for 2 s; propagation is asserted, not timed).
      await reached('the removal on server 2', performance.now(), async () => (last = await me(headers)).status !== 200, 10_000);
      assert.deepEqual(last, revoked);
    }
    // And the tokens are gone from the database, whichever server deleted them.
    const tokens = await graphql(servers[2]!.base, admin, `{ listAccessTokens(input: { start: 0, count: 10,
      filters: [{ field: "actorUrn", values: ["urn:li:corpuser:quinn"] }] }) { total } }`);
    assert.deepEqual(tokens.body, { data: { listAccessTokens: { total: 0 } }, extensions: {} });
  });

  test('a policy deactivated through server 1 takes effect on server 2', async () => {
    const jdoe = (await runCli(['token', 'create', '--user', 'jdoe', '--create-user'], { DATABASE_URL: ctx.url })).stdout.trim();
    let n = 0;
    const createTag = () => graphql(servers[1]!.base, jdoe, `mutation { createTag(input: { id: "multi-${n++}", name: "x" }) }`);
    assert.equal((await createTag()).body.errors[0].extensions.code, 403, 'no policy grants it yet');
    const policy = (await graphql(servers[0]!.base, admin, `mutation { createPolicy(input: { type: PLATFORM, name: "jdoe tags",
      state: ACTIVE, privileges: ["CREATE_TAGS"], actors: { users: ["urn:li:corpuser:jdoe"], allUsers: false, allGroups: false, resourceOwners: false } }) }`))
      .body.data.createPolicy as string;
    // Granted through server 2 (in time: the grant travels as the revocation does), then its snapshot is warm.
    await reached('the grant on server 2', performance.now(), async () => typeof (await createTag()).body.data?.createTag === 'string');
    assert.deepEqual((await createTag()).body, { data: { createTag: `urn:li:tag:multi-${n - 1}` }, extensions: {} });
    const sent = performance.now();
    const off = await graphql(servers[0]!.base, admin, `mutation { updatePolicy(urn: "${policy}", input: { type: PLATFORM, name: "jdoe tags",
      state: INACTIVE, privileges: ["CREATE_TAGS"], actors: { users: ["urn:li:corpuser:jdoe"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
    assert.deepEqual(off.body, { data: { updatePolicy: policy }, extensions: {} });
    const ms = await fromCommit(sent, await reached('the deactivation on server 2', sent,
      async () => (await createTag()).body.errors?.[0]?.extensions?.code === 403));
    record('policy deactivation', ms);
  });

  test('a server whose LISTEN connection is cut polls meanwhile and listens again', async () => {
    const c = new pg.Client({ connectionString: ctx.url });
    await c.connect();
    try {
      const cut = await c.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN almanac_changes' AND application_name <> 'almanac-test-clock'`);
      assert.deepEqual(cut.rows, [{ done: true }, { done: true }, { done: true }], 'one LISTEN connection per server');
    } finally {
      await c.end();
    }
    const count = (s: Server, text: string) => s.log().split(text).length - 1;
    for (const s of servers) {
      await reached('the warning', performance.now(), async () => count(s, 'lost the connection listening') === 1);
      await reached('listening again', performance.now(), async () => count(s, `"msg":"listening for other servers' changes"`) === 2);
    }
    // And a write still travels.
    const urn = ds('after_the_cut');
    assertAbsent((await graphql(servers[2]!.base, admin, readQuery(urn, 'numbatvale'))).body, urn);
    const sent = performance.now();
    const res = await fetch(`${servers[0]!.base}/aspects?action=ingestProposal`, { method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ proposal: proposal(urn, 'datasetProperties', { description: 'the numbatvale table' }) }) });
    assert.equal(res.status, 200, await res.text());
    const ms = await fromCommit(sent, await reached('the write after the cut', sent, async () =>
      (await graphql(servers[2]!.base, admin, readQuery(urn, 'numbatvale'))).body.data?.dataset?.properties?.description === 'the numbatvale table'));
    record('after a LISTEN reconnect', ms);
  });

  test('change-log trimming runs on one server at a time, and never while another holds the job', async () => {
    const key = "hashtextextended('almanac:job:change-log-trim', 0)";
    const c = new pg.Client({ connectionString: ctx.url });
    await c.connect();
    try {
      // While this connection holds the job (as a server running it would), no server trims: each runs it every second.
      // The job is taken first, so that no server trims the entries between their ageing and the check.
      await reached('holding the job', performance.now(), async () => (await c.query(`SELECT pg_try_advisory_lock(${key}) AS got`)).rows[0].got);
      // Entries older than the retention (7 days by default), as if written 8 days ago.
      await c.query(`UPDATE almanac_change_log SET at = at - 8 * 86400000 WHERE seq IN (SELECT seq FROM almanac_change_log ORDER BY seq LIMIT 5)`);
      const aged = async () => Number((await c.query(`SELECT COUNT(*) AS n FROM almanac_change_log WHERE at < $1`, [Date.now() - 7 * 86_400_000])).rows[0].n);
      assert.equal(await aged(), 5);
      await sleep(2500);
      assert.equal(await aged(), 5, 'nobody trimmed while the job was held');
      await c.query(`SELECT pg_advisory_unlock(${key})`);
      await reached('the trimming', performance.now(), async () => (await aged()) === 0);
      // One server did it, in one run (the five entries are one batch); the others found nothing left.
      await reached('the log line', performance.now(), async () => servers.some((s) => s.log().includes('"job":"change-log-trim"')));
      const lines = servers.flatMap((s) => s.log().split('\n').filter((l) => l.includes('"job":"change-log-trim"')).map((l) => JSON.parse(l)));
      assert.deepEqual(lines.map((l) => ({ job: l.job, trimmed: l.trimmed, msg: l.msg })), [{ job: 'change-log-trim', trimmed: 5, msg: 'trimmed the change log' }]);
    } finally {
      await c.end();
    }
  });

  test('every connection of every server cut (as a database restart does): each lives, answers, listens again and takes its job again', async () => {
    const c = new pg.Client({ connectionString: ctx.url, application_name: 'almanac-test-admin' });
    await c.connect();
    try {
      // The webhook dispatcher's job: one server holds its lock (a connection of its own, idle between statements).
      const heldByAServer = async () => {
        const got = (await c.query("SELECT pg_try_advisory_lock(hashtextextended('almanac:job:webhooks', 0)) AS got")).rows[0].got as boolean;
        if (got) await c.query("SELECT pg_advisory_unlock(hashtextextended('almanac:job:webhooks', 0))");
        return !got;
      };
      assert.equal(await heldByAServer(), true, 'a server runs the webhook dispatcher');
      const listening = (s: Server) => s.log().split(`"msg":"listening for other servers' changes"`).length - 1;
      const listenedBefore = servers.map(listening);
      const cut = await c.query(`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = current_database()
        AND pid <> pg_backend_pid() AND application_name NOT IN ('almanac-test-clock', 'almanac-test-admin')`);
      assert.ok(cut.rows.length >= 4, `the servers' connections were cut: ${cut.rows.length}`);
      assert.deepEqual(new Set(cut.rows.map((r) => r.done)), new Set([true]));

      // Each server answers: a refusal meanwhile is a 503 with Retry-After, and then it serves again.
      const urn = ds('after_every_cut');
      const statuses: string[] = [];
      for (const s of servers) {
        await reached('an answer', performance.now(), async () => {
          const res = await fetch(`${s.base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: readQuery(urn, 'wombatfell') }) });
          const body = await res.json();
          if (res.status !== 200) statuses.push(`${res.status} ${res.headers.get('retry-after')}`);
          return res.status === 200 && body.data?.dataset === null;
        });
      }
      assert.deepEqual(statuses.filter((x) => !/^503 [1-9]\d*$/.test(x)), [], 'nothing but 503 with Retry-After before serving again');
      assert.deepEqual(servers.map((s) => s.child.exitCode ?? s.child.signalCode), [null, null, null], 'every server still runs');

      // Each listens again, and a write through one is seen through another (the NOTIFY arrives).
      for (const [i, s] of servers.entries()) {
        await reached('listening again', performance.now(), async () => listening(s) === listenedBefore[i]! + 1);
      }
      const sent = performance.now();
      const res = await fetch(`${servers[0]!.base}/aspects?action=ingestProposal`, { method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify({ proposal: proposal(urn, 'datasetProperties', { description: 'the wombatfell table' }) }) });
      assert.equal(res.status, 200, await res.text());
      const ms = await fromCommit(sent, await reached('the write after the cut', sent, async () =>
        (await graphql(servers[2]!.base, admin, readQuery(urn, 'wombatfell'))).body.data?.dataset?.properties?.description === 'the wombatfell table'));
      record('after every connection was cut', ms);

      // The dispatcher's lock went with its session; a server has taken it again (its dispatcher stopped meanwhile).
      await reached('the webhook dispatcher\'s lock taken again', performance.now(), heldByAServer);
    } finally {
      await c.end();
    }
  });

  test('every server shuts down cleanly', async () => {
    assert.deepEqual(await Promise.all(servers.map(stop)), [0, 0, 0]);
  });
});

/** SQLite: one server and the CLI on one file; the server polls the log. */
function sqliteSuite(ctx: EngineContext) {
  let cleanup = async () => {};
  let dir = '';
  before(async () => {
    ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-multi-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await cleanup();
  });

  test('the store: no change signal (followers poll); runExclusive keeps runs of one job apart in one process', async () => {
    const store = await openStore(ctx.url);
    try {
      assert.equal(await store.watchChanges(() => assert.fail('no signal on SQLite')), null);
      let release = () => {};
      const first = store.runExclusive('test-job', () => new Promise<void>((r) => (release = r)));
      assert.equal(await store.runExclusive('test-job', async () => assert.fail('ran beside the first')), false);
      release();
      assert.equal(await first, true);
      let ran = 0;
      assert.equal(await store.runExclusive('test-job', async () => { ran++; }), true);
      assert.equal(ran, 1);
    } finally {
      await store.close();
    }
  });

  test('a server sees what the CLI ingested into its SQLite file', async () => {
    const token = (await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: ctx.url })).stdout.trim();
    const server = await serve(ctx.url);
    try {
      const urn = ds('from_the_cli');
      const source = ds('cli_source');
      assertAbsent((await graphql(server.base, token, readQuery(urn, 'pangolinmoor'))).body, urn);
      const file = path.join(dir, 'mcps.json');
      writeFileSync(file, JSON.stringify([
        { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties', aspect: { json: { description: 'the pangolinmoor table' } } },
        { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'upstreamLineage',
          aspect: { json: { upstreams: [{ dataset: source, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] } } },
      ]));
      // The commit's moment, seen from a connection of the test's own watching the log's head.
      const db = new Database(ctx.url.slice('sqlite:'.length), { readonly: true });
      const head = () => (db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM almanac_change_log').get() as { seq: number }).seq;
      const before = head();
      let committed: number | undefined;
      const watch = setInterval(() => { if (committed === undefined && head() > before) committed = performance.now(); }, 2);
      const ingested = runCli(['ingest', file], { DATABASE_URL: ctx.url });
      try {
        const expected = { data: {
          dataset: { urn, properties: { description: 'the pangolinmoor table' },
            relationships: { total: 1, relationships: [{ type: 'DownstreamOf', entity: { urn: source } }] } },
          search: { total: 1, searchResults: [{ entity: { urn } }] },
        }, extensions: {} };
        let last: unknown;
        await reached('the commit', performance.now(), async () => committed !== undefined, 30_000);
        const ms = await reached('the CLI\'s write on the server', committed!, async () => {
          last = (await graphql(server.base, token, readQuery(urn, 'pangolinmoor'))).body;
          return JSON.stringify(last) === JSON.stringify(expected);
        });
        assert.deepEqual(last, expected);
        console.log(`SQLite: the CLI's write seen by the server ${Math.round(ms)} ms after its commit`);
        assert.equal((await ingested).code, 0);
      } finally {
        clearInterval(watch);
        db.close();
        await ingested;
      }
      assert.equal(await stop(server), 0, 'the server shuts down cleanly');
    } finally {
      await stop(server);
    }
  });
}
