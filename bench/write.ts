import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CONNECTIONS, ROOT, compare, cpuMs, graphqlRequest, once, printRow, round2, scenarioOnEachEngine, sqliteEngine, postgresEngine,
  type Engine, type Row, type Server,
} from './harness.js';
import { batches, catalogProposals, generatedDatasets, SHOWCASE_FIELD, SHOWCASE_URN, writeProposalFile, type Proposal } from './generate.js';

/**
 * The write path, measured as a client sees it:
 * - `write`: GraphQL `updateDescription` on one column of the 50-column showcase dataset, every request a new text
 *   (so each is a real change), 32 connections, then 1, against bare Fastify answering the same bytes.
 * - `ingest-single`: `POST /aspects?action=ingestProposal`, one generated proposal per request (each a new aspect),
 *   32 connections; requests/s = aspects/s.
 * - `ingest-batch`: `POST /aspects?action=ingestProposalBatch` (batches of BENCH_BATCH, 2 clients) and `almanac
 *   ingest` of a generated file into a fresh database, in aspects/s (time-series rows counted as aspects).
 * The server holds the reference entities, the showcase dataset and BENCH_BASE_DATASETS generated datasets first.
 */
const BASE_DATASETS = Number(process.env.BENCH_BASE_DATASETS ?? 200);
const INGEST_DATASETS = Number(process.env.BENCH_INGEST_DATASETS ?? 3000);
const BATCH = Number(process.env.BENCH_BATCH ?? 1000);

export async function updateDescription(engine: Engine, server: Server, token: string, scenario = 'write', connections = CONNECTIONS): Promise<Row> {
  let n = 0;
  const query = `mutation($d: String!) { updateDescription(input: { description: $d, resourceUrn: "${SHOWCASE_URN}", subResource: "${SHOWCASE_FIELD}", subResourceType: DATASET_FIELD }) }`;
  const req = graphqlRequest(token, () => JSON.stringify({ query, variables: { d: `Order identifier, revision ${n++} of the benchmark.` } }));
  const first = await once(server.base, req);
  if (first.status !== 200 || !first.text.includes('"updateDescription":true')) throw new Error(`updateDescription failed: ${first.status} ${first.text}`);
  return connections === CONNECTIONS ? compare(scenario, engine.name, 'updateDescription (column)', server, req, first.text)
    : compare(scenario, engine.name, `updateDescription (column), ${connections} connection${connections === 1 ? '' : 's'}`, server, req, first.text, { connections });
}

/** An endless stream of proposals for datasets the catalog does not hold yet. */
function freshProposals(from: number): () => Proposal {
  const it = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 7 }, from);
  return () => it.next().value as Proposal;
}

export async function ingestSingle(engine: Engine, server: Server, token: string): Promise<Row> {
  const next = freshProposals(1_000_000);
  const req = { method: 'POST' as const, path: '/aspects?action=ingestProposal',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' },
    body: () => JSON.stringify({ proposal: next() }) };
  const first = await once(server.base, req);
  if (first.status !== 200) throw new Error(`ingestProposal failed: ${first.status} ${first.text}`);
  const row = await compare('ingest-single', engine.name, 'ingestProposal (1 aspect/request)', server, req, first.text, { note: 'req/s = aspects/s' });
  return { ...row, aspectsPerSecond: row.rps };
}

