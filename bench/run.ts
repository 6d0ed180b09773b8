/**
 * `npm run bench`: every benchmark, one after another, each printing its own numbers. Benchmarks compare against
 * a baseline measured in the same run (these machines are shared and noisy) and report medians and ratios.
 * `npm run bench -- http` runs only the named ones.
 */
const BENCHES: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  http: () => import('./http.js'),
  'aspect-validation': () => import('./aspect-validation.js'),
  'metadata-tests': () => import('./metadata-tests.js'),
  timeseries: () => import('./timeseries.js'),
  search: () => import('./search.js'),
};

const only = process.argv.slice(2);
for (const [name, load] of Object.entries(BENCHES)) {
  if (only.length && !only.includes(name)) continue;
  console.log(`\n=== ${name} ===`);
  await (await load()).run();
}
