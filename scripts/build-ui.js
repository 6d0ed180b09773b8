#!/usr/bin/env node
// Builds the web UI (ui/ → ui/dist) with Vite: the root package's `prepare` script, so `npm ci` builds it. An install
// without dev dependencies (`npm ci --omit=dev`) has no Vite: it then says so and succeeds, and the server answers `/`
// with how to build the UI.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
let vite;
try {
  vite = path.join(path.dirname(createRequire(path.join(root, 'package.json')).resolve('vite/package.json')), 'bin/vite.js');
} catch {
  console.warn('almanac: Vite is not installed (an install without dev dependencies): the web UI is not built.');
  process.exit(0);
}
const quiet = process.argv.includes('--quiet');
// The UI's list of entity types, from the server's entity descriptors (tsx comes with Vite, a dev dependency too).
const gen = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/ui-entity-types.ts'], { cwd: root, stdio: 'inherit' });
if (gen.status !== 0) process.exit(gen.status ?? 1);
const r = spawnSync(process.execPath, [vite, 'build', '--config', 'ui/vite.config.ts', ...(quiet ? ['--logLevel', 'warn'] : [])],
  { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
