import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { ASPECT_TABLE } from '../src/storage/schema.js';
import { Cluster, eventually, havePgTools } from './support/pg-cluster.js';
import { runCli, startServer, type ServerProcess } from './support/processes.js';

/**
 * Read replicas (issue 31): a primary and a streaming standby of the test's own (pg_basebackup -R), servers with
 * DATABASE_URL on the primary and DATABASE_READ_URL on the standby. Reads are served by the standby (shown with its
 * replay paused), a client reads its own writes across it, and the standby going away mid-load fails no request.
 * PostgreSQL only by nature; without initdb it is skipped loudly, except in CI, where it fails.
 */
const CLIENT_TIMEOUT_MS = 15_000;
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LSN = /^[0-9A-F]+\/[0-9A-F]+$/;


describe('read replica and pool configuration', () => {
  const pgUrl = 'postgres://a@primary:5432/almanac';
  test('DATABASE_READ_URL: comma-separated postgres URLs beside a PostgreSQL DATABASE_URL; the pool and waits are bounded numbers', () => {
    const c = loadConfig({ DATABASE_URL: pgUrl, DATABASE_READ_URL: ' postgres://a@r1/almanac , postgresql://a@r2:5433/almanac,', ALMANAC_PG_POOL_SIZE: '25',
      ALMANAC_PG_STATEMENT_TIMEOUT_MS: '30000', ALMANAC_READ_WAIT_MS: '0' });
    assert.deepEqual([c.databaseReadUrls, c.databasePoolSize, c.databaseStatementTimeoutMs, c.databaseReadWaitMs],
      [['postgres://a@r1/almanac', 'postgresql://a@r2:5433/almanac'], 25, 30000, 0]);
    const d = loadConfig({ DATABASE_URL: pgUrl });
    assert.deepEqual([d.databaseReadUrls, d.databasePoolSize, d.databaseStatementTimeoutMs, d.databaseReadWaitMs], [[], 10, 0, 250]);
  });
  test('a wrong value stops the start with one line naming the variable (and never showing a password)', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        assert.ok(e instanceof ConfigError, `a ConfigError: ${e}`);
        return e.message;
      }
      return 'accepted';
    };
    assert.deepEqual([
      refused({ DATABASE_URL: 'sqlite:./x.db', DATABASE_READ_URL: 'postgres://a@r1/almanac' }),
      refused({ DATABASE_URL: pgUrl, DATABASE_READ_URL: 'mysql://a:secret@r1/almanac' }),
      refused({ DATABASE_URL: pgUrl, ALMANAC_PG_POOL_SIZE: '0' }),
      refused({ DATABASE_URL: pgUrl, ALMANAC_READ_WAIT_MS: 'soon' }),
    ], [
      'DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (replicas of it)',
      "DATABASE_READ_URL: each replica must be a postgres://… URL, got 'mysql://a:…@r1/almanac'",
      'ALMANAC_PG_POOL_SIZE must be between 1 and 1000, got 0',
      "ALMANAC_READ_WAIT_MS must be a whole number, got 'soon'",
    ]);
  });
});

