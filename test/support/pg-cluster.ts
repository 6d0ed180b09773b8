import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from './processes.js';
import { IN_CI } from './run-env.js';

/**
 * PostgreSQL clusters of a test's own (initdb, pg_ctl and pg_basebackup from PG_BIN, on free ports and temporary
 * folders, run as the postgres user when the tests run as root), for tests that stop, restart or promote them:
 * the shared cluster other test files use at the same time is never touched.
 */
export const PG_BIN = process.env.ALMANAC_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
export const HAVE_PG_BIN = existsSync(path.join(PG_BIN, 'initdb'));

/**
 * Called first in a suite that starts clusters of its own: true when PostgreSQL's server tools are there. Otherwise
 * the suite gets one test instead of its own — failing in CI, skipped (with a warning) elsewhere.
 */
export function havePgTools(suite: string): boolean {
  if (HAVE_PG_BIN) return true;
  if (IN_CI) {
    test('initdb is installed', () => assert.fail(`${suite} needs PostgreSQL's initdb in ${PG_BIN} (set ALMANAC_TEST_PG_BIN)`));
    return false;
  }
  console.warn(`\n!!! SKIPPING ${suite}: no initdb in ${PG_BIN} !!!\n`);
  test(suite, { skip: `no initdb in ${PG_BIN}` }, () => {});
  return false;
}

/** Runs a PostgreSQL tool as the postgres user when we are root (initdb and the server refuse root). */
export function pgTool(tool: string, args: string[]): string {
  const bin = path.isAbsolute(tool) ? tool : path.join(PG_BIN, tool);
  const [cmd, argv] = process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A temporary folder the postgres user owns (when we are root). */
export function postgresOwnedDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const id = (what: '-u' | '-g') => Number(execFileSync('id', [what, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  return dir;
}

/** A PostgreSQL cluster of the test's own, on 127.0.0.1:port with trust authentication (replication connections too). */
export class Cluster {
  readonly data: string;
  constructor(readonly dir: string, readonly port: number, private readonly settings: string[] = []) {
    this.data = path.join(dir, 'data');
  }

  /** A new primary; `settings` are extra `-c name=value` options of the server. */
  static async create(settings: string[] = []): Promise<Cluster> {
    const cluster = new Cluster(postgresOwnedDir('almanac-pg-'), await freePort(), settings);
    pgTool('initdb', ['-D', cluster.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
    cluster.start();
    return cluster;
  }

  /**
   * A streaming standby of `primary` (pg_basebackup -R: it follows the primary as soon as it starts), hot: it
   * answers reads. `name` is the name it replicates under (application_name, for synchronous_standby_names).
   */
  static async standbyOf(primary: Cluster, name = 'standby'): Promise<Cluster> {
    const cluster = new Cluster(postgresOwnedDir('almanac-pg-standby-'), await freePort(), [`cluster_name=${name}`]);
    pgTool('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', cluster.data, '-R', '-X', 'stream', '-c', 'fast',
      '--no-sync', '-d', `application_name=${name}`]);
    cluster.start();
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}`;
  }

  start(): void {
    pgTool('pg_ctl', ['start', '-w', '-D', this.data, '-l', path.join(this.dir, 'log'),
      '-o', [`-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`,
        ...this.settings.map((s) => `-c ${s}`)].join(' ')]);
  }

  /** `fast`: every session is terminated (FATAL 57P01), as a maintenance restart does; `immediate`: as a crash. */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    pgTool('pg_ctl', ['stop', '-w', '-D', this.data, '-m', mode]);
  }

  /** A standby becomes a primary (a failover). */
  promote(): void {
    pgTool('pg_ctl', ['promote', '-w', '-D', this.data]);
  }

  /** One statement on database `db` of this cluster, on a connection of its own. */
  async sql(statement: string, params: unknown[] = [], db = 'postgres'): Promise<any[]> {
    const c = new pg.Client({ connectionString: `${this.url}/${db}` });
    await c.connect();
    try {
      return (await c.query(statement, params)).rows;
    } finally {
      await c.end();
    }
  }

  /** Stops it if it runs, and removes its files. */
  destroy(): void {
    try {
      this.stop('immediate');
    } catch { /* not running */ }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A TCP forwarder standing for the address clients are given (a virtual IP, a DNS name, a managed database's
 * endpoint): `target` says where it forwards new connections; switching it cuts the connections it carries.
 */
export class TcpForwarder {
  private readonly sockets = new Set<net.Socket>();
  private constructor(private readonly server: net.Server, readonly port: number, public target: number) {}

  static async start(target: number): Promise<TcpForwarder> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const fwd = new TcpForwarder(server, (server.address() as net.AddressInfo).port, target);
    server.on('connection', (client) => {
      const upstream = net.connect(fwd.target, '127.0.0.1');
      for (const s of [client, upstream]) {
        fwd.sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          fwd.sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    return fwd;
  }

  /** Forwards new connections to `port`, ending every one it carries now. */
  switchTo(port: number): void {
    this.target = port;
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `probe` every `everyMs` until it returns true, for at most `limitMs`, else fails with what it last saw. */
export async function eventually(what: string, probe: () => Promise<true | string>, limitMs = 30_000, everyMs = 100): Promise<void> {
  const end = performance.now() + limitMs;
  for (;;) {
    const r = await probe().catch((e: Error) => `failed: ${e.message}`);
    if (r === true) return;
    if (performance.now() > end) assert.fail(`${what}: not reached within ${limitMs} ms (${r})`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
