/**
 * What a start costs the main thread while the facet bitmaps are built (src/storage/facet-index.ts), in-process on a
 * catalog already loaded: `node bench/facet-start.ts <dist folder> <DATABASE_URL> [seconds]`. Opens the store from
 * that build (A/B: main's dist against this one's), reads latest aspects of random urns back to back (a point read,
 * as GraphQL's entity query makes) until the bitmaps are built and `seconds` more, and prints as JSON: time until
 * the bitmaps are ready, the main thread's CPU time over that span (/proc task stat), the point reads' latencies
 * before ready and after, the event loop's delay, and memory once ready (RSS, V8 heap, the bitmaps' bytes).
 */
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const [dist, url, after = '3'] = process.argv.slice(2);
if (!dist || !url) throw new Error('usage: facet-start.ts <dist folder> <DATABASE_URL> [seconds after ready]');

const TICK_S = 1 / 100;
/** The main thread's CPU seconds (user + system), from its task's stat (fields 14 and 15, in clock ticks). */
function mainThreadCpu(): number {
  const stat = fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_S;
}

const { openStore } = await import(pathToFileURL(path.resolve(dist, 'storage/index.js')).href);
const urns: string[] = [];
if (url.startsWith('sqlite:')) {
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(url.slice(7), { readonly: true });
  for (const r of db.prepare('SELECT urn FROM almanac_search_docs ORDER BY random() LIMIT 5000').all() as { urn: string }[]) urns.push(r.urn);
  db.close();
} else {
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (const r of (await c.query('SELECT urn FROM almanac_search_docs ORDER BY random() LIMIT 5000')).rows) urns.push(r.urn);
  await c.end();
}

const delay = monitorEventLoopDelay({ resolution: 1 });
const cpu0 = mainThreadCpu();
const t0 = performance.now();
const store = await openStore(url);
const facets = (store as { facets: { ready(): Promise<boolean>; bytes(): number } }).facets;
delay.enable();
let readyAt = 0;
let cpuAtReady = 0;
void facets.ready().then((ok) => { readyAt = performance.now(); cpuAtReady = mainThreadCpu(); if (!ok) console.error('facet build failed'); });
const before: number[] = [];
const afterReady: number[] = [];
let delayBefore = { p50: 0, p99: 0, max: 0 };
// IDLE=1: no reads, the build alone (its CPU time in the main thread and in all threads).
if (process.env.IDLE === '1') {
  await facets.ready();
  const all = process.cpuUsage();
  console.log(JSON.stringify({ dist, idle: true, readySeconds: +((readyAt || performance.now()) - t0).toFixed(0) / 1000, mainThreadCpuToReady: +(mainThreadCpu() - cpu0).toFixed(2),
    processCpu: +((all.user + all.system) / 1e6).toFixed(2), loopDelayMs: { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 },
    rssMb: +(process.memoryUsage().rss / 2 ** 20).toFixed(1) }));
  await store.close();
  process.exit(0);
}
for (let i = 0; ; i++) {
  const s = performance.now();
  await store.getLatest([urns[i % urns.length]!]);
  const ms = performance.now() - s;
  (readyAt ? afterReady : before).push(ms);
  if (readyAt && delayBefore.max === 0) {
    delayBefore = { p50: delay.percentile(50) / 1e6, p99: delay.percentile(99) / 1e6, max: delay.max / 1e6 };
    delay.reset();
  }
  if (readyAt && performance.now() - readyAt > Number(after) * 1000) break;
  // A request now and then rather than back to back, as a lightly loaded server sees them.
  await new Promise((r) => setTimeout(r, 1));
}
const q = (a: number[], p: number) => { const s = [...a].sort((x, y) => x - y); return s.length ? +s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(3) : null; };
if (global.gc) global.gc();
const mem = process.memoryUsage();
console.log(JSON.stringify({
  dist, readySeconds: +((readyAt - t0) / 1000).toFixed(2), mainThreadCpuToReady: +(cpuAtReady - cpu0).toFixed(2),
  readsBeforeReady: { n: before.length, p50: q(before, 0.5), p99: q(before, 0.99), max: q(before, 1) },
  readsAfterReady: { n: afterReady.length, p50: q(afterReady, 0.5), p99: q(afterReady, 0.99) },
  loopDelayBeforeReadyMs: delayBefore,
  memoryMb: { rss: +(mem.rss / 2 ** 20).toFixed(1), heapUsed: +(mem.heapUsed / 2 ** 20).toFixed(1), external: +(mem.external / 2 ** 20).toFixed(1),
    arrayBuffers: +(mem.arrayBuffers / 2 ** 20).toFixed(1), facets: +(facets.bytes() / 2 ** 20).toFixed(1) },
}));
await store.close();
