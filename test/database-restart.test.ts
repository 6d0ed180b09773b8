import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { ASPECT_TABLE } from '../src/storage/schema.js';
import { Cluster, eventually, havePgTools, TcpForwarder } from './support/pg-cluster.js';
import { runCli, startServer, type ServerProcess } from './support/processes.js';

/**
 * A PostgreSQL restart under load (issue 29, item 17): two servers on one database, eight clients writing through
 * both, and the database restarted mid-load. Both servers must live through it, answer every request they cannot
 * serve with 503 and Retry-After (never a 500, never a hang), keep every write they acknowledged, and bring the
 * derived indexes up to date once the database is back. The same again for a failover (issue 31): the primary crashes,
 * its synchronous standby is promoted and the servers' database address is moved to it.
 *
 * PostgreSQL only by nature: the test restarts a cluster, so it starts one of its own (initdb and pg_ctl from
 * PG_BIN, on a free port and a temporary folder, run as the postgres user when the test runs as root). Without
 * initdb it is skipped loudly, except in CI, where it fails.
 */
/** How long a client waits for an answer before it counts the request as hung. */
const CLIENT_TIMEOUT_MS = 15_000;
const CLIENTS = 8;
/** How long the database is down (between a fast shutdown and the next start). */
const DOWN_MS = 2000;

/** The service-to-service credentials: a caller whose authentication needs no database (unlike a token's lookup). */
const SYSTEM_SECRET = 'restart-test-system-secret';
const SYSTEM_AUTH = `Basic __datahub_system:${SYSTEM_SECRET}`;
const UNAVAILABLE_MESSAGE = 'The database is unavailable; try again shortly';

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const UPSTREAM = ds('restart_upstream');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One client request's outcome: the status, or how it failed without one. */
interface Outcome {
  client: number;
  urn: string;
  status: number | string;
  retryAfter: string | null;
}

