import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal, type ChangeItem } from '../src/services/ingest-format.js';
import { RecordDecoders } from '../src/services/record-decoding.js';
import {
  flag, graphqlRequest, measure, postgresEngine, printRow, round2, saveResults, sqliteEngine, startAlmanac, type Row, type Server,
} from './harness.js';
import { batches, generatedDatasets, generatedDatasetUrn, referenceProposals, SHOWCASE_URN, showcaseProposals } from './generate.js';
import { READ_QUERY } from './read.js';
import { decodedItems, percentile } from './support.js';

/**
 * `npm run bench -- --scale N [--engine sqlite|postgres]`: loads N generated datasets (the generator straight into
 * the entity service in batches, as `almanac ingest` does), reporting the load rate as it goes (a rate that falls
 * as the catalog grows is a per-write cost that depends on its size), then against the server: point reads,
 * `updateDescription` latency, search latency (queries from match-everything to selective, with facets and without,
 * and with two filters), lineage searches, the time a fresh server takes to answer, and `almanac reindex` of the whole
 * catalog (`--skip-reindex` leaves it out). `--catalog <database url>` measures a catalog it loaded before (same N)
 * without loading it again. Not run in CI; a million datasets takes a long time.
 */
const BATCH = 2000;

export async function load(url: string, n: number): Promise<{ token: string; rows: Row[] }> {
  const catalog = await openCatalog({ ...loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }) });
  try {
    await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
    const started = performance.now();
    let aspects = 0;
    let windowStart = started;
    let windowAspects = 0;
    const rates: { datasets: number; aspectsPerSecond: number }[] = [];
    let datasets = 0;
    const step = Math.max(1, Math.floor(n / 10));
    let nextReport = step;
    let lastUrn = '';
    // As `almanac ingest` of a large file does (src/services/ingest-files.ts): each batch decoded and checked in a
    // worker thread while the one before it is written; the indexes catch up once, at the end (below).
    const decoders = await RecordDecoders.start();
    const written = async (decoding: Promise<ChangeItem[]> | null) => {
      if (decoding) await catalog.entities.ingest(await decoding, systemActor(), { indexLater: true, validated: decoders !== null });
    };
    let pending: Promise<ChangeItem[]> | null = null;
    for (const b of batches(generatedDatasets({ datasets: n }), BATCH)) {
      // The generated records hold no prototype key (`false`: not looked for).
      const next = decoders ? decoders.decode(b, false, false).then(decodedItems) : Promise.resolve(b.map(changeFromProposal));
      await written(pending);
      pending = next;
      aspects += b.length;
      windowAspects += b.length;
      for (const p of b) if (p.entityType === 'dataset' && p.entityUrn !== lastUrn) { lastUrn = p.entityUrn; datasets++; }
      if (datasets >= nextReport) {
        const now = performance.now();
        const rate = Math.round(windowAspects / ((now - windowStart) / 1000));
        rates.push({ datasets, aspectsPerSecond: rate });
        console.log(`  loaded ${datasets} datasets, ${aspects} aspects, ${((now - started) / 1000).toFixed(0)} s; last step ${rate} aspects/s`);
        windowStart = now;
        windowAspects = 0;
        nextReport += step;
      }
    }
    await written(pending);
    await decoders?.close();
    const writesEnd = performance.now();
    await catalog.entities.committed({ bulk: true });
    const indexS = (performance.now() - writesEnd) / 1000;
    console.log(`  indexed in ${indexS.toFixed(0)} s`);
    const s = (performance.now() - started) / 1000;
    const { accessToken } = await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub',
      name: 'bench', durationMs: 24 * 3_600_000 }, rootActor());
    const first = rates[0]?.aspectsPerSecond;
    const last = rates[rates.length - 1]?.aspectsPerSecond;
    return { token: accessToken, rows: [{ scenario: 'scale', engine: '', target: `load ${n} datasets`, aspectsPerSecond: Math.round(aspects / s),
      note: `${aspects} aspects in ${s.toFixed(0)} s (of which indexing at the end ${indexS.toFixed(0)} s); writes: first tenth ${first} aspects/s, last tenth ${last} aspects/s; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB` }] };
  } finally {
    await catalog.close();
  }
}

