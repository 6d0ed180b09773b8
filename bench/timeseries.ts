import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { rootActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import type { TimeseriesWrite } from '../src/storage/types.js';
import { percentile, throwawayPostgres } from './support.js';

/**
 * With ROWS profile rows (default 1,000,000) over 1,000 datasets: getIndexSizes latency over HTTP, truncation
 * throughput, and the slowest profile read seen while a truncation of half the rows runs. Targets: getIndexSizes
 * under 50 ms, no read over 100 ms during truncation.
 */
const ROWS = Number(process.env.BENCH_TIMESERIES_ROWS ?? 1_000_000);
const DATASETS = 1000;
const T0 = Date.UTC(2024, 0, 1);

function profile(i: number): TimeseriesWrite {
  const urn = `urn:li:dataset:(urn:li:dataPlatform:hive,bench.table_${i % DATASETS},PROD)`;
  const ts = T0 + Math.floor(i / DATASETS) * 60_000;
  return { urn, entityType: 'dataset', aspect: 'datasetProfile', timestampMillis: ts, partition: 'FULL_TABLE_SNAPSHOT', granularity: 'DAY:1',
    messageId: '', value: { timestampMillis: ts, rowCount: 1000 + (i % 97), columnCount: 12,
      partitionSpec: { type: 'FULL_TABLE', partition: 'FULL_TABLE_SNAPSHOT' }, eventGranularity: { unit: 'DAY', multiple: 1 } } };
}

async function benchEngine(name: string, url: string) {
  const catalog = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
  const app = await createApp(catalog, { logger: false });
  await app.ready();
  const { accessToken } = await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub', name: 'bench',
    durationMs: 3_600_000 }, rootActor());
  const auth = { authorization: `Bearer ${accessToken}` };
  try {
    let t = performance.now();
    const BATCH = 20_000;
    for (let i = 0; i < ROWS; i += BATCH) {
      await catalog.store.upsertTimeseries(Array.from({ length: Math.min(BATCH, ROWS - i) }, (_, k) => profile(i + k)));
    }
    const loadS = (performance.now() - t) / 1000;
    console.log(`[${name}] loaded ${ROWS} profile rows in ${loadS.toFixed(1)} s (${Math.round(ROWS / loadS)} rows/s)`);

    const sizeLatencies: number[] = [];
    let sizeMb = 0;
    for (let i = 0; i < 50; i++) {
      t = performance.now();
      const res = await app.inject({ method: 'POST', url: '/operations?action=getIndexSizes', headers: auth });
      sizeLatencies.push(performance.now() - t);
      sizeMb = res.json().value.indexSizes.find((s: { indexName: string }) => s.indexName === 'dataset_datasetprofileaspect_v1').sizeMb;
    }
    // The first call measures every table; later ones reuse figures of tables that did not change (SQLite).
    const cold = sizeLatencies.shift()!;
    sizeLatencies.sort((a, b) => a - b);
    console.log(`[${name}] getIndexSizes: first call ${cold.toFixed(1)} ms, then p50 ${percentile(sizeLatencies, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(sizeLatencies, 99).toFixed(1)} ms (target < 50 ms); profile index ${sizeMb.toFixed(1)} MB`);

    // Truncate the older half while a reader asks for one dataset's latest profiles as fast as it can.
    const end = T0 + Math.floor(ROWS / DATASETS / 2) * 60_000;
    const query = JSON.stringify({ query: '{ dataset(urn: "urn:li:dataset:(urn:li:dataPlatform:hive,bench.table_7,PROD)") { datasetProfiles(limit: 10) { timestampMillis rowCount } } }' });
    let truncating = true;
    const readLatencies: number[] = [];
    const reader = (async () => {
      while (truncating) {
        const r0 = performance.now();
        const res = await app.inject({ method: 'POST', url: '/api/graphql', headers: { ...auth, 'content-type': 'application/json' }, payload: query });
        readLatencies.push(performance.now() - r0);
        if (res.statusCode !== 200 || res.json().errors) throw new Error(`read failed: ${res.body}`);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    t = performance.now();
    const out = await catalog.timeseries.truncate({ entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: end, dryRun: false, batchSize: 10_000 });
    const truncS = (performance.now() - t) / 1000;
    truncating = false;
    await reader;
    const deleted = Number(/^Deleted (\d+)/.exec(out)?.[1] ?? 0);
    readLatencies.sort((a, b) => a - b);
    const after = (await catalog.timeseries.indexSizes()).find((s) => s.indexName === 'dataset_datasetprofileaspect_v1')!.sizeMb;
    console.log(`[${name}] truncation: ${deleted} rows in ${truncS.toFixed(1)} s = ${Math.round(deleted / truncS)} rows/s (space reclaimed included); ` +
      `index ${sizeMb.toFixed(1)} → ${after.toFixed(1)} MB`);
    console.log(`[${name}] reads during truncation: ${readLatencies.length} reads, p50 ${percentile(readLatencies, 50).toFixed(1)} ms, ` +
      `p99 ${percentile(readLatencies, 99).toFixed(1)} ms, worst ${readLatencies.at(-1)!.toFixed(1)} ms (target: none over 100 ms)`);
  } finally {
    await app.close();
    await catalog.close();
  }
}

export async function run() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-ts-'));
  try {
    await benchEngine('sqlite', `sqlite:${path.join(dir, 'ts.db')}`);
    const pgdb = await throwawayPostgres();
    if (pgdb) {
      try {
        await benchEngine('postgres', pgdb.url);
      } finally {
        await pgdb.drop();
      }
    } else console.log('PostgreSQL unreachable: time-series benchmark on SQLite only');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
