import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from './support/app.js';
import { forEachEngine } from './support/engines.js';

// DataHub 0.12.1's REST resources for relationships (Rest.li /relationships and OpenAPI /openapi/relationships/v1/),
// ingestion runs (/runs: list, describe, rollback) and /entities?action=deleteReferences: whole answers, and what
// is stored after them.

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const key = (name: string) => ({ platform: 'urn:li:dataPlatform:hive', name, origin: 'PROD' });
const A = ds('runs_a');
const B = ds('runs_b');
const C = ds('runs_c');
const T1 = 1_700_000_000_000;
const T2 = 1_700_000_500_000;
const enc = encodeURIComponent;
/** Runs Almanac itself may list (metadata sent without a runId gets DataHub's default one): not this suite's. */
const DEFAULT_RUN = 'no-run-id-provided';

const proposal = (urn: string, aspectName: string, value: unknown, systemMetadata?: Record<string, unknown>) => ({
  entityType: urn.split(':')[2], entityUrn: urn, changeType: 'UPSERT', aspectName,
  aspect: { value: JSON.stringify(value), contentType: 'application/json' }, ...(systemMetadata ? { systemMetadata } : {}) });

forEachEngine('REST: relationships, ingestion runs and deleteReferences', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
  });
  after(async () => t.close());

  const post = async (url: string, payload: unknown) => {
    const res = await t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
    return { status: res.statusCode, body: res.body ? res.json() : undefined };
  };
  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers: t.auth });
    return { status: res.statusCode, body: res.json() };
  };
  /** Every stored versioned aspect of an entity, name → value. */
  const stored = async (urn: string) => Object.fromEntries([...(await t.catalog.entities.getLatest(urn))].map(([a, r]) => [a, r.value]));
  const ingest = async (proposals: unknown[]) => assert.equal((await post('/aspects?action=ingestProposalBatch', { proposals })).status, 200);

  test('/runs: list, describe and rollback answer as DataHub 0.12.1 and roll back what the run wrote', async () => {
    const runA = { runId: 'run-a', lastObserved: T1 };
    const runB = { runId: 'run-b', lastObserved: T2 };
    await ingest([
      proposal(A, 'datasetProperties', { description: 'from run a', customProperties: {} }, runA),
      proposal(A, 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] }, runA),
      proposal(B, 'datasetProperties', { description: 'b', customProperties: {} }, runA),
    ]);
    await ingest([
      proposal(A, 'datasetProperties', { description: 'from run b', customProperties: {} }, runB),
      proposal(C, 'ownership', { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' }] }, runB),
    ]);
    const ours = (runs: { runId: string }[]) => runs.filter((r) => r.runId !== DEFAULT_RUN);

    // Each (urn, aspect) counts for the run that wrote its latest version; the key aspect came with the first write.
    const list = await post('/runs?action=list', { pageOffset: 0, pageSize: 100, includeSoft: false });
    assert.equal(list.status, 200);
    assert.deepEqual(ours(list.body.value), [{ runId: 'run-b', timestamp: T2, rows: 3 }, { runId: 'run-a', timestamp: T1, rows: 4 }]);

    const rowA = (urn: string, aspectName: string, keyAspect = false) => ({ runId: 'run-a', aspectName, urn, timestamp: T1, keyAspect });
    assert.deepEqual(await post('/runs?action=describe', { runId: 'run-a', start: 0, count: 100, includeSoft: false, includeAspect: false }),
      { status: 200, body: { value: [rowA(A, 'datasetKey', true), rowA(A, 'globalTags'), rowA(B, 'datasetKey', true), rowA(B, 'datasetProperties')] } });
    assert.deepEqual(await post('/runs/?action=describe', { runId: 'run-a', start: 1, count: 2, includeAspect: true }),
      { status: 200, body: { value: [{ ...rowA(A, 'globalTags'), aspect: { tags: [{ tag: 'urn:li:tag:pii' }] } },
        { ...rowA(B, 'datasetKey', true), aspect: key('runs_b') }] } });
    assert.deepEqual(await post('/runs?action=describe', { runId: 'never-ran', start: 0, count: 10 }), { status: 200, body: { value: [] } });

    // A dry run changes nothing; A holds an aspect run-b wrote, so rolling back run-a (which brought A) is unsafe for it.
    const dry = await post('/runs?action=rollback', { runId: 'run-a', dryRun: true, safe: true });
    assert.deepEqual(dry, { status: 200, body: { value: { aspectRowSummaries: [rowA(A, 'globalTags'), rowA(B, 'datasetProperties')],
      entitiesAffected: 2, aspectsAffected: 1, entitiesDeleted: 2, aspectsReverted: 2, unsafeEntitiesCount: 1, unsafeEntities: [{ urn: A }] } } });
    assert.deepEqual(await stored(B), { datasetKey: key('runs_b'), datasetProperties: { description: 'b', customProperties: {} } });

    const done = await post('/runs?action=rollback', { runId: 'run-a', dryRun: false, safe: true });
    assert.deepEqual(done, { status: 200, body: { value: {
      aspectRowSummaries: [rowA(A, 'datasetKey', true), rowA(A, 'globalTags'), rowA(B, 'datasetKey', true), rowA(B, 'datasetProperties')],
      entitiesAffected: 2, aspectsAffected: 0, entitiesDeleted: 2, aspectsReverted: 4, unsafeEntitiesCount: 0, unsafeEntities: [] } } });
    // What run-a wrote is gone, what run-b wrote stays; the entities run-a brought are soft-deleted.
    assert.deepEqual(await stored(A), { datasetKey: key('runs_a'), datasetProperties: { description: 'from run b', customProperties: {} },
      status: { removed: true } });
    assert.deepEqual(await stored(B), { datasetKey: key('runs_b'), status: { removed: true } });

    // Every row of run-a is now on a soft-deleted entity: listed only with includeSoft.
    assert.deepEqual(ours((await post('/runs?action=list', { pageOffset: 0, pageSize: 100, includeSoft: false })).body.value),
      [{ runId: 'run-b', timestamp: T2, rows: 3 }]);
    assert.deepEqual(ours((await post('/runs?action=list', { includeSoft: true })).body.value),
      [{ runId: 'run-b', timestamp: T2, rows: 3 }, { runId: 'run-a', timestamp: T1, rows: 2 }]);
    assert.deepEqual(await post('/runs?action=describe', { runId: 'run-a', start: 0, count: 100 }), { status: 200, body: { value: [] } });

    // safe: false (the CLI's --nuke) deletes the entities the run brought, soft-deleted ones included.
    const rowB = (urn: string, aspectName: string, keyAspect = false) => ({ runId: 'run-b', aspectName, urn, timestamp: T2, keyAspect });
    const nuke = await post('/gms/runs?action=rollback', { runId: 'run-b', dryRun: false, safe: false });
    assert.deepEqual(nuke, { status: 200, body: { value: { aspectRowSummaries: [rowB(A, 'datasetProperties'), rowB(C, 'datasetKey', true), rowB(C, 'ownership')],
      // 3 rows of the run, and C's key and status (the soft delete), which went with C
      entitiesAffected: 2, aspectsAffected: 0, entitiesDeleted: 1, aspectsReverted: 5, unsafeEntitiesCount: 0, unsafeEntities: [] } } });
    assert.deepEqual(await stored(C), {});
    // A's properties are back to what run-a wrote before (a rollback restores the previous version).
    assert.deepEqual(await stored(A), { datasetKey: key('runs_a'), datasetProperties: { description: 'from run a', customProperties: {} },
      status: { removed: true } });

    // Nothing to roll back: zeros, as DataHub answers (the CLI then says "No entities found").
    assert.deepEqual(await post('/runs?action=rollback', { runId: 'never-ran', dryRun: false }), { status: 200, body: { value: {
      aspectRowSummaries: [], entitiesAffected: 0, aspectsAffected: 0, entitiesDeleted: 0, aspectsReverted: 0, unsafeEntitiesCount: 0, unsafeEntities: [] } } });
  });

  test('/runs: a user mistake is a 400 naming the parameter', async () => {
    const bad = (message: string, field: string) => ({ status: 400, body: { status: 400, code: 'BAD_REQUEST', message, field } });
    assert.deepEqual(await post('/runs?action=rollback', { runId: DEFAULT_RUN, dryRun: true }),
      bad(`${DEFAULT_RUN} is the run id given to metadata sent without one; it cannot be rolled back`, 'runId'));
    assert.deepEqual(await post('/runs?action=rollback', { dryRun: true }), bad("Missing required parameter 'runId'", 'runId'));
    assert.deepEqual(await post('/runs?action=describe', { runId: 'x', count: 10 }), bad("Missing required parameter 'start'", 'start'));
    assert.deepEqual(await post('/runs?action=list', { pageSize: -1 }), bad("pageSize must be a whole number between 0 and 10000, got '-1'", 'pageSize'));
    assert.deepEqual(await post('/runs?action=list', { includeSoft: 'yes' }), bad("includeSoft must be true or false, got 'yes'", 'includeSoft'));
  });

  const D1 = ds('refs_1');
  const D2 = ds('refs_2');
  const TAG = 'urn:li:tag:refs';

  test('GET /relationships and /openapi/relationships/v1/: a page of edges in either direction', async () => {
    await ingest([
      proposal(TAG, 'tagProperties', { name: 'refs' }),
      proposal(D1, 'globalTags', { tags: [{ tag: TAG }, { tag: 'urn:li:tag:keep' }] }),
      proposal(D1, 'ownership', { owners: [{ owner: 'urn:li:corpuser:refs', type: 'DATAOWNER' }, { owner: 'urn:li:corpuser:other', type: 'DATAOWNER' }] }),
      proposal(D1, 'container', { container: 'urn:li:container:refs' }),
      proposal(D2, 'editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'a', globalTags: { tags: [{ tag: TAG }] } },
        { fieldPath: 'b', description: 'kept' }] }),
      proposal(D2, 'domains', { domains: ['urn:li:domain:refs'] }),
    ]);
    assert.deepEqual(await get(`/relationships?urn=${enc(TAG)}&direction=INCOMING&types=List(TaggedWith,EditableSchemaFieldTaggedWith)`), { status: 200, body: {
      start: 0, count: 2, total: 2, relationships: [{ type: 'TaggedWith', entity: D1 }, { type: 'EditableSchemaFieldTaggedWith', entity: D2 }] } });
    assert.deepEqual(await get(`/api/gms/relationships?urn=${enc(D1)}&direction=OUTGOING&types=List(TaggedWith,OwnedBy)&start=1&count=2`), { status: 200, body: {
      start: 1, count: 2, total: 4, relationships: [{ type: 'OwnedBy', entity: 'urn:li:corpuser:refs' }, { type: 'TaggedWith', entity: 'urn:li:tag:keep' }] } });
    assert.deepEqual(await get(`/relationships?urn=${enc(TAG)}&direction=INCOMING&types=List(OwnedBy)`), { status: 200, body: {
      start: 0, count: 0, total: 0, relationships: [] } });

    // As DataHubGraph.get_related_entities asks: repeated relationshipTypes; it pages until a page holds none.
    const open = `/openapi/relationships/v1/?urn=${enc(TAG)}&direction=INCOMING&relationshipTypes=TaggedWith&relationshipTypes=EditableSchemaFieldTaggedWith`;
    assert.deepEqual(await get(`${open}&start=0`), { status: 200, body: { start: 0, count: 2, total: 2,
      entities: [{ relationshipType: 'TaggedWith', urn: D1 }, { relationshipType: 'EditableSchemaFieldTaggedWith', urn: D2 }] } });
    assert.deepEqual(await get(`${open}&start=1&count=1`), { status: 200, body: { start: 1, count: 1, total: 2,
      entities: [{ relationshipType: 'EditableSchemaFieldTaggedWith', urn: D2 }] } });
    assert.deepEqual(await get(`${open}&start=2`), { status: 200, body: { start: 2, count: 0, total: 2, entities: [] } });

    const bad = (message: string, field: string) => ({ status: 400, body: { status: 400, code: 'BAD_REQUEST', message, field } });
    assert.deepEqual(await get(`/relationships?urn=${enc(TAG)}&direction=SIDEWAYS&types=List(TaggedWith)`),
      bad("direction must be INCOMING or OUTGOING, got 'SIDEWAYS'", 'direction'));
    assert.deepEqual(await get(`/relationships?urn=${enc(TAG)}&direction=INCOMING`),
      bad("Missing required parameter 'types' (types=List(<relationship>,…))", 'types'));
    assert.deepEqual(await get(`/openapi/relationships/v1/?urn=${enc(TAG)}&direction=INCOMING`), bad("Missing required parameter 'relationshipTypes'", 'relationshipTypes'));
    assert.deepEqual(await get('/relationships?direction=INCOMING&types=List(TaggedWith)'), bad("Missing required parameter 'urn'", 'urn'));
    assert.equal((await get('/relationships?urn=notaurn&direction=INCOMING&types=List(TaggedWith)')).status, 400);
  });

  test('/entities?action=deleteReferences: a dry run counts; then the urn is taken out of every aspect that names it', async () => {
    const related = [{ entity: D1, aspect: 'globalTags', relationship: 'TaggedWith' },
      { entity: D2, aspect: 'editableSchemaMetadata', relationship: 'EditableSchemaFieldTaggedWith' }];
    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: TAG, dryRun: true }), { status: 200, body: { value: { total: 2, relatedAspects: related } } });
    assert.deepEqual((await stored(D1)).globalTags, { tags: [{ tag: TAG }, { tag: 'urn:li:tag:keep' }] });

    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: TAG, dryRun: false }), { status: 200, body: { value: { total: 2, relatedAspects: related } } });
    // An owner goes from the list; a required single reference (container) takes its aspect with it.
    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: 'urn:li:corpuser:refs' }), { status: 200, body: { value: { total: 1,
      relatedAspects: [{ entity: D1, aspect: 'ownership', relationship: 'OwnedBy' }] } } });
    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: 'urn:li:container:refs' }), { status: 200, body: { value: { total: 1,
      relatedAspects: [{ entity: D1, aspect: 'container', relationship: 'IsPartOf' }] } } });
    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: 'urn:li:domain:refs' }), { status: 200, body: { value: { total: 1,
      relatedAspects: [{ entity: D2, aspect: 'domains', relationship: 'AssociatedWith' }] } } });
    assert.deepEqual(await stored(D1), { datasetKey: key('refs_1'), globalTags: { tags: [{ tag: 'urn:li:tag:keep' }] },
      ownership: { owners: [{ owner: 'urn:li:corpuser:other', type: 'DATAOWNER' }] } });
    assert.deepEqual(await stored(D2), { datasetKey: key('refs_2'), domains: { domains: [] },
      editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: 'a', globalTags: { tags: [] } }, { fieldPath: 'b', description: 'kept' }] } });
    // Nothing refers to the tag any more.
    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: TAG }), { status: 200, body: { value: { total: 0, relatedAspects: [] } } });

    assert.deepEqual(await post('/entities?action=deleteReferences', { urn: 'not-a-urn' }), { status: 400, body: { status: 400, code: 'BAD_REQUEST',
      message: "Invalid urn: 'not-a-urn' is not a URN of the form urn:li:<entityType>:<id>", urn: 'not-a-urn' } });
    assert.deepEqual(await post('/entities?action=deleteReferences', { dryRun: true }), { status: 400, body: { status: 400, code: 'BAD_REQUEST',
      message: "Missing required parameter 'urn'", field: 'urn' } });
  });
});