async function sequential(base: string, req: () => { path: string; body: string; headers: Record<string, string> }, count: number, check: (text: string) => void) {
  const ms: number[] = [];
  for (let i = 0; i < count + 3; i++) {
    const r = req();
    const t = performance.now();
    const res = await fetch(base + r.path, { method: 'POST', headers: r.headers, body: r.body });
    const text = await res.text();
    if (i >= 3) ms.push(performance.now() - t); // the first three warm up
    if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 500)}`);
    check(text);
  }
  ms.sort((a, b) => a - b);
  return { p50: round2(percentile(ms, 50)), p95: round2(percentile(ms, 95)), p99: round2(percentile(ms, 99)) };
}

const noErrors = (text: string) => { if (text.includes('"errors"')) throw new Error(text.slice(0, 500)); };

async function probe(server: Server, token: string, n: number, engine: string): Promise<Row[]> {
  const rows: Row[] = [];
  const mid = generatedDatasetUrn(Math.floor(n / 2));
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // Point reads under load.
  for (const [what, urn] of [['the 50-column showcase dataset', SHOWCASE_URN], [`generated dataset ${Math.floor(n / 2)}`, mid]] as const) {
    const req = graphqlRequest(token, JSON.stringify({ query: READ_QUERY, variables: { urn } }));
    await measure(server.base, req, { connections: 4, amount: 300 }); // warm up
    const read = await measure(server.base, req, { connections: 16 });
    rows.push({ scenario: 'scale', engine, target: `point read dataset(urn) of ${what}, ${n} datasets, 16 connections`, rps: Math.round(read.rps),
      p50: read.p50, p99: read.p99 });
  }
  // One writer, one column, each a new text.
  let k = 0;
  const mutation = `mutation($d: String!) { updateDescription(input: { description: $d, resourceUrn: "${mid}", subResource: "id", subResourceType: DATASET_FIELD }) }`;
  const upd = await sequential(server.base, () => ({ path: '/api/graphql', headers, body: JSON.stringify({ query: mutation, variables: { d: `text ${k++}` } }) }), 200, noErrors);
  rows.push({ scenario: 'scale', engine, target: `updateDescription latency, ${n} datasets, sequential`, ...upd });
  // Search, from every dataset to one, with the facets the web app asks for.
  // Each request asks for a different page size, so no answer is a reused one (a cache of whole answers would
  // otherwise measure itself).
  const search = `query($q: String!, $n: Int!) { searchAcrossEntities(input: { types: [], query: $q, start: 0, count: $n }) {
    total searchResults { entity { urn } } facets { field aggregations { value count } } } }`;
  // The same without facets (what a search box's suggestions and the Python client's searches ask).
  const bare = `query($q: String!, $n: Int!) { searchAcrossEntities(input: { types: [], query: $q, start: 0, count: $n }) {
    total searchResults { entity { urn } } } }`;
  const queries = ['*', 'orders', 'customer id', 'Identifies', `t${Math.floor(n / 3)}`, 'no-such-word-anywhere'];
  for (const [doc, what] of [[search, 'with facets'], [bare, 'without facets']] as const) {
    for (const q of queries) {
      let i = 0;
      const r = await sequential(server.base, () => ({ path: '/api/graphql', headers, body: JSON.stringify({ query: doc, variables: { q, n: 10 + (i++) } }) }), 30, noErrors);
      rows.push({ scenario: 'scale', engine, target: `search "${q}" ${what}, ${n} datasets`, p50: r.p50, p95: r.p95 });
    }
  }
  // Two filters (a platform and a tag: a sixth and about a sixth of the datasets), with facets, over everything and a word.
  const filtered = `query($q: String!, $n: Int!) { searchAcrossEntities(input: { types: [], query: $q, start: 0, count: $n,
    orFilters: [{ and: [{ field: "platform", values: ["urn:li:dataPlatform:snowflake"] }, { field: "tags", values: ["urn:li:tag:Gold"] }] }] }) {
    total searchResults { entity { urn } } facets { field aggregations { value count } } } }`;
  for (const q of ['*', 'orders']) {
    let i = 0;
    const r = await sequential(server.base, () => ({ path: '/api/graphql', headers, body: JSON.stringify({ query: filtered, variables: { q, n: 10 + (i++) } }) }), 30, noErrors);
    rows.push({ scenario: 'scale', engine, target: `search "${q}" with two filters (platform, tag) and facets, ${n} datasets`, p50: r.p50, p95: r.p95 });
  }
  // Lineage: what the web app's impact analysis asks (degrees 1, 2 and 3+, i.e. everything reachable), from a dataset
  // late in the catalog upstream and from an early one (which later datasets read from) downstream.
  const lineage = `query($urn: String!, $dir: LineageDirection!, $n: Int!) { searchAcrossLineage(input: { urn: $urn, direction: $dir, query: "*",
    start: 0, count: $n, orFilters: [{ and: [{ field: "degree", values: ["1", "2", "3+"] }] }] }) {
    total searchResults { entity { urn } degree } facets { field aggregations { value count } } } }`;
  let late = n - 1;
  while (late > 0 && !hasUpstreams(late)) late--;
  for (const [dir, i0] of [['UPSTREAM', late], ['DOWNSTREAM', Math.min(n - 1, 100)]] as const) {
    let i = 0;
    let total = 0;
    const r = await sequential(server.base, () => ({ path: '/api/graphql', headers,
      body: JSON.stringify({ query: lineage, variables: { urn: generatedDatasetUrn(i0), dir, n: 10 + (i++ % 5) } }) }), 30,
    (text) => { noErrors(text); total = (JSON.parse(text) as { data: { searchAcrossLineage: { total: number } } }).data.searchAcrossLineage.total; });
    rows.push({ scenario: 'scale', engine, target: `searchAcrossLineage ${dir.toLowerCase()} of generated dataset ${i0}, all degrees (${total} reached), ${n} datasets`,
      p50: r.p50, p95: r.p95 });
  }
  // Two hops: DataHub 0.12.1 walks no further when the flat degree filters hold "1" and "2" but not "3+".
  const near = `query($urn: String!, $n: Int!) { searchAcrossLineage(input: { urn: $urn, direction: DOWNSTREAM, query: "*", start: 0, count: $n,
    filters: [{ field: "degree", values: ["1", "2"] }] }) { total searchResults { entity { urn } degree } facets { field aggregations { value count } } } }`;
  {
    const i0 = Math.min(n - 1, 100);
    let i = 0;
    let total = 0;
    const r = await sequential(server.base, () => ({ path: '/api/graphql', headers,
      body: JSON.stringify({ query: near, variables: { urn: generatedDatasetUrn(i0), n: 10 + (i++ % 5) } }) }), 30,
    (text) => { noErrors(text); total = (JSON.parse(text) as { data: { searchAcrossLineage: { total: number } } }).data.searchAcrossLineage.total; });
    rows.push({ scenario: 'scale', engine, target: `searchAcrossLineage downstream of generated dataset ${i0}, degrees 1 and 2 (${total} reached), ${n} datasets`,
      p50: r.p50, p95: r.p95 });
  }
  // "3 hops" (issue 30): DataHub 0.12.1's searchAcrossLineage takes no bound on hops (a degree filter with "3+" walks
  // the whole graph), so three hops are measured as the web app asks (degrees 1, 2 and 3+) from the late dataset,
  // among the last 200 with upstreams, that reaches the most entities with its whole upstream within three hops.
  {
    const everything = `query($urn: String!) { searchAcrossLineage(input: { urn: $urn, direction: UPSTREAM, query: "*", start: 0, count: 10000 }) {
      total searchResults { degree } } }`;
    let chosen: { i: number; total: number } | null = null;
    for (let i = n - 1, tried = 0; i > 0 && tried < 200; i--) {
      if (!hasUpstreams(i)) continue;
      tried++;
      const res = await fetch(`${server.base}/api/graphql`, { method: 'POST', headers,
        body: JSON.stringify({ query: everything, variables: { urn: generatedDatasetUrn(i) } }) });
      const text = await res.text();
      noErrors(text);
      const found = (JSON.parse(text) as { data: { searchAcrossLineage: { total: number; searchResults: { degree: number }[] } } }).data.searchAcrossLineage;
      const deepest = Math.max(0, ...found.searchResults.map((x) => x.degree));
      if (deepest === 3 && found.total <= 10_000 && (!chosen || found.total > chosen.total)) chosen = { i, total: found.total };
    }
    if (chosen) {
      const i0 = chosen.i;
      let i = 0;
      let total = 0;
      const r = await sequential(server.base, () => ({ path: '/api/graphql', headers,
        body: JSON.stringify({ query: lineage, variables: { urn: generatedDatasetUrn(i0), dir: 'UPSTREAM', n: 10 + (i++ % 5) } }) }), 30,
      (text) => { noErrors(text); total = (JSON.parse(text) as { data: { searchAcrossLineage: { total: number } } }).data.searchAcrossLineage.total; });
      rows.push({ scenario: 'scale', engine, target: `searchAcrossLineage upstream of generated dataset ${i0}, all degrees, its whole upstream within 3 hops (${total} reached), ${n} datasets`,
        p50: r.p50, p95: r.p95 });
    }
  }
  for (const r of rows) { r.peakRssMb = server.peakRssMb(); printRow(r); }
  return rows;
}

/** Whether generated dataset `i` has upstreams (the generator gives about half of them some). */
function hasUpstreams(i: number): boolean {
  const urn = generatedDatasetUrn(i);
  for (const p of generatedDatasets({ datasets: i + 1 }, i)) if (p.entityUrn === urn && p.aspectName === 'upstreamLineage') return true;
  return false;
}

/**
 * How long a fresh server takes to answer: /health (what startAlmanac waits for), then a first search with facets
 * (which waits for whatever the server builds in memory at start). The OS page cache is warm from the load.
 */
async function readiness(server: Server, token: string, n: number, engine: string, started: number): Promise<Row[]> {
  const health = performance.now() - started;
  const res = await fetch(`${server.base}/api/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ searchAcrossEntities(input: { types: [], query: "*", start: 0, count: 10 }) { total facets { field aggregations { value count } } } }` }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${res.status} ${text.slice(0, 500)}`);
  noErrors(text);
  const search = performance.now() - started;
  const rows: Row[] = [{ scenario: 'scale', engine, target: `start to /health answering, ${n} datasets`, p50: round2(health) },
    { scenario: 'scale', engine, target: `start to the first search with facets answered, ${n} datasets`, p50: round2(search) }];
  for (const r of rows) printRow(r);
  return rows;
}

