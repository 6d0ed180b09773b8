/**
 * `npm run bench`: every benchmark, one after another, each printing its own numbers, then the table of the latest
 * results. Benchmarks compare against a baseline measured in the same run (these machines are shared and noisy) and
 * report medians and ratios. `npm run bench -- read write` runs only the named ones; flags after the names go to
 * them (`npm run bench -- generate --datasets 1000 --out catalog.json`, `npm run bench -- --scale 100000`).
 */
type Bench = (args: string[]) => Promise<void>;
const BENCHES: Record<string, () => Promise<Bench>> = {
  http: async () => (await import('./http.js')).run,
  'aspect-validation': async () => (await import('./aspect-validation.js')).run,
  'metadata-tests': async () => (await import('./metadata-tests.js')).run,
  timeseries: async () => (await import('./timeseries.js')).run,
  search: async () => (await import('./search.js')).run,
  read: async () => (await import('./read.js')).runRead,
  'webapp-read': async () => (await import('./read.js')).runWebappRead,
  write: async () => (await import('./write.js')).runWrite,
  'ingest-single': async () => (await import('./write.js')).runIngestSingle,
  'ingest-batch': async () => (await import('./write.js')).runIngestBatch,
  'multi-server': async () => (await import('./multi-server.js')).run,
  'multi-server-ab': async () => (await import('./multi-server-ab.js')).run,
  table: async () => (await import('./table.js')).run,
};
/** Run only when named. */
const ON_DEMAND: Record<string, () => Promise<Bench>> = {
  generate: async () => (await import('./generate.js')).run,
  scale: async () => (await import('./scale.js')).run,
  profile: async () => (await import('./profile.js')).run,
  ui: async () => (await import('./ui.js')).run,
  startup: async () => (await import('./startup.js')).run,
  capacity: async () => (await import('./capacity.js')).run,
};

const argv = process.argv.slice(2);
const firstFlag = argv.findIndex((a) => a.startsWith('--'));
const names = firstFlag < 0 ? argv : argv.slice(0, firstFlag);
const args = firstFlag < 0 ? [] : argv.slice(firstFlag);
if (args.includes('--scale') && !names.length) names.push('scale');
for (const n of names) {
  if (!BENCHES[n] && !ON_DEMAND[n]) {
    console.error(`unknown benchmark '${n}'; known: ${[...Object.keys(BENCHES), ...Object.keys(ON_DEMAND)].join(', ')}`);
    process.exit(2);
  }
}
const selected = names.length ? names : Object.keys(BENCHES);
for (const name of selected) {
  const load = BENCHES[name] ?? ON_DEMAND[name]!;
  if (name !== 'generate' && name !== 'table') console.log(`\n=== ${name} ===`);
  await (await load())(args);
}