export async function ingestBatchRest(engine: Engine, server: Server, token: string): Promise<Row> {
  const proposals = [...generatedDatasets({ datasets: 2_000_000 + INGEST_DATASETS, seed: 9 }, 2_000_000)];
  const bodies = [...batches(proposals, BATCH)].map((b) => JSON.stringify({ proposals: b }));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' };
  const latencies: number[] = [];
  let i = 0;
  const cpuBefore = cpuMs(server.pid);
  const started = performance.now();
  const worker = async () => {
    while (i < bodies.length) {
      const body = bodies[i++]!;
      const t = performance.now();
      const r = await fetch(`${server.base}/aspects?action=ingestProposalBatch`, { method: 'POST', headers, body });
      if (r.status !== 200) throw new Error(`ingestProposalBatch failed: ${r.status} ${(await r.text()).slice(0, 500)}`);
      await r.arrayBuffer();
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all([worker(), worker()]);
  const s = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const row: Row = { scenario: 'ingest-batch', engine: engine.name, target: `ingestProposalBatch (${BATCH}/batch, 2 clients)`,
    aspectsPerSecond: Math.round(proposals.length / s), p50: round2(latencies[Math.floor(latencies.length / 2)]!),
    p99: round2(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!), peakRssMb: server.peakRssMb(),
    serverCpuMsPerRequest: Math.round(((cpuMs(server.pid) - cpuBefore) / proposals.length) * 1000) / 1000,
    note: `${proposals.length} aspects of ${INGEST_DATASETS} datasets in ${s.toFixed(1)} s; p50/p99 per batch; server CPU per aspect` };
  printRow(row);
  return row;
}

/** `almanac ingest <file>` of INGEST_DATASETS generated datasets into a fresh database of the engine's kind. */
export async function ingestCli(engineName: string): Promise<Row | null> {
  const fresh = engineName === 'sqlite' ? await sqliteEngine() : await postgresEngine();
  if (!fresh) return null;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-ingest-'));
  try {
    const file = path.join(dir, 'catalog.json');
    const n = await writeProposalFile(file, catalogProposals({ datasets: INGEST_DATASETS, seed: 11 }));
    const started = performance.now();
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string; peak: number }>((resolve) => {
      const child = spawn('/usr/bin/time', ['-f', 'maxrss=%M', process.execPath, path.join(ROOT, 'bin/almanac.js'), 'ingest', file],
        { cwd: ROOT, env: { ...process.env, DATABASE_URL: fresh.url, LOG_LEVEL: 'warn' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr, peak: Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? NaN) / 1024 }));
    });
    const wall = (performance.now() - started) / 1000;
    if (out.code !== 0) throw new Error(`almanac ingest failed (${out.code}): ${out.stdout}${out.stderr.slice(-2000)}`);
    const ms = Number(/in (\d+) ms/.exec(out.stdout)?.[1] ?? NaN);
    const row: Row = { scenario: 'ingest-batch', engine: engineName, target: 'almanac ingest (file)', aspectsPerSecond: Math.round(n / (ms / 1000)),
      peakRssMb: Math.round(out.peak), note: `${n} proposals of ${INGEST_DATASETS + 1} datasets: ${(ms / 1000).toFixed(1)} s ingesting, ${wall.toFixed(1)} s wall with start-up` };
    printRow(row);
    return row;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await fresh.cleanup();
  }
}

/** `--profile` runs each server under `node --cpu-prof`; `--engine sqlite|postgres` measures one engine. */
const forEachEngine = (scenario: string, args: string[], body: (engine: Engine, server: Server, token: string) => Promise<Row[]>,
  extra: Record<string, unknown>) => scenarioOnEachEngine(scenario, args,
  `${CONNECTIONS} connections where concurrent; ${BASE_DATASETS} generated datasets loaded first`, BASE_DATASETS, body, extra);

export async function runWrite(args: string[]) {
  // Also one client at a time: the latency of a single edit (p99 ≤ 20 ms is the target).
  await forEachEngine('write', args, async (e, s, t) => [await updateDescription(e, s, t), await updateDescription(e, s, t, 'write', 1)],
    { baseDatasets: BASE_DATASETS });
}

export async function runIngestSingle(args: string[]) {
  await forEachEngine('ingest-single', args, async (e, s, t) => [await ingestSingle(e, s, t)], { baseDatasets: BASE_DATASETS });
}

export async function runIngestBatch(args: string[]) {
  await forEachEngine('ingest-batch', args, async (e, s, t) => {
    const rest = await ingestBatchRest(e, s, t);
    const cli = await ingestCli(e.name);
    return cli ? [rest, cli] : [rest];
  }, { baseDatasets: BASE_DATASETS, ingestDatasets: INGEST_DATASETS, batch: BATCH });
}
