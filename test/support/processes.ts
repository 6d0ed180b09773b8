import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/** The CLI as users run it: `node bin/almanac.js …`, as a child process. */
export const BIN = path.resolve(import.meta.dirname, '../../bin/almanac.js');

/** Runs the CLI with `args`, the environment plus `env`, and `stdin` as its input (ended at once); resolves on exit. */
export function runCli(args: string[], env: Record<string, string>, stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A running `almanac serve` child process. */
export interface ServerProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  base: string;
  /** Its exit: the signal that ended it, else its exit code. */
  exited: Promise<NodeJS.Signals | number | null>;
  /** What it wrote on stdout so far (JSON log lines). */
  log: () => string;
  /** What it wrote on stderr so far (warnings outside the request log). */
  stderr: () => string;
}

/**
 * Starts `almanac serve` as users run it, on a free port of 127.0.0.1 with `env` added (DATABASE_URL, LOG_LEVEL —
 * `warn` unless given — and the like) and `serve`'s `args`, and resolves once it answers /health.
 */
export async function startServer(env: Record<string, string>, args: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, exited, log: () => out, stderr: () => err };
    } catch { /* not up yet */ }
    if (child.exitCode !== null || child.signalCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not start: ${out}${err}`);
}
