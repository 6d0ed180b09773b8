import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { Cluster, HAVE_PG_BIN, PG_BIN } from '../test/support/pg-cluster.js';
import { CLOCK_TICKS, CONNECTIONS, cpuMs, flag, hasFlag, loadCatalog, round2, ROUNDS, saveResults, SECONDS, startAlmanac, type Row, type Server } from './harness.js';
import { catalogProposals, generatedDatasets, SHOWCASE_URN, type Proposal } from './generate.js';
import { READ_QUERY } from './read.js';
import { median } from './support.js';

/**
 * Scale-out on one PostgreSQL (issue 31): 1, 2 and 4 `almanac serve` processes (`--servers 1,2,4`), and for each the
 * CPU time that the servers and PostgreSQL spend together per 1,000 requests — from /proc, so that the figure says
 * whether coordination costs grow with the number of servers even on a machine with too few cores for throughput to
 * grow. Three loads, CONNECTIONS connections in all, spread evenly over the servers:
 * - `reads`: the read scenario's dataset query, every answer computed (ALMANAC_RESPONSE_CACHE_MB=0: a reused answer
 *   would cost the database nothing and hide it);
 * - `ingest-single`: `ingestProposal`, one new aspect per request;
 * - `mixed`: nine reads, then one ingest, per connection.
 * PostgreSQL is a cluster of the benchmark's own (initdb, a free port): its processes' CPU is counted exactly, the
 * postmaster's and every backend's, live or ended (the postmaster's children's times). The rounds take the server counts
 * in turn (1, 2, 4, then 4, 2, 1, …; servers started and stopped in between), so that a shared machine's changing load
 * weighs alike on each count; each server is warmed up by a few thousand requests of its own after it starts (warmUp). `--statements`: pg_stat_statements counts the statements each server sends per request.
 */
const BASE_DATASETS = Number(process.env.BENCH_BASE_DATASETS ?? 200);

/** CPU (user + system, ms) of the cluster: the postmaster, its live children, and the children it has reaped. */
export function clusterCpuMs(postmasterPid: number): number {
  const ticks = (pid: number, children: boolean) => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  };
  let total = ticks(postmasterPid, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const f = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      if (Number(f[1]) === postmasterPid) total += Number(f[11]) + Number(f[12]);
    } catch { /* ended meanwhile */ }
  }
  return (total * 1000) / CLOCK_TICKS;
}

interface Load {
  name: 'reads' | 'ingest-single' | 'mixed';
  requests: (token: string, next: () => Proposal) => object[];
}

/** A point read of the showcase dataset, and a single-proposal ingest of the next generated proposal (also bench/multi-server-ab.ts). */
export const readReq = (token: string) => ({ method: 'POST', path: '/api/graphql',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ query: READ_QUERY, variables: { urn: SHOWCASE_URN } }) });
export const ingestReq = (token: string, next: () => Proposal) => ({ method: 'POST', path: '/aspects?action=ingestProposal',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' },
  setupRequest: (r: object) => ({ ...r, body: JSON.stringify({ proposal: next() }) }) });

const LOADS: Load[] = [
  { name: 'reads', requests: (token) => [readReq(token)] },
  { name: 'ingest-single', requests: (token, next) => [ingestReq(token, next)] },
  { name: 'mixed', requests: (token, next) => [...Array.from({ length: 9 }, () => readReq(token)), ingestReq(token, next)] },
];

interface MultiServerRow extends Row {
  /** CPU time of the servers and PostgreSQL together per 1,000 requests, ms (median of the rounds). */
  cpuMsPer1000: number;
  serverCpuMsPer1000: number;
  postgresCpuMsPer1000: number;
  /** Each round's cpuMsPer1000, in the order run. */
  rounds: number[];
  /** `--statements`: statements each server sent per request (of all servers' requests). */
  statementsPerRequest?: number[];
  failed: number;
}

interface Measured { rps: number; p99: number; requests: number; failed: number; serverCpuMs: number; pgCpuMs: number; statements?: number[] }

async function measure(servers: Server[], postmaster: number, requests: object[], seconds: number): Promise<Measured> {
  const serverCpu = () => servers.reduce((n, s) => n + cpuMs(s.pid), 0);
  const s0 = serverCpu();
  const p0 = clusterCpuMs(postmaster);
  const runs = await Promise.all(servers.map((s) => autocannon({ url: s.base, connections: Math.max(1, Math.round(CONNECTIONS / servers.length)),
    duration: seconds, requests: requests as never })));
  return {
    rps: runs.reduce((n, r) => n + r.requests.average, 0), p99: Math.max(...runs.map((r) => r.latency.p99)),
    requests: runs.reduce((n, r) => n + r.requests.total, 0), failed: runs.reduce((n, r) => n + r.non2xx + r.errors, 0),
    serverCpuMs: serverCpu() - s0, pgCpuMs: clusterCpuMs(postmaster) - p0,
  };
}

