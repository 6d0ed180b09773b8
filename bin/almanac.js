#!/usr/bin/env node
// Runs the compiled CLI (dist/, built by `npm ci`, `npm pack` or `npm run build`): its bundle (dist/bundle/), or the
// compiled modules where it could not be bundled (no esbuild: an install without dev dependencies). In a checkout whose dist/ is missing
// or older than src/, it runs the TypeScript sources through tsx instead (a development install), so an edit is never
// hidden behind a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

function compiledIsCurrent() {
  let built;
  try {
    built = statSync(path.join(root, 'dist/.built')).mtimeMs;
  } catch {
    return false;
  }
  let sources;
  try {
    sources = readdirSync(path.join(root, 'src'), { recursive: true });
  } catch {
    return true; // an installed package: no sources to compare with
  }
  // Directories too: a deleted or added file changes its folder's time.
  return sources.every((f) => statSync(path.join(root, 'src', f)).mtimeMs <= built);
}

if (compiledIsCurrent()) {
  await import(existsSync(path.join(root, 'dist/bundle/almanac.js')) ? '../dist/bundle/almanac.js' : '../dist/cli/main.js');
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write('almanac: the compiled CLI (dist/) is missing or older than src/, and tsx is not installed to run the sources: run `npm run build`\n');
    process.exit(1);
  }
  if (process.stderr.isTTY) process.stderr.write('almanac: running the sources through tsx (slower to start): `npm run build` compiles them\n');
  register();
  await import('../src/cli/main.ts');
}