function graphql(base: string, token: string, query: string): Promise<{ status: number; body: any }> {
  return fetch(`${base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }), signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

/** A dataset with a description (searched for) and an upstream (a DownstreamOf relationship), in one request. */
function writeBody(urn: string, n: string) {
  const proposal = (aspectName: string, value: object) => ({ entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT', aspectName,
    aspect: { contentType: 'application/json', value: JSON.stringify(value) } });
  return JSON.stringify({ proposals: [
    proposal('datasetProperties', { description: `quokkarestart ${n}`, customProperties: {}, tags: [] }),
    proposal('upstreamLineage', { upstreams: [{ dataset: UPSTREAM, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' } }] }),
  ] });
}

/** Writes through `base` until `until()`, one request after another, recording every outcome. */
async function writer(client: number, base: string, token: string, until: () => boolean, outcomes: Outcome[]): Promise<void> {
  for (let i = 0; !until(); i++) {
    const n = `c${client}n${i}`;
    const urn = ds(`restart_${n}`);
    let status: number | string;
    let retryAfter: string | null = null;
    try {
      const res = await fetch(`${base}/aspects?action=ingestProposalBatch`, { method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: writeBody(urn, n),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
      status = res.status;
      retryAfter = res.headers.get('retry-after');
      await res.arrayBuffer();
    } catch (e) {
      status = (e as Error).name === 'TimeoutError' ? 'hung' : `no answer: ${(e as Error).message}`;
    }
    outcomes.push({ client, urn, status, retryAfter });
    // A refused client waits a little, as a retrying client would.
    await sleep(status === 200 ? 5 : 100);
  }
}


/**
 * `restart`: the cluster stops (fast) and starts again. `failover` (issue 31): the servers reach the database through
 * an address that a failover moves (a TCP forwarder standing for a virtual IP or a managed database's endpoint); the
 * primary, with a synchronous standby, crashes (immediate stop), the standby is promoted and the address moved to it.
 */
type Outage = 'restart' | 'failover';
const OUTAGE_TITLES: Record<Outage, [string, string]> = {
  restart: ['a PostgreSQL restart under load (PostgreSQL only: a cluster of the test\'s own is restarted)',
    'two servers live through a PostgreSQL restart: 503 with Retry-After meanwhile, every acknowledged write kept and indexed'],
  failover: ['a PostgreSQL failover under load (PostgreSQL only: a primary and a synchronous standby of the test\'s own)',
    'two servers live through the primary\'s crash and the standby\'s promotion: 503 with Retry-After meanwhile, every acknowledged write kept and indexed'],
};

for (const kind of ['restart', 'failover'] as const) describe(OUTAGE_TITLES[kind][0], async () => {
  if (!havePgTools('the PostgreSQL restart test')) return;

  let cluster: Cluster | undefined;
  let standby: Cluster | undefined;
  let forwarder: TcpForwarder | undefined;
  const servers: ServerProcess[] = [];
  let url = '';
  let token = '';
  const exits: (NodeJS.Signals | number | null)[] = [null, null];

  before(async () => {
    cluster = await Cluster.create();
    await cluster.sql('CREATE DATABASE almanac');
    url = `${cluster.url}/almanac`;
    if (kind === 'failover') {
      standby = await Cluster.standbyOf(cluster, 'standby');
      // Synchronous: a commit is acknowledged once the standby has it, so a crash of the primary loses no acknowledged write.
      await cluster.sql("ALTER SYSTEM SET synchronous_standby_names = 'standby'");
      await cluster.sql('SELECT pg_reload_conf()');
      await eventually('the standby replicates synchronously', async () => {
        const rows = await cluster!.sql('SELECT application_name, sync_state FROM pg_stat_replication');
        return JSON.stringify(rows) === JSON.stringify([{ application_name: 'standby', sync_state: 'sync' }]) || JSON.stringify(rows);
      });
      forwarder = await TcpForwarder.start(cluster.port);
      url = `postgres://postgres@127.0.0.1:${forwarder.port}/almanac`;
    }
    // The timed jobs every second, so that their locks are held when the database goes.
    servers.push(...await Promise.all([0, 1].map(() => startServer({ DATABASE_URL: url, LOG_LEVEL: 'info', ALMANAC_RETENTION_INTERVAL_MS: '1000',
      DATAHUB_SYSTEM_CLIENT_SECRET: SYSTEM_SECRET }))));
    servers.forEach((s, i) => void s.exited.then((code) => { exits[i] = code; }));
    token = (await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: url })).stdout.trim();
    // The upstream every write names, written through each server (which also readies both for the load).
    for (const s of servers) {
      const res = await fetch(`${s.base}/aspects?action=ingestProposal`, { method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ proposal: { entityType: 'dataset', entityUrn: UPSTREAM, changeType: 'UPSERT', aspectName: 'datasetProperties',
          aspect: { contentType: 'application/json', value: JSON.stringify({ description: 'the upstream', customProperties: {}, tags: [] }) } } }) });
      assert.equal(res.status, 200, await res.text());
    }
  });
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await forwarder?.close();
    standby?.destroy();
    cluster?.destroy();
  });

  /** The database goes (a fast shutdown; a crash of the primary), and comes back (started again; the standby promoted). */
  const down = () => kind === 'restart' ? cluster!.stop('fast') : cluster!.stop('immediate');
  const up = () => {
    if (kind === 'restart') return cluster!.start();
    standby!.promote();
    forwarder!.switchTo(standby!.port);
  };

  test(OUTAGE_TITLES[kind][1], async () => {
    const outcomes: Outcome[] = [];
    let stopAt = Infinity;
    const until = () => performance.now() >= stopAt;
    const clients = Array.from({ length: CLIENTS }, (_, i) => writer(i, servers[i % 2]!.base, token, until, outcomes));

    // Every client has had a write acknowledged; then the database goes for DOWN_MS; then every client has had a write
    // acknowledged again.
    const everyClientWrote = (from: number) => async () => {
      const done = new Set(outcomes.slice(from).filter((o) => o.status === 200).map((o) => o.client));
      return done.size === CLIENTS || `${done.size} of ${CLIENTS} clients; the servers' exits: ${JSON.stringify(exits)}`;
    };
    let restartedAt = 0;
    let backAt = 0;
    try {
      await eventually('a write of every client acknowledged', everyClientWrote(0));
      restartedAt = outcomes.length;
      down();
      const downSince = performance.now();
      // Meanwhile, a read on each server: a 503 with Retry-After, in REST's shape and in GraphQL's (DataHub's envelope).
      const answers = await Promise.all(servers.map(async (s, i) => {
        const urn = ds(`read_while_down_${i}`);
        const answer = async (res: Response) => ({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
        return {
          rest: await answer(await fetch(`${s.base}/aspects/${encodeURIComponent(urn)}?aspect=datasetProperties`, { headers: { authorization: SYSTEM_AUTH },
            signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) })),
          graphql: await answer(await fetch(`${s.base}/api/graphql`, { method: 'POST', headers: { authorization: SYSTEM_AUTH, 'content-type': 'application/json' },
            body: JSON.stringify({ query: `{ dataset(urn: "${urn}") { urn } }` }), signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) })),
        };
      }));
      assert.deepEqual(answers, servers.map(() => ({
        rest: { status: 503, retryAfter: '2', body: { status: 503, code: 'UNAVAILABLE', message: UNAVAILABLE_MESSAGE, retryAfter: 2 } },
        graphql: { status: 503, retryAfter: '2', body: { data: { dataset: null }, errors: [{ message: UNAVAILABLE_MESSAGE, locations: [{ line: 1, column: 3 }],
          path: ['dataset'], extensions: { code: 503, type: 'SERVICE_UNAVAILABLE', classification: 'DataFetchingException' } }], extensions: {} } },
      })));
      await sleep(DOWN_MS - (performance.now() - downSince));
      up();
      backAt = outcomes.length;
      await eventually('a write of every client acknowledged after the restart', everyClientWrote(backAt), 60_000);
    } finally {
      stopAt = performance.now();
      await Promise.all(clients);
    }

    // Both servers are alive and answer.
    assert.deepEqual(exits, [null, null], `both servers still run; logs:\n${servers.map((s) => s.log().slice(-3000)).join('\n---\n')}`);
    for (const s of servers) {
      const health = await fetch(`${s.base}/health`);
      assert.deepEqual({ status: health.status, body: await health.json() }, { status: 200, body: { status: 'ok' } });
    }

    // Every request was answered: 200, or 503 with a Retry-After (none failed otherwise, none hung).
    const counts: Record<string, number> = {};
    for (const o of outcomes) counts[String(o.status)] = (counts[String(o.status)] ?? 0) + 1;
    const wrong = outcomes.filter((o) => !(o.status === 200 || (o.status === 503 && /^[1-9]\d*$/.test(o.retryAfter ?? ''))));
    assert.deepEqual(wrong.slice(0, 10), [], `every request got 200 or 503 with Retry-After; statuses: ${JSON.stringify(counts)}`);
    console.log(`${kind} under load: ${outcomes.length} writes (${restartedAt} before the outage, ${backAt - restartedAt} while the database was away), statuses ${JSON.stringify(counts)}`);
    assert.ok((counts['503'] ?? 0) > 0, `the outage was seen by the clients: ${JSON.stringify(counts)}`);
    const acknowledged = outcomes.filter((o) => o.status === 200);

    // Every acknowledged write is stored.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT urn, aspect, metadata FROM ${ASPECT_TABLE} WHERE version = 0 AND urn = ANY($1)
        AND aspect IN ('datasetProperties', 'upstreamLineage') ORDER BY urn, aspect`, [acknowledged.map((o) => o.urn)]);
      const stored = new Map<string, string[]>();
      for (const r of rows) {
        const value = JSON.parse(r.metadata);
        stored.set(r.urn, [...(stored.get(r.urn) ?? []), r.aspect === 'datasetProperties' ? value.description : value.upstreams[0].dataset]);
      }
      const missing = acknowledged.filter((o) => {
        const n = o.urn.match(/restart_(c\d+n\d+)/)![1];
        return JSON.stringify(stored.get(o.urn)) !== JSON.stringify([`quokkarestart ${n}`, UPSTREAM]);
      });
      assert.deepEqual(missing.map((o) => o.urn), [], `every acknowledged write of ${acknowledged.length} is stored`);
    } finally {
      await db.end();
    }

    // The indexes caught up: search finds every acknowledged dataset and lineage shows it, through both servers.
    const want = [...new Set(acknowledged.map((o) => o.urn))].sort();
    for (const [i, s] of servers.entries()) {
      await eventually(`server ${i + 1} finds every acknowledged write`, async () => {
        const { status, body } = await graphql(s.base, token, `{
          search(input: { type: DATASET, query: "quokkarestart", start: 0, count: 10000 }) { total searchResults { entity { urn } } }
          dataset(urn: "${UPSTREAM}") { relationships(input: { types: ["DownstreamOf"], direction: INCOMING, start: 0, count: 10000 }) {
            total relationships { entity { urn } } } } }`);
        if (status !== 200 || body.errors) return `HTTP ${status}: ${JSON.stringify(body.errors)}`;
        const found = new Set<string>(body.data.search.searchResults.map((r: any) => r.entity.urn));
        const linked = new Set<string>(body.data.dataset.relationships.relationships.map((r: any) => r.entity.urn));
        const unfound = want.filter((u) => !found.has(u));
        const unlinked = want.filter((u) => !linked.has(u));
        return unfound.length + unlinked.length === 0 ? true : `${unfound.length} not found, ${unlinked.length} without lineage`;
      });
    }
    // And a write through each server now is read through the other.
    for (const [i, s] of servers.entries()) {
      const urn = ds(`restart_after_${i}`);
      const res = await fetch(`${s.base}/aspects?action=ingestProposalBatch`, { method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: writeBody(urn, `after${i}`) });
      assert.equal(res.status, 200, await res.text());
      const other = servers[1 - i]!;
      await eventually(`server ${2 - i} reads what server ${i + 1} wrote`, async () => {
        const { body } = await graphql(other.base, token, `{ search(input: { type: DATASET, query: "after${i}" }) { searchResults { entity { urn } } } }`);
        return JSON.stringify(body.data?.search?.searchResults) === JSON.stringify([{ entity: { urn } }]) || JSON.stringify(body);
      });
    }
    // Each server listens again (NOTIFY), having said it lost the connection.
    for (const s of servers) {
      const lines = s.log().split('\n').filter((l) => l.includes('listening for other servers'));
      assert.ok(lines.length >= 2 && s.log().includes('lost the connection listening'), `the server listens again: ${lines.length} lines`);
    }
  });
});