describe('read replicas (PostgreSQL only: a primary and a standby of the test\'s own)', async () => {
  if (!havePgTools('the read replica test')) return;

  let primary: Cluster | undefined;
  let standby: Cluster | undefined;
  const servers: ServerProcess[] = [];
  let token = '';
  let url = '';

  const request = async (s: ServerProcess, path: string, init: RequestInit = {}) => {
    const res = await fetch(`${s.base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json',
      ...init.headers as Record<string, string> }, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    return { status: res.status, commitLsn: res.headers.get('x-almanac-commit-lsn'), body: await res.json() };
  };
  const describeDataset = (s: ServerProcess, urn: string, description: string) => request(s, '/aspects?action=ingestProposal', {
    method: 'POST', body: JSON.stringify({ proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName: 'datasetProperties',
      aspect: { contentType: 'application/json', value: JSON.stringify({ description, customProperties: {}, tags: [] }) } } }) });
  /** The dataset's description through GraphQL (a query: replica-eligible), with headers of the caller's. */
  const description = async (s: ServerProcess, urn: string, headers: Record<string, string> = {}) => {
    const r = await request(s, '/api/graphql', { method: 'POST', headers, body: JSON.stringify({ query: `{ dataset(urn: "${urn}") { properties { description } } }` }) });
    return { status: r.status, body: r.body };
  };
  const described = (text: string) => ({ status: 200, body: { data: { dataset: { properties: { description: text } } }, extensions: {} } });
  /** How many reads each server has sent where (almanac_db_reads_total). */
  const readsServedBy = async (s: ServerProcess): Promise<Record<string, number>> => {
    const text = await (await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    return Object.fromEntries([...text.matchAll(/^almanac_db_reads_total\{served_by="(\w+)"\} (\d+)/gm)].map((m) => [m[1]!, Number(m[2])]));
  };

  before(async () => {
    primary = await Cluster.create();
    await primary.sql('CREATE DATABASE almanac');
    url = `${primary.url}/almanac`;
    token = (await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: url })).stdout.trim();
    standby = await Cluster.standbyOf(primary);
    // Every answer computed (no reuse of GraphQL answers): the test writes rows behind the servers' backs.
    const env = { DATABASE_URL: url, DATABASE_READ_URL: `${standby.url}/almanac`, ALMANAC_RESPONSE_CACHE_MB: '0', ALMANAC_READ_WAIT_MS: '200' };
    servers.push(...await Promise.all([0, 1].map(() => startServer(env))));
  });
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    standby?.destroy();
    primary?.destroy();
  });

  test('reads are served by the replica: a row changed on the primary while replay is paused is not seen, then is', async () => {
    const [s] = servers;
    const urn = ds('replica_paused');
    assert.equal((await describeDataset(s!, urn, 'before')).status, 200);
    await eventually('the replica has the dataset', async () => JSON.stringify(await description(s!, urn)) === JSON.stringify(described('before'))
      || JSON.stringify(await description(s!, urn)));
    const health = await fetch(`${s!.base}/health`);
    const healthBody = await health.json();
    assert.deepEqual({ status: health.status, body: healthBody }, { status: 200, body: { status: 'ok',
      replicas: [{ name: `127.0.0.1:${standby!.port}/almanac`, up: true, lagBytes: healthBody.replicas[0].lagBytes, lagSeconds: healthBody.replicas[0].lagSeconds }] } });
    assert.equal(typeof healthBody.replicas[0].lagBytes, 'number');

    // The write's index step commits just after its answer (ALMANAC_INDEX_DELAY_MS): let it, and let the standby
    // replay it, before pausing; a commit the servers saw but the paused standby lacks would send reads to the primary.
    await sleep(300);
    const primaryAt = (await primary!.sql('SELECT pg_current_wal_lsn()::text AS lsn'))[0].lsn as string;
    await eventually('the standby has replayed all the primary wrote', async () =>
      (await standby!.sql('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done', [primaryAt]))[0].done === true || 'behind');
    await standby!.sql('SELECT pg_wal_replay_pause()', [], 'almanac');
    try {
      // Behind the servers' backs (no change-log entry: no server knows to wait for it).
      await primary!.sql(`UPDATE ${ASPECT_TABLE} SET metadata = $1 WHERE urn = $2 AND aspect = 'datasetProperties' AND version = 0`,
        [JSON.stringify({ description: 'changed on the primary', customProperties: {}, tags: [] }), urn], 'almanac');
      assert.deepEqual((await primary!.sql(`SELECT metadata FROM ${ASPECT_TABLE} WHERE urn = $1 AND aspect = 'datasetProperties' AND version = 0`,
        [urn], 'almanac')).map((r) => JSON.parse(r.metadata).description), ['changed on the primary']);
      await sleep(300);
      const before = await readsServedBy(s!);
      assert.deepEqual(await description(s!, urn), described('before'), 'the paused replica answered');
      const afterRead = await readsServedBy(s!);
      assert.ok(afterRead.replica! > before.replica!, `the read went to the replica: ${JSON.stringify(before)} → ${JSON.stringify(afterRead)}`);
    } finally {
      await standby!.sql('SELECT pg_wal_replay_resume()', [], 'almanac');
    }
    await eventually('the replica replays the change', async () => JSON.stringify(await description(s!, urn)) === JSON.stringify(described('changed on the primary'))
      || JSON.stringify(await description(s!, urn)));
  });

  test('read your writes across the replica: on the server that wrote, and on another presenting X-Almanac-Commit-Lsn', async () => {
    const [a, b] = servers;
    const urn = ds('replica_ryw');
    assert.equal((await describeDataset(a!, urn, 'first')).status, 200);
    await eventually('the replica has the dataset', async () => JSON.stringify(await description(b!, urn)) === JSON.stringify(described('first')) || 'not yet');
    await standby!.sql('SELECT pg_wal_replay_pause()', [], 'almanac');
    try {
      const write = await describeDataset(a!, urn, 'second');
      assert.equal(write.status, 200, JSON.stringify(write.body));
      assert.match(write.commitLsn ?? '', LSN, 'the write answers with its commit position');
      const before = await readsServedBy(a!);
      // The writer: its own commit is its floor; the paused replica never gets there, so the primary answers.
      assert.deepEqual(await description(a!, urn), described('second'));
      // Another server, given the position: the same.
      assert.deepEqual(await description(b!, urn, { 'x-almanac-min-lsn': write.commitLsn! }), described('second'));
      const afterRead = await readsServedBy(a!);
      assert.ok(afterRead.primary! > before.primary!, `the primary answered: ${JSON.stringify(before)} → ${JSON.stringify(afterRead)}`);
    } finally {
      await standby!.sql('SELECT pg_wal_replay_resume()', [], 'almanac');
    }
    // Once replayed, the replica serves the reads again.
    await eventually('reads go to the replica again', async () => {
      const before = await readsServedBy(a!);
      assert.deepEqual(await description(a!, urn), described('second'));
      const afterRead = await readsServedBy(a!);
      return afterRead.replica! > before.replica! || JSON.stringify(afterRead);
    });
  });

  test('the replica stopped mid-load and started again: no request fails, one warning, back in rotation by itself', async () => {
    const urns = Array.from({ length: 20 }, (_, i) => ds(`replica_load_${i}`));
    for (const [i, urn] of urns.entries()) assert.equal((await describeDataset(servers[i % 2]!, urn, `load ${i}`)).status, 200);
    const outcomes: { what: string; status: number | string; ok: boolean }[] = [];
    let stop = false;
    const reader = async (client: number) => {
      for (let i = 0; !stop; i++) {
        const s = servers[(client + i) % 2]!;
        const n = (client * 7 + i) % urns.length;
        try {
          if (i % 3 === 2) {
            // A write now and then: the floor moves while the replica is away and when it comes back.
            const r = await describeDataset(s, urns[n]!, `load ${n}`);
            outcomes.push({ what: 'write', status: r.status, ok: r.status === 200 });
          } else {
            const r = await description(s, urns[n]!);
            outcomes.push({ what: 'read', status: r.status, ok: JSON.stringify(r) === JSON.stringify(described(`load ${n}`)) });
          }
        } catch (e) {
          outcomes.push({ what: 'read', status: (e as Error).name === 'TimeoutError' ? 'hung' : `no answer: ${(e as Error).message}`, ok: false });
        }
      }
    };
    const clients = Array.from({ length: 6 }, (_, i) => reader(i));
    try {
      await sleep(1000);
      standby!.stop('fast');
      await sleep(1500);
      standby!.start();
      await eventually('both servers have the replica back in rotation', async () => {
        const states = await Promise.all(servers.map(async (s) => (await (await fetch(`${s.base}/health`)).json()).replicas[0].up));
        return states.every((up) => up) || JSON.stringify(states);
      });
      await sleep(500);
    } finally {
      stop = true;
      await Promise.all(clients);
    }
    const failed = outcomes.filter((o) => !o.ok);
    assert.deepEqual(failed.slice(0, 10), [], `every one of ${outcomes.length} requests answered rightly`);
    assert.ok(outcomes.length > 50, `the load ran: ${outcomes.length} requests`);
    for (const s of servers) {
      const name = `127.0.0.1:${standby!.port}/almanac`;
      const lines = s.stderr().split('\n').filter((l) => l.includes(`read replica ${name}`));
      assert.deepEqual(lines.map((l) => l.replace(/: [^:]*$/, ': …').replace(/is out of rotation .*$/, 'is out of rotation …')), [
        `almanac: warning: read replica ${name} is out of rotation …`,
        `almanac: read replica ${name} is back in rotation`,
      ]);
    }
  });
});
