import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, readSample, SAMPLES, startApp, type TestApp } from './support/app.js';

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const NEW = 'urn:li:dataset:(urn:li:dataPlatform:hive,rest_new,PROD)';
const enc = encodeURIComponent;

forEachEngine('REST ingestion and reads', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    // The reads below need the samples whether or not the first test (which ingests them again, over HTTP) ran.
    await ingestSamples(t.catalog, ...readdirSync(SAMPLES).filter((f) => f.endsWith('.json')));
  });
  after(async () => t.close());

  const post = (url: string, payload: unknown, headers: Record<string, string> = t.auth) =>
    t.app.inject({ method: 'POST', url, headers: { ...headers, 'x-restli-protocol-version': '2.0.0' }, payload: payload as object });

  test('every sample file ingests over HTTP, record by record, under all three prefixes', async () => {
    const prefixes = ['', '/gms', '/api/gms'];
    let n = 0;
    for (const file of readdirSync(SAMPLES).filter((f) => f.endsWith('.json')).sort()) {
      const data = readSample(file);
      for (const rec of (Array.isArray(data) ? data : [data]) as Record<string, any>[]) {
        const prefix = prefixes[n++ % 3];
        if (rec.proposedSnapshot) {
          const [cls, body] = Object.entries(rec.proposedSnapshot)[0]!;
          // The REST form strips pegasus2avro, as the Python emitter does; the file form is tested via the CLI.
          const res = await post(`${prefix}/entities?action=ingest`, { entity: { value: { [cls.replace('.pegasus2avro.', '.')]: body } } });
          assert.equal(res.statusCode, 200, `${file}: ${res.body}`);
          assert.equal(res.body, '');
        } else {
          const res = await post(`${prefix}/aspects?action=ingestProposal`, { proposal: rec, async: 'false' });
          assert.equal(res.statusCode, 200, `${file}: ${res.body}`);
          assert.deepEqual(res.json(), { value: rec.entityUrn });
        }
      }
    }
    assert.equal(n, 97 + 29 + 14 + 1 + 8 + 2 + 1 + 30 + 6 + 2);
  });

  test('GET /aspects returns the latest value under its class name', async () => {
    const res = await t.app.inject({ url: `/aspects/${enc(HDFS)}?aspect=schemaMetadata&version=0`, headers: t.auth });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    // DataHub 0.12.1's VersionedAspect record: `aspect` (a union, keyed by the class name) and `version`, no urn.
    assert.deepEqual(Object.keys(body).sort(), ['aspect', 'version']);
    assert.equal(body.version, 0);
    const schema = body.aspect['com.linkedin.schema.SchemaMetadata'];
    assert.equal(schema.schemaName, 'SampleHdfsSchema');
    assert.deepEqual(schema.fields.map((f: any) => f.fieldPath), ['shipment_info', 'shipment_info.date', 'shipment_info.target',
      'shipment_info.destination', 'shipment_info.geo_info', 'shipment_info.geo_info.lat', 'shipment_info.geo_info.lng']);
    // Avro wrappers are gone, union members keep their (pegasus2avro-free) class names.
    assert.equal(schema.fields[0].description, 'Shipment info description');
    assert.deepEqual(schema.fields[0].type, { type: { 'com.linkedin.schema.RecordType': {} } });
  });

  test('a slash inside an urn may stay raw in the path, as urllib.parse.quote leaves it', async () => {
    const s3 = 'urn:li:dataset:(urn:li:dataPlatform:s3,project/root/events/logging_events_bckp,PROD)';
    const res = await t.app.inject({ url: `/gms/aspects/${encodeURIComponent(s3).replace(/%2F/g, '/')}?aspect=datasetProperties`, headers: t.auth });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().aspect, { 'com.linkedin.dataset.DatasetProperties': { description: 's3 backup of logging events',
      tags: [], customProperties: { encoding: 'utf-8' } } });
  });

  test('re-ingesting the same value makes no version; a new value moves the old one to history', async () => {
    const proposal = (description: string) => ({ entityType: 'dataset', entityUrn: NEW, changeType: 'UPSERT', aspectName: 'datasetProperties',
      aspect: { value: JSON.stringify({ description, customProperties: {} }), contentType: 'application/json' },
      systemMetadata: { lastObserved: 1700000000000, runId: 'run-1' } });
    for (const d of ['one', 'one', 'two']) assert.equal((await post('/aspects?action=ingestProposal', { proposal: proposal(d) })).statusCode, 200);
    const v0 = await t.app.inject({ url: `/aspects/${enc(NEW)}?aspect=datasetProperties`, headers: t.auth });
    const v1 = await t.app.inject({ url: `/aspects/${enc(NEW)}?aspect=datasetProperties&version=1`, headers: t.auth });
    const v2 = await t.app.inject({ url: `/aspects/${enc(NEW)}?aspect=datasetProperties&version=2`, headers: t.auth });
    assert.deepEqual(v0.json().aspect, { 'com.linkedin.dataset.DatasetProperties': { description: 'two', customProperties: {} } });
    assert.deepEqual(v1.json().aspect, { 'com.linkedin.dataset.DatasetProperties': { description: 'one', customProperties: {} } });
    assert.equal(v2.statusCode, 404);
  });

  test('MCPs with an inline json aspect and Avro-wrapped values are accepted', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,rest_wrapped,PROD)';
    const res = await post('/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT',
      aspectName: 'status', aspect: { json: { removed: false } } } });
    assert.equal(res.statusCode, 200);
    assert.deepEqual((await t.catalog.entities.getAspect(urn, 'status')).value, { removed: false });
    const props = await post('/entities?action=ingest', { entity: { value: { 'com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot': {
      urn, aspects: [{ 'com.linkedin.pegasus2avro.dataset.DatasetProperties': { description: { string: 'wrapped' }, externalUrl: null } }] } } } });
    assert.equal(props.statusCode, 200);
    const read = await t.app.inject({ url: `/aspects/${enc(urn)}?aspect=datasetProperties`, headers: t.auth });
    assert.deepEqual(read.json().aspect, { 'com.linkedin.dataset.DatasetProperties': { description: 'wrapped' } });
  });

  test('entitiesV2 returns enveloped aspects, the key aspect included, each value the aspect itself', async () => {
    assert.equal((await post('/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: NEW, changeType: 'UPSERT',
      aspectName: 'status', aspect: { json: { removed: false } }, systemMetadata: { lastObserved: 1700000000000, runId: 'run-v2' } } })).statusCode, 200);
    const res = await t.app.inject({ url: `/entitiesV2/${enc(NEW)}?aspects=List(status,datasetKey)`, headers: t.auth });
    assert.equal(res.statusCode, 200);
    const stamp = async (aspect: string) => {
      const r = await t.catalog.entities.getAspect(NEW, aspect);
      return { time: r.createdOn, actor: r.createdBy };
    };
    // EnvelopedAspect.value is DataHub's open `Aspect` record: the aspect's own fields, not a union keyed by class.
    const expected = { entityName: 'dataset', urn: NEW, aspects: {
      // The key aspect carries the system metadata of the proposal that brought the entity (this one's, or an earlier
      // test's), as in DataHub: a rollback of that run finds it.
      datasetKey: { name: 'datasetKey', type: 'VERSIONED', version: 0, created: await stamp('datasetKey'),
        value: { platform: 'urn:li:dataPlatform:hive', name: 'rest_new', origin: 'PROD' },
        systemMetadata: (await t.catalog.entities.getAspect(NEW, 'datasetKey')).systemMetadata },
      status: { name: 'status', type: 'VERSIONED', version: 0, created: await stamp('status'), value: { removed: false },
        systemMetadata: (await t.catalog.entities.getAspect(NEW, 'status')).systemMetadata },
    } };
    assert.deepEqual(res.json(), expected);
    assert.equal(expected.aspects.status.created.actor, 'urn:li:corpuser:datahub');
    assert.equal(expected.aspects.status.systemMetadata?.runId, 'run-v2');
    const batch = await t.app.inject({ url: `/entitiesV2?ids=List(${enc(NEW)},${enc('urn:li:tag:none')})&aspects=List(status,datasetKey)`, headers: t.auth });
    assert.deepEqual(batch.json(), { results: { [NEW]: expected }, statuses: {}, errors: {} });
    assert.equal((await t.app.inject({ url: `/entitiesV2/${enc('urn:li:tag:none')}`, headers: t.auth })).statusCode, 404);
  });

  test('every REST collection answers with or without a trailing slash, under every prefix, as Rest.li does', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,rest_slash,PROD)';
    for (const prefix of ['', '/gms', '/api/gms']) {
      // What `datahub put` sends: POST /aspects/?action=ingestProposal.
      const res = await post(`${prefix}/aspects/?action=ingestProposal`, { proposal: { entityType: 'dataset', entityUrn: urn, changeType: 'UPSERT',
        aspectName: 'datasetProperties', aspect: { contentType: 'application/json', value: JSON.stringify({ description: `via ${prefix || '/'}` }) } },
        async: 'false' });
      assert.deepEqual([res.statusCode, res.json()], [200, { value: urn }]);
      assert.deepEqual((await t.catalog.entities.getAspect(urn, 'datasetProperties')).value, { description: `via ${prefix || '/'}` });
      for (const resource of ['aspects', 'entities', 'usageStats', 'operations', 'test']) {
        const noSuch = await post(`${prefix}/${resource}/?action=noSuchAction`, {});
        assert.equal(noSuch.statusCode, 400, `${prefix}/${resource}/: ${noSuch.body}`);
        assert.match(noSuch.json().message, new RegExp(`^Unknown action 'noSuchAction' on /${resource}; known: `));
      }
      const slash = await t.app.inject({ url: `${prefix}/entitiesV2/?ids=List(${enc(urn)})&aspects=List(datasetProperties)`, headers: t.auth });
      const bare = await t.app.inject({ url: `${prefix}/entitiesV2?ids=List(${enc(urn)})&aspects=List(datasetProperties)`, headers: t.auth });
      assert.equal(slash.statusCode, 200, slash.body);
      assert.deepEqual(slash.json(), bare.json());
      assert.deepEqual(Object.keys(slash.json().results), [urn]);
    }
  });

  test('GET /aspects of a malformed urn is a 400 naming the urn', async () => {
    const cases: [string, string][] = [
      ['urn:li:dataset:foo', "Invalid urn 'urn:li:dataset:foo': a dataset urn has 3 key parts (platform, name, origin), this one has 1"],
      ['urn:li:dataset:(urn:li:dataPlatform:hive,x)', "Invalid urn 'urn:li:dataset:(urn:li:dataPlatform:hive,x)': a dataset urn has 3 key parts (platform, name, origin), this one has 2"],
      ['urn:li:noSuchType:x', "Invalid urn 'urn:li:noSuchType:x': unknown entity type 'noSuchType'"],
    ];
    for (const [urn, message] of cases) {
      const res = await t.app.inject({ url: `/aspects/${enc(urn)}?aspect=status`, headers: t.auth });
      assert.deepEqual([res.statusCode, res.json()], [400, { status: 400, code: 'BAD_REQUEST', message, urn }]);
    }
    // A well-formed urn of nothing stored stays a 404.
    const missing = 'urn:li:dataset:(urn:li:dataPlatform:hive,rest_never,PROD)';
    const res = await t.app.inject({ url: `/aspects/${enc(missing)}?aspect=status`, headers: t.auth });
    assert.deepEqual([res.statusCode, res.json()], [404, { status: 404, code: 'NOT_FOUND',
      message: `Aspect status (version 0) of ${missing} not found`, urn: missing, aspect: 'status' }]);
  });

  test('GET /config identifies a GMS of 0.12.1', async () => {
    const res = await t.app.inject({ url: '/config', headers: t.auth });
    const body = res.json();
    assert.equal(body.noCode, 'true');
    assert.equal(body.versions['linkedin/datahub'].version, 'v0.12.1');
    assert.match(body.versions.almanac.version, /^\d+\.\d+\.\d+$/);
    assert.equal(body.versions.almanac.engine, ctx.engine);
  });

  test('GET /health needs no token', async () => {
    for (const url of ['/health', '/gms/health', '/api/gms/health']) {
      const res = await t.app.inject({ url });
      assert.deepEqual([res.statusCode, res.json()], [200, { status: 'ok' }]);
    }
  });

  test('bad input is refused with its own status and changes nothing', async () => {
    const countBefore = await t.catalog.store.countEntities();
    const cases: [string, unknown, number, RegExp][] = [
      ['/aspects?action=ingestProposal', '{"proposal": ', 400, /^Malformed JSON/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'nope', entityUrn: 'urn:li:nope:x', aspectName: 'status',
        aspect: { json: {} } } }, 422, /^Unknown entity type 'nope'/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:x,y,PROD)',
        aspectName: 'noSuchAspect', aspect: { json: {} } } }, 422, /^Unknown aspect 'noSuchAspect'/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'tag', entityUrn: 'urn:li:tag:t', aspectName: 'schemaMetadata',
        aspect: { json: {} } } }, 422, /^Aspect 'schemaMetadata' is not an aspect of entity type 'tag'/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:x,y,PROD)',
        aspectName: 'status', aspect: { json: { removed: 'yes' } } } }, 422, /removed/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: 'urn:li:dataset:(a,b', aspectName: 'status',
        aspect: { json: { removed: false } } } }, 400, /^Invalid urn in entityUrn/],
      ['/aspects?action=ingestProposal', { proposal: { entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:x,y,PROD)',
        aspectName: 'status', aspect: { value: '{not json', contentType: 'application/json' } } }, 400, /^aspect.value is not valid JSON/],
      ['/aspects?action=noSuchAction', {}, 400, /^Unknown action 'noSuchAction'/],
      ['/entities?action=ingest', { entity: { value: { 'com.linkedin.metadata.snapshot.DatasetSnapshot': {
        urn: 'urn:li:dataset:(urn:li:dataPlatform:x,y,PROD)', aspects: [
          { 'com.linkedin.common.Status': { removed: false } },
          { 'com.linkedin.dataset.DatasetProperties': { customProperties: 'not a map' } }] } } } }, 422, /customProperties/],
    ];
    for (const [url, payload, status, message] of cases) {
      const res = await t.app.inject({ method: 'POST', url, headers: { ...t.auth, 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
      assert.equal(res.statusCode, status, `${url} ${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().status, status);
      assert.match(res.json().message, message);
    }
    assert.equal(await t.catalog.store.countEntities(), countBefore);
  });

  test('an oversized body is 413 and stores nothing', async () => {
    const small = await startApp(ctx, { bodyLimit: 4096 });
    try {
      const res = await small.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: small.auth,
        payload: { proposal: { entityType: 'tag', entityUrn: 'urn:li:tag:big', aspectName: 'tagProperties',
          aspect: { json: { name: 'x'.repeat(8000) } } } } });
      assert.equal(res.statusCode, 413);
      assert.equal((await small.catalog.store.existing(['urn:li:tag:big'])).size, 0);
    } finally {
      await small.close();
    }
  });

  test('a user without EDIT_ENTITY may not ingest: 403 and nothing is stored', async () => {
    const token = await t.tokenFor('jdoe');
    const res = await post('/aspects?action=ingestProposal', { proposal: { entityType: 'tag', entityUrn: 'urn:li:tag:jdoes',
      aspectName: 'tagProperties', aspect: { json: { name: 'x' } } } }, { authorization: `Bearer ${token}` });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().message, 'Unauthorized to perform this action. Please contact your DataHub administrator.');
    assert.equal((await t.catalog.store.existing(['urn:li:tag:jdoes'])).size, 0);
  });

  test('entities?action=delete removes the entity and reports rows', async () => {
    const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,rest_deleted,PROD)';
    const write = (aspectName: string, json: object) => post('/aspects?action=ingestProposal', { proposal: { entityType: 'dataset',
      entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { json } } });
    for (const [aspect, value] of [['status', { removed: false }], ['datasetProperties', { description: 'one' }],
      ['datasetProperties', { description: 'two' }]] as const) assert.equal((await write(aspect, value)).statusCode, 200);
    const res = await post('/entities?action=delete', { urn });
    assert.equal(res.statusCode, 200);
    // status, datasetProperties and its one history row, and the key aspect
    assert.deepEqual(res.json(), { value: { urn, rows: 4, timeseriesRows: 0 } });
    assert.equal((await t.app.inject({ url: `/aspects/${enc(urn)}?aspect=status`, headers: t.auth })).statusCode, 404);
    assert.equal((await post('/entities?action=delete', { urn })).statusCode, 404);
  });
});
