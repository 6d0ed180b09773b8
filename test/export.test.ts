import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { catalogProposals, writeProposalFile } from '../bench/generate.js';
import { TIMESERIES_INDICES } from '../src/registry/registry.js';
import { cli, contents, SAMPLE_FILES, withStore } from './support/export.js';
import { forEachEngine, freshSharedDatabaseUrl, type Engine } from './support/engines.js';
import { runCli } from './support/processes.js';

// `almanac export` and `almanac ingest` as a user runs them (child processes): a catalog of one engine, exported,
// restored into an empty catalog of the other, and exported again, must give the same file byte for byte, and the
// restored catalog the same aspects, time-series rows and relationships.

/** The dataset of the samples with 14 profiles (demo-profiles.json). */
const PROFILED = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';

forEachEngine('almanac export', (ctx) => {
  const other: Engine = ctx.engine === 'sqlite' ? 'postgres' : 'sqlite';
  let dir: string;
  let source: string;
  const cleanups: (() => Promise<void>)[] = [];
  /** A fresh database of an engine, dropped after the suite. */
  const fresh = async (engine: Engine) => {
    const db = await freshSharedDatabaseUrl(engine);
    cleanups.push(db.cleanup);
    return db.url;
  };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-export-'));
    // The samples (demo-profiles.json: 14 profiles of one dataset) and a generated catalog (lineage, ownership,
    // columns, a profile and usage per dataset, charts, dashboards, jobs).
    const generated = path.join(dir, 'generated.json');
    await writeProposalFile(generated, catalogProposals({ datasets: 40, seed: 7 }));
    source = await fresh(ctx.engine);
    await cli(['ingest', ...SAMPLE_FILES(), generated], source);
  });
  after(async () => {
    for (const c of cleanups) await c();
    rmSync(dir, { recursive: true, force: true });
  });

  test(`${ctx.engine} → file → ${other} → file: the same file byte for byte, and the same aspects, time-series rows and relationships`, async () => {
    const first = path.join(dir, 'first.json');
    const out = await cli(['export', first], source);
    const records = JSON.parse(readFileSync(first, 'utf8')) as { entityUrn: string; aspectName: string; changeType: string }[];
    const ts = records.filter((r) => TIMESERIES_INDICES.some((i) => i.aspect === r.aspectName)).length;
    const entities = new Set(records.map((r) => r.entityUrn)).size;
    assert.match(out, new RegExp(`^Exported ${entities} entities to ${first.replace(/[.]/g, '\\.')} in \\d+ ms: ${records.length - ts} aspects, `
      + `${ts} time-series rows, ${readFileSync(first).length} bytes\\n$`));
    assert.deepEqual(new Set(records.map((r) => r.changeType)), new Set(['UPSERT']));

    const target = await fresh(other);
    const ingested = await cli(['ingest', first], target);
    assert.match(ingested, new RegExp(`^Ingested ${records.length} of ${records.length} records from 1 file .*; nothing refused\\n$`));
    const second = path.join(dir, 'second.json');
    await cli(['export', second], target);
    assert.equal(readFileSync(second, 'utf8'), readFileSync(first, 'utf8'));

    const [was, now] = [await withStore(source, contents), await withStore(target, contents)];
    assert.deepEqual(now, was);
    // Not a comparison of nothing: every kind of thing is there, time series with more than their latest row.
    assert.equal(Object.keys(was.aspects).length, entities);
    assert.equal(was.edges.length > 100, true, `${was.edges.length} edges`);
    assert.equal(was.timeseries['dataset.datasetProfile']!.filter((r) => r.includes(PROFILED)).length, 14);
    assert.equal(Object.values(was.timeseries).flat().length, ts);
  });

  test('records are ordered by urn, key aspect first, then by aspect name, time series by timestamp', async () => {
    const file = path.join(dir, 'ordered.json');
    await cli(['export', file], source);
    const records = JSON.parse(readFileSync(file, 'utf8')) as { entityUrn: string; aspectName: string; aspect: { json: { timestampMillis?: number } } }[];
    const bytes = (s: string) => Buffer.from(s);
    for (let i = 1; i < records.length; i++) {
      const [a, b] = [records[i - 1]!, records[i]!];
      const urnOrder = Buffer.compare(bytes(a.entityUrn), bytes(b.entityUrn));
      assert.equal(urnOrder <= 0, true, `${a.entityUrn} before ${b.entityUrn}`);
      if (urnOrder < 0) {
        assert.match(b.aspectName, /Key$/, `${b.entityUrn} starts with its key aspect`);
      } else if (!a.aspectName.endsWith('Key')) {
        assert.equal(a.aspectName <= b.aspectName, true, `${b.entityUrn}: ${a.aspectName} before ${b.aspectName}`);
        if (a.aspectName === b.aspectName) assert.equal(a.aspect.json.timestampMillis! <= b.aspect.json.timestampMillis!, true);
      }
    }
  });

  test('--since exports what changed at or after a time (time series: rows timestamped so); --entity-type filters', async () => {
    // A copy of the source, so the writes below leave the other tests' catalog as it was.
    const db = await fresh(ctx.engine);
    const base = path.join(dir, 'base.json');
    await cli(['export', base], source);
    await cli(['ingest', base], db);
    const since = Date.now() + 5;
    while (Date.now() <= since) await new Promise((r) => setTimeout(r, 5));
    const sys = { lastObserved: 1, runId: 'later' };
    const changes = [
      { entityType: 'dataset', entityUrn: PROFILED, changeType: 'UPSERT', aspectName: 'datasetProperties',
        aspect: { json: { description: 'changed later', customProperties: {}, tags: [] } }, systemMetadata: sys },
      { entityType: 'dataset', entityUrn: PROFILED, changeType: 'UPSERT', aspectName: 'datasetProfile',
        aspect: { json: { timestampMillis: since + 1000, rowCount: 7, columnCount: 2 } }, systemMetadata: sys },
      // A conditional write (expects no stored value): the condition is not exported, or a restore would repeat it.
      { entityType: 'corpuser', entityUrn: 'urn:li:corpuser:later', changeType: 'UPSERT', aspectName: 'corpUserInfo',
        aspect: { json: { active: true, displayName: 'Later' } }, systemMetadata: { ...sys, properties: { 'If-Version-Match': '-1', team: 'data' } } },
    ];
    const file = path.join(dir, 'changes.json');
    writeFileSync(file, JSON.stringify(changes));
    await cli(['ingest', file], db);

    const sinceFile = path.join(dir, 'since.json');
    assert.match(await cli(['export', '--since', new Date(since).toISOString(), sinceFile], db), /^Exported 2 entities .*: 3 aspects, 1 time-series rows, /);
    const withLastRun = { ...sys, lastRunId: 'later' };
    assert.deepEqual(JSON.parse(readFileSync(sinceFile, 'utf8')), [
      // A new entity's key aspect was written now too; an old one's key is not exported.
      { ...changes[2], aspectName: 'corpUserKey', aspect: { json: { username: 'later' } }, systemMetadata: { ...withLastRun, properties: { team: 'data' } } },
      { ...changes[2], systemMetadata: { ...withLastRun, properties: { team: 'data' } } },
      { ...changes[1] },
      { ...changes[0], systemMetadata: withLastRun },
    ]);

    const typed = path.join(dir, 'typed.json');
    await cli(['export', '--entity-type', 'corpuser,dataPlatform', '--entity-type', 'CHART', typed], db);
    const all = JSON.parse(readFileSync(base, 'utf8')) as { entityType: string }[];
    const types = JSON.parse(readFileSync(typed, 'utf8')) as { entityType: string }[];
    assert.deepEqual(new Set(types.map((r) => r.entityType)), new Set(['corpuser', 'dataPlatform', 'chart']));
    assert.equal(types.length, all.filter((r) => ['corpuser', 'dataPlatform', 'chart'].includes(r.entityType)).length + 2);

    const unknown = await runCli(['export', '--entity-type', 'datasett', path.join(dir, 'never.json')], { DATABASE_URL: db });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /^almanac: Unknown entity type 'datasett' \(known: .*dataset.*\)\n$/);
    const badTime = await runCli(['export', '--since', 'yesterday', path.join(dir, 'never.json')], { DATABASE_URL: db });
    assert.deepEqual([badTime.code, badTime.stderr], [1,
      "almanac: --since must be a date or time (2026-11-01, 2026-11-01T12:00:00Z) or epoch milliseconds, got 'yesterday'\n"]);
    const nowhere = path.join(dir, 'no-such-folder', 'never.json');
    assert.deepEqual(await runCli(['export', nowhere], { DATABASE_URL: db }),
      { code: 1, stdout: '', stderr: `almanac: ${nowhere}: cannot be written (ENOENT)\n` });
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('never')), []);
  });
});