/** `almanac reindex` of the whole catalog (search and relationships), the server stopped, timed as a command. */
async function reindex(url: string, n: number, engine: string): Promise<Row> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'bin/almanac.js'), 'reindex'],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' } });
  let err = '';
  child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
  const code: number = await new Promise((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`almanac reindex failed (exit ${code}): ${err}`);
  const row: Row = { scenario: 'scale', engine, target: `almanac reindex (search and relationships), ${n} datasets`,
    p50: round2(performance.now() - started), note: err.split('\n').filter((l) => l.startsWith('Rebuilt')).join('; ') };
  printRow(row);
  return row;
}

/** The database's size on disk: SQLite's file with its write-ahead log, or PostgreSQL's `pg_database_size`. */
async function databaseBytes(url: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    return [file, `${file}-wal`].reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
  } finally {
    await client.end();
  }
}

/** A day's token of the user the load's token is made for, in a catalog loaded before (no facet structure loaded for it). */
async function benchToken(url: string): Promise<string> {
  const catalog = await openCatalog(loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }), undefined, { facetStart: 'first-count' });
  try {
    return (await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub', name: 'bench',
      durationMs: 24 * 3_600_000 }, rootActor())).accessToken;
  } finally {
    await catalog.close();
  }
}

/** What `bench/scale-load.ts` prints before its result, on a line of its own. */
export const RESULT_MARK = 'scale-load result: ';

