import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine } from './support/engines.js';

/**
 * A large REST ingestProposalBatch is parsed, decoded and checked in a worker thread, its values handed over as the
 * texts the writes store (SQLite, built-in registry: EntityService.decodeProposalBatch). What it answers and what it
 * writes are what the same batch gets without the worker; a refused or malformed batch is answered as it is without.
 */
const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const SYS = { runId: 'batch-worker-run', lastObserved: 1_700_000_000_000 };

/** Every kind of item a batch may hold, for datasets named after `tag`. */
function proposals(tag: string): unknown[] {
  const [a, b, c] = [ds(`${tag}_orders`), ds(`${tag}_customers`), ds(`${tag}_gone`)];
  return [
    { entityType: 'dataset', entityUrn: c, changeType: 'UPSERT', aspectName: 'status', aspect: { json: { removed: false } }, systemMetadata: SYS },
    { entityType: 'dataset', entityUrn: a, changeType: 'UPSERT', aspectName: 'datasetProperties',
      aspect: { value: JSON.stringify({ name: `${tag}_orders`, description: 'Orders, one row each', customProperties: { owner: 'sales' }, tags: [] }),
        contentType: 'application/json' }, systemMetadata: SYS },
    // A key aspect sent with the urn: stored as the urn derives it.
    { entityType: 'dataset', entityUrn: a, changeType: 'UPSERT', aspectName: 'datasetKey',
      aspect: { json: { platform: 'urn:li:dataPlatform:hive', name: `${tag}_orders`, origin: 'PROD' } } },
    { entityType: 'dataset', entityUrn: b, changeType: 'UPSERT', aspectName: 'upstreamLineage',
      aspect: { json: { upstreams: [{ dataset: a, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' } }] } } },
    // A time-series aspect, and a patch of an aspect written earlier in the batch.
    { entityType: 'dataset', entityUrn: a, changeType: 'UPSERT', aspectName: 'datasetProfile',
      aspect: { json: { timestampMillis: 1_700_000_000_000, rowCount: 42, columnCount: 3 } } },
    { entityType: 'dataset', entityUrn: b, changeType: 'UPSERT', aspectName: 'globalTags', aspect: { json: { tags: [{ tag: 'urn:li:tag:pii' }] } } },
    { entityType: 'dataset', entityUrn: b, changeType: 'PATCH', aspectName: 'globalTags',
      aspect: { value: JSON.stringify([{ op: 'add', path: '/tags/urn:li:tag:gold', value: { tag: 'urn:li:tag:gold' } }]), contentType: 'application/json-patch+json' } },
    { entityType: 'dataset', entityUrn: c, changeType: 'DELETE', aspectName: 'status' },
  ];
}

forEachEngine('REST ingestProposalBatch decoded in a worker thread', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
  });
  after(async () => { await t?.close(); });

  const post = (payload: string) => t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposalBatch',
    headers: { ...t.auth, 'content-type': 'application/json' }, payload });
  /** What is stored for the batch's datasets, their names turned back into `tag`'s: every aspect, profiles, and edges. */
  const stored = async (tag: string) => {
    const urns = [ds(`${tag}_orders`), ds(`${tag}_customers`), ds(`${tag}_gone`)];
    const latest = await t.catalog.entities.getLatestOf(urns);
    const aspects = urns.map((u) => [...(latest.get(u) ?? new Map())].map(([aspect, r]) => [aspect, r.value, r.systemMetadata?.runId ?? null]));
    const profiles = (await t.catalog.store.queryTimeseries({ urn: urns[0]!, entityType: 'dataset', aspect: 'datasetProfile' })).map((r) => r.value);
    return JSON.parse(JSON.stringify({ aspects, profiles }).replaceAll(`${tag}_`, 'TAG_'));
  };

  test('the worker answers and writes what the route does itself; refused and malformed batches get the same answers', async () => {
    const entities = t.catalog.entities;
    const worker = ctx.engine === 'sqlite';
    // Only with the built-in registry on SQLite (as a bulk load's decoding workers).
    assert.equal(entities.decodesBatchInWorker(Number.MAX_SAFE_INTEGER), worker);
    const answers = async (payload: string) => {
      const res = await post(payload);
      return [res.statusCode, res.json()];
    };
    const bad = {
      unknownAspect: JSON.stringify({ proposals: [{ entityType: 'dataset', entityUrn: ds('bad_x'), changeType: 'UPSERT', aspectName: 'chartInfo', aspect: { json: {} } }] }),
      invalidValue: JSON.stringify({ proposals: [{ entityType: 'dataset', entityUrn: ds('bad_y'), changeType: 'UPSERT', aspectName: 'status', aspect: { json: { removed: 'no' } } }] }),
      noList: JSON.stringify({ proposals: 'none' }),
      notAnObject: '[1, 2]',
      malformed: '{"proposals": [',
      prototypeKey: '{"proposals": [], "__proto__": {"x": 1}}',
    };
    // Without the worker (the route reads the body itself).
    entities.decodeBatchInWorkerFrom = Number.MAX_SAFE_INTEGER;
    const direct = await answers(JSON.stringify({ proposals: proposals('direct') }));
    const directBad = Object.fromEntries(await Promise.all(Object.entries(bad).map(async ([k, p]) => [k, await answers(p)])));
    // With it, for any body.
    entities.decodeBatchInWorkerFrom = 0;
    assert.equal(await entities.startBatchDecoder(), worker);
    const viaWorker = await answers(JSON.stringify({ proposals: proposals('worker') }));
    const workerBad = Object.fromEntries(await Promise.all(Object.entries(bad).map(async ([k, p]) => [k, await answers(p)])));
    assert.equal(entities.batchesDecodedInWorker, worker ? 1 : 0, 'only the accepted batch is handed over decoded');

    assert.deepEqual(direct, [200, { value: proposals('direct').map((p) => (p as { entityUrn: string }).entityUrn) }]);
    assert.deepEqual(viaWorker, [200, { value: proposals('worker').map((p) => (p as { entityUrn: string }).entityUrn) }]);
    assert.deepEqual(await stored('worker'), await stored('direct'));
    assert.deepEqual((await stored('worker')).aspects[1].map((a: unknown[]) => a[0]).sort(), ['datasetKey', 'globalTags', 'upstreamLineage']);
    assert.deepEqual(workerBad, directBad);
    assert.deepEqual(directBad.unknownAspect, [422, { status: 422, code: 'UNPROCESSABLE', message: "Aspect 'chartInfo' is not an aspect of entity type 'dataset'",
      urn: ds('bad_x'), aspect: 'chartInfo' }]);
    assert.equal(directBad.malformed[0], 400);
    assert.equal(directBad.prototypeKey[0], 422);
    // A search right after sees the batch (its lineage too).
    const res = await t.graphql('{ search(input: { type: DATASET, query: "worker_orders" }) { total searchResults { entity { urn } } } }');
    assert.deepEqual(res.body, { data: { search: { total: 1, searchResults: [{ entity: { urn: ds('worker_orders') } }] } }, extensions: {} });
  });
});
