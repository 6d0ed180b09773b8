import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { TestApp } from './support/app.js';
import { startAppForClient, withDatahubClient, type DatahubClient } from './support/datahub-client.js';
import { forEachEngine } from './support/engines.js';

// DataHub's own Python client 0.12.1 against Almanac's /relationships, /runs and deleteReferences: the CLI's
// `datahub ingest list-runs | show | rollback`, `datahub delete --hard` on a tag, DataHubGraph.get_related_entities.

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const key = (name: string) => ({ platform: 'urn:li:dataPlatform:hive', name, origin: 'PROD' });
const TAGGED = ds('client_tagged');
const OTHER = ds('client_other');
const TAG = 'urn:li:tag:client_tag';
// Longer than DataHub's default run id, so that the default's row (if listed) leaves the table's widths alone.
const RUN = 'client-ingestion-run-0001';
/** The CLI prints times in the machine's zone: each becomes as many T's (keeping the table's widths), the rest is compared exactly. */
const TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \([^)]*\)/g;
const untimed = (s: string) => s.replace(TIME, (m) => 'T'.repeat(m.length));
/** The first time in an output as untimed leaves it (the zone's name as this machine's Python prints it: its length is what counts). */
const timeIn = (s: string) => untimed(s.match(TIME)?.[0] ?? '');

const mcp = (urn: string, aspectName: string, json: unknown) => ({ entityType: urn.split(':')[2], entityUrn: urn, changeType: 'UPSERT', aspectName,
  aspect: { json } });

