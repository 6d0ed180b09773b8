import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { aspectDef, aspectNameOfClass } from '../src/entities/index.js';
import { normaliseAspectValue } from '../src/model/wire-format.js';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles, type FileIngestSummary } from '../src/services/ingest-files.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * Golden files of DataHub 1.5's connectors (test/fixtures/connectors-1.5: BI, SQL, pipelines, ML, identity), whose
 * output carries entity types and aspects DataHub 0.12.1 never had. Each is ingested whole on both engines with not
 * one record refused, and what they wrote reads back: by the service for every record, and over REST (/aspects,
 * /entitiesV2, /entities), GraphQL (`aspects`, entity(urn:)), the change log, relationships and search for the
 * later model's examples.
 */
const DIR = path.resolve(import.meta.dirname, 'fixtures/connectors-1.5');
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
const enc = encodeURIComponent;

const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(db2,TESTDB.PROCEDURES.stored_procedures,PROD),MYPROCEDURE)';
const RESOURCE = 'urn:li:platformResource:1bbe5a4af9f91bbd2b4dd90c552008e1';
const MODEL = 'urn:li:mlModel:(urn:li:dataPlatform:mlflow,test-model_1,PROD)';
const RUN = 'urn:li:dataProcessInstance:2666299269d6ebea994d5ec0c29e3aca';
const RUN_CONTAINER = 'urn:li:container:e37dbaee9481246e0997d7d8fefd8815';
const QUERY = 'urn:li:query:3f2c70007dcf02cfbf95b647fa8aed2c46e638b17c371f214707e489438a2453';

test('the 1.x fixtures folder holds at least 30 golden files, each with its NOTICE line', () => {
  assert.ok(FILES.length >= 30, `expected at least 30 golden files in ${DIR}, found ${FILES.length}`);
  const notice = readFileSync(path.join(DIR, 'NOTICE'), 'utf8').split('\n');
  const unlisted = FILES.filter((f) => !notice.some((l) => l.startsWith(`${f}: from datahub-project/datahub 1.5 (commit 115e90599a77c797d55a2c10b716eb476cbd5b02`)
    && l.endsWith('(Apache License 2.0)')));
  assert.deepEqual(unlisted, [], 'every fixture has its NOTICE line');
});

/** The last versioned (non-key, non-time-series) value each file's UPSERTs and snapshots leave, per urn and aspect. */
function expectedValues(file: string): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const keep = (urn: string, aspect: string | undefined, value: unknown) => {
    const def = aspect ? aspectDef(aspect) : undefined;
    if (!def || def.timeseries || def.name.endsWith('Key')) return;
    out.set(`${urn} ${def.name}`, normaliseAspectValue(value));
  };
  for (const rec of JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as any[]) {
    if (rec.proposedSnapshot) {
      const body = Object.values(rec.proposedSnapshot)[0] as { urn: string; aspects: object[] };
      for (const a of body.aspects) {
        const [cls, v] = Object.entries(a)[0]!;
        keep(body.urn, aspectNameOfClass(cls), v);
      }
    } else if ((rec.changeType ?? 'UPSERT') === 'UPSERT') {
      keep(rec.entityUrn, rec.aspectName, rec.aspect.json ?? JSON.parse(rec.aspect.value));
    } else {
      out.delete(`${rec.entityUrn} ${rec.aspectName}`); // patched: what it holds depends on what came before
    }
  }
  return out;
}

