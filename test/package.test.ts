import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { buildSchema } from 'graphql';
import { schemaSdl } from '../src/graphql/schema.js';
import { rewriteIndex } from '../src/http/ui.js';
import { forEachEngine } from './support/engines.js';
import { freePort } from './support/processes.js';

/**
 * The package as an operator installs it: `npm pack`, then `npm install -g` of the tarball into an empty prefix (no
 * dev dependencies), then `almanac` from that prefix run in another folder: ingest, token create, serve, queried over
 * HTTP. One install serves both engines' runs.
 */
const REPO = path.resolve(import.meta.dirname, '..');
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';

function run(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? REPO, env: { ...process.env, ...opts.env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** As run, without blocking this process (which serves the install its native binaries meanwhile). */
function runAsync(cmd: string, args: string[], opts: { cwd?: string; env?: Record<string, string | undefined> } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd, args, { cwd: opts.cwd ?? REPO, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** What under src/ changed after dist/ was built (bin/almanac.js's own test); empty when the build is current. */
function staleSources(): string[] {
  const stamp = path.join(REPO, 'dist/.built');
  if (!existsSync(stamp)) return ['(no dist/.built)'];
  const built = statSync(stamp).mtimeMs;
  return readdirSync(path.join(REPO, 'src'), { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(REPO, 'src', f)).mtimeMs > built);
}

/**
 * The native modules' install scripts first try to download a prebuilt binary, then compile from source (SQLite's
 * amalgamation takes minutes on a small machine). This serves them the binaries this checkout's `npm ci` already has,
 * through their own mirror settings, so the install needs no network but the npm registry and takes about a minute;
 * a request for another version gets 404 and the package compiles itself.
 */
async function nativeMirror(dir: string): Promise<{ env: Record<string, string>; requested: () => string[]; served: (url: string) => boolean;
  close: () => Promise<void>; }> {
  const nm = path.join(REPO, 'node_modules');
  const version = (name: string) => JSON.parse(readFileSync(path.join(nm, name, 'package.json'), 'utf8')).version as string;
  const abi = process.versions.modules;
  const files = new Map<string, string>();
  const sqlite = `better-sqlite3-v${version('better-sqlite3')}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  assert.equal(run('tar', ['czf', path.join(dir, sqlite), '-C', path.join(nm, 'better-sqlite3'), 'build/Release/better_sqlite3.node']).code, 0, 'tar better-sqlite3');
  files.set(`/better-sqlite3/v${version('better-sqlite3')}/${sqlite}`, path.join(dir, sqlite));
  const roaringDir = readdirSync(path.join(nm, 'roaring/native')).find((d) => d.startsWith(`roaring-node-v${abi}-`));
  if (roaringDir) {
    const roaring = `roaring-v${version('roaring')}-${roaringDir.slice('roaring-'.length)}.tar.gz`;
    assert.equal(run('tar', ['czf', path.join(dir, roaring), '-C', path.join(nm, 'roaring/native'), `${roaringDir}/roaring.node`]).code, 0, 'tar roaring');
    files.set(`/roaring/${version('roaring')}/${roaring}`, path.join(dir, roaring));
  }
  const requested: string[] = [];
  const server = http.createServer((req, res) => {
    requested.push(req.url!);
    const file = files.get(req.url!);
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    env: { npm_config_better_sqlite3_binary_host: `${base}/better-sqlite3`, npm_config_roaring_binary_host_mirror: `${base}/roaring/` },
    requested: () => requested,
    served: (url) => files.has(url),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let tmp: string;
/** The installed command and the installed package's folder. */
let almanac: string;
let installed: string;

before(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'almanac-package-'));
  // What `npm ci` leaves (prepare: the compiled CLI and the UI); built here when the sources changed since.
  const stale = staleSources();
  if (stale.length) {
    // Rebuilt in place: the build swaps the new dist/ in whole, so CLIs other tests start meanwhile are not disturbed.
    console.log(`# dist/ is older than src/ (${stale.slice(0, 5).join(', ')}): npm run build`);
    assert.equal(run(process.execPath, ['scripts/build.js']).code, 0, 'npm run build');
  }
  assert.ok(existsSync(path.join(REPO, 'ui/dist/index.html')), 'the UI is built (npm ci, or npm run build:ui)');
  // --ignore-scripts: `prepare` would build both again (minutes); they were just checked to be current.
  const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp]);
  assert.equal(packed.code, 0, packed.stderr);
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const paths = info!.files.map((f) => f.path);
  // Compiled code, the UI, the CLI and the samples; no sources, tests or benchmarks.
  for (const p of ['bin/almanac.js', 'dist/cli/main.js', 'dist/.built', 'dist/graphql/schema/common.graphql', 'dist/http/graphiql.html',
    'dist/http/graphiql-page.js', 'ui/dist/index.html', 'samples/datahub/bootstrap_mce.json', 'package.json', 'README.md']) {
    assert.ok(paths.includes(p), `the tarball holds ${p}`);
  }
  assert.deepEqual(paths.filter((p) => /^(src|test|bench|scripts|ui\/src|node_modules)\//.test(p)), [], 'no sources in the tarball');

  const mirror = await nativeMirror(tmp);
  const prefix = path.join(tmp, 'prefix');
  const started = Date.now();
  const install = await runAsync('npm', ['install', '-g', '--prefix', prefix, path.join(tmp, info!.filename), '--prefer-offline', '--no-audit', '--no-fund'],
    { cwd: tmp, env: mirror.env });
  await mirror.close();
  assert.deepEqual(mirror.requested().filter((u) => !mirror.served(u)), [], 'every native binary came from the checkout');
  assert.equal(install.code, 0, `${install.stdout}\n${install.stderr}`);
  console.log(`# npm install -g of the tarball: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  almanac = path.join(prefix, 'bin/almanac');
  installed = path.join(prefix, 'lib/node_modules/almanac');
  // No dev dependencies, and the native module built for this Node.js.
  for (const dev of ['typescript', 'tsx', 'vite']) assert.equal(existsSync(path.join(installed, 'node_modules', dev)), false, `${dev} is not installed`);
  assert.ok(existsSync(path.join(installed, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node')), 'better-sqlite3 is built');
}, { timeout: 15 * 60_000 });

after(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs the installed `almanac` in `cwd`, with the environment less the checkout's tools plus `env`. */
function cli(args: string[], cwd: string, env: Record<string, string | undefined>) {
  return run(almanac, args, { cwd, env: { DATABASE_URL: undefined, NODE_OPTIONS: undefined, ...env } });
}

forEachEngine('the installed package', (ctx) => {
  test('almanac ingest, token create and serve from another folder; the database where DATABASE_URL says, else under ./data', { timeout: 120_000 }, async () => {
    const work = path.join(tmp, `work-${ctx.engine}`);
    mkdirSync(work);
    // SQLite: the default, under the current folder; PostgreSQL: DATABASE_URL.
    const env = { DATABASE_URL: ctx.engine === 'sqlite' ? undefined : ctx.url, LOG_LEVEL: 'warn' };
    const ingested = cli(['ingest', path.join(installed, 'samples/datahub/bootstrap_mce.json')], work, env);
    assert.equal(ingested.code, 0, ingested.stderr);
    assert.match(ingested.stdout, /^Ingested \d+ of \d+ records from 1 file .* nothing refused\n$/);
    assert.equal(existsSync(path.join(work, 'data/almanac.db')), ctx.engine === 'sqlite', 'the SQLite file under ./data');
    const made = cli(['token', 'create', '--user', 'datahub'], work, env);
    assert.deepEqual([made.code, made.stderr], [0, '']);
    const auth = { authorization: `Bearer ${made.stdout.trim()}` };

    const port = await freePort();
    const server = spawn(almanac, ['serve'], { cwd: work, env: { ...process.env, NODE_OPTIONS: undefined, ...env,
      PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    server.stdout.on('data', (d) => (log += d));
    server.stderr.on('data', (d) => (log += d));
    const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve(signal ?? code)));
    const base = `http://127.0.0.1:${port}`;
    try {
      for (let i = 0; ; i++) {
        if (await fetch(`${base}/health`).then((r) => r.ok, () => false)) break;
        assert.ok(i < 600 && server.exitCode === null, `the server starts: ${log}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const res = await fetch(`${base}/api/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ dataset(urn: "${HDFS}") { urn name platform { name } } }` }) });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { data: { dataset: { urn: HDFS, name: 'SampleHdfsDataset', platform: { name: 'hdfs' } } }, extensions: {} });
      // The web UI and GraphiQL come with the package.
      const ui = await fetch(`${base}/`);
      assert.deepEqual([ui.status, ui.headers.get('content-type')], [200, 'text/html; charset=utf-8']);
      assert.equal(await ui.text(), rewriteIndex(readFileSync(path.join(installed, 'ui/dist/index.html'), 'utf8'), ''));
      const graphiql = await fetch(`${base}/api/graphiql`);
      assert.equal(graphiql.status, 200);
      const js = /src="([^"]*graphiql\.min\.js[^"]*)"/.exec(await graphiql.text());
      assert.ok(js, 'GraphiQL page names its script');
      assert.equal((await fetch(new URL(js[1]!, `${base}/api/graphiql`))).status, 200);
    } finally {
      server.kill('SIGTERM');
      assert.equal(await exited, 0, log);
    }
  });
});

test('the GraphQL SDL is valid (the server builds its schema without validating the SDL again)', () => {
  assert.doesNotThrow(() => buildSchema(schemaSdl()));
});
