import { latestRows } from './harness.js';

/**
 * `npm run bench -- table`: a Markdown table of the newest figure of each scenario, engine and target in
 * bench/results (for the README's "Measured" section), each row with the date of its run; the machines below it.
 */
const ORDER = ['read', 'webapp-read', 'write', 'ingest-single', 'ingest-batch', 'multi-server', 'scale'];

const n = (x: number | undefined, d = 0) => (x === undefined || x === null || Number.isNaN(x) ? '' : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }));

export function markdownTable(): string {
  const rank = (s: string) => (ORDER.indexOf(s) + 1) || 99;
  const rows = latestRows().sort((a, b) => rank(a.row.scenario) - rank(b.row.scenario) || a.row.scenario.localeCompare(b.row.scenario));
  if (!rows.length) return 'No results yet: run `npm run bench` first.\n';
  const lines = [
    '| Scenario | Engine | What | Throughput | p50 ms | p99 ms | Ratio to bare Fastify | Server CPU ms/req | Peak RSS MB | Run (UTC) | Notes |',
    '|---|---|---|--:|--:|--:|--:|--:|--:|---|---|',
  ];
  const machines = new Set<string>();
  for (const { row, date, machine: m } of rows) {
    machines.add(`${m.cpus} × ${m.cpuModel.trim()}, ${m.memoryGb} GB, Node ${m.node}, ${m.platform}`);
    const through = row.aspectsPerSecond !== undefined ? `${n(row.aspectsPerSecond)} aspects/s` : row.rps !== undefined ? `${n(row.rps)} req/s` : '';
    const p99 = row.p99 !== undefined ? n(row.p99, 1) : row.p95 !== undefined ? `${n(row.p95, 1)} (p95)` : '';
    const run = `${date.slice(0, 16).replace('T', ' ')}${m.commit ? `, ${m.commit}${m.srcModified ? '+' : ''}` : ''}${m.loadAverage ? `, load ${m.loadAverage[0]}` : ''}`;
    lines.push(`| ${row.scenario} | ${row.engine} | ${row.target} | ${through} | ${n(row.p50, 1)} | ${p99} | ${n(row.ratio, 3)} | ${n(row.serverCpuMsPerRequest, 2)} | ${n(row.peakRssMb)} | ${run} | ${row.note ?? ''} |`);
  }
  return `${lines.join('\n')}\n\nMachine: ${[...machines].join('; ')}. Run: date, commit (+ = uncommitted changes under src/), `
    + 'load average when the run ended. Ratios are to a bare Fastify process answering the same bytes in the same run; '
    + 'server CPU per request is the Almanac process\'s user + system time over the measured requests (less sensitive to a busy machine than req/s).\n';
}

export async function run() {
  process.stdout.write(markdownTable());
}
