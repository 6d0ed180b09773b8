import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles, STREAM_ABOVE_BYTES } from '../src/services/ingest-files.js';
import { decodeRecords, RecordDecoders, type DecodedRecord } from '../src/services/record-decoding.js';
import { arrayElements, MalformedArrayError } from '../src/services/json-records.js';
import type { SystemMetadata } from '../src/storage/types.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { sample, startApp, type TestApp } from './support/app.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-records-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fileWith = (text: string) => {
  const f = path.join(dir, `f${n++}.json`);
  writeFileSync(f, text);
  return f;
};

/** Every element's text and index, or where the file broke off. */
async function elements(text: string, chunkBytes: number) {
  const out: { index: number; value: unknown }[] = [];
  try {
    for await (const e of arrayElements(fileWith(text), chunkBytes)) out.push({ index: e.index, value: JSON.parse(e.text) });
    return { out };
  } catch (e) {
    assert.ok(e instanceof MalformedArrayError, String(e));
    return { out, brokeAt: e.index, message: e.message };
  }
}

test('array elements are found across chunk boundaries: strings holding brackets, escapes, multi-byte characters', async () => {
  const values = [{ a: 'x,]}\\"y', b: [1, [2, { c: '[' }]] }, 2, 's,"t', [1, [2]], { 'é': '日本語 ✓', e: '\\' }, null, true];
  const text = ` [\n ${values.map((v) => JSON.stringify(v)).join(' ,\n')} ]\n`;
  for (const chunk of [1, 2, 3, 7, 64, 1 << 20]) {
    assert.deepEqual(await elements(text, chunk), { out: values.map((value, index) => ({ index, value })) }, `chunks of ${chunk} bytes`);
  }
  assert.deepEqual(await elements('[]', 1), { out: [] });
  assert.deepEqual(await elements(' [ ] ', 2), { out: [] });
});

test('a file that is not an array, or breaks off, is reported at the element where it does, after the ones before', async () => {
  assert.deepEqual(await elements('{"a": 1}', 3),
    { out: [], brokeAt: 0, message: 'not a JSON array of records: the file does not start with [ at character 0' });
  assert.deepEqual(await elements('[{"a": 1}, {"b": [2', 3),
    { out: [{ index: 0, value: { a: 1 } }], brokeAt: 1, message: 'not a JSON array of records: the array is not closed at character 19' });
  assert.deepEqual(await elements('[1,,2]', 2), { out: [{ index: 0, value: 1 }], brokeAt: 1,
    message: 'not a JSON array of records: an empty element at character 3' });
  assert.deepEqual(await elements('[1, 2,]', 2), { out: [{ index: 0, value: 1 }, { index: 1, value: 2 }], brokeAt: 2,
    message: 'not a JSON array of records: a comma before ] at character 6' });
  assert.deepEqual(await elements('[1] [2]', 2), { out: [{ index: 0, value: 1 }], brokeAt: 1,
    message: 'not a JSON array of records: text after the array at character 4' });
  assert.deepEqual(await elements('[{"a": 1}}]', 4), { out: [], brokeAt: 0,
    message: 'not a JSON array of records: a closing bracket with no opening one at character 9' });
});

