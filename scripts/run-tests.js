#!/usr/bin/env node
// Runs every test file with node:test through tsx. Files run in parallel processes; each opens its own
// throwaway databases, so they never share state. Usage: npm test [-- file-or-folder …]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, os.availableParallelism());
const child = spawn(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
