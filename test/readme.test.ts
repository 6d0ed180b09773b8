import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { REPO, artifactPath } from './support/run-env.js';
import { freePort } from './support/processes.js';

/**
 * The README's first steps, as a newcomer runs them: the server started with `npm start` on a fresh database,
 * then every example block of README.md, in order, in bash, each output compared with the block the README shows
 * under it. An example is a fenced block whose info string is `sh example`; its expected output is the next
 * fenced block when that one is `json output` (compared as JSON) or `text output` (compared as text). An example
 * with no output block must print nothing.
 *
 * Only what legitimately differs from run to run is ignored:
 * - the values of the JSON keys in VARYING_KEYS (a table's size as the engine measures it) — they must still be
 *   numbers;
 * - durations, `<digits> ms`, in text and inside JSON strings.
 * No example prints a token or a clock time.
 */
const VARYING_KEYS = new Set(['sizeMb']);
const DURATION = /\b\d+ ms\b/g;
const README = path.join(REPO, 'README.md');
/** The one example that names the server; the test points it at its own server. */
const ADDRESS_EXAMPLE = 'ALMANAC=http://localhost:8080';

interface Example {
  line: number;
  command: string;
  output?: { kind: 'json' | 'text'; text: string; line: number };
}

/** The marked example blocks of a Markdown text, with their expected outputs. */
function examplesOf(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const examples: Example[] = [];
  let last: Example | undefined; // the example the next fenced block may give the output of
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const info = open[1]!.trim().split(/\s+/);
    const start = i + 1;
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    assert.ok(i < lines.length, `README.md line ${start}: unclosed code block`);
    const text = lines.slice(start, i).join('\n');
    if (info[1] === 'example') {
      assert.equal(info[0], 'sh', `README.md line ${start}: examples are sh blocks`);
      last = { line: start, command: text };
      examples.push(last);
    } else if (info[1] === 'output') {
      assert.ok(last && !last.output, `README.md line ${start}: an output block must follow its example block`);
      assert.ok(info[0] === 'json' || info[0] === 'text', `README.md line ${start}: output blocks are json or text`);
      last.output = { kind: info[0], text, line: start };
      last = undefined;
    } else {
      last = undefined;
    }
  }
  return examples;
}

/** Replaces what may vary (see above) by placeholders; a varying key must still hold a number. */
function normalise(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(DURATION, '<n> ms');
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) =>
      [k, VARYING_KEYS.has(k) && typeof v === 'number' ? '<number>' : normalise(v)]));
  }
  return value;
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** The environment of `npm start` and of the examples: the repository's tools first, no ALMANAC or TOKEN inherited. */
function baseEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` };
  delete env.ALMANAC;
  delete env.TOKEN;
  return env;
}

interface Started {
  base: string;
  /** npm's process and the server's (from its log lines). */
  npmPid: number;
  serverPid: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends both processes, whatever state they are in. */
  kill(): void;
}

/** `npm start` in the repository, as the README says, on the given database and a free port. */
async function npmStart(databaseUrl: string): Promise<Started> {
  const port = await freePort();
  // Its own process group, so that kill() can end npm and the server together even before the server's pid is known.
  const child = spawn('npm', ['start'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], detached: true,
    env: { ...baseEnv(databaseUrl), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })));
  let serverPid = 0;
  const kill = () => {
    for (const pid of [serverPid, child.pid]) if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  const base = `http://127.0.0.1:${port}`;
  try {
    await until('the server answers /health', async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
      try {
        return (await fetch(`${base}/health`)).ok;
      } catch {
        return false;
      }
    }, 30_000);
    // The server may answer before its first log line reaches this pipe; wait for the line that names its pid.
    const loggedPid = () => jsonLines(stdout).map((l) => l.pid).find((p) => typeof p === 'number') as number | undefined;
    await until('the server logs a line with its pid', () => loggedPid() !== undefined, 10_000)
      .catch(() => assert.fail(`the server's pid, from its log lines:\n${stdout}`));
    serverPid = loggedPid()!;
    assert.ok(serverPid !== child.pid, `npm's pid is not the server's: ${serverPid}`);
  } catch (e) {
    kill();
    throw e;
  }
  return { base, npmPid: child.pid!, serverPid, stdout: () => stdout, stderr: () => stderr, exited, kill };
}