forEachEngine('ingest files read whole or a record at a time', (ctx) => {
  let whole: TestApp;
  let streamed: TestApp;
  let second: { url: string; cleanup: () => Promise<void> };
  before(async () => {
    whole = await startApp(ctx);
    second = await freshSharedDatabaseUrl(ctx.engine);
    streamed = await startApp({ engine: ctx.engine, url: second.url });
  });
  after(async () => {
    await whole.close();
    await streamed.close();
    await second.cleanup();
  });

  /**
   * The latest aspects of these entities: values and system metadata (not when they were written: the lastObserved
   * of the default system metadata, which records sent without any get, is that time).
   */
  const sysOf = (sys: SystemMetadata | null) => (sys?.runId === 'no-run-id-provided' ? { ...sys, lastObserved: 'when written' } : sys);
  const contents = async (t: TestApp, urns: readonly string[]) => [...await t.catalog.store.getLatest(urns)]
    .map(([urn, aspects]) => [urn, [...aspects].map(([name, r]) => [name, r.value, sysOf(r.systemMetadata)]).sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1))])
    .sort((x, y) => (String(x[0]) < String(y[0]) ? -1 : 1));
  /** The entities a file's records are about. */
  const subjects = (records: unknown[]) => records.map((r: any) => r.entityUrn ?? (Object.values(r.proposedSnapshot ?? {})[0] as any)?.urn)
    .filter((u): u is string => typeof u === 'string');

  test('the same files give the same summary and the same catalog either way, bad records refused alike', async () => {
    const records = JSON.parse(readFileSync(sample('bootstrap_mce.json'), 'utf8')) as unknown[];
    // A record that is not one, one that is malformed only when read on its own, one with a prototype key.
    const mixed = `[${[...records.slice(0, 3).map((r) => JSON.stringify(r)), '{"neither": 1}',
      '{"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)", "aspectName": "status", "aspect": {"__proto__": {}}}',
      ...records.slice(3).map((r) => JSON.stringify(r))].join(',\n')}]`;
    const files = [fileWith(mixed), sample('demo-profiles.json')];
    const a = await ingestFiles(whole.catalog.entities, files, systemActor());
    const b = await ingestFiles(streamed.catalog.entities, files, systemActor(), undefined, 0);
    assert.deepEqual(b, a);
    assert.equal(a.records, records.length + 2 + (JSON.parse(readFileSync(sample('demo-profiles.json'), 'utf8')) as unknown[]).length);
    assert.deepEqual(a.failures.map((f) => [f.index, f.kind, f.reason]), [
      [3, 'unrecognised', 'record is neither an MCE (proposedSnapshot) nor an MCP (aspectName, aspect)'],
      [4, 'unrecognised', "The record holds the key 'aspect.__proto__', which is not allowed: it names an object's prototype"],
    ]);
    assert.ok(a.aspectsChanged > 50 && a.timeseriesRows > 0, JSON.stringify(a));
    const urns = subjects(records);
    const expected = await contents(whole, urns);
    assert.equal(expected.length, new Set(urns).size, 'every entity of the file is stored');
    assert.deepEqual(await contents(streamed, urns), expected);
  });

  test('a file that breaks off: read whole, nothing is written; read a record at a time, the records before the fault are', async () => {
    const tags = [1, 2, 3].map((i) => ({ entityType: 'tag', entityUrn: `urn:li:tag:cut${i}`, changeType: 'UPSERT', aspectName: 'tagProperties',
      aspect: { value: JSON.stringify({ name: `cut ${i}` }), contentType: 'application/json' } }));
    const text = `[${tags.map((t) => JSON.stringify(t)).join(',')}, {"entityType": "tag", "entityUrn": "urn:li:tag:cut4"`;
    const file = fileWith(text);
    const a = await ingestFiles(whole.catalog.entities, [file], systemActor());
    assert.deepEqual(a, { files: 1, records: 0, mce: 0, mcp: 0, aspectsChanged: 0, aspectsUnchanged: 0, timeseriesRows: 0,
      failures: [{ file, index: -1, kind: 'unparsable',
        reason: `not valid JSON at line 1, column ${text.length + 1}: it ends before the JSON is complete; nothing in this file was ingested` }] });
    assert.deepEqual(await whole.catalog.store.existing(tags.map((t) => t.entityUrn)), new Set());
    const b = await ingestFiles(streamed.catalog.entities, [file], systemActor(), undefined, 0);
    assert.deepEqual({ ...b, failures: b.failures.map((f) => ({ ...f, reason: f.reason.replace(/ at character \d+$/, '') })) }, {
      files: 1, records: 4, mce: 0, mcp: 3, aspectsChanged: 3 + 3, aspectsUnchanged: 0, timeseriesRows: 0,
      failures: [{ file, index: 3, kind: 'malformed', reason: 'not a JSON array of records: the array is not closed' }],
    });
    const stored = await streamed.catalog.store.getLatest(tags.map((t) => t.entityUrn), ['tagProperties']);
    assert.deepEqual([...stored].map(([urn, m]) => [urn, m.get('tagProperties')!.value]),
      tags.map((t, i) => [t.entityUrn, { name: `cut ${i + 1}` }]));
  });

  test('a record that is not JSON is refused alone, with its position in the file, read whole or a record at a time', async () => {
    const tag = (i: number) => JSON.stringify({ entityType: 'tag', entityUrn: `urn:li:tag:badjson${i}`, changeType: 'UPSERT',
      aspectName: 'tagProperties', aspect: { json: { name: `bad json ${i}` } } });
    const text = `[${tag(1)},\n {"entityType": "tag", "entityUrn": "urn:li:tag:badjson2", "aspect": tru},\n${tag(3)}]`;
    const file = fileWith(text);
    const offset = text.indexOf('tru}');
    const b = await ingestFiles(streamed.catalog.entities, [file], systemActor(), undefined, 0);
    assert.deepEqual(b, { files: 1, records: 3, mce: 0, mcp: 2, aspectsChanged: 4, aspectsUnchanged: 0, timeseriesRows: 0,
      failures: [{ file, index: 1, kind: 'malformed', reason: `not valid JSON at character ${offset} of the file: expected a value, found 't'` }] });
    const a = await ingestFiles(whole.catalog.entities, [file], systemActor());
    assert.deepEqual(a, { files: 1, records: 0, mce: 0, mcp: 0, aspectsChanged: 0, aspectsUnchanged: 0, timeseriesRows: 0,
      failures: [{ file, index: -1, kind: 'unparsable',
        reason: `not valid JSON at line 2, column ${offset - text.indexOf('\n')}: expected a value, found 't'; nothing in this file was ingested` }] });
  });

  test('decoded in worker threads, the same files give the same summary and catalog as decoded in this thread', async () => {
    const records = JSON.parse(readFileSync(sample('bootstrap_mce.json'), 'utf8')) as unknown[];
    // Besides good records: one that is not one, one with a prototype key, one that fails validation; and, in a file of
    // its own, one that is not JSON (read a record at a time; read whole, that file is refused).
    const invalid = { entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,invalid,PROD)', aspectName: 'datasetProperties',
      aspect: { json: { description: 7 } } };
    const mixed = `[${[...records.slice(0, 3).map((r) => JSON.stringify(r)), '{"neither": 1}',
      '{"entityType": "dataset", "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)", "aspectName": "status", "aspect": {"__proto__": {}}}',
      JSON.stringify(invalid), ...records.slice(3).map((r) => JSON.stringify(r))].join(',\n')}]`;
    const tag = (i: number) => JSON.stringify({ entityType: 'tag', entityUrn: `urn:li:tag:worker${i}`, aspectName: 'tagProperties', aspect: { json: { name: `w${i}` } } });
    const files = [fileWith(mixed), sample('demo-profiles.json'), fileWith(`[${tag(1)},\n {"entityType": "tag", "aspect": tru},\n${tag(3)}]`)];
    const urns = [...subjects(records), invalid.entityUrn, 'urn:li:tag:worker1', 'urn:li:tag:worker3'];
    for (const streamAbove of [STREAM_ABOVE_BYTES, 0]) {
      const dbs = [await freshSharedDatabaseUrl(ctx.engine), await freshSharedDatabaseUrl(ctx.engine)];
      const [here, workers] = [await startApp({ engine: ctx.engine, url: dbs[0]!.url }), await startApp({ engine: ctx.engine, url: dbs[1]!.url })];
      // (On by default on SQLite only: asked for here on either engine.)
      workers!.catalog.entities.decodeInWorkers = true;
      try {
        const a = await ingestFiles(here!.catalog.entities, files, systemActor(), undefined, streamAbove, Infinity);
        const b = await ingestFiles(workers!.catalog.entities, files, systemActor(), undefined, streamAbove, 0);
        assert.deepEqual(b, a);
        assert.deepEqual(a.failures.filter((f) => f.file === files[0]).map((f) => [f.index, f.kind, f.urn, f.reason]), [
          [3, 'unrecognised', undefined, 'record is neither an MCE (proposedSnapshot) nor an MCP (aspectName, aspect)'],
          [4, 'unrecognised', 'urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)',
            "The record holds the key 'aspect.__proto__', which is not allowed: it names an object's prototype"],
          [5, 'invalid', invalid.entityUrn, 'Invalid aspect datasetProperties: description: expected a string, got number'],
        ]);
        assert.deepEqual(a.failures.filter((f) => f.file === files[2]).map((f) => [f.index, f.kind]), streamAbove ? [[-1, 'unparsable']] : [[1, 'malformed']]);
        assert.ok(a.aspectsChanged > 50 && a.timeseriesRows > 0, JSON.stringify(a));
        const expected = await contents(here!, urns);
        assert.equal(expected.length, new Set(urns).size - 1 - (streamAbove ? 2 : 0), 'every entity of the files is stored, but the refused ones');
        assert.deepEqual(await contents(workers!, urns), expected);
        // Indexed alike too: the entities a word finds.
        const found = async (t: TestApp) => (await t.catalog.search.search({ query: 'sample', start: 0, count: 50 })).urns.sort();
        assert.deepEqual(await found(workers!), await found(here!));
      } finally {
        await here!.close();
        await workers!.close();
        for (const d of dbs) await d.cleanup();
      }
    }
  });

  /** A decoded record with its items as decoding in this thread makes them (plain objects, the value parsed, no text). */
