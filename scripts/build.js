#!/usr/bin/env node
// Compiles the server and CLI (src/ → dist/) with tsc, and copies the files the code reads next to itself (GraphQL
// schema text, GraphiQL's page). Then bundles that output with its JavaScript dependencies into dist/bundle/ (esbuild):
// loading a few files instead of ~1,000 modules (each resolved, read and compiled on its own) takes about a third less
// CPU at every start. Part of the root package's `prepare` script, so `npm ci` (and `npm pack`) build it;
// bin/almanac.js runs dist/ when it is at least as new as src/ (the bundle, else dist/cli/main.js). Without TypeScript
// (an install without dev dependencies) it says so and succeeds: bin/almanac.js then runs the sources through tsx, if
// that is installed.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
let tsc;
try {
  tsc = path.join(path.dirname(createRequire(path.join(root, 'package.json')).resolve('typescript/package.json')), 'bin/tsc');
} catch {
  console.warn('almanac: TypeScript is not installed (an install without dev dependencies): the CLI is not compiled.');
  process.exit(0);
}
// Built in a folder of its own and then swapped in, so that an `almanac` started meanwhile (tests start many, and the
// package test may rebuild) finds the old build or none (then bin/almanac.js runs the sources), never half of one. A
// clean folder, so that a deleted source leaves no module behind. The stamp is written before compiling: a source
// saved during the build is newer than it, so the build counts as stale.
const staging = path.join(root, `dist.building-${process.pid}`);
const old = path.join(root, `dist.old-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
mkdirSync(staging);
writeFileSync(path.join(staging, '.built'), `${new Date().toISOString()}\n`);
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', staging], { cwd: root, stdio: 'inherit' });
if (r.status !== 0) {
  rmSync(staging, { recursive: true, force: true });
  process.exit(r.status ?? 1);
}
const src = path.join(root, 'src');
for (const f of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
  if (/\.(graphql|html)$/.test(f) || f === path.join('http', 'graphiql-page.js')) {
    mkdirSync(path.dirname(path.join(staging, f)), { recursive: true });
    cpSync(path.join(src, f), path.join(staging, f));
  }
}
await bundle(staging);
if (existsSync(dist)) renameSync(dist, old);
renameSync(staging, dist);
rmSync(old, { recursive: true, force: true });

/**
 * dist/bundle/: the CLI (cli/main.js) and everything it imports, its lazily loaded parts (`serve`'s server, the
 * catalog, one database engine) in chunks of their own, so a small command still loads only what it needs. Left
 * outside: native addons (loaded from node_modules by their own loaders) and PostgreSQL's driver (loaded only for a
 * postgres:// URL). The files the code reads beside itself (import.meta.url: GraphQL schema text, GraphiQL's page)
 * are copied next to the bundle, which sits as deep under the package as src/'s folders do (ui/dist is at
 * ../../ui/dist from both). Without esbuild (an install without dev dependencies) dist/cli/main.js runs instead.
 */
async function bundle(out) {
  let esbuild;
  try {
    esbuild = await import(pathToFileURL(createRequire(path.join(root, 'package.json')).resolve('esbuild')).href);
  } catch {
    console.warn('almanac: esbuild is not installed (an install without dev dependencies): dist/ is not bundled.');
    return;
  }
  const dir = path.join(out, 'bundle');
  await esbuild.build({
    // The worker threads' modules, which a worker starts by file name (src/storage/module-workers.ts looks for them
    // beside the code that starts them, here in the bundle's folder): entries of their own, sharing the CLI's chunks.
    entryPoints: {
      almanac: path.join(out, 'cli/main.js'),
      'index-worker': path.join(out, 'changelog/index-worker.js'),
      'record-decoder-worker': path.join(out, 'services/record-decoder-worker.js'),
      'facet-build-worker': path.join(out, 'storage/facet-build-worker.js'),
    },
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Classes and functions keep their names (error names, logs), though bundling renames clashing ones.
    keepNames: true,
    external: ['better-sqlite3', 'roaring', 'pg', 'pg-copy-streams', 'pg-native'],
    // The CommonJS dependencies bundled into ES modules still call require() (node: built-ins, optional packages).
    banner: { js: "import { createRequire as almanacCreateRequire } from 'node:module'; const require = almanacCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  cheapNames(dir);
  cpSync(path.join(out, 'graphql/schema'), path.join(dir, 'schema'), { recursive: true });
  for (const f of ['graphiql.html', 'graphiql-page.js']) cpSync(path.join(out, 'http', f), path.join(dir, f));
}

/**
 * keepNames makes esbuild call its `__name` helper (an Object.defineProperty) each time a named function or class is
 * created, which for the functions that handlers and Fastify's hooks declare inside others is at every request: about
 * 3 % of a write's CPU (2026-11-28 profiles). Most of these functions already have the name they are given (only
 * those the bundle renamed to avoid a clash, and arrow functions passed to the helper, do not): the helper is made to
 * leave those alone. The result is the same function with the same name either way.
 */
function cheapNames(dir) {
  const helper = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
  const cheap = 'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });';
  let found = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const file = path.join(dir, f);
    const text = readFileSync(file, 'utf8');
    if (!text.includes(helper)) continue;
    writeFileSync(file, text.split(helper).join(cheap));
    found++;
  }
  if (found === 0) console.warn("almanac: esbuild's __name helper was not found in the bundle: names are kept at full cost.");
}