/** The server's log lines: every stdout line but npm's own banner ("> almanac@… start", "> exec node …", blanks). */
function logLines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('> '));
}

function jsonLines(stdout: string): Record<string, unknown>[] {
  return logLines(stdout).flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Runs one example in bash with the variables earlier examples set; returns its output and the variables it set. */
function runExample(command: string, state: string, env: NodeJS.ProcessEnv) {
  const assigned = [...command.matchAll(/^\s*([A-Za-z_]\w*)=/gm)].map((m) => m[1]!);
  const script = ['set -eo pipefail', state, command, ...assigned.map((n) => `declare -p ${n} >&3`)].join('\n');
  return new Promise<{ code: number | null; stdout: string; stderr: string; state: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let vars = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d) => (vars += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, state: vars }));
  });
}

/** The newest datasetProfile timestamp of each dataset the sample files (samples/datahub) profile, but the rollback test's. */
function latestSampleProfiles(): Map<string, number> {
  const latest = new Map<string, number>();
  const note = (urn: string, ts: number) => latest.set(urn, Math.max(ts, latest.get(urn) ?? 0));
  for (const file of ['demo-profiles.json', 'bootstrap_mce.json']) {
    for (const r of JSON.parse(readFileSync(path.join(REPO, 'samples/datahub', file), 'utf8')) as any[]) {
      if (r.aspectName === 'datasetProfile') note(r.entityUrn, JSON.parse(r.aspect.value).timestampMillis);
    }
  }
  assert.equal(latest.size, 2, 'the samples profile SampleHdfsDataset and SampleHiveDataset');
  return latest;
}

test('the README marks its examples, names the server once, and keeps its two commands', () => {
  const text = readFileSync(README, 'utf8');
  assert.match(text, /^```sh\nnpm ci && npm start {2}/m);
  assert.match(text, /^npm test {2}/m);
  const examples = examplesOf(text);
  assert.ok(examples.length >= 8, `only ${examples.length} examples found`);
  assert.deepEqual(examples.filter((e) => e.command === ADDRESS_EXAMPLE).length, 1, `one example is exactly ${ADDRESS_EXAMPLE}`);
  for (const e of examples) {
    if (e.command === ADDRESS_EXAMPLE) continue;
    assert.doesNotMatch(e.command, /localhost|127\.0\.0\.1|:8080/, `README.md line ${e.line}: use $ALMANAC, not an address`);
    if (/\bcurl\b/.test(e.command)) assert.match(e.command, /"\$ALMANAC\//, `README.md line ${e.line}: curl "$ALMANAC/…"`);
  }
});

forEachEngine('README first steps', (ctx) => {
  test('every README example, run in order against `npm start` on a fresh database, prints what the README shows', { timeout: 180_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-readme-'));
    const databaseUrl = ctx.engine === 'sqlite' ? `sqlite:${path.join(dir, 'almanac.db')}` : ctx.url;
    const server = await npmStart(databaseUrl);
    const env = baseEnv(databaseUrl);
    const problems: string[] = [];
    try {
      let state = '';
      for (const example of examplesOf(readFileSync(README, 'utf8'))) {
        const command = example.command === ADDRESS_EXAMPLE ? `ALMANAC=${server.base}` : example.command;
        const res = await runExample(command, state, env);
        const where = `README.md line ${example.line}:\n${example.command}\n`;
        if (res.code !== 0) {
          problems.push(`${where}exited with ${res.code}\nstdout: ${res.stdout}\nstderr: ${res.stderr}`);
          break; // later examples need this one
        }
        state += res.state;
        const expected = example.output;
        try {
          if (!expected) {
            assert.equal(res.stdout, '', 'the README shows no output');
          } else if (expected.kind === 'text') {
            assert.equal(normalise(res.stdout.trimEnd()), normalise(expected.text.trimEnd()));
          } else {
            let actual: unknown;
            try {
              actual = JSON.parse(res.stdout);
            } catch {
              assert.fail(`not JSON: ${res.stdout}`);
            }
            assert.deepEqual(normalise(actual), normalise(JSON.parse(expected.text)));
          }
        } catch (e) {
          problems.push(`${where}${(e as Error).message}\nstderr: ${res.stderr}`);
        }
      }
      assert.ok(state.includes('declare -- TOKEN='), 'the examples set TOKEN');
      assert.deepEqual(problems, [], `\n${problems.join('\n\n')}`);
      // After every example (the truncation among them), each sample dataset with profiles keeps its latest one: the
      // newcomer's Stats tab is not emptied.
      const token = /declare -- TOKEN="([^"]+)"/.exec(state)?.[1];
      const latest = latestSampleProfiles();
      const query = `{ ${[...latest.keys()].map((urn, i) => `d${i}: dataset(urn: ${JSON.stringify(urn)}) { urn datasetProfiles(limit: 1) { timestampMillis } }`).join(' ')} }`;
      const res = await fetch(`${server.base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query }) });
      assert.deepEqual(await res.json(), { data: Object.fromEntries([...latest].map(([urn, ts], i) => [`d${i}`, { urn, datasetProfiles: [{ timestampMillis: ts }] }])),
        extensions: {} });
    } finally {
      if (isAlive(server.npmPid)) process.kill(server.npmPid, 'SIGTERM');
      const exit = await Promise.race([server.exited, new Promise((r) => setTimeout(r, 15_000))]);
      writeFileSync(artifactPath(`readme-server-${ctx.engine}.log`), `${server.stdout()}\n--- stderr ---\n${server.stderr()}`);
      server.kill();
      rmSync(dir, { recursive: true, force: true });
      assert.ok(exit, 'npm start stopped on SIGTERM');
    }
  });
});