/**
 * The load, in a process of its own: the load generator that measures the server afterwards runs in this process,
 * and after a million aspects loaded here it measured point reads at 100,000 datasets a third lower than a fresh
 * process did against the same catalog.
 */
async function loadInChild(url: string, n: number): Promise<{ token: string; rows: Row[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'scale-load.ts'), url, String(n)],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  let result: { token: string; rows: Row[] } | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith(RESULT_MARK)) result = JSON.parse(line.slice(RESULT_MARK.length)) as { token: string; rows: Row[] };
    else console.log(line);
  }
  const code: number = child.exitCode ?? await new Promise((resolve) => child.once('exit', (c) => resolve(c ?? 1)));
  if (code !== 0 || !result) throw new Error(`loading ${n} datasets failed (exit ${code})`);
  return result;
}

export async function run(args: string[]) {
  const n = Number(flag(args, 'scale') ?? 10_000);
  const engineName = flag(args, 'engine') ?? 'sqlite';
  const engine = engineName === 'postgres' ? await postgresEngine() : await sqliteEngine();
  if (!engine) throw new Error('PostgreSQL unreachable');
  // `--catalog <database url>`: a catalog this benchmark loaded before (with the same N), served and measured without
  // loading it again (a million's load takes half an hour); its disk figure is the catalog's as it is now.
  const existing = flag(args, 'catalog');
  const url = existing ?? engine.url;
  console.log(`scale: ${n} generated datasets on ${engine.name}${existing ? ` (loaded before: ${existing.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')})` : ''}`);
  try {
    const loaded = existing ? { token: await benchToken(existing), rows: [] as Row[] } : await loadInChild(engine.url, n);
    const bytes = await databaseBytes(url);
    loaded.rows.push({ scenario: 'scale', engine: '', target: `disk after loading ${n} datasets`,
      note: `${(bytes / 1e6).toFixed(0)} MB, ${(bytes / n / 1000).toFixed(1)} kB a dataset` });
    for (const r of loaded.rows) { r.engine = engine.name; printRow(r); }
    const rows = [...loaded.rows];
    const started = performance.now();
    const server = await startAlmanac(url);
    try {
      rows.push(...await readiness(server, loaded.token, n, engine.name, started), ...await probe(server, loaded.token, n, engine.name));
    } finally {
      await server.stop();
    }
    if (!args.includes('--skip-reindex')) rows.push(await reindex(url, n, engine.name));
    saveResults('scale', rows, { datasets: n, ...(existing ? { loadedBefore: true } : {}) });
  } finally {
    await engine.cleanup();
  }
}
