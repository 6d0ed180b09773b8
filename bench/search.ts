import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import type { SearchRequest } from '../src/services/search.js';
import { percentile, throwawayPostgres } from './support.js';

/**
 * Search and facets at scale: loads ENTITIES generated datasets (default 100,000; BENCH_SEARCH_ENTITIES) with
 * realistic metadata — 8 platforms, 3 environments, 500 containers, 50 tags, 30 glossary terms, 200 owners, 10
 * domains, 20 columns, 1 % soft-deleted — through the ingest service (so the search index is built as in
 * production), then times searches and facet counts in the service and whole GraphQL requests through the app.
 * Targets (issue 14): search p95 ≤ 50 ms, queries that match everything included; facets ≤ 100 ms.
 * BENCH_SEARCH_ENGINES=sqlite (or postgres) runs one engine only; BENCH_SEARCH_DB=<file> and BENCH_SEARCH_PG_URL=<url>
 * keep (and reuse) the databases.
 */
const ENTITIES = Number(process.env.BENCH_SEARCH_ENTITIES ?? 100_000);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS ?? 30);
const PLATFORMS = ['snowflake', 'bigquery', 'hive', 'postgres', 'mysql', 'kafka', 's3', 'redshift'];
const ENVS = ['PROD', 'PROD', 'PROD', 'DEV', 'STG'];
const COLUMNS = ['id', 'name', 'amount', 'created_at', 'updated_at', 'status', 'country', 'email', 'price', 'quantity', 'currency',
  'region', 'source', 'channel', 'score', 'category', 'owner_id', 'session_id', 'device', 'version'];
const WORDS = ['orders', 'customers', 'payments', 'events', 'sessions', 'invoices', 'products', 'inventory', 'clicks', 'users',
  'accounts', 'refunds', 'shipments', 'campaigns', 'leads', 'tickets', 'metrics', 'logs', 'audit', 'forecast'];

export function datasetItems(i: number): ChangeItem[] {
  const platform = PLATFORMS[i % PLATFORMS.length]!;
  const word = WORDS[(i * 7) % WORDS.length]!;
  const name = `db${i % 50}.schema${i % 20}.${word}_${i}`;
  const urn = `urn:li:dataset:(urn:li:dataPlatform:${platform},${name},${ENVS[i % ENVS.length]})`;
  const item = (aspect: string, value: unknown): ChangeItem => ({ urn, entityType: 'dataset', aspect, changeType: 'UPSERT', value, systemMetadata: null });
  const stamp = { time: 1_700_000_000_000, actor: 'urn:li:corpuser:ingestion' };
  const items = [
    item('datasetProperties', { name: `${word}_${i}`, description: `The ${word} table of business unit ${i % 37}, refreshed daily.`,
      customProperties: { team: `team${i % 12}` }, tags: [] }),
    item('schemaMetadata', { schemaName: name, platform: `urn:li:dataPlatform:${platform}`, version: 0, hash: '', created: stamp, lastModified: stamp,
      platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
      fields: Array.from({ length: 20 }, (_, c) => ({ fieldPath: `${COLUMNS[(i + c) % COLUMNS.length]}_${c}`, nativeDataType: 'varchar',
        type: { type: { 'com.linkedin.schema.StringType': {} } }, description: c % 4 === 0 ? `Column ${c} of ${word}` : undefined,
        nullable: true, recursive: false, isPartOfKey: false })) }),
    item('container', { container: `urn:li:container:c${i % 500}` }),
    item('subTypes', { typeNames: [i % 5 === 0 ? 'View' : 'Table'] }),
    item('ownership', { owners: [{ owner: `urn:li:corpuser:user${i % 200}`, type: 'TECHNICAL_OWNER' }], lastModified: stamp }),
    item('globalTags', { tags: [{ tag: `urn:li:tag:tag${i % 50}` }, ...(i % 3 === 0 ? [{ tag: `urn:li:tag:tag${(i * 13) % 50}` }] : [])] }),
  ];
  if (i % 2 === 0) items.push(item('glossaryTerms', { terms: [{ urn: `urn:li:glossaryTerm:term${i % 30}` }], auditStamp: stamp }));
  if (i % 4 !== 3) items.push(item('domains', { domains: [`urn:li:domain:d${i % 10}`] }));
  if (i % 100 === 99) items.push(item('status', { removed: true }));
  return items;
}

