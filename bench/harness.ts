import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { batches, catalogProposals, type Proposal } from './generate.js';
import { median, throwawayPostgres } from './support.js';
import { freePort } from '../test/support/processes.js';
import { summariseProfile, type ProfileSummary } from './profile.js';

/**
 * What the scenario benchmarks share: servers as child processes (Almanac as users run it, `node bin/almanac.js
 * serve`, and a bare Fastify server answering the very bytes Almanac answered), autocannon measurements in
 * alternating rounds, the server's peak RSS, and results written as JSON under bench/results.
 */
export const ROOT = path.resolve(import.meta.dirname, '..');
export const RESULTS_DIR = path.join(ROOT, 'bench', 'results');
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}
export const hasFlag = (args: string[], name: string) => args.includes(`--${name}`);

export { freePort };

/** Peak resident set (VmHWM) of a process, in MB, from /proc; NaN where there is no /proc. */
export function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

async function waitForHttp(url: string, child: ChildProcess, stderr: () => string, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${stderr()}`);
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server at ${url} did not answer within ${timeoutMs} ms: ${stderr()}`);
}

/** CPU time (user + system) a process has used so far, in ms, from /proc; NaN where there is no /proc. */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
export const CLOCK_TICKS = (() => { try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; } })();

export interface Server {
  base: string;
  pid: number;
  peakRssMb: () => number;
  stop: () => Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

/** `node bin/almanac.js serve` on a free port over `databaseUrl`; `cpuProfDir` turns on `--cpu-prof` (written at exit). */
export async function startAlmanac(databaseUrl: string, opts: { cpuProfDir?: string; env?: Record<string, string>; startTimeoutMs?: number } = {}): Promise<Server> {
  const port = await freePort();
  const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'bin/almanac.js'), 'serve'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...opts.env },
  });
  let err = '';
  child.stderr!.on('data', (d) => { err = (err + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/health`, child, () => err, opts.startTimeoutMs);
  return { base, pid: child.pid!, peakRssMb: () => peakRssMb(child.pid!), stop: () => stopChild(child) };
}

/** A bare Fastify server (bench/bare-server.ts, its own process) answering `body` with `contentType` to any request. */
export async function startBare(body: string, contentType = 'application/json; charset=utf-8'): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bare-'));
  const file = path.join(dir, 'body');
  writeFileSync(file, body);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/bare-server.ts')], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, BARE_BODY_FILE: file, BARE_CONTENT_TYPE: contentType, PORT: String(port) },
  });
  let err = '';
  child.stderr!.on('data', (d) => { err = (err + d).slice(-4000); });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/`, child, () => err);
  return { base, pid: child.pid!, peakRssMb: () => peakRssMb(child.pid!),
    stop: async () => { await stopChild(child); rmSync(dir, { recursive: true, force: true }); } };
}

export interface Engine { name: 'sqlite' | 'postgres'; url: string; cleanup: () => Promise<void> }

/** A fresh SQLite file database, and a throwaway PostgreSQL database when one is reachable (BENCH_PG_URL or the tests' default). */
export async function engines(opts: { sqlite?: boolean; postgres?: boolean } = {}): Promise<Engine[]> {
  const out: Engine[] = [];
  if (opts.sqlite !== false) out.push(await sqliteEngine());
  if (opts.postgres !== false) {
    const pg = await postgresEngine();
    if (pg) out.push(pg);
    else console.log('PostgreSQL unreachable: SQLite only');
  }
  return out;
}

export async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-'));
  return { name: 'sqlite', url: `sqlite:${path.join(dir, 'bench.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

export async function postgresEngine(): Promise<Engine | null> {
  if (process.env.BENCH_PG_URL) process.env.ALMANAC_TEST_PG_URL ??= process.env.BENCH_PG_URL;
  const pg = await throwawayPostgres();
  return pg ? { name: 'postgres', url: pg.url, cleanup: pg.drop } : null;
}

/**
 * Loads proposals straight through the entity service (what `almanac ingest` does, without the file) and creates a
 * personal access token for urn:li:corpuser:datahub. The catalog is closed again before the server starts.
 */
export async function loadCatalog(databaseUrl: string, proposals: Iterable<Proposal>, batchSize = 500): Promise<{ token: string; aspects: number; ms: number }> {
  const catalog = await openCatalog({ ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }) });
  try {
    const started = performance.now();
    let aspects = 0;
    for (const b of batches(proposals, batchSize)) {
      await catalog.entities.ingest(b.map(changeFromProposal), systemActor());
      aspects += b.length;
    }
    const ms = performance.now() - started;
    const { accessToken } = await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub',
      name: 'bench', durationMs: 24 * 3_600_000 }, rootActor());
    return { token: accessToken, aspects, ms };
  } finally {
    await catalog.close();
  }
}

export interface Request { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string | (() => string) }

export interface Measurement { rps: number; p50: number; p99: number; errors: number; non2xx: number; requests: number }

/** One autocannon run against `base`; a body function is called for every request (rotating content). */
export async function measure(base: string | string[], req: Request, opts: { seconds?: number; connections?: number; amount?: number } = {}): Promise<Measurement> {
  const bases = Array.isArray(base) ? base : [base];
  const conns = opts.connections ?? CONNECTIONS;
  const runs = bases.map((b) => autocannon({
    url: b, connections: Math.max(1, Math.round(conns / bases.length)),
    ...(opts.amount ? { amount: Math.round(opts.amount / bases.length) } : { duration: opts.seconds ?? SECONDS }),
    requests: [{
      method: req.method, path: req.path, headers: req.headers,
      ...(typeof req.body === 'function' ? { setupRequest: (r: object) => ({ ...r, body: (req.body as () => string)() }) } : { body: req.body }),
    }],
  }));
  const rs = await Promise.all(runs);
  const bad = rs.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (bad) console.warn(`  warning: ${bad} failed requests (${rs.map((r) => `${r.non2xx} non-2xx, ${r.errors} errors`).join('; ')})`);
  return {
    rps: rs.reduce((n, r) => n + r.requests.average, 0),
    p50: Math.max(...rs.map((r) => r.latency.p50)), p99: Math.max(...rs.map((r) => r.latency.p99)),
    errors: rs.reduce((n, r) => n + r.errors, 0), non2xx: rs.reduce((n, r) => n + r.non2xx, 0),
    requests: rs.reduce((n, r) => n + r.requests.total, 0),
  };
}

export interface Row {
  scenario: string;
  engine: string;
  target: string;
  rps?: number;
  p50?: number;
  p95?: number;
  p99?: number;
  ratio?: number;
  baselineRps?: number;
  /** CPU time the Almanac process(es) used per request (user + system; a database server's own time not included). */
  serverCpuMsPerRequest?: number;
  aspectsPerSecond?: number;
  peakRssMb?: number;
  note?: string;
}

/**
 * Almanac against the bare server answering the same bytes, `ROUNDS` alternating rounds of `SECONDS` each; medians.
 * `almanacReq` is sent to Almanac; the bare server gets the same method, path, headers and body.
 */
export async function compare(scenario: string, engine: string, target: string, almanac: Server | Server[], almanacReq: Request, bareBody: string,
  opts: { connections?: number; note?: string } = {}): Promise<Row> {
  const servers = Array.isArray(almanac) ? almanac : [almanac];
  const bare = await startBare(bareBody);
  try {
    // Warm up both: JIT, compiled queries, caches.
    await measure(servers.map((s) => s.base), almanacReq, { amount: 500, connections: 4 });
    await measure(bare.base, almanacReq, { amount: 500, connections: 4 });
    const a: Measurement[] = [];
    const b: Measurement[] = [];
    const cpuPerRequest: number[] = [];
    const cpu = () => servers.reduce((n, s) => n + cpuMs(s.pid), 0);
    for (let round = 0; round < ROUNDS; round++) {
      b.push(await measure(bare.base, almanacReq, opts));
      const before = cpu();
      const m = await measure(servers.map((s) => s.base), almanacReq, opts);
      cpuPerRequest.push((cpu() - before) / Math.max(1, m.requests));
      a.push(m);
    }
    const rps = median(a.map((m) => m.rps));
    const baselineRps = median(b.map((m) => m.rps));
    const row: Row = { scenario, engine, target, rps: Math.round(rps), p50: median(a.map((m) => m.p50)), p99: median(a.map((m) => m.p99)),
      ratio: Math.round((rps / baselineRps) * 1000) / 1000, baselineRps: Math.round(baselineRps),
      serverCpuMsPerRequest: Math.round(median(cpuPerRequest) * 1000) / 1000,
      peakRssMb: Math.max(...servers.map((s) => s.peakRssMb())), ...(opts.note ? { note: opts.note } : {}) };
    printRow(row);
    return row;
  } finally {
    await bare.stop();
  }
}

export const round2 = (x: number) => Math.round(x * 100) / 100;

export function printRow(r: Row) {
  const f = (x: number | undefined, d = 0) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));
  console.log(`  ${`${r.target} [${r.engine}]`.padEnd(52)} ${f(r.rps ?? r.aspectsPerSecond).padStart(7)} ${r.aspectsPerSecond !== undefined ? 'aspects/s' : 'req/s    '}`
    + `  p50 ${f(r.p50, 1).padStart(6)}  ${r.p99 === undefined && r.p95 !== undefined ? `p95 ${f(r.p95, 1).padStart(6)}` : `p99 ${f(r.p99, 1).padStart(6)}`}  ratio ${f(r.ratio, 3).padStart(5)}  rss ${f(r.peakRssMb)} MB${r.serverCpuMsPerRequest !== undefined ? `  cpu ${f(r.serverCpuMsPerRequest, 2)} ms/req` : ''}${r.note ? `  (${r.note})` : ''}`);
}

export function machine() {
  const cpus = os.cpus();
  let commit = '';
  try { commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
  let dirty = false;
  try { dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() !== ''; } catch { /* ignore */ }
  return { cpus: cpus.length, cpuModel: cpus[0]?.model ?? '', memoryGb: Math.round(os.totalmem() / 2 ** 30), node: process.version,
    platform: `${os.platform()} ${os.release()}`, commit, srcModified: dirty,
    loadAverage: os.loadavg().map((x) => round2(x)) };
}

/** Writes bench/results/<scenario>-<date>.json and returns its path. */
export function saveResults(scenario: string, rows: Row[], extra: Record<string, unknown> = {}): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const date = new Date().toISOString();
  const file = path.join(RESULTS_DIR, `${scenario}-${date.slice(0, 19).replace(/:/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify({ scenario, date, machine: machine(),
    settings: { seconds: SECONDS, rounds: ROUNDS, connections: CONNECTIONS }, ...extra, rows }, null, 2)}\n`);
  console.log(`  → ${path.relative(ROOT, file)}`);
  return file;
}

/** The newest row of each scenario, engine and target, with the run it comes from. */
export function latestRows(): { row: Row; date: string; machine: ReturnType<typeof machine> }[] {
  let names: string[] = [];
  try { names = readdirSync(RESULTS_DIR).filter((n) => /-\d{4}-\d{2}-\d{2}T[\d-]+\.json$/.test(n)).sort(); } catch { return []; }
  const runs = names.map((n) => JSON.parse(readFileSync(path.join(RESULTS_DIR, n), 'utf8')) as { date: string; machine: ReturnType<typeof machine>; rows: Row[] })
    .sort((a, b) => a.date.localeCompare(b.date));
  const latest = new Map<string, { row: Row; date: string; machine: ReturnType<typeof machine> }>();
  for (const r of runs) for (const row of r.rows) latest.set(`${row.scenario}\u0000${row.engine}\u0000${row.target.replace(/\(\d+ kB\)/, '')}`, { row, date: r.date, machine: r.machine });
  return [...latest.values()];
}

export const graphqlRequest = (token: string, body: string | (() => string)): Request => ({
  method: 'POST', path: '/api/graphql', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body,
});

/** One request through fetch, for the bytes the bare server must answer and to check the answer is right. */
export async function once(base: string, req: Request): Promise<{ status: number; text: string }> {
  const body = typeof req.body === 'function' ? req.body() : req.body;
  const r = await fetch(base + req.path, { method: req.method, headers: req.headers, body });
  return { status: r.status, text: await r.text() };
}

/**
 * `almanac serve` for one scenario, under `node --cpu-prof` when `profile` is set: `stop()` ends it and, when
 * profiled, keeps the profile beside the temporary folder and prints its top functions by self time from
 * `measuredFrom()` on (ms after spawn; start-up and loading left out).
 */
export async function scenarioServer(databaseUrl: string, label: string, profile: boolean): Promise<Server & { measuringFrom: () => void; stopAndSummarise: () => Promise<ProfileSummary | undefined> }> {
  const profDir = profile ? mkdtempSync(path.join(os.tmpdir(), 'almanac-prof-')) : undefined;
  const spawned = performance.now();
  let from = 0;
  const server = await startAlmanac(databaseUrl, { cpuProfDir: profDir });
  return {
    ...server,
    measuringFrom: () => { from = performance.now() - spawned; },
    stopAndSummarise: async () => {
      await server.stop();
      if (!profDir) return undefined;
      try {
        const file = readdirSync(profDir).find((n) => n.endsWith('.cpuprofile'));
        if (!file) return undefined;
        const keep = path.join(path.dirname(profDir), `almanac-${label}-${Date.now()}.cpuprofile`);
        renameSync(path.join(profDir, file), keep);
        console.log(`  CPU profile of the server: ${keep}`);
        return summariseProfile(keep, 12, true, from);
      } finally {
        rmSync(profDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * One scenario on each engine the flags select (`--engine sqlite|postgres`; `--profile` runs the server under
 * `node --cpu-prof`): a catalog of `baseDatasets` generated datasets loaded, `almanac serve` started on it, `body`'s
 * rows measured (a body that warms up first calls `server.measuringFrom()` again after), the rows saved with `extra`
 * and the profiles.
 */
export async function scenarioOnEachEngine(scenario: string, args: string[], heading: string, baseDatasets: number,
  body: (engine: Engine, server: Server & { measuringFrom: () => void }, token: string) => Promise<Row[]>, extra: Record<string, unknown>): Promise<void> {
  const profile = hasFlag(args, 'profile');
  const only = flag(args, 'engine');
  console.log(`${heading}${profile ? '; server under --cpu-prof' : ''}`);
  const rows: Row[] = [];
  const profiles: Record<string, unknown> = {};
  for (const engine of await engines({ sqlite: !only || only === 'sqlite', postgres: !only || only === 'postgres' })) {
    try {
      const { token } = await loadCatalog(engine.url, catalogProposals({ datasets: baseDatasets }));
      const server = await scenarioServer(engine.url, `${scenario}-${engine.name}`, profile);
      try {
        server.measuringFrom();
        rows.push(...await body(engine, server, token));
      } finally {
        const summary = await server.stopAndSummarise();
        if (summary) profiles[engine.name] = summary;
      }
    } finally {
      await engine.cleanup();
    }
  }
  saveResults(scenario, rows, { ...extra, ...(profile ? { profiles } : {}) });
}
