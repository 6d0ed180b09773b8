import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './run-env.js';

/**
 * The web UI's build (ui/dist) for the browser suites: rebuilt when a source is newer than it, by one test process at
 * a time. Test files run in parallel processes, and a build empties ui/dist first, so two builds at once (or a build
 * under a running browser test) would break each other: the build takes a lock folder (mkdir is atomic), and the
 * others wait for it to go before they look again. `npm ci` builds the UI, so on a fresh clone nothing is rebuilt.
 */
export const UI_DIR = path.join(REPO, 'ui');
export const UI_DIST = path.join(UI_DIR, 'dist');
const LOCK = path.join(REPO, 'test-artifacts', '.ui-build.lock');

function newest(p: string): number {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(p).map((n) => newest(path.join(p, n))));
}

function fresh(): boolean {
  const index = path.join(UI_DIST, 'index.html');
  if (!existsSync(index)) return false;
  const sources = Math.max(newest(path.join(UI_DIR, 'src')), statSync(path.join(UI_DIR, 'index.html')).mtimeMs,
    statSync(path.join(UI_DIR, 'vite.config.ts')).mtimeMs);
  return statSync(index).mtimeMs >= sources;
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export function ensureUiBuilt(): void {
  const until = Date.now() + 300_000;
  for (;;) {
    if (fresh() && !existsSync(LOCK)) return;
    mkdirSync(path.dirname(LOCK), { recursive: true });
    let mine = false;
    try {
      mkdirSync(LOCK);
      mine = true;
    } catch {
      // Another process is building: wait for it (a lock older than 5 minutes is left over from a killed run).
      const lock = statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > 300_000) rmSync(LOCK, { recursive: true, force: true });
    }
    if (mine) {
      try {
        if (fresh()) return;
        const r = spawnSync(process.execPath, [path.join(REPO, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'ui/vite.config.ts',
          '--logLevel', 'warn'], { cwd: REPO, encoding: 'utf8' });
        assert.equal(r.status, 0, `building the UI failed:\n${r.stdout}\n${r.stderr}`);
        return;
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
    }
    assert.ok(Date.now() < until, 'waited 5 minutes for another test process to build the UI');
    sleep(500);
  }
}
