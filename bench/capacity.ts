import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import { ASPECT_TABLE, ENTITY_TABLE } from '../src/storage/schema.js';
import { Cluster, HAVE_PG_BIN, PG_BIN } from '../test/support/pg-cluster.js';
import { clusterCpuMs } from './multi-server.js';
import { cpuMs, loadCatalog, round2, saveResults, startAlmanac, type Row } from './harness.js';
import { catalogProposals, generatedDatasets, type Proposal } from './generate.js';
import { median, percentile } from './support.js';

/**
 * The per-entity costs behind docs/scale-out.md's capacity plan (issue 31), on a PostgreSQL primary and a streaming
 * standby of the benchmark's own: disk per entity after loading BENCH_CAPACITY_DATASETS generated datasets (5,000);
 * CPU of the server and the primary per single-proposal write, WAL per write, and the standby's replay lag meanwhile
 * (pg_stat_replication, sampled every 100 ms); CPU per search with facets, served by the standby (DATABASE_READ_URL),
 * split between the server, the primary and the standby. `npm run bench -- capacity`.
 */
const DATASETS = Number(process.env.BENCH_CAPACITY_DATASETS ?? 5000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const postmasterOf = (c: Cluster) => Number(readFileSync(`${c.data}/postmaster.pid`, 'utf8').split('\n')[0]);

export async function run() {
  if (!HAVE_PG_BIN) {
    console.log(`capacity starts PostgreSQL clusters of its own and needs initdb in ${PG_BIN}; skipped`);
    return;
  }
  const primary = await Cluster.create(['shared_buffers=256MB']);
  let standby: Cluster | undefined;
  const rows: (Row & Record<string, unknown>)[] = [];
  let server: Awaited<ReturnType<typeof startAlmanac>> | undefined;
  try {
    await primary.sql('CREATE DATABASE almanac');
    const url = `${primary.url}/almanac`;
    standby = await Cluster.standbyOf(primary);
    const [p, s] = [postmasterOf(primary), postmasterOf(standby)];

    // Load, then disk.
    const cpu0 = process.cpuUsage();
    const pg0 = clusterCpuMs(p);
    const load = await loadCatalog(url, catalogProposals({ datasets: DATASETS }));
    const loaderCpu = (process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1000;
    const loadPg = clusterCpuMs(p) - pg0;
    await primary.sql('VACUUM ANALYZE', [], 'almanac');
    const [{ entities }] = await primary.sql(`SELECT COUNT(*)::int AS entities FROM ${ENTITY_TABLE}`, [], 'almanac');
    const [{ aspects }] = await primary.sql(`SELECT COUNT(*)::int AS aspects FROM ${ASPECT_TABLE} WHERE version = 0`, [], 'almanac');
    const [{ bytes }] = await primary.sql("SELECT pg_database_size('almanac')::bigint AS bytes", [], 'almanac');
    const [{ empty }] = await primary.sql("SELECT pg_database_size('template1')::bigint AS empty");
    const tables = await primary.sql(`SELECT c.relname AS name, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 2 DESC LIMIT 6`, [], 'almanac');
    const perEntity = (Number(bytes) - Number(empty)) / entities;
    rows.push({ scenario: 'capacity', engine: 'postgres', target: `disk after loading ${DATASETS} datasets`, entities, aspects,
      bytesPerEntity: Math.round(perEntity), aspectsPerSecond: Math.round((load.aspects / load.ms) * 1000),
      loadCpuMsPerAspect: round2((loaderCpu + loadPg) / load.aspects), loadPostgresCpuMsPerAspect: round2(loadPg / load.aspects),
      note: `${(Number(bytes) / 1e6).toFixed(0)} MB; largest: ${tables.map((t) => `${t.name} ${(Number(t.bytes) / entities / 1000).toFixed(1)} kB`).join(', ')} per entity` });

    // Single writes with the standby replaying: CPU per write, WAL per write, replay lag.
    server = await startAlmanac(url, { env: { DATABASE_READ_URL: `${standby.url}/almanac`, ALMANAC_RESPONSE_CACHE_MB: '0' } });
    const fresh = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 13 }, 7_000_000);
    const headers = { authorization: `Bearer ${load.token}`, 'content-type': 'application/json', 'x-restli-protocol-version': '2.0.0' };
    const ingest = { method: 'POST', path: '/aspects?action=ingestProposal', headers,
      setupRequest: (r: object) => ({ ...r, body: JSON.stringify({ proposal: fresh.next().value as Proposal }) }) };
    await autocannon({ url: server.base, connections: 4, duration: 2, requests: [ingest] as never });
    const lags: number[] = [];
    const lagBytes: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const [r] = await primary.sql(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::float8 AS bytes,
          COALESCE(EXTRACT(EPOCH FROM replay_lag) * 1000, 0)::float8 AS ms FROM pg_stat_replication`);
        if (r) {
          lags.push(r.ms);
          lagBytes.push(r.bytes);
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    const [{ lsn: lsn0 }] = await primary.sql('SELECT pg_current_wal_lsn()::text AS lsn');
    const w0 = { server: cpuMs(server.pid), p: clusterCpuMs(p), s: clusterCpuMs(s) };
    const writes = await autocannon({ url: server.base, connections: 16, duration: SECONDS, requests: [ingest] as never });
    const w1 = { server: cpuMs(server.pid), p: clusterCpuMs(p), s: clusterCpuMs(s) };
    const [{ wal }] = await primary.sql('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::float8 AS wal', [lsn0]);
    sampling = false;
    await sampler;
    const n = writes.requests.total;
    rows.push({ scenario: 'capacity', engine: 'postgres', target: 'ingestProposal, 16 connections, a standby replaying', rps: Math.round(writes.requests.average),
      p99: writes.latency.p99, serverCpuMsPerWrite: round2((w1.server - w0.server) / n), primaryCpuMsPerWrite: round2((w1.p - w0.p) / n),
      standbyCpuMsPerWrite: round2((w1.s - w0.s) / n), walBytesPerWrite: Math.round(wal / n),
      replayLagMs: { median: round2(median(lags)), p99: round2(percentile([...lags].sort((a, b) => a - b), 99)), max: round2(Math.max(...lags)) },
      replayLagBytes: { median: Math.round(median(lagBytes)), max: Math.round(Math.max(...lagBytes)) },
      failed: writes.non2xx + writes.errors });

    // Searches with facets, served by the standby.
    const search = `query($q: String!, $n: Int!) { searchAcrossEntities(input: { types: [], query: $q, start: 0, count: $n }) {
      total searchResults { entity { urn } } facets { field aggregations { value count } } } }`;
    for (const q of ['*', 'orders', 'Identifies']) {
      let i = 0;
      const req = { method: 'POST', path: '/api/graphql', headers,
        setupRequest: (r: object) => ({ ...r, body: JSON.stringify({ query: search, variables: { q, n: 10 + (i++ % 20) } }) }) };
      await autocannon({ url: server.base, connections: 2, duration: 2, requests: [req] as never });
      const c0 = { server: cpuMs(server.pid), p: clusterCpuMs(p), s: clusterCpuMs(s) };
      const r = await autocannon({ url: server.base, connections: 4, duration: SECONDS / 2, requests: [req] as never });
      const c1 = { server: cpuMs(server.pid), p: clusterCpuMs(p), s: clusterCpuMs(s) };
      const k = r.requests.total;
      rows.push({ scenario: 'capacity', engine: 'postgres', target: `search "${q}" with facets, 4 connections, on the standby`, rps: Math.round(r.requests.average),
        p99: r.latency.p99, serverCpuMsPerQuery: round2((c1.server - c0.server) / k), primaryCpuMsPerQuery: round2((c1.p - c0.p) / k),
        standbyCpuMsPerQuery: round2((c1.s - c0.s) / k), failed: r.non2xx + r.errors });
    }
    for (const r of rows) console.log(`  ${JSON.stringify(r)}`);
  } finally {
    await server?.stop();
    standby?.destroy();
    primary.destroy();
  }
  saveResults('capacity', rows, { datasets: DATASETS, loadAverage: os.loadavg() });
}
