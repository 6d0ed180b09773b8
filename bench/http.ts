import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { systemActor, rootActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { median, throwawayPostgres } from './support.js';

/**
 * HTTP throughput and latency of Almanac against a bare Fastify server answering a fixed JSON body, measured in
 * alternating rounds in the same run. Reported: median requests/s and p99 latency per target, and the ratio.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 10;
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const SAMPLES = path.resolve(import.meta.dirname, '../samples/datahub');

interface Target { name: string; url: string; method: 'GET' | 'POST'; body?: string; headers?: Record<string, string> }

async function measure(t: Target) {
  const r = await autocannon({ url: t.url, method: t.method, body: t.body, headers: t.headers, connections: CONNECTIONS,
    duration: SECONDS });
  if (r.non2xx || r.errors) throw new Error(`${t.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors`);
  return { rps: r.requests.average, p99: r.latency.p99, p50: r.latency.p50 };
}

/** `metrics: false`: ALMANAC_METRICS=false, no /metrics and no per-request observation (the overhead's baseline). */
async function startAlmanac(databaseUrl: string, metrics = true) {
  const catalog = await openCatalog({ ...loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ALMANAC_METRICS: String(metrics) }) });
  const files = ['bootstrap_mce.json', 'data_platforms.json'].map((f) => path.join(SAMPLES, f));
  await ingestFiles(catalog.entities, files, systemActor());
  const { accessToken } = await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub',
    name: 'bench', durationMs: 3_600_000 }, rootActor());
  const app = await createApp(catalog, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;
  return { base: `http://127.0.0.1:${port}`, token: accessToken, close: async () => { await app.close(); await catalog.close(); } };
}

export async function run() {
  const baseline = Fastify();
  const fixed = { data: { dataset: { urn: HDFS } }, extensions: {} };
  baseline.get('/', async () => fixed);
  await baseline.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `http://127.0.0.1:${(baseline.server.address() as { port: number }).port}/`;

  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-'));
  const engines: { name: string; url: string; cleanup: () => Promise<void> }[] = [
    { name: 'sqlite', url: `sqlite:${path.join(dir, 'bench.db')}`, cleanup: async () => {} },
  ];
  const pgdb = await throwawayPostgres();
  if (pgdb) engines.push({ name: 'postgres', url: pgdb.url, cleanup: pgdb.drop });
  else console.log('PostgreSQL unreachable: benchmarking SQLite only');

  console.log(`autocannon, ${CONNECTIONS} connections, ${SECONDS} s per measurement, ${ROUNDS} alternating rounds; medians shown`);
  console.log('target                                        req/s    p50 ms  p99 ms  ratio to bare Fastify');
  try {
    for (const engine of engines) {
      const almanac = await startAlmanac(engine.url);
      // A second server on the same database without metrics: what the metrics hook costs a point read.
      const plain = await startAlmanac(engine.url, false);
      const plainAuth = { authorization: `Bearer ${plain.token}` };
      const auth = { authorization: `Bearer ${almanac.token}`, 'content-type': 'application/json' };
      const query = `{ dataset(urn: "${HDFS}") { urn properties { description } schemaMetadata { fields { fieldPath description } } ownership { owners { owner { ... on CorpUser { urn } } } } } }`;
      const targets: Target[] = [
        { name: `GraphQL dataset [${engine.name}]`, url: `${almanac.base}/api/graphql`, method: 'POST', headers: auth, body: JSON.stringify({ query }) },
        { name: `REST GET aspect [${engine.name}]`, url: `${almanac.base}/aspects/${encodeURIComponent(HDFS)}?aspect=schemaMetadata`, method: 'GET', headers: auth },
        { name: `REST GET aspect, metrics off [${engine.name}]`, url: `${plain.base}/aspects/${encodeURIComponent(HDFS)}?aspect=schemaMetadata`, method: 'GET',
          headers: plainAuth },
      ];
      // Warm up: JIT-compile the query, fill caches.
      for (const t of targets) await autocannon({ url: t.url, method: t.method, body: t.body, headers: t.headers, connections: 2, amount: 200 });
      const results = new Map<string, { rps: number[]; p50: number[]; p99: number[] }>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const t of [{ name: 'bare Fastify (fixed JSON)', url: baseUrl, method: 'GET' as const }, ...targets]) {
          const m = await measure(t);
          const acc = results.get(t.name) ?? { rps: [], p50: [], p99: [] };
          acc.rps.push(m.rps); acc.p50.push(m.p50); acc.p99.push(m.p99);
          results.set(t.name, acc);
        }
      }
      const base = median(results.get('bare Fastify (fixed JSON)')!.rps);
      for (const [name, r] of results) {
        console.log(`${name.padEnd(45)} ${median(r.rps).toFixed(0).padStart(6)}  ${median(r.p50).toFixed(1).padStart(7)} ${median(r.p99).toFixed(1).padStart(7)}  ${(median(r.rps) / base).toFixed(2)}`);
      }
      await almanac.close();
      await plain.close();
      await engine.cleanup();
    }
  } finally {
    await baseline.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
