import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog, type OpenedCatalog } from '../src/catalog.js';
import { ingestFiles, type FileIngestSummary } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';

/**
 * Every connector golden file in test/fixtures/connectors (DataHub 0.12.1's own connector output) is ingested whole,
 * on both engines, and not one of its records is refused. A failure names each refused record and gives the refusal
 * rate of every file, so one new fixture's gaps show at a glance.
 */
const DIR = path.resolve(import.meta.dirname, 'fixtures/connectors');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();

test('the connector fixtures folder holds golden files, each with a NOTICE line', async () => {
  assert.ok(FILES.length >= 2, `expected connector fixtures in ${DIR}, found ${FILES.length}`);
  const { readFileSync } = await import('node:fs');
  const notice = readFileSync(path.join(DIR, 'NOTICE'), 'utf8').split('\n');
  const unlisted = FILES.filter((f) => !notice.some((l) => l.startsWith(`${f}: from datahub-project/datahub v0.12.1 `)));
  assert.deepEqual(unlisted, [], 'every fixture has its NOTICE line');
});

forEachEngine('connector fixtures ingest whole', (ctx) => {
  let catalog: OpenedCatalog;
  const summaries = new Map<string, FileIngestSummary>();
  before(async () => {
    catalog = await openCatalog(loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' }));
    for (const f of FILES) summaries.set(f, await ingestFiles(catalog.entities, [path.join(DIR, f)], systemActor()));
  });
  after(async () => catalog?.close());

  test('no record of any connector fixture is refused', () => {
    const rates = FILES.map((f) => {
      const s = summaries.get(f)!;
      return `${f}: ${s.failures.length}/${s.records} refused (${s.records ? ((100 * s.failures.length) / s.records).toFixed(1) : '0.0'}%)`;
    });
    const refused = FILES.flatMap((f) => summaries.get(f)!.failures.map((x) => `${f}#${x.index} ${x.urn ?? ''}: ${x.reason}`));
    assert.equal(refused.length, 0, `refusals per file:\n${rates.join('\n')}\n\nrefused records:\n${refused.slice(0, 100).join('\n')}`);
    for (const f of FILES) assert.ok(summaries.get(f)!.records > 0, `${f} holds records`);
  });
});