forEachEngine('DataHub 1.5 connector golden files', (ctx) => {
  let t: TestApp;
  const summaries = new Map<string, FileIngestSummary>();
  let headBefore = 0;
  before(async () => {
    t = await startApp(ctx);
    headBefore = (await t.app.inject({ url: '/api/changes', headers: t.auth })).json().head;
    for (const f of FILES) summaries.set(f, await ingestFiles(t.catalog.entities, [path.join(DIR, f)], systemActor()));
    await t.catalog.changeLog.catchUpIndexes();
  });
  after(async () => t?.close());

  const get = async (url: string) => {
    const res = await t.app.inject({ url, headers: t.auth });
    assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    return res.json();
  };
  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  test('no record of any golden file is refused', () => {
    const refused = FILES.flatMap((f) => summaries.get(f)!.failures.map((x) => `${f}#${x.index} ${x.urn ?? ''}: ${x.reason}`));
    assert.deepEqual(refused, []);
    for (const f of FILES) assert.ok(summaries.get(f)!.records > 0, `${f} holds records`);
  });

  test('every versioned aspect a file sent reads back as sent (the last value per entity and aspect)', async () => {
    // Files are ingested in name order and later files may write the same aspect: each is compared with the last writer.
    const expected = new Map<string, unknown>();
    for (const f of FILES) for (const [k, v] of expectedValues(f)) expected.set(k, v);
    const byUrn = new Map<string, [string, unknown][]>();
    for (const [k, v] of expected) {
      const [urn, aspect] = [k.slice(0, k.lastIndexOf(' ')), k.slice(k.lastIndexOf(' ') + 1)];
      byUrn.set(urn, [...(byUrn.get(urn) ?? []), [aspect, v]]);
    }
    let n = 0;
    for (const [urn, aspects] of byUrn) {
      const stored = await t.catalog.entities.getLatest(urn);
      for (const [aspect, v] of aspects) {
        assert.deepEqual(stored.get(aspect)?.value, v, `${urn} ${aspect}`);
        n++;
      }
    }
    assert.ok(n > 1000, `compared ${n} aspects`);
  });

  test('REST: /aspects, /entitiesV2 and /entities serve the later aspects and entity types', async () => {
    const logic = await get(`/aspects/${enc(JOB)}?aspect=dataTransformLogic&version=0`);
    assert.deepEqual(logic, { version: 0, aspect: { 'com.linkedin.common.DataTransformLogic': { transforms: [{ queryStatement: {
      value: 'create procedure procedures.myprocedure()\nlanguage sql\nbegin\n  insert into target_table (id) select id from source_table;\nend', language: 'SQL' } }] } } });
    const v2 = await get(`/entitiesV2/${enc(RESOURCE)}`);
    assert.equal(v2.entityName, 'platformResource');
    assert.deepEqual(Object.keys(v2.aspects).sort(), ['platformResourceInfo', 'platformResourceKey', 'status']);
    assert.deepEqual(v2.aspects.platformResourceInfo.value, { resourceType: 'user', primaryKey: 'unknown' });
    assert.deepEqual(v2.aspects.platformResourceKey.value, { id: '1bbe5a4af9f91bbd2b4dd90c552008e1' });
    const legacy = await get(`/entities/${enc(MODEL)}`);
    const aspects = legacy.value['com.linkedin.metadata.snapshot.MLModelSnapshot'].aspects as Record<string, unknown>[];
    assert.deepEqual(aspects.find((a) => 'com.linkedin.common.VersionProperties' in a), { 'com.linkedin.common.VersionProperties': {
      versionSet: 'urn:li:versionSet:(658730e7177b283e4f94410fe4b41519,mlModel)',
      version: { versionTag: '1', metadataAttribution: { time: 1615443388097, actor: 'urn:li:corpuser:datahub', sourceDetail: {} } },
      aliases: [], sortId: '0000000001', versioningScheme: 'LEXICOGRAPHIC_STRING' } });
    // Unity Catalog patches ownership in 1.x's {patch, arrayPrimaryKeys} form.
    const unity = await get(`/aspects/${enc('urn:li:dataset:(urn:li:dataPlatform:databricks,quickstart_catalog.quickstart_schema.quickstart_table,PROD)')}?aspect=ownership`);
    assert.deepEqual(unity.aspect['com.linkedin.common.Ownership'].owners, [{ owner: 'urn:li:corpuser:account users', type: 'DATAOWNER' }]);
    const q = await get(`/aspects/${enc(QUERY)}?aspect=dataPlatformInstance`);
    assert.deepEqual(q.aspect, { 'com.linkedin.common.DataPlatformInstance': { platform: 'urn:li:dataPlatform:snowflake' } });
  });

  test('GraphQL: `aspects` on the 0.12.1 types and on GenericEntity, entity(urn:) of a later type', async () => {
    const data = await ok(`{
      job: entity(urn: "${JOB}") { __typename ... on DataJob { aspects { aspectName } } }
      resource: entity(urn: "${RESOURCE}") { __typename urn type ... on GenericEntity { aspects { aspectName payload } } }
      model: mlModel(urn: "${MODEL}") { aspects { aspectName } }
    }`);
    assert.ok(data.job.aspects.some((a: any) => a.aspectName === 'dataTransformLogic'), JSON.stringify(data.job));
    assert.deepEqual(data.resource, { __typename: 'GenericEntity', urn: RESOURCE, type: 'OTHER', aspects: [
      { aspectName: 'platformResourceKey', payload: JSON.stringify({ id: '1bbe5a4af9f91bbd2b4dd90c552008e1' }) },
      { aspectName: 'platformResourceInfo', payload: JSON.stringify({ resourceType: 'user', primaryKey: 'unknown' }) },
      { aspectName: 'status', payload: JSON.stringify({ removed: false }) },
    ] });
    assert.ok(data.model.aspects.some((a: any) => a.aspectName === 'versionProperties'), JSON.stringify(data.model));
  });

  test('a later aspect the descriptors model is indexed: a run\'s container is an IsPartOf edge, a version set a VersionOf edge', async () => {
    assert.deepEqual((await t.catalog.relationships.list({ urn: RUN, direction: 'OUTGOING', types: ['IsPartOf'] })).edges,
      [{ source: RUN, type: 'IsPartOf', destination: RUN_CONTAINER }]);
    assert.deepEqual((await t.catalog.relationships.list({ urn: MODEL, direction: 'OUTGOING', types: ['VersionOf'] })).edges,
      [{ source: MODEL, type: 'VersionOf', destination: 'urn:li:versionSet:(658730e7177b283e4f94410fe4b41519,mlModel)' }]);
  });

  test('the change log carries the later aspects', async () => {
    const page = await get(`/api/changes?since=${headBefore}&limit=1000&aspect=dataTransformLogic`);
    const events = (page.events as any[]).filter((e) => e.entityUrn === JOB);
    assert.deepEqual(events.map((e) => [e.entityType, e.changeType, e.aspectName, JSON.parse(e.aspect.value)]), [['dataJob', 'UPSERT', 'dataTransformLogic',
      (await t.catalog.entities.getAspect(JOB, 'dataTransformLogic')).value]]);
  });
});