const asDecodedHere = (r: DecodedRecord): DecodedRecord => ('items' in r
  ? { ...r, items: r.items.map(({ urn, entityType, aspect, changeType, value, systemMetadata, expectedVersion }) => ({
    urn, entityType, aspect, changeType, value, systemMetadata, ...(expectedVersion === undefined ? {} : { expectedVersion }) })) }
  : r);

test('a decoding worker answers what decoding in this thread gives', async () => {
    const decoders = await RecordDecoders.start(1);
    assert.ok(decoders, 'the worker starts');
    try {
      const records = [...JSON.parse(readFileSync(sample('bootstrap_mce.json'), 'utf8')) as unknown[], { neither: 1 }, 'text',
        { entityType: 'tag', entityUrn: 'urn:li:tag:t', aspectName: 'tagProperties', aspect: { json: { name: 5 } } }];
      const decoded = await decoders.decode(records, false, true);
      assert.deepEqual(decoded.map(asDecodedHere), decodeRecords(records, false, true));
      // Values come as the texts the writes store (all but a deletion's and a patch's).
      const items = decoded.flatMap((r) => ('items' in r ? r.items : []));
      assert.ok(items.length > 50, `items compared (${items.length})`);
      for (const item of items) {
        assert.equal(item.valueJson, item.changeType === 'DELETE' || item.changeType === 'PATCH' ? undefined : JSON.stringify(item.value), item.urn);
      }
      const texts = ['{"entityType": "tag", "entityUrn": "urn:li:tag:u", "aspectName": "tagProperties", "aspect": {"json": {"name": "u"}}}', '{"a": tru}'];
      assert.deepEqual((await decoders.decode(texts, true, false)).map(asDecodedHere), [
        { kind: 'mcp', items: [{ urn: 'urn:li:tag:u', entityType: 'tag', aspect: 'tagProperties', changeType: 'UPSERT', value: { name: 'u' }, systemMetadata: null }] },
        { malformed: true },
      ]);
    } finally {
      await decoders.close();
    }
  });
});