type Timed = { name: string; run: () => Promise<unknown> };

async function time(label: string, fn: () => Promise<unknown>): Promise<string> {
  await fn();
  const ms: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return `${label.padEnd(58)} p50 ${percentile(ms, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(ms, 95).toFixed(1).padStart(6)} ms  max ${ms[ms.length - 1]!.toFixed(1).padStart(6)} ms`;
}

async function benchEngine(engine: string, url: string) {
  const catalog = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
  try {
    if (await catalog.store.countSearchDocs() >= ENTITIES) {
      console.log(`[${engine}] reusing the ${await catalog.store.countSearchDocs()} documents already in ${url}`);
    } else await load(engine, catalog);
    // The facet bitmaps are built in the background at start (SQL counts until then): measured once ready.
    const facets = (catalog.store as { facets?: { ready(): Promise<boolean>; bytes(): number } }).facets;
    if (facets) {
      const t = performance.now();
      const ready = await facets.ready();
      console.log(`[${engine}] facet bitmaps ${ready ? 'ready' : 'NOT built'} ${((performance.now() - t) / 1000).toFixed(1)} s after open, ` +
        `${(facets.bytes() / 2 ** 20).toFixed(1)} MiB (${Math.round(facets.bytes() / (await catalog.store.countSearchDocs()))} bytes a document), RSS ${process.memoryUsage().rss >> 20} MiB`);
    }
    await measure(engine, catalog);
  } finally {
    await catalog.close();
  }
}

async function load(engine: string, catalog: Awaited<ReturnType<typeof openCatalog>>) {
  {
    const BATCH = 250;
    const t0 = performance.now();
    let aspects = 0;
    let lastReport = t0;
    for (let i = 0; i < ENTITIES; i += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, ENTITIES - i) }, (_, k) => datasetItems(i + k)).flat();
      aspects += items.length;
      await catalog.entities.ingest(items, systemActor());
      if (performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        console.log(`[${engine}]   ${i + BATCH} entities, ${Math.round(aspects / ((lastReport - t0) / 1000))} aspects/s so far`);
      }
    }
    const loadS = (performance.now() - t0) / 1000;
    console.log(`[${engine}] loaded ${ENTITIES} datasets (${aspects} aspects) in ${loadS.toFixed(1)} s: ${Math.round(aspects / loadS)} aspects/s, ` +
      `${Math.round(ENTITIES / loadS)} entities/s (search and relationship indexes included)`);

  }
}

