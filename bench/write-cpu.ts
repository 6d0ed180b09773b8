import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLOCK_TICKS, cpuMs, freePort, graphqlRequest, loadCatalog, measure, once, type Request } from './harness.js';
import { catalogProposals, generatedDatasets, SHOWCASE_FIELD, SHOWCASE_URN, type Proposal } from './generate.js';

/**
 * `node --import tsx bench/write-cpu.ts <checkout A> [<checkout B>] [rounds]`: server CPU per 1,000 write requests
 * (issue 30, ongoing writes) of two builds on the same SQLite catalog, alternated A/B so a shared machine's load
 * falls on both alike. Each run copies one catalog (BENCH_BASE_DATASETS generated datasets, 200 by default), starts
 * `<checkout>/bin/almanac.js serve` on it, warms up, then sends N requests (WRITE_CPU_N, 6,000) from 32 connections:
 * `ingest`, one new proposal per `POST /aspects?action=ingestProposal`, and `describe`, GraphQL `updateDescription`
 * of one column with a new text each time, and `batch`, `POST /aspects?action=ingestProposalBatch` of WRITE_CPU_BATCH new
 * proposals (200, the Python emitter's default batch) from 2 connections, its CPU and rate counted per 1,000 aspects
 * rather than requests (the default loads are ingest and describe). CPU is the server process's user + system time from /proc; req/s and
 * p99 are printed too but are noise on a shared machine. WRITE_CPU_PROFILE=dir runs the servers under --cpu-prof. A
 * checkout may be followed by `,NAME=value` settings its server gets (one build, two settings: `. .,ALMANAC_X=1`).
 * Each run also says how much of that CPU was the main thread's (`main`; the rest is V8's GC helpers, libuv's pool
 * and the worker threads: the WAL checkpointer, the index and compression workers).
 */
const roots = process.argv.slice(2).filter((a) => !/^\d+$/.test(a));
const rounds = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
if (!roots.length) throw new Error('usage: write-cpu.ts <checkout A>[,NAME=value] [<checkout B>[,NAME=value]] [rounds]');
const N = Number(process.env.WRITE_CPU_N ?? 6000);
const WARMUP = Number(process.env.WRITE_CPU_WARMUP ?? 1000);
const loads = (process.env.WRITE_CPU_LOADS ?? 'ingest,describe').split(',');
const profileDir = process.env.WRITE_CPU_PROFILE;
const BATCH = Number(process.env.WRITE_CPU_BATCH ?? 200);
/** Aspects a request of the load carries: CPU and rates are per 1,000 aspects. */
const aspectsPer = (load: string) => (load === 'batch' ? BATCH : 1);
const connectionsOf = (load: string) => (load === 'batch' ? 2 : 32);

const work = mkdtempSync(path.join(process.env.WRITE_CPU_TMP ?? os.tmpdir(), 'write-cpu-'));
const template = path.join(work, 'template.db');
const { token } = await loadCatalog(`sqlite:${template}`, catalogProposals({ datasets: Number(process.env.BENCH_BASE_DATASETS ?? 200) }));