await withDatahubClient('DataHub Python client: relationships, runs, references', (install) => forEachEngine('DataHub Python client: relationships, runs, references', (ctx) => {
  let t: TestApp;
  let client: DatahubClient;
  let dir: string;
  before(async () => {
    ({ t, client } = await startAppForClient(ctx, install));
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-datahub-client-runs-'));
    const file = path.join(dir, 'mcps.json');
    writeFileSync(file, JSON.stringify([
      mcp(TAG, 'tagProperties', { name: 'client_tag' }),
      mcp(TAGGED, 'globalTags', { tags: [{ tag: TAG }, { tag: 'urn:li:tag:kept' }] }),
      mcp(TAGGED, 'datasetProperties', { description: 'tagged', customProperties: {} }),
      mcp(OTHER, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'a', globalTags: { tags: [{ tag: TAG }] } }] }),
    ]));
    writeFileSync(path.join(dir, 'recipe.yml'), `run_id: ${RUN}\nsource:\n  type: file\n  config:\n    path: ${file}\nsink:\n  type: datahub-rest\n`
      + '  config:\n    server: ${DATAHUB_GMS_URL}\n    token: ${DATAHUB_GMS_TOKEN}\n');
    const res = await client.cli(['ingest', '-c', path.join(dir, 'recipe.yml')]);
    assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every stored versioned aspect of an entity, name → value. */
  const stored = async (urn: string) => Object.fromEntries([...(await t.catalog.entities.getLatest(urn))].map(([a, r]) => [a, r.value]));

  test('DataHubGraph.get_related_entities pages through /openapi/relationships/v1/', async () => {
    const out = await client.pythonJson(`
import json, os
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
g = DataHubGraph(DatahubClientConfig(server=os.environ['DATAHUB_GMS_URL'], token=os.environ['DATAHUB_GMS_TOKEN']))
rel = lambda urn, types, d: [[r.urn, r.relationship_type] for r in g.get_related_entities(urn, types, d)]
print(json.dumps({
  'incoming': rel(${JSON.stringify(TAG)}, ['TaggedWith', 'EditableSchemaFieldTaggedWith'], g.RelationshipDirection.INCOMING),
  'outgoing': rel(${JSON.stringify(TAGGED)}, ['TaggedWith'], g.RelationshipDirection.OUTGOING),
  'none': rel(${JSON.stringify(TAG)}, ['OwnedBy'], g.RelationshipDirection.INCOMING),
}))
`);
    // The other ends in urn order.
    assert.deepEqual(out, {
      incoming: [[OTHER, 'EditableSchemaFieldTaggedWith'], [TAGGED, 'TaggedWith']],
      outgoing: [[TAG, 'TaggedWith'], ['urn:li:tag:kept', 'TaggedWith']],
      none: [],
    });
  });

  /** A grid as tabulate draws it (tablefmt="grid"): numbers right-aligned, text left-aligned. */
  const grid = (headers: string[], rows: (string | number)[][]) => {
    // tabulate keeps two spaces of room beside a header (MIN_PADDING), then one space each side of every cell.
    const widths = headers.map((h, i) => Math.max(h.length + 2, ...rows.map((r) => String(r[i]).length)) + 2);
    const line = (c: string) => `+${widths.map((w) => c.repeat(w)).join('+')}+`;
    const cell = (v: string | number, i: number) => ` ${typeof v === 'number' ? String(v).padStart(widths[i]! - 2) : v.padEnd(widths[i]! - 2)} `;
    const numeric = rows.length > 0 ? rows[0]!.map((v) => typeof v === 'number') : headers.map(() => false);
    const head = `|${headers.map((h, i) => (numeric[i] ? ` ${h.padStart(widths[i]! - 2)} ` : cell(h, i))).join('|')}|`;
    return [line('-'), head, line('='), ...rows.flatMap((r, k) => [`|${r.map(cell).join('|')}|`, k < rows.length - 1 ? line('-') : null])
      .filter((x): x is string => x !== null), line('-')].join('\n') + '\n';
  };
  const runRows = [[OTHER, 'datasetKey'], [OTHER, 'editableSchemaMetadata'], [TAGGED, 'datasetKey'], [TAGGED, 'datasetProperties'],
    [TAGGED, 'globalTags'], [TAG, 'tagKey'], [TAG, 'tagProperties']];

  test('datahub ingest list-runs and show print the run the recipe wrote', async () => {
    const list = await client.cli(['ingest', 'list-runs']);
    assert.equal(list.code, 0, list.stderr);
    const time = timeIn(list.stdout);
    // Metadata written without a run id (Almanac's own, at start) may be listed under DataHub's default run id.
    const lines = untimed(list.stdout).split('\n');
    const defaultRun = lines.findIndex((l) => l.startsWith('| no-run-id-provided '));
    if (defaultRun >= 0) lines.splice(defaultRun, 2);
    assert.equal(lines.join('\n'), grid(['runId', 'rows', 'created at'], [[RUN, 7, time]]));

    const show = await client.cli(['ingest', 'show', '--run-id', RUN]);
    assert.deepEqual({ ...show, stdout: untimed(show.stdout) },
      { code: 0, stdout: grid(['urn', 'aspect name', 'created at'], runRows.map((r) => [...r, time])), stderr: '' });
  });

  test('datahub ingest rollback --run-id: --dry-run says what would go; -f rolls the run back', async () => {
    const dry = await client.cli(['ingest', 'rollback', '--run-id', RUN, '--dry-run'], { cwd: dir });
    const time = timeIn(dry.stdout);
    // A safe rollback soft-deletes the run's entities: their key aspects stay, so they are not listed.
    assert.deepEqual({ ...dry, stdout: untimed(dry.stdout) }, { code: 0, stderr: '', stdout: 'Rolling back deletes the entities created by a run and reverts the updated aspects\n'
      + 'This rollback will delete 3 entities and will roll back 4 aspects\nshowing first 4 of 4 aspects that will be reverted by this run\n'
      + grid(['urn', 'aspect name', 'created at'], runRows.filter((r) => !r[1]!.endsWith('Key')).map((r) => [...r, time])) });
    assert.deepEqual(await stored(TAG), { tagKey: { name: 'client_tag' }, tagProperties: { name: 'client_tag' } });

    const res = await client.cli(['ingest', 'rollback', '--run-id', RUN, '-f'], { cwd: dir });
    assert.deepEqual({ ...res, stdout: untimed(res.stdout) }, { code: 0, stderr: '', stdout: 'Rolling back deletes the entities created by a run and reverts the updated aspects\n'
      + 'This rollback  deleted 3 entities and rolled back 7 aspects\nshowing first 7 of 7 aspects reverted by this run\n'
      + grid(['urn', 'aspect name', 'created at'], runRows.map((r) => [...r, time])) });
    // No entity held aspects of other runs: no report of unsafe entities.
    assert.deepEqual(readdirSync(dir).sort(), ['mcps.json', 'recipe.yml']);
    assert.deepEqual(await stored(TAGGED), { datasetKey: key('client_tagged'), status: { removed: true } });
    assert.deepEqual(await stored(OTHER), { datasetKey: key('client_other'), status: { removed: true } });
    assert.deepEqual(await stored(TAG), { tagKey: { name: 'client_tag' }, status: { removed: true } });
  });

  test('datahub delete --hard on a tag deletes it and takes it off the datasets that carried it', async () => {
    const doomed = 'urn:li:tag:client_delete';
    const [d1, d2] = [ds('client_delete_1'), ds('client_delete_2')];
    const write = (urn: string, aspect: string, value: unknown) => ({ urn, entityType: urn.split(':')[2]!, aspect, changeType: 'UPSERT' as const,
      value, systemMetadata: null });
    await t.catalog.entities.ingest([write(doomed, 'tagProperties', { name: 'client_delete' }),
      write(d1, 'globalTags', { tags: [{ tag: doomed }, { tag: 'urn:li:tag:kept' }] }),
      write(d2, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'a', globalTags: { tags: [{ tag: doomed }] } }] })],
    { urn: 'urn:li:corpuser:datahub', kind: 'user' });

    const res = await client.cli(['delete', '--urn', doomed, '--hard', '-f']);
    assert.equal(res.code, 0, res.stderr);
    // tagKey and tagProperties; two datasets referred to it.
    assert.match(res.stdout, /^Hard deleted 1 entities \(impacts 2 versioned rows and 0 timeseries aspect rows\) and cleaned up 2 referenced entities in [\d.]+ (milli)?seconds?\.\n/);
    assert.deepEqual(await stored(doomed), {});
    assert.deepEqual(await stored(d1), { datasetKey: key('client_delete_1'), globalTags: { tags: [{ tag: 'urn:li:tag:kept' }] } });
    assert.deepEqual(await stored(d2), { datasetKey: key('client_delete_2'),
      editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: 'a', globalTags: { tags: [] } }] } });
  });
}));