async function measure(engine: string, catalog: Awaited<ReturnType<typeof openCatalog>>) {
  {
    const s = catalog.search;
    const svc = (req: SearchRequest) => () => s.search(req);
    const cases: Timed[] = [
      { name: 'match everything (*), 10 results, no facets', run: svc({ query: '*', entityTypes: ['dataset'], count: 10, facets: [] }) },
      { name: 'word in every document ("table"), 10 results, no facets', run: svc({ query: 'table', count: 10, facets: [] }) },
      { name: 'word in 5 % of names ("orders"), 10 results, no facets', run: svc({ query: 'orders', count: 10, facets: [] }) },
      { name: 'two words, prefix ("orders 12"), no facets', run: svc({ query: 'orders 12', count: 10, facets: [] }) },
      // Dataset 6 is named payments_6 (datasetItems): found first, before the 5 % of names that start with payments.
      { name: 'an exact name ("payments_6"), no facets', run: svc({ query: 'payments_6', count: 10, facets: [] }) },
      { name: 'word in 5 % of names ("payments"), page 3, no facets', run: svc({ query: 'payments', start: 20, count: 10, facets: [] }) },
      { name: 'selective filters (platform AND tag), no facets', run: svc({ query: '*', count: 10, facets: [],
        filters: [[{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }, { field: 'tags', values: ['urn:li:tag:tag7'] }]] }) },
      { name: 'facets only: default facets, match everything', run: svc({ query: '*', count: 0 }) },
      { name: 'facets only: default facets, "orders"', run: svc({ query: 'orders', count: 0 }) },
      { name: 'facets only: default facets, "table" (matches all)', run: svc({ query: 'table', count: 0 }) },
      { name: 'facets only: default facets, filter platform=hive', run: svc({ query: '*', count: 0,
        filters: [[{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }]] }) },
      { name: 'facets only: _entityType␞typeNames', run: svc({ query: '*', count: 0, facets: ['_entityType\u241etypeNames'] }) },
    ];
    for (const c of cases) console.log(`[${engine}] ${await time(c.name, c.run)}`);
    for (const query of ['payments_6', 'payments']) {
      const { urns, total } = await s.search({ query, count: 3, facets: [] });
      console.log(`[${engine}] "${query}": ${total} matches, first ${urns.join(' ')}`);
    }

    const app = await createApp(catalog, { logger: false });
    await app.ready();
    const { accessToken } = await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub', name: 'bench',
      durationMs: 3_600_000 }, rootActor());
    const gql = (query: string) => async () => {
      const res = await app.inject({ method: 'POST', url: '/api/graphql', headers: { authorization: `Bearer ${accessToken}` }, payload: { query } });
      if (res.statusCode !== 200 || res.json().errors) throw new Error(res.body);
    };
    const page = `start count total searchResults { entity { urn type ... on Dataset { name platform { name } properties { name description } } } }
      facets { field displayName aggregations { value count entity { urn type } } }`;
    console.log(`[${engine}] ${await time('GraphQL searchAcrossEntities *, 10 results + facets', gql(`{ searchAcrossEntities(input: { query: "*", count: 10 }) { ${page} } }`))}`);
    console.log(`[${engine}] ${await time('GraphQL searchAcrossEntities "orders", 10 results + facets', gql(`{ searchAcrossEntities(input: { query: "orders", count: 10 }) { ${page} } }`))}`);
    console.log(`[${engine}] ${await time('GraphQL aggregateAcrossEntities (type␞subtype, platform)', gql(`{ aggregateAcrossEntities(input: { query: "*", facets: ["_entityType\u241etypeNames", "platform"] }) { facets { field aggregations { value count } } } }`))}`);
    await app.close();
  }
}

export async function run() {
  console.log(`${ENTITIES} datasets, ${RUNS} timed runs per case after one warm-up; service timings are the search service alone, GraphQL ones whole requests (app.inject)`);
  const engines = (process.env.BENCH_SEARCH_ENGINES ?? 'sqlite,postgres').split(',');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bench-search-'));
  // BENCH_SEARCH_DB=<file> keeps the SQLite database (and reuses it when it already holds the datasets).
  if (engines.includes('sqlite')) try {
    await benchEngine('sqlite', `sqlite:${process.env.BENCH_SEARCH_DB ?? path.join(dir, 'bench.db')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!engines.includes('postgres')) return;
  // BENCH_SEARCH_PG_URL=<url> uses (and keeps) that database instead of a throwaway one.
  if (process.env.BENCH_SEARCH_PG_URL) {
    await benchEngine('postgres', process.env.BENCH_SEARCH_PG_URL);
    return;
  }
  const pg = await throwawayPostgres();
  if (!pg) {
    console.log('[postgres] skipped: no PostgreSQL reachable');
    return;
  }
  try {
    await benchEngine('postgres', pg.url);
  } finally {
    await pg.drop();
  }
}
