import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { TIMESERIES_INDICES } from '../../src/registry/registry.js';
import { canonicalJson } from '../../src/model/wire-format.js';
import { openStore } from '../../src/storage/index.js';
import type { Store } from '../../src/storage/types.js';
import { SAMPLES } from './app.js';
import { runCli } from './processes.js';

/** Helpers of the export suites (test/export*.test.ts). */
export const SAMPLE_FILES = () => readdirSync(SAMPLES).filter((f) => f.endsWith('.json')).map((f) => path.join(SAMPLES, f));

/** Runs the CLI on one database; fails the test unless it exits 0. */
export async function cli(args: string[], url: string): Promise<string> {
  const res = await runCli(args, { DATABASE_URL: url });
  assert.equal(res.code, 0, `almanac ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

/** What a catalog holds that an export must carry: latest aspects with system metadata, time-series rows, edges. */
export async function contents(store: Store) {
  const urns: string[] = [];
  for (let page = await store.entitiesAfter({ limit: 500 }); page.length; page = await store.entitiesAfter({ after: urns.at(-1), limit: 500 })) {
    urns.push(...page.map((e) => e.urn));
  }
  const latest = await store.getLatest(urns);
  const aspects = Object.fromEntries(urns.map((u) => [u, Object.fromEntries([...(latest.get(u) ?? new Map())].sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([a, r]) => [a, { value: r.value, systemMetadata: r.systemMetadata }]))]));
  // Rows as text with sorted keys (an export writes objects' keys sorted), in one order whatever the engine's.
  const timeseries: Record<string, string[]> = {};
  for (const i of TIMESERIES_INDICES) {
    const rows = await store.queryTimeseries({ entityType: i.entityType, aspect: i.aspect, order: 'asc' });
    if (rows.length) timeseries[`${i.entityType}.${i.aspect}`] = rows.map((r) => canonicalJson(r)).sort();
  }
  const edges: unknown[] = [];
  for (const urn of urns) edges.push(...(await store.relationships({ urn, direction: 'OUTGOING', start: 0, count: 100_000 })).edges);
  return { aspects, timeseries, edges };
}

export async function withStore<T>(url: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const s = await openStore(url);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}

