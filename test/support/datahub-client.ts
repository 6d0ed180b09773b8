import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { startApp, type TestApp } from './app.js';
import type { EngineContext } from './engines.js';
import { IN_CI, REPO } from './run-env.js';

/**
 * DataHub's own Python client (acryl-datahub 0.12.1) as its users run it: the `datahub` CLI and Python scripts using
 * its emitter and graph client, run by Debian's /usr/bin/python3 against a server on a real socket.
 *
 * The client comes as a tarball (sources, a few pure-Python dependencies, `bin/datahub`, and `env.sh`, which sets
 * PYTHONPATH and PATH); it is unpacked once per test process into a temporary folder, removed at exit. Its other
 * dependencies are Debian packages (python3-pydantic, python3-avro, …; .ci/run installs them). The tarball is at
 * ../shared/clients/acryl-datahub-0.12.1/ beside the repository, or wherever ALMANAC_DATAHUB_CLIENT says.
 */
export const DATAHUB_CLIENT_TARBALL = process.env.ALMANAC_DATAHUB_CLIENT
  ?? path.resolve(REPO, '../shared/clients/acryl-datahub-0.12.1/acryl-datahub-0.12.1.tar.xz');

export const PYTHON = '/usr/bin/python3';

const exec = promisify(execFile);

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The unpacked client: the environment env.sh sets up, and a HOME of its own. */
export interface ClientInstall {
  dir: string;
  env: Record<string, string>;
}

let installing: Promise<ClientInstall | string> | undefined;

/** Unpacks the client (once per process) and checks that it imports; a string says why it cannot run. */
export function installDatahubClient(): Promise<ClientInstall | string> {
  installing ??= (async () => {
    if (!existsSync(PYTHON)) return `${PYTHON} is missing`;
    if (!existsSync(DATAHUB_CLIENT_TARBALL)) return `the client tarball ${DATAHUB_CLIENT_TARBALL} is missing (set ALMANAC_DATAHUB_CLIENT)`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-datahub-client-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    try {
      await exec('tar', ['-xJf', DATAHUB_CLIENT_TARBALL, '-C', dir]);
    } catch (e) {
      return `could not unpack ${DATAHUB_CLIENT_TARBALL}: ${(e as Error).message}`;
    }
    // The environment exactly as `. env.sh` makes it (PYTHONPATH, PATH, DATAHUB_TELEMETRY_ENABLED=false, …).
    const envSh = path.join(dir, 'env.sh');
    const { stdout } = await exec('bash', ['-c', '. "$1" && env -0', '_', envSh], { env: { ...process.env, PYTHONPATH: '' } });
    const sourced = new Map(stdout.split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
    const env: Record<string, string> = {};
    for (const [, name] of readFileSync(envSh, 'utf8').matchAll(/^export (\w+)=/gm)) {
      if (sourced.has(name!)) env[name!] = sourced.get(name!)!;
    }
    // A HOME of its own, holding the CLI's config file as `datahub init` writes it (the server comes from the
    // environment, which wins over the file); without the file the CLI's first run writes it and says so on stdout.
    const home = path.join(dir, 'home');
    mkdirSync(home);
    writeFileSync(path.join(home, '.datahubenv'), 'gms:\n  server: http://localhost:8080\n  token: \'\'\n');
    Object.assign(env, { HOME: home, DATAHUB_TELEMETRY_ENABLED: 'false' });
    // Everything the CLI and the graph client import, Debian's packages included.
    const check = await run(PYTHON, ['-c', 'import datahub.entrypoints, datahub.ingestion.graph.client, datahub.emitter.rest_emitter, '
      + 'datahub.ingestion.source.file, datahub.ingestion.sink.datahub_rest'], env);
    if (check.code !== 0) {
      const missing = /ModuleNotFoundError: (.*)/.exec(check.stderr)?.[1];
      return `the client does not import with ${PYTHON}: ${missing ?? check.stderr.trim().split('\n').pop()} (install the python3-* packages .ci/run lists)`;
    }
    return { dir, env };
  })();
  return installing;
}

function run(cmd: string, args: string[], env: Record<string, string>, opts: { stdin?: string; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the server under test usually runs in this very process.
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

/** The client pointed at one server with one token. */
export interface DatahubClient {
  install: ClientInstall;
  /** The environment the client's commands run with. */
  env: Record<string, string>;
  /** `datahub <args>`; resolves with its exit code and output. */
  cli(args: string[], opts?: { stdin?: string; cwd?: string }): Promise<RunResult>;
  /** A Python script run by /usr/bin/python3 with the client on its path. */
  python(script: string): Promise<RunResult>;
  /** A Python script whose last line of stdout is JSON: that value (a failing script throws, with its stderr). */
  pythonJson(script: string): Promise<any>;
}

export function datahubClient(install: ClientInstall, server: { url: string; token: string }): DatahubClient {
  const env = { ...install.env, DATAHUB_GMS_URL: server.url, DATAHUB_GMS_TOKEN: server.token };
  const python = (script: string) => run(PYTHON, ['-c', script], env);
  return {
    install,
    env,
    cli: (args, opts) => run(path.join(install.dir, 'bin', 'datahub'), args, env, opts),
    python,
    async pythonJson(script) {
      const res = await python(script);
      if (res.code !== 0) throw new Error(`python exited with ${res.code}:\n${res.stderr}\n${res.stdout}`);
      const last = res.stdout.trimEnd().split('\n').pop() ?? '';
      try {
        return JSON.parse(last);
      } catch {
        throw new Error(`python printed no JSON on its last line:\n${res.stdout}\n${res.stderr}`);
      }
    },
  };
}

/** The real app on the suite's database, listening on a port of loopback, and the client pointed at it as root. */
export async function startAppForClient(ctx: EngineContext, install: ClientInstall): Promise<{ t: TestApp; client: DatahubClient }> {
  const t = await startApp(ctx);
  return { t, client: datahubClient(install, { url: await t.listen(), token: t.rootToken }) };
}

/**
 * Declares `body`'s suites when the client can run. When it cannot (no tarball, no python3 packages), outside CI
 * one skipped test says why, loudly, as forEachEngine does for PostgreSQL; in CI (run-env.ts) a failing test does.
 */
export async function withDatahubClient(name: string, body: (install: ClientInstall) => void): Promise<void> {
  const install = await installDatahubClient();
  if (typeof install !== 'string') return body(install);
  if (IN_CI) {
    test(`DataHub's Python client can run for "${name}"`, () => {
      throw new Error(`DataHub's Python client is required in CI: ${install}`);
    });
    return;
  }
  console.warn(`\n!!! SKIPPING "${name}": DataHub's Python client cannot run: ${install} !!!\n`);
  test(`every test of "${name}" with DataHub's Python client`, { skip: `DataHub's Python client cannot run: ${install}` }, () => {});
}
