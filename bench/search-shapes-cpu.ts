import { loadConfig } from '../src/config.js';
import { openCatalog } from '../src/catalog.js';
import type { SearchRequest } from '../src/services/search.js';

/**
 * `node --import tsx bench/search-shapes-cpu.ts <sqlite file> [rounds]`: the scale benchmark's search shapes (issue
 * 30) through the search service of a catalog already loaded (bench/bulk-load-cpu.ts with BULK_KEEP=1), in this
 * process, once the facet bitmaps are built: per shape the CPU milliseconds (user + system) of each search, with the
 * default facets and without. Each round runs every shape once, a different page size each time (as bench/scale.ts),
 * so a shape's first search and its repeats are told apart: `first` is round 1, `p50`/`p95` the rounds after it. CPU
 * rather than wall time: the machine is shared.
 */
const file = process.argv[2];
if (!file) throw new Error('usage: search-shapes-cpu.ts <sqlite file> [rounds]');
const rounds = Number(process.argv[3] ?? 15);
const catalog = await openCatalog(loadConfig({ ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' }));
try {
  const n = await catalog.store.countSearchDocs();
  const facets = (catalog.store as { facets?: { ready(): Promise<boolean> } }).facets;
  const built = facets ? await facets.ready() : false;
  const datasets = Math.round(n / 1.05);
  const shapes: [string, Omit<SearchRequest, 'count'>][] = [
    ['*', { query: '*' }],
    ['orders', { query: 'orders' }],
    ['customer id', { query: 'customer id' }],
    ['Identifies', { query: 'Identifies' }],
    [`t${Math.floor(datasets / 3)}`, { query: `t${Math.floor(datasets / 3)}` }],
    ['no-such-word-anywhere', { query: 'no-such-word-anywhere' }],
    ['2 filters', { query: '*', filters: [[{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }, { field: 'tags', values: ['urn:li:tag:Gold'] }]] }],
    ['orders + 2 filters', { query: 'orders', filters: [[{ field: 'platform', values: ['urn:li:dataPlatform:hive'] }, { field: 'tags', values: ['urn:li:tag:Gold'] }]] }],
  ];
  // SHAPES=label,label: only these (to profile one).
  const only = process.env.SHAPES?.split(',');
  if (only) shapes.splice(0, shapes.length, ...shapes.filter(([label]) => only.includes(label)));
  const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  const ms = new Map<string, number[]>();
  const totals = new Map<string, number>();
  for (let r = 0; r < rounds; r++) {
    for (const withFacets of [true, false]) {
      for (const [label, req] of shapes) {
        const key = `${label}${withFacets ? '' : ' (no facets)'}`;
        const c0 = cpu();
        const res = await catalog.search.search({ ...req, count: 10 + r, ...(withFacets ? {} : { facets: [] }) });
        const d = cpu() - c0;
        if (!ms.has(key)) ms.set(key, []);
        ms.get(key)!.push(d);
        totals.set(key, res.total);
      }
    }
  }
  const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!; };
  console.log(`${n} documents, facet bitmaps ${built ? 'built' : 'NOT built'}, ${rounds} rounds, CPU ms, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
  for (const [key, xs] of ms) {
    const rest = xs.slice(1);
    console.log(`${key.padEnd(36)} total ${String(totals.get(key)).padStart(8)}  first ${xs[0]!.toFixed(1).padStart(7)}  p50 ${pct(rest, 50).toFixed(1).padStart(7)}  p95 ${pct(rest, 95).toFixed(1).padStart(7)}`);
  }
} finally {
  await catalog.close();
}