/** `<checkout>[,NAME=value...]`: a checkout, and environment variables its server gets (to compare settings). */
async function serve(spec: string, file: string): Promise<{ base: string; pid: number; stop: () => Promise<void> }> {
  const [root, ...settings] = spec.split(',');
  const env = Object.fromEntries(settings.map((s) => [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)]));
  const port = await freePort();
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, path.join(root!, 'bin/almanac.js'), 'serve'], {
    cwd: root, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DATABASE_URL: `sqlite:${file}`, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try { if ((await fetch(`${base}/health`)).ok) break; } catch { /* not up yet */ }
    if (i > 300 || child.exitCode !== null) throw new Error(`server of ${root} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: child.pid!, stop: () => new Promise((resolve) => { child.once('exit', () => resolve()); child.kill('SIGTERM'); }) };
}

function requestOf(load: string): Request {
  if (load === 'batch') {
    const it = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 9 }, 2_000_000);
    return { method: 'POST', path: '/aspects?action=ingestProposalBatch',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' },
      body: () => JSON.stringify({ proposals: Array.from({ length: BATCH }, () => it.next().value as Proposal) }) };
  }
  if (load === 'ingest') {
    const it = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 7 }, 1_000_000);
    return { method: 'POST', path: '/aspects?action=ingestProposal',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' },
      body: () => JSON.stringify({ proposal: it.next().value as Proposal }) };
  }
  let n = 0;
  const query = `mutation($d: String!) { updateDescription(input: { description: $d, resourceUrn: "${SHOWCASE_URN}", subResource: "${SHOWCASE_FIELD}", subResourceType: DATASET_FIELD }) }`;
  return graphqlRequest(token, () => JSON.stringify({ query, variables: { d: `Order identifier, revision ${n++} of the benchmark.` } }));
}

/** CPU (ms) of each thread of a process, by thread id. */
function threadCpuMs(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
        out.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
      } catch { /* the thread ended */ }
    }
  } catch { /* the process ended */ }
  return out;
}

const results = new Map<string, { cpu: number[]; main: number[]; rps: number[]; p99: number[] }>();
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? roots : [...roots].reverse();
  for (const load of loads) {
    for (const root of order) {
      const file = path.join(work, `run.db`);
      for (const f of readdirSync(work)) if (f.startsWith('run.db')) rmSync(path.join(work, f));
      for (const suffix of ['', '-wal', '-shm']) if (existsSync(template + suffix)) copyFileSync(template + suffix, file + suffix);
      const server = await serve(root, file);
      try {
        const req = requestOf(load);
        const first = await once(server.base, req);
        if (first.status !== 200) throw new Error(`${load} failed on ${root}: ${first.status} ${first.text.slice(0, 300)}`);
        const per = aspectsPer(load);
        const connections = connectionsOf(load);
        await measure(server.base, req, { amount: Math.ceil(WARMUP / per), connections });
        const c0 = cpuMs(server.pid);
        const t0 = threadCpuMs(server.pid);
        const m0 = await measure(server.base, req, { amount: Math.ceil(N / per), connections });
        // Counted in aspects: a batch request is `per` of them.
        const m = { ...m0, requests: m0.requests * per, rps: m0.rps * per };
        const perK = ((cpuMs(server.pid) - c0) / m.requests) * 1000;
        const t1 = threadCpuMs(server.pid);
        const mainPerK = (((t1.get(String(server.pid)) ?? NaN) - (t0.get(String(server.pid)) ?? NaN)) / m.requests) * 1000;
        // The busiest other thread (the WAL checkpointer under writes).
        const others = [...t1].filter(([tid]) => tid !== String(server.pid)).map(([tid, ms]) => ms - (t0.get(tid) ?? 0)).sort((a, b) => b - a);
        const key = `${load} ${root}`;
        if (!results.has(key)) results.set(key, { cpu: [], main: [], rps: [], p99: [] });
        const e = results.get(key)!;
        e.cpu.push(perK); e.main.push(mainPerK); e.rps.push(m.rps); e.p99.push(m.p99);
        console.log(`round ${r + 1} ${load.padEnd(8)} ${root.padEnd(40)} ${perK.toFixed(0).padStart(5)} ms CPU/1k (main ${mainPerK.toFixed(0)}, busiest other ${((others[0] ?? 0) / m.requests * 1000).toFixed(0)})  ${m.rps.toFixed(0).padStart(5)} /s  p99 ${m.p99} ms  WAL ${(statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) >> 20} MB  (${m.requests}, load ${os.loadavg()[0]!.toFixed(2)})`);
      } finally {
        await server.stop();
      }
    }
  }
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
console.log(`\nmedians of ${rounds} rounds, ${N} aspects each (32 connections; batch: ${BATCH} a request, 2 connections), per 1,000 aspects:`);
for (const [key, e] of results) console.log(`${key.padEnd(50)} ${median(e.cpu).toFixed(0).padStart(5)} ms CPU/1k (main ${median(e.main).toFixed(0)})  ${median(e.rps).toFixed(0).padStart(5)} /s  p99 ${median(e.p99)} ms  [${e.cpu.map((x) => x.toFixed(0)).join(' ')}]`);
rmSync(work, { recursive: true, force: true });
