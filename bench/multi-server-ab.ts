import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Cluster, HAVE_PG_BIN, PG_BIN } from '../test/support/pg-cluster.js';
import { freePort } from '../test/support/processes.js';
import { CLOCK_TICKS, CONNECTIONS, flag, loadCatalog, SECONDS } from './harness.js';
import { catalogProposals, generatedDatasets, type Proposal } from './generate.js';
import { clusterCpuMs, ingestReq, readReq } from './multi-server.js';
import { median } from './support.js';

/**
 * Two builds of Almanac on one PostgreSQL cluster, measured in alternation (A B B A …) as `multi-server` measures
 * one: CPU of the servers and of PostgreSQL per 1,000 requests at each server count, with the servers' user and
 * system time apart, and statements per request (pg_stat_statements). For comparing a change on a shared machine,
 * where two runs made at different times cannot be compared.
 * `npm run bench -- multi-server-ab --a /path/to/old/checkout --b . [--servers 1,4] [--loads ingest-single,mixed] [--rounds 3]`
 * (each checkout built: dist/ newer than src/). `--threads`: each round's server CPU by thread (the main thread, the
 * others by name; `--tids` by thread id less the process id). Per side (A or B): `BENCH_A_NODE_ARGS` (node options for
 * its servers, e.g. `--cpu-prof --cpu-prof-dir=…`), `BENCH_A_CONNECTIONS` (connections in all instead of
 * BENCH_CONNECTIONS), `BENCH_SEPARATE=A` (each of its servers ingests datasets of its own, rather than all taking
 * the next proposal from one generator, which sends consecutive aspects of one dataset to different servers).
 * `--through K`: the load goes through the first K servers only (its connections spread over them), and the CPU of the
 * others (which only follow: woken by the announcements, their timed work) is shown apart, per 1,000 requests of the
 * load — what each write costs the servers it was not made through. `--per-server C`: C connections to each server
 * (instead of the connections in all spread over them), so that one server and four get the same concurrency each:
 * what a server's CPU per request owes to how many requests it has under way at once rather than to the other servers.
 */
const BASE_DATASETS = Number(process.env.BENCH_BASE_DATASETS ?? 200);
/**
 * Requests each server answers before it is measured, as bench/multi-server.ts (which says why): with 1,000 of each,
 * V8 was still compiling in the measured window (a server's threads other than the main one: 264 ms per 1,000 reads
 * at one server after 1,000 reads of warm-up, 109 after 6,000; 2026-11-28), and more so at four servers, each of which
 * gets a quarter of the measured requests — so the four-server figure counted warm-up as coordination.
 */
const WARMUP_WRITES = Number(process.env.BENCH_WARMUP_WRITES ?? 4000);
const WARMUP_READS = Number(process.env.BENCH_WARMUP_READS ?? 2500);

interface Proc { base: string; pid: number; child: ChildProcess }

/** CPU by thread name (the main thread as 'main'), ms. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = tid === String(pid) ? 'main' : process.argv.includes('--tids') ? `t${Number(tid) - pid}` : raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')')).replace(/\d+$/, '');
        const f = raw.replace(/^.*\) /, '').split(' ');
        out.set(name, (out.get(name) ?? 0) + ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS);
      } catch { /* ended */ }
    }
  } catch { /* ended */ }
  return out;
}

function times(pid: number): { user: number; system: number } {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return { user: (Number(f[11]) * 1000) / CLOCK_TICKS, system: (Number(f[12]) * 1000) / CLOCK_TICKS };
  } catch {
    return { user: NaN, system: NaN };
  }
}

