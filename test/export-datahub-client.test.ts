import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { catalogProposals, writeProposalFile } from '../bench/generate.js';
import { TIMESERIES_INDICES } from '../src/registry/registry.js';
import type { TestApp } from './support/app.js';
import { startAppForClient, withDatahubClient, type DatahubClient } from './support/datahub-client.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { cli, contents, SAMPLE_FILES, withStore } from './support/export.js';

// DataHub's own Python client reads the export with its file source and sends it with its datahub-rest sink.
await withDatahubClient('almanac export read by DataHub\'s file source', (install) => forEachEngine('almanac export read by DataHub\'s file source', (ctx) => {
  let t: TestApp;
  let client: DatahubClient;
  let dir: string;
  let source: { url: string; cleanup: () => Promise<void> };
  before(async () => {
    ({ t, client } = await startAppForClient(ctx, install));
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-export-client-'));
    source = await freshSharedDatabaseUrl('sqlite');
  });
  after(async () => {
    await t.close();
    await source.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  test('datahub ingest (file source → datahub-rest sink) takes every record of an export, with no failure', async () => {
    const generated = path.join(dir, 'generated.json');
    await writeProposalFile(generated, catalogProposals({ datasets: 10, seed: 3 }));
    await cli(['ingest', ...SAMPLE_FILES(), generated], source.url);
    const file = path.join(dir, 'export.json');
    await cli(['export', file], source.url);
    const records = JSON.parse(readFileSync(file, 'utf8')) as { entityUrn: string; aspectName: string }[];

    const recipe = path.join(dir, 'recipe.yml');
    writeFileSync(recipe, `source:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n  config:\n`
      + '    server: ${DATAHUB_GMS_URL}\n    token: ${DATAHUB_GMS_TOKEN}\n');
    const res = await client.cli(['ingest', '-c', recipe]);
    assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
    assert.match(res.stdout, new RegExp(`\\n Pipeline finished successfully; produced ${records.length} events in [\\d.]+ seconds\\.\\n$`));
    assert.match(res.stdout, new RegExp(`Sink \\(datahub-rest\\) report:\\n\\{'total_records_written': ${records.length},\\n`));
    assert.match(res.stdout, /\n 'warnings': \[\],\n 'failures': \[\],\n/);

    // Every entity arrived with every aspect the file gave it, and every time-series row.
    const want = new Map<string, Set<string>>();
    for (const r of records) {
      if (!want.has(r.entityUrn)) want.set(r.entityUrn, new Set());
      if (!TIMESERIES_INDICES.some((i) => i.aspect === r.aspectName)) want.get(r.entityUrn)!.add(r.aspectName);
    }
    const got = await t.catalog.store.getLatest([...want.keys()]);
    const missing = [...want].flatMap(([urn, aspects]) => [...aspects].filter((a) => !got.get(urn)?.has(a)).map((a) => `${urn} ${a}`));
    assert.deepEqual(missing, []);
    assert.equal(want.size > 100, true, `${want.size} entities`);
    const [was, now] = [await withStore(source.url, contents), await contents(t.catalog.store)];
    assert.deepEqual(Object.fromEntries(Object.entries(now.timeseries).map(([k, rows]) => [k, rows.length])),
      Object.fromEntries(Object.entries(was.timeseries).map(([k, rows]) => [k, rows.length])));
  });
}));
