import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { rootActor } from '../src/model/actor.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { runCli } from './support/processes.js';

const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
const READ = `{ dataset(urn: "${HIVE}") { urn properties { description } editableProperties { description }
  schemaMetadata { fields { fieldPath description } } ownership { owners { owner { ... on CorpUser { urn username } } } } } }`;

forEachEngine('reused GraphQL answers', (ctx) => {
  let t: TestApp;
  let cleanup = async () => {};
  before(async () => {
    // SQLite on a file: the CLI (another process) writes the same database in one of the tests.
    if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite'));
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => { await t?.close(); await cleanup(); });

  const description = async (headers?: Record<string, string>) => {
    const res = await t.graphql(READ, undefined, headers);
    assert.equal(res.status, 200);
    return res.body;
  };

  test('a repeated query is answered from the kept answer, identical to a fresh one', async () => {
    t.catalog.responses.clear();
    // The first read counts as a view of the dataset (recently viewed): a write, so that answer is not kept.
    const first = await description();
    assert.equal(t.catalog.responses.size.answers, 0);
    assert.deepEqual(await description(), first);
    assert.equal(t.catalog.responses.size.answers, 1);
    assert.deepEqual(await description(), first);
    assert.equal(first.data.dataset.urn, HIVE);
  });

  test('a write through GraphQL, REST or the services is seen by the very next read', async () => {
    await description();
    const edit = await t.graphql(`mutation { updateDescription(input: { description: "edited once", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual(edit.body.data, { updateDescription: true });
    assert.equal((await description()).data.dataset.editableProperties.description, 'edited once');

    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth, payload: { proposal: {
      entityType: 'dataset', entityUrn: HIVE, changeType: 'UPSERT', aspectName: 'editableDatasetProperties',
      aspect: { contentType: 'application/json', value: JSON.stringify({ description: 'edited over REST' }) } } } });
    assert.equal(res.statusCode, 200);
    assert.equal((await description()).data.dataset.editableProperties.description, 'edited over REST');

    // A column's description lives in another aspect of the same entity.
    await t.catalog.edits.updateDescription({ resourceUrn: HIVE, subResourceType: 'DATASET_FIELD', subResource: 'user_name',
      description: 'the name, edited' }, rootActor());
    const fields = (await description()).data.dataset.schemaMetadata.fields as { fieldPath: string; description: string | null }[];
    assert.equal(fields.find((f) => f.fieldPath === 'user_name')!.description, 'the name, edited');
  });

  test('an answer read through another entity is dropped when that entity changes (the owner\'s name)', async () => {
    const owners = (await description()).data.dataset.ownership.owners as { owner: { urn: string; username: string } }[];
    assert.ok(owners.length > 0, 'the dataset has owners');
    const owner = owners[0]!.owner.urn;
    const q = `{ dataset(urn: "${HIVE}") { ownership { owners { owner { ... on CorpUser { urn properties { displayName } } } } } } }`;
    await t.graphql(q);
    await t.catalog.entities.ingest([{ urn: owner, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
      value: { active: true, displayName: 'Renamed Owner' }, systemMetadata: null }], rootActor());
    const after = (await t.graphql(q)).body.data.dataset.ownership.owners as { owner: { urn: string; properties: { displayName: string } } }[];
    assert.equal(after.find((o) => o.owner.urn === owner)!.owner.properties.displayName, 'Renamed Owner');
  });

  test('an answer is never given to another actor: one refused by policy stays refused', async () => {
    const carol = { authorization: `Bearer ${await t.tokenFor('carol')}` };
    const rootAnswer = await description();
    assert.equal(rootAnswer.data.dataset.urn, HIVE);
    const viewAll = await t.catalog.policies.get('urn:li:dataHubPolicy:view-entity-page-all');
    await t.catalog.policies.update(viewAll.urn, { ...viewAll.info, state: 'INACTIVE' }, rootActor());
    try {
      const refused = await description(carol);
      assert.deepEqual(refused.data, { dataset: null });
      assert.equal(refused.errors[0].extensions.code, 403);
      // Root still reads, from a fresh answer (the policy change dropped every kept answer).
      assert.deepEqual(await description(), rootAnswer);
    } finally {
      await t.catalog.policies.update(viewAll.urn, { ...viewAll.info, state: 'ACTIVE' }, rootActor());
    }
    // Switched back on: carol reads, and her answer is her own.
    assert.deepEqual((await description(carol)).data, rootAnswer.data);
  });

  test('answers that read edges into an entity, or its time series, follow the writes of other entities and new rows', async () => {
    const incoming = `{ dataset(urn: "${HIVE}") { relationships(input: { types: ["DownstreamOf"], direction: INCOMING }) { total } } }`;
    const profiles = `{ dataset(urn: "${HIVE}") { datasetProfiles(limit: 5) { rowCount } } }`;
    const before = (await t.graphql(incoming)).body.data.dataset.relationships.total as number;
    await t.graphql(incoming);
    const profileCount = ((await t.graphql(profiles)).body.data.dataset.datasetProfiles as unknown[]).length;
    await t.graphql(profiles);
    const child = 'urn:li:dataset:(urn:li:dataPlatform:hive,child_of_cached,PROD)';
    await t.catalog.entities.ingest([
      { urn: child, entityType: 'dataset', aspect: 'upstreamLineage', changeType: 'UPSERT', systemMetadata: null,
        value: { upstreams: [{ dataset: HIVE, type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] } },
      { urn: HIVE, entityType: 'dataset', aspect: 'datasetProfile', changeType: 'UPSERT', systemMetadata: null,
        value: { timestampMillis: 1_700_000_000_000, rowCount: 4242, columnCount: 3 } },
    ], rootActor());
    assert.equal((await t.graphql(incoming)).body.data.dataset.relationships.total, before + 1);
    const after = (await t.graphql(profiles)).body.data.dataset.datasetProfiles as { rowCount: number }[];
    assert.equal(after.length, Math.min(profileCount + 1, 5));
    assert.ok(after.some((p) => p.rowCount === 4242), JSON.stringify(after));
  });

  test('answers that read search are not kept', async () => {
    t.catalog.responses.clear();
    const search = await t.graphql('{ search(input: { type: DATASET, query: "users" }) { total } }');
    assert.ok(search.body.data.search.total >= 1, JSON.stringify(search.body));
    assert.equal(t.catalog.responses.size.answers, 0);
  });

  if (ctx.engine === 'sqlite') {
    test('a write by another process on the same file is seen by the next read (SQLite)', async () => {
      await description();
      const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-cache-'));
      const file = path.join(dir, 'edit.json');
      writeFileSync(file, JSON.stringify([{ entityType: 'dataset', entityUrn: HIVE, changeType: 'UPSERT', aspectName: 'editableDatasetProperties',
        aspect: { json: { description: 'edited by the CLI' } } }]));
      const cli = await runCli(['ingest', file], { DATABASE_URL: ctx.url });
      assert.equal(cli.code, 0, cli.stderr);
      assert.equal((await description()).data.dataset.editableProperties.description, 'edited by the CLI');
    });
  }
});
