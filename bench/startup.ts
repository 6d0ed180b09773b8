/**
 * `npm run bench -- startup [--runs N]`: how long the `almanac` command takes to start, as users run it
 * (`node bin/almanac.js`: the compiled CLI when dist/ is current): `almanac --help` and `almanac token create` from
 * start to exit; `almanac serve` from start to its first successful answer on /health, on a SQLite file made for the
 * run (its catalog empty: made by the first `token create`) and on a new file each time (migrations and the built-in
 * data platforms' seeding included); and from start to its first GraphQL answer (the schema is built once the server
 * listens: a GraphQL request that comes first waits for it). Beside a bare `node -e 0` in the same run (these machines
 * are shared and noisy: compare with it). Prints min/median/max.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/support/processes.js';

const BIN = path.resolve(import.meta.dirname, '../bin/almanac.js');

function exitTime(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.on('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

function output(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
  });
}

/** A live process's CPU seconds so far, user + system (Linux's /proc; NaN elsewhere). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second on Linux)
  } catch {
    return NaN;
  }
}

/** CPU time of `serve` until ready, noted by readyTime (less sensitive to a busy machine than wall time). */
const readyCpu: number[] = [];

/**
 * From spawning `serve` to its first successful answer: to GET /health, or with `token`, to a GraphQL query (every
 * 5 ms until then).
 */
async function readyTime(env: NodeJS.ProcessEnv, token?: string): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'serve'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const ask = () => (token
    ? fetch(`http://127.0.0.1:${port}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) }).then(async (r) => r.ok && (await r.json()).data?.me?.corpUser?.urn === 'urn:li:corpuser:datahub')
    : fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok));
  try {
    for (;;) {
      if (await ask().catch(() => false)) {
        if (!token) readyCpu.push(cpuSeconds(child.pid!) * 1000);
        return performance.now() - started;
      }
      if (child.exitCode !== null) throw new Error(`almanac serve exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const row = (name: string, xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const ms = (x: number) => `${(x / 1000).toFixed(2)} s`;
  console.log(`${name.padEnd(32)} min ${ms(s[0]!)}  median ${ms(s[Math.floor(s.length / 2)]!)}  max ${ms(s.at(-1)!)}  (${s.length} runs)`);
};

export async function run(args: string[]) {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 10;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-startup-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${path.join(dir, 'almanac.db')}`, LOG_LEVEL: 'warn' };
  try {
    const accessToken = await output([BIN, 'token', 'create', '--user', 'datahub'], env); // creates the database: not counted
    const node: number[] = [];
    const help: number[] = [];
    const token: number[] = [];
    const ready: number[] = [];
    const readyNew: number[] = [];
    const graphql: number[] = [];
    for (let r = 0; r < runs; r++) {
      node.push(await exitTime(['-e', '0'], env));
      help.push(await exitTime([BIN, '--help'], env));
      token.push(await exitTime([BIN, 'token', 'create', '--user', 'datahub'], env));
      ready.push(await readyTime(env));
      readyNew.push(await readyTime({ ...env, DATABASE_URL: `sqlite:${path.join(dir, `new-${r}.db`)}` }));
      graphql.push(await readyTime(env, accessToken));
    }
    row('node -e 0', node);
    row('almanac --help', help);
    row('almanac token create', token);
    row('almanac serve, until /health', ready);
    row('  its CPU time until then', readyCpu.filter((_, i) => i % 2 === 0));
    row('  on a new SQLite file', readyNew);
    row('  its CPU time until then', readyCpu.filter((_, i) => i % 2 === 1));
    row('almanac serve, until a GraphQL answer', graphql);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} on ${os.availableParallelism()} cores`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
