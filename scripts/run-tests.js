#!/usr/bin/env node
// Runs every test file with node:test through tsx. Files run in parallel processes; each opens its own
// throwaway databases, so they never share state. Usage: npm test [-- file-or-folder …]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function collect(p) {
  if (statSync(p).isDirectory()) return readdirSync(p).sort().flatMap((n) => collect(path.join(p, n)));
  return p.endsWith('.test.ts') ? [p] : [];
}

const args = process.argv.slice(2);
const files = (args.length ? args : ['test']).flatMap(collect);
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The slowest files start first (seconds recorded by a run with TEST_DURATIONS_OUT=test/durations.json), so that the
// run does not end on one long file while the other process idles; a file not recorded yet counts as a slow one.
const durationsFile = fileURLToPath(new URL('../test/durations.json', import.meta.url));
const seconds = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
const cost = (f) => seconds[path.relative(process.cwd(), f)] ?? 60;
files.sort((a, b) => cost(b) - cost(a));
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism());
// The usual reporter (node's default: spec on a terminal, TAP otherwise) on stdout, and on stderr, at the end, the
// names of the tests that failed or were cancelled and of the hooks that failed (scripts/test-summary.js).
const reporters = ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout',
  '--test-reporter', fileURLToPath(new URL('./test-summary.js', import.meta.url)), '--test-reporter-destination', 'stderr'];
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...files], {
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