/**
 * Requests a server that has just started answers before it is measured: a fresh process runs its code unoptimised
 * and its database connections start with cold caches, and reaching its steady cost takes a few thousand requests
 * (a read cost 6.0 ms of server CPU over its first 250 requests, 2.9 after 750, 1.3–1.5 after 2,500; an ingest 4.6,
 * then 2.2 after 750). Counted by requests, not seconds: with the load split over four servers on a busy machine, a
 * warm-up of a few seconds gave each server a few hundred requests, and the figure at four servers then measured
 * mostly warm-up (a cost paid once per process, not per request), not coordination.
 */
const WARMUP_READS = Number(process.env.BENCH_WARMUP_READS ?? 2500);
/**
 * After 1,000 writes a server's threads other than the main one (V8 compiling, mostly: the same with
 * `--single-threaded-gc`) still took 0.36–0.44 ms of CPU per write at four servers against 0.10–0.19 at one (which
 * gets four times the writes meanwhile); after 4,000–6,000, 0.07–0.16 and 0.03–0.05 (bench/multi-server-ab.ts
 * `--threads`, 2026-11-28, 2 shared cores). With fewer, the four-server ingest figure measured start-up, not coordination.
 */
const WARMUP_WRITES = Number(process.env.BENCH_WARMUP_WRITES ?? 4000);

async function warmUp(started: Server[], token: string, next: () => Proposal): Promise<void> {
  await Promise.all(started.map(async (s) => {
    for (const [reqs, amount] of [[[readReq(token)], WARMUP_READS], [[ingestReq(token, next)], WARMUP_WRITES]] as const) {
      if (amount > 0) await autocannon({ url: s.base, connections: 8, amount, requests: reqs as never });
    }
  }));
}

