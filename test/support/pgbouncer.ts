import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { postgresOwnedDir } from './pg-cluster.js';
import { freePort } from './processes.js';

export const PGBOUNCER = process.env.ALMANAC_TEST_PGBOUNCER ?? '/usr/sbin/pgbouncer';
export const HAVE_PGBOUNCER = existsSync(PGBOUNCER);

/** A PgBouncer of the test's own in front of the PostgreSQL on `pgPort`, trust authentication (it refuses to run as root). */
export class PgBouncer {
  private constructor(readonly dir: string, readonly port: number, private readonly child: ChildProcess, private readonly output: () => string) {}

  static async start(pgPort: number, mode: 'session' | 'transaction'): Promise<PgBouncer> {
    const dir = postgresOwnedDir('almanac-pgbouncer-');
    const port = await freePort();
    writeFileSync(path.join(dir, 'users.txt'), '"postgres" ""\n', { mode: 0o644 });
    writeFileSync(path.join(dir, 'pgbouncer.ini'), [
      '[databases]',
      `* = host=127.0.0.1 port=${pgPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${path.join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      'max_client_conn = 500',
      'default_pool_size = 60',
      '',
    ].join('\n'), { mode: 0o644 });
    // As the postgres user when we are root (it refuses root), started directly so that a signal reaches it.
    const id = (what: '-u' | '-g') => Number(execFileSync('id', [what, 'postgres'], { encoding: 'utf8' }).trim());
    const child = spawn(PGBOUNCER, [path.join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'pipe', 'pipe'],
      ...(process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {}) });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    for (let i = 0; i < 100; i++) {
      const open = await new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
        s.on('error', () => resolve(false));
      });
      if (open) return new PgBouncer(dir, port, child, () => out);
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    throw new Error(`pgbouncer did not start: ${out}`);
  }

  url(db: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }

  log(): string {
    return this.output();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.on('exit', r));
      this.child.kill('SIGINT');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