async function start(root: string, url: string, nodeArgs?: string): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(nodeArgs ? nodeArgs.split(' ') : []), path.join(root, 'bin/almanac.js'), 'serve'], {
    cwd: root, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ALMANAC_RESPONSE_CACHE_MB: '0' },
  });
  let err = '';
  child.stderr!.on('data', (d) => { err = (err + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  for (const until = Date.now() + 180_000; ;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${err}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch { /* not yet */ }
    if (Date.now() > until) throw new Error(`server did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: child.pid!, child };
}

async function stop(p: Proc): Promise<void> {
  if (p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

const LOADS: Record<string, (token: string, next: () => Proposal) => object[]> = {
  reads: (t) => [readReq(t)],
  'ingest-single': (t, n) => [ingestReq(t, n)],
  mixed: (t, n) => [...Array.from({ length: 9 }, () => readReq(t)), ingestReq(t, n)],
};

export async function run(args: string[]) {
  const a = path.resolve(flag(args, 'a') ?? '.');
  const b = path.resolve(flag(args, 'b') ?? '.');
  const counts = (flag(args, 'servers') ?? '1,4').split(',').map(Number);
  const loads = (flag(args, 'loads') ?? 'ingest-single,mixed').split(',');
  const rounds = Number(flag(args, 'rounds') ?? 3);
  if (!HAVE_PG_BIN) {
    console.log(`needs initdb in ${PG_BIN}`);
    return;
  }
  const kinds = args.includes('--statement-kinds');
  const through = flag(args, 'through') ? Number(flag(args, 'through')) : undefined;
  const perServer = flag(args, 'per-server') ? Number(flag(args, 'per-server')) : undefined;
  const cluster = await Cluster.create(['shared_buffers=256MB', 'shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all',
    ...(kinds ? ['pg_stat_statements.track_planning=on'] : [])]);
  const postmaster = Number(readFileSync(`${cluster.data}/postmaster.pid`, 'utf8').split('\n')[0]);
  const running: Proc[] = [];
  try {
    await cluster.sql('CREATE DATABASE almanac');
    await cluster.sql('CREATE EXTENSION pg_stat_statements', [], 'almanac');
    const url = `${cluster.url}/almanac`;
    const { token } = await loadCatalog(url, catalogProposals({ datasets: BASE_DATASETS }));
    const fresh = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 11 }, 5_000_000);
    const next = () => fresh.next().value as Proposal;
    const results = new Map<string, { user: number; system: number; pg: number; statements: number; requests: number; rps: number; idle: number;
      logReads: number }[]>();
    console.log(`A = ${a}\nB = ${b}\n${perServer ? `${perServer} connections per server` : `${CONNECTIONS} connections in all`}, ${rounds} rounds (A B, then B A, …) of ${SECONDS} s per load; ms of CPU per 1,000 requests`);
    for (let r = 0; r < rounds; r++) {
      for (const [name, root] of (r % 2 === 0 ? [['A', a], ['B', b]] : [['B', b], ['A', a]]) as [string, string][]) {
        for (const n of counts) {
          for (let i = 0; i < n; i++) running.push(await start(root, url, process.env[`BENCH_${name}_NODE_ARGS`]));
          await Promise.all(running.map(async (s) => {
            if (WARMUP_READS) await autocannon({ url: s.base, connections: 8, amount: WARMUP_READS, requests: [readReq(token)] as never });
            if (WARMUP_WRITES) await autocannon({ url: s.base, connections: 8, amount: WARMUP_WRITES, requests: [ingestReq(token, next)] as never });
          }));
          // The same state of PostgreSQL for each side: the warm-up's (and the last block's) writes vacuumed and analyzed
          // here rather than by autovacuum during the next measurement (which then counted it against that side).
          await cluster.sql('VACUUM ANALYZE', [], 'almanac');
          await cluster.sql('CHECKPOINT', [], 'almanac');
          for (const load of loads) {
            // BENCH_SEPARATE=A|B: that build's servers each take proposals from a generator of their own (no dataset
            // written through two servers at once), instead of one generator shared by all.
            const separate = process.env.BENCH_SEPARATE === name;
            const own = running.map((_, i) => {
              const g = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 11 }, 6_000_000 + 1_000_000 * i + 100_000 * r);
              return () => g.next().value as Proposal;
            });
            const loaded = running.slice(0, Math.min(n, through ?? n));
            const go = (seconds: number) => Promise.all(loaded.map((s, i) => autocannon({ url: s.base, connections: perServer ?? Math.max(1, Math.round(Number(process.env[`BENCH_${name}_CONNECTIONS`] ?? CONNECTIONS) / loaded.length)),
              duration: seconds, requests: LOADS[load]!(token, separate ? own[i]! : next) as never })));
            await go(2);
            await cluster.sql('SELECT pg_stat_statements_reset()', [], 'almanac');
            const t0 = running.map((s) => times(s.pid));
            const h0 = running.map((s) => threads(s.pid));
            const p0 = clusterCpuMs(postmaster);
            const runs = await go(SECONDS);
            const t1 = running.map((s) => times(s.pid));
            const byThread = new Map<string, number>();
            running.forEach((s, i) => { for (const [k, v] of threads(s.pid)) byThread.set(k, (byThread.get(k) ?? 0) + v - (h0[i]!.get(k) ?? 0)); });
            const pg = clusterCpuMs(postmaster) - p0;
            const calls = await cluster.sql(`SELECT COALESCE(SUM(s.calls), 0)::bigint AS calls FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
              WHERE r.rolname = current_user AND s.query NOT LIKE '%pg_stat_statements%'`, [], 'almanac');
            const requests = runs.reduce((k, x) => k + x.requests.total, 0);
            const logReads = await cluster.sql(`SELECT COALESCE(SUM(calls), 0)::bigint AS calls FROM pg_stat_statements
              WHERE query LIKE '%FROM almanac_change_log WHERE seq >%'`, [], 'almanac');
            // `--through`: the servers that took no load (following only).
            const idle = t1.slice(loaded.length).reduce((k, t, i) => k + t.user + t.system - t0[loaded.length + i]!.user - t0[loaded.length + i]!.system, 0);
            const failed = runs.reduce((k, x) => k + x.non2xx + x.errors, 0);
            const m = {
              user: t1.reduce((k, t, i) => k + t.user - t0[i]!.user, 0), system: t1.reduce((k, t, i) => k + t.system - t0[i]!.system, 0),
              pg, statements: Number(calls[0]!.calls), requests, rps: runs.reduce((k, x) => k + x.requests.average, 0),
              idle, logReads: Number(logReads[0]!.calls),
            };
            const key = `${name} ${n} ${load}`;
            results.set(key, [...(results.get(key) ?? []), m]);
            const per = (x: number) => Math.round((x / Math.max(1, requests)) * 1000);
            console.log(`  round ${r + 1} ${key.padEnd(22)} ${per(m.user + m.system + m.pg)} (user ${per(m.user)} sys ${per(m.system)} pg ${per(m.pg)}) `
              + `${(m.statements / Math.max(1, requests)).toFixed(2)} stmt/req ${(m.logReads / Math.max(1, requests)).toFixed(3)} log reads/req `
              + `${through !== undefined && n > through ? `others ${per(idle)} (${per(idle / (n - loaded.length))} each) ` : ''}`
              + `${Math.round(m.rps)} req/s load ${os.loadavg()[0]!.toFixed(1)}${failed ? ` ${failed} FAILED` : ''}`);
            if (kinds) {
              // `--statement-kinds`: statements by text, per request: calls, planning and execution time.
              const rows = await cluster.sql(`SELECT regexp_replace(left(s.query, 100), '\\s+', ' ', 'g') AS query, SUM(s.calls)::bigint AS calls,
                SUM(s.total_plan_time)::float AS plan, SUM(s.total_exec_time)::float AS exec FROM pg_stat_statements s
                WHERE s.query NOT LIKE '%pg_stat_statements%' GROUP BY 1 ORDER BY SUM(s.total_plan_time + s.total_exec_time) DESC LIMIT 14`, [], 'almanac');
              const log = await cluster.sql(`SELECT COALESCE(SUM(calls), 0)::bigint AS calls FROM pg_stat_statements
                WHERE query LIKE '%FROM almanac_change_log WHERE seq >%'`, [], 'almanac');
              console.log(`    ${(Number(log[0]!.calls) / requests).toFixed(3).padStart(7)} reads of the change log per request`);
              for (const k of rows) {
                console.log(`    ${(Number(k.calls) / requests).toFixed(3).padStart(7)} plan ${(Number(k.plan) / requests * 1000).toFixed(0).padStart(4)} exec `
                  + `${(Number(k.exec) / requests * 1000).toFixed(0).padStart(4)} µs/req  ${k.query}`);
              }
            }
            if (args.includes('--threads')) console.log(`    threads: ${[...byThread].filter(([, v]) => v > 0).map(([k, v]) => `${k} ${per(v)}`).join(', ')}`);
          }
          while (running.length) await stop(running.pop()!);
        }
      }
    }
    console.log('medians, ms of CPU per 1,000 requests (servers user + system + PostgreSQL), statements per request:');
    for (const load of loads) {
      for (const n of counts) {
        const line = ['A', 'B'].map((name) => {
          const ms = results.get(`${name} ${n} ${load}`)!;
          const per = (f: (x: typeof ms[number]) => number) => Math.round(median(ms.map((x) => (f(x) / Math.max(1, x.requests)) * 1000)));
          return `${name} ${per((x) => x.user + x.system + x.pg)} (user ${per((x) => x.user)} sys ${per((x) => x.system)} pg ${per((x) => x.pg)}; `
            + `${median(ms.map((x) => x.statements / Math.max(1, x.requests))).toFixed(2)} stmt; `
            + `${median(ms.map((x) => x.logReads / Math.max(1, x.requests))).toFixed(3)} log reads; `
            + `${through !== undefined && n > through ? `others ${per((x) => x.idle)}; ` : ''}rounds ${ms.map((x) => Math.round(((x.user + x.system + x.pg) / x.requests) * 1000)).join('/')})`;
        });
        console.log(`  ${load} ${n} server(s): ${line.join('  |  ')}`);
      }
    }
  } finally {
    for (const s of running) await stop(s).catch(() => {});
    cluster.destroy();
  }
}