export async function run(args: string[]) {
  const counts = (flag(args, 'servers') ?? '1,2,4').split(',').map(Number);
  const kinds = hasFlag(args, 'statement-kinds');
  const statements = hasFlag(args, 'statements') || kinds;
  // `--loads ingest-single,mixed`: only these loads (the others take time a focused measurement does not need).
  const only = flag(args, 'loads')?.split(',');
  // `--profile DIR`: every server writes a V8 CPU profile there when it stops (bench/profile.ts summarises one).
  const profileDir = flag(args, 'profile');
  const loadsRun = only ? LOADS.filter((l) => only.includes(l.name)) : LOADS;
  if (!HAVE_PG_BIN) {
    console.log(`multi-server starts a PostgreSQL cluster of its own and needs initdb in ${PG_BIN} (ALMANAC_TEST_PG_BIN); skipped`);
    return;
  }
  const most = Math.max(...counts);
  const cluster = await Cluster.create(['shared_buffers=256MB',
    ...(statements ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] : [])]);
  const postmaster = Number(readFileSync(`${cluster.data}/postmaster.pid`, 'utf8').split('\n')[0]);
  const rows: MultiServerRow[] = [];
  const servers: Server[] = [];
  try {
    await cluster.sql('CREATE DATABASE almanac');
    const url = `${cluster.url}/almanac`;
    // Each server connects as a role of its own (server1, server2, …): pg_stat_statements counts statements per role.
    for (let i = 1; i <= most; i++) await cluster.sql(`CREATE ROLE server${i} SUPERUSER LOGIN`);
    if (statements) await cluster.sql('CREATE EXTENSION pg_stat_statements', [], 'almanac');
    const { token } = await loadCatalog(url, catalogProposals({ datasets: BASE_DATASETS }));
    const fresh = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 11 }, 5_000_000);
    const next = () => fresh.next().value as Proposal;
    console.log(`PostgreSQL of its own (fsync off), ${CONNECTIONS} connections in all, ${ROUNDS} rounds of ${SECONDS} s (server counts in turn, `
      + `${counts.join(' → ')} then back: the machine's other load weighs alike on each); CPU of servers + PostgreSQL per 1,000 requests`);
    const measured = new Map<string, Measured[]>();
    const loads: number[][] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const n of r % 2 === 0 ? counts : [...counts].reverse()) {
        while (servers.length > n) await servers.pop()!.stop();
        const started: Server[] = [];
        while (servers.length < n) {
          const s = await startAlmanac(url.replace('postgres@', `server${servers.length + 1}@`), { env: { ALMANAC_RESPONSE_CACHE_MB: '0' },
            ...(profileDir ? { cpuProfDir: `${profileDir}/server${servers.length + 1}` } : {}), startTimeoutMs: 180_000 }); // a busy shared machine takes tens of seconds to start one
          servers.push(s);
          started.push(s);
        }
        await warmUp(started, token, next);
        for (const load of loadsRun) {
          const reqs = load.requests(token, next);
          await measure(servers, postmaster, reqs, 2); // warm-up: JIT, pools filled on every server
          if (statements) await cluster.sql('SELECT pg_stat_statements_reset()', [], 'almanac');
          const m = await measure(servers, postmaster, reqs, SECONDS);
          if (statements) {
            const calls = await cluster.sql(`SELECT r.rolname AS role, SUM(s.calls)::bigint AS calls FROM pg_stat_statements s
              JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname LIKE 'server%' GROUP BY r.rolname`, [], 'almanac');
            m.statements = servers.map((_, i) => Number(calls.find((c) => c.role === `server${i + 1}`)?.calls ?? 0));
            if (kinds) {
              // `--statement-kinds`: every server's statements by text, per request of the load (all servers together).
              const rows = await cluster.sql(`SELECT regexp_replace(left(s.query, 110), '\\s+', ' ', 'g') AS query, SUM(s.calls)::bigint AS calls,
                SUM(s.total_exec_time)::float AS ms FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
                WHERE r.rolname LIKE 'server%' GROUP BY 1 ORDER BY 2 DESC LIMIT 25`, [], 'almanac');
              console.log(`  ${n} server(s), ${load.name}: statements per request by kind (${m.requests} requests)`);
              for (const k of rows) console.log(`    ${(Number(k.calls) / m.requests).toFixed(3).padStart(7)}  ${(Number(k.ms) / m.requests).toFixed(3).padStart(7)} ms  ${k.query}`);
            }
          }
          const key = `${n}: ${load.name}`;
          measured.set(key, [...(measured.get(key) ?? []), m]);
          loads.push(os.loadavg());
        }
      }
    }
    for (const n of counts) {
      for (const load of loadsRun) {
        const rounds = measured.get(`${n}: ${load.name}`)!;
        const per1000 = (m: Measured, ms: number) => (ms / Math.max(1, m.requests)) * 1000;
        const row: MultiServerRow = {
          scenario: 'multi-server', engine: 'postgres', target: `${n} server${n > 1 ? 's' : ''}: ${load.name}`,
          rps: Math.round(median(rounds.map((m) => m.rps))), p99: median(rounds.map((m) => m.p99)),
          serverCpuMsPerRequest: round2(median(rounds.map((m) => per1000(m, m.serverCpuMs))) / 1000),
          cpuMsPer1000: Math.round(median(rounds.map((m) => per1000(m, m.serverCpuMs + m.pgCpuMs)))),
          serverCpuMsPer1000: Math.round(median(rounds.map((m) => per1000(m, m.serverCpuMs)))),
          postgresCpuMsPer1000: Math.round(median(rounds.map((m) => per1000(m, m.pgCpuMs)))),
          rounds: rounds.map((m) => Math.round(per1000(m, m.serverCpuMs + m.pgCpuMs))),
          failed: rounds.reduce((k, m) => k + m.failed, 0),
        };
        if (statements) {
          // Statements per request sent by each server (the requests spread evenly over them), median of the rounds.
          row.statementsPerRequest = Array.from({ length: n }, (_, i) =>
            round2(median(rounds.map((m) => (m.statements![i] ?? 0) / Math.max(1, m.requests)))));
        }
        rows.push(row);
        console.log(`  ${row.target.padEnd(28)} ${String(row.rps).padStart(6)} req/s  p99 ${String(row.p99).padStart(4)} ms  `
          + `CPU/1,000 req: ${row.cpuMsPer1000} ms (servers ${row.serverCpuMsPer1000}, PostgreSQL ${row.postgresCpuMsPer1000}; rounds ${row.rounds.join(' / ')})`
          + `${row.statementsPerRequest ? `  statements/request by server ${row.statementsPerRequest.join(' ')}` : ''}${row.failed ? `  ${row.failed} failed` : ''}`);
      }
    }
    // Against the one-server figure of the same load.
    for (const r of rows) {
      const one = rows.find((o) => o.target === `${counts[0]} server${counts[0]! > 1 ? 's' : ''}: ${r.target.split(': ')[1]}`)!;
      if (one === r) continue;
      r.note = `CPU/1,000 req ${round2(r.cpuMsPer1000 / one.cpuMsPer1000)}× and ${round2(r.rps! / one.rps!)}× req/s of ${one.target.split(':')[0]}`;
      console.log(`  ${r.target}: ${r.note}`);
    }
    const range = (i: number) => `${Math.min(...loads.map((l) => l[i]!)).toFixed(1)}–${Math.max(...loads.map((l) => l[i]!)).toFixed(1)}`;
    console.log(`  load average during the run (1 min): ${range(0)}`);
  } finally {
    for (const s of servers) await s.stop();
    cluster.destroy();
  }
  saveResults('multi-server', rows, { baseDatasets: BASE_DATASETS, servers: counts, loadAverage: os.loadavg() });
}
