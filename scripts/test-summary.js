// A node:test reporter (used by run-tests.js beside the usual one) that lists, at the end of a run, every test
// that failed or was cancelled and every hook that failed, with its whole name. A failing `after` hook of a suite
// counts as neither a failed nor a cancelled test in the closing "# fail" and "# cancelled" lines, yet makes the run
// exit 1; this list says which one it was.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

function kind(error) {
  switch (error?.failureType) {
    case 'hookFailed': return String(error.message ?? 'a hook failed').replace(/^failed running /, '') + ' failed';
    case 'cancelledByParent': return 'cancelled';
    case 'testTimeoutFailure': return 'timed out';
    default: return 'failed';
  }
}

function firstLine(error) {
  if (error?.exitCode != null || error?.signal != null) { // a test file whose process ended badly
    return error.signal != null ? `its process was killed by ${error.signal}` : `its process exited with code ${error.exitCode}`;
  }
  const e = error?.cause ?? error;
  const text = e instanceof Error || (e && typeof e === 'object' && 'message' in e) ? e.message : e;
  return String(text ?? '').split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
}

export default async function* summary(source) {
  // Node reports one file's tests at a time, each test after those it holds, so whatever did not pass so far and
  // sits deeper than the test just reported is inside it.
  let open = [];
  let files = new Set();
  const done = [];
  /** Seconds of top-level tests per test file: run-tests.js starts the slowest files first (TEST_DURATIONS_OUT). */
  const seconds = new Map();
  let topSeconds = 0;
  /** A suite declared by a helper (forEachEngine) is located in the helper: name the test file its tests are in. */
  const close = (fallback) => {
    const file = [...files].find((f) => /\.test\.[cm]?[jt]s$/.test(f)) ?? fallback;
    if (file) seconds.set(file, (seconds.get(file) ?? 0) + topSeconds);
    topSeconds = 0;
    done.push(...open.map((item) => ({ ...item, file })));
    open = [];
    files = new Set();
  };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { name, nesting, file = '', details } = event.data;
    if (file) files.add(file);
    for (const item of open) {
      if (item.level > nesting) {
        item.names.unshift(name);
        item.level = nesting;
      }
    }
    if (event.type === 'test:fail' && details?.error?.failureType !== 'subtestsFailed') {
      open.push({ names: [name], level: nesting, kind: kind(details?.error), why: firstLine(details?.error) });
    }
    if (nesting === 0) {
      topSeconds = (details?.duration_ms ?? 0) / 1000;
      close(file);
    }
  }
  close('');
  if (process.env.TEST_DURATIONS_OUT) {
    const rel = [...seconds].map(([f, s]) => [path.relative(process.cwd(), f), Math.round(s * 10) / 10]).sort((a, b) => b[1] - a[1]);
    writeFileSync(process.env.TEST_DURATIONS_OUT, JSON.stringify(Object.fromEntries(rel), null, 1) + '\n');
  }
  if (done.length === 0) return;
  yield `\n# not passed: ${done.length} (failed or cancelled tests, failed hooks)\n`;
  for (const item of done) {
    const file = item.file ? path.relative(process.cwd(), item.file) : '';
    const where = [file, ...item.names.filter((n) => n !== item.file)].filter(Boolean).join(' › ');
    yield `#   ${where}: ${item.kind}${item.why && item.kind !== 'cancelled' ? ` — ${item.why}` : ''}\n`;
  }
}