test('stopping `npm start` with SIGTERM or SIGINT stops the server it started', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-npm-start-'));
  try {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const server = await npmStart(`sqlite:${path.join(dir, 'almanac.db')}`);
      try {
        process.kill(server.npmPid, signal); // to npm alone, not its process group: npm must hand it on
        assert.deepEqual(await server.exited, { code: 0, signal: null }, signal);
        await until(`the server (pid ${server.serverPid}) exits after ${signal} to npm`, () => !isAlive(server.serverPid), 10_000);
        assert.ok(jsonLines(server.stdout()).some((l) => l.msg === 'shutting down' && l.signal === signal), server.stdout());
      } finally {
        server.kill();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the server logs JSON lines only: a metadata test that cannot run is a warning with the test urn as a field', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-logs-'));
  const databaseUrl = `sqlite:${path.join(dir, 'almanac.db')}`;
  const cli = (...args: string[]) => new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'bin/almanac.js'), ...args], { env: baseEnv(databaseUrl), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`almanac ${args.join(' ')} exited with ${code}`))));
  });
  try {
    // tests_data.json stores two tests whose definition is "{}": evaluating skips them with a warning each.
    await cli('ingest', path.join(REPO, 'samples/datahub/bootstrap_mce.json'), path.join(REPO, 'samples/datahub/tests_data.json'));
    const token = (await cli('token', 'create', '--user', 'datahub')).trim();
    const server = await npmStart(databaseUrl);
    try {
      const res = await fetch(`${server.base}/test?action=evaluate`, { method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ urn: 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)' }) });
      assert.equal(res.status, 200);
      process.kill(server.npmPid, 'SIGTERM');
      await server.exited;
      const lines = logLines(server.stdout());
      for (const l of lines) assert.doesNotThrow(() => JSON.parse(l), `not a JSON log line: ${l}`);
      const warnings = jsonLines(server.stdout()).filter((l) => l.level === 40);
      assert.deepEqual(warnings.map((w) => [w.testUrn, w.reason, w.msg]).sort(), [
        'urn:li:test:76ca947d-d988-4f0d-8c2f-055de2c6f4b5', 'urn:li:test:953001aa-fb7b-4a43-916f-3efd95ab9047'].map((urn) => [urn,
        "Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: on, rules)",
        `metadata test ${urn} is skipped: Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: on, rules)`]));
      assert.doesNotMatch(server.stderr(), /almanac/, 'nothing of the server on stderr');
    } finally {
      server.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
