import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { catalogProposals, SHOWCASE_URN } from './generate.js';
import { flag, loadCatalog, printRow, ROOT, saveResults, sqliteEngine, startAlmanac, type Row } from './harness.js';
import { median } from './support.js';

/**
 * The web UI's budgets (issue 18) in Debian's Chromium against a generated catalog (100,000 datasets unless
 * `--datasets N`): the first page's JavaScript gzipped, search results on screen after the last keystroke (the
 * UI's typing pause included), and a 50-column dataset page from navigation to its whole schema table.
 */
const CHROMIUM = '/usr/bin/chromium';
const QUERIES = ['orders', 'payments daily', 'customers', 'refunds clean', 'tickets', 'inventory snapshot', 'campaigns', 'leads hourly'];

export async function run(args: string[]) {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is needed (apt-get install -y chromium)`);
  if (!existsSync(path.join(ROOT, 'ui/dist/index.html'))) throw new Error('ui/dist is missing: npm run build:ui');
  const datasets = Number(flag(args, 'datasets') ?? process.env.BENCH_UI_DATASETS ?? 100_000);
  // BENCH_UI_DB keeps the loaded catalog in that SQLite file (loaded once, reused by later runs).
  const kept = process.env.BENCH_UI_DB;
  const reuse = kept !== undefined && existsSync(kept);
  const engine = kept ? { name: 'sqlite' as const, url: `sqlite:${kept}`, cleanup: async () => {} } : await sqliteEngine();
  const rows: Row[] = [];
  try {
    const started = performance.now();
    const { token, aspects } = await loadCatalog(engine.url, reuse ? [] : catalogProposals({ datasets }), 2000);
    console.log(reuse ? `  reusing ${kept}` : `  loaded ${datasets.toLocaleString()} datasets (${aspects.toLocaleString()} aspects) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const server = await startAlmanac(engine.url);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext();
      await context.addInitScript((v) => window.localStorage.setItem('almanac.token', v), token);

      // The first page's scripts, as the browser loads them.
      const page = await context.newPage();
      const scripts: Promise<number>[] = [];
      page.on('response', (r) => { if (r.request().resourceType() === 'script') scripts.push(r.body().then((b) => gzipSync(b, { level: 9 }).length)); });
      await page.goto(`${server.base}/search`);
      await page.getByPlaceholder(/Search datasets/).waitFor();
      const firstPageKb = (await Promise.all(scripts)).reduce((a, b) => a + b, 0) / 1024;
      rows.push(row('first page JavaScript (search page, gzipped)', `${firstPageKb.toFixed(1)} KB`, { budget: '≤ 250 KB' }));

      // Search as you type: from the last keystroke to the first result of that query on screen.
      const times: number[] = [];
      for (const q of [...QUERIES, ...QUERIES]) {
        await page.goto(`${server.base}/search`);
        const box = page.getByPlaceholder(/Search datasets/);
        await box.click();
        await page.keyboard.type(q, { delay: 30 });
        const t0 = await page.evaluate(() => performance.now());
        await page.waitForFunction((query) => {
          // The query's own results: its words in the address, a first result, and nothing left loading (the page keeps
          // the previous results, marked "Updating…", while the new ones come).
          const first = document.querySelector('[data-result-index="0"]');
          const status = document.querySelector('.search-results')?.textContent ?? '';
          return first !== null && new URL(window.location.href).searchParams.get('q') === query
            && !status.includes('Updating…') && !status.includes('Searching…');
        }, q, { timeout: 30_000 });
        times.push((await page.evaluate(() => performance.now())) - t0);
      }
      const sorted = [...times].sort((a, b) => a - b);
      rows.push(row(`search results after typing (${datasets.toLocaleString()} datasets, ${times.length} queries)`,
        `p50 ${Math.round(median(times))} ms, p95 ${Math.round(sorted[Math.ceil(sorted.length * 0.95) - 1]!)} ms`, { budget: '≤ 150 ms' }));

      // A 50-column dataset page: navigation to the last column of its schema table on screen.
      const loads: number[] = [];
      for (let i = 0; i < 5; i++) {
        const p = await context.newPage();
        await p.goto(`${server.base}/dataset/${encodeURIComponent(SHOWCASE_URN)}`);
        await p.locator('.schema-table tbody tr').nth(49).waitFor({ timeout: 30_000 });
        loads.push(await p.evaluate(() => performance.now()));
        await p.close();
      }
      rows.push(row('50-column dataset page, navigation to its whole schema table', `p50 ${Math.round(median(loads))} ms, max ${Math.round(Math.max(...loads))} ms`,
        { budget: '≤ 1 s' }));
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    await engine.cleanup();
  }
  saveResults('ui', rows, { datasets });
}

function row(target: string, value: string, extra: { budget: string }): Row {
  const r: Row = { scenario: 'ui', engine: 'sqlite', target, note: `${value} (budget ${extra.budget})` };
  printRow(r);
  return r;
}

/** The built page's own script, gzipped, without a browser (for a quick look). */
export function entryScriptKb(): number {
  const html = readFileSync(path.join(ROOT, 'ui/dist/index.html'), 'utf8');
  const src = /<script[^>]*src="([^"]+)"/.exec(html)?.[1];
  return src ? gzipSync(readFileSync(path.join(ROOT, 'ui/dist', src.replace(/^\.?\//, '')))).length / 1024 : 0;
}
