import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

// The four operations of the seed interface, verbatim in shape, against the DataHub samples on both engines.
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

forEachEngine('GraphQL: seed operations', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  test('dataset returns properties.description and column descriptions', async () => {
    const res = await t.graphql(`query {
      dataset(urn: "${HIVE}") { urn properties { description } schemaMetadata { fields { fieldPath description } } }
    }`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      data: {
        dataset: {
          urn: HIVE,
          properties: null,
          schemaMetadata: { fields: [
            { fieldPath: 'field_foo', description: 'Foo field description' },
            { fieldPath: 'field_bar', description: 'Bar field description' },
          ] },
        },
      },
      extensions: {},
    });
  });

  test('updateDataset sets the description and a link, both readable afterwards', async () => {
    const res = await t.graphql(`mutation updateDataset {
      updateDataset(
        urn: "${HDFS}",
        input: {
          editableProperties: { description: "## The HDFS sample\\n\\nShipments, *daily*." }
          institutionalMemory: { elements: {
            author: "urn:li:corpuser:jdoe", url: "https://wiki.example.com/hdfs", description: "Runbook" } }
        }
      ) { urn }
    }`);
    assert.deepEqual(res.body, { data: { updateDataset: { urn: HDFS } }, extensions: {} });
    const read = await t.graphql(`{ dataset(urn: "${HDFS}") {
      properties { description }
      editableProperties { description }
      institutionalMemory { elements { url label description author { urn username } } }
    } }`);
    assert.deepEqual(read.body, {
      data: { dataset: {
        properties: { description: '## The HDFS sample\n\nShipments, *daily*.' },
        editableProperties: { description: '## The HDFS sample\n\nShipments, *daily*.' },
        institutionalMemory: { elements: [{ url: 'https://wiki.example.com/hdfs', label: 'Runbook', description: 'Runbook',
          author: { urn: 'urn:li:corpuser:jdoe', username: 'jdoe' } }] },
      } },
      extensions: {},
    });
    const stored = await t.catalog.entities.getAspect(HDFS, 'institutionalMemory');
    assert.equal(stored.createdBy, 'urn:li:corpuser:datahub');
    const el = (stored.value as { elements: { createStamp: { actor: string; time: number } }[] }).elements[0]!;
    assert.equal(el.createStamp.actor, 'urn:li:corpuser:jdoe');
    assert.ok(Math.abs(el.createStamp.time - Date.now()) < 60_000, `stamped ${el.createStamp.time}, now`);
  });

  test('updateDescription with a block string changes one column and leaves its neighbours', async () => {
    const res = await t.graphql(`mutation updateDescription {
      updateDescription(
        input: {
          description: """
          The date the shipment left.
          Uses **UTC**.
          """,
          resourceUrn: "${HDFS}",
          subResource: "shipment_info.date",
          subResourceType: DATASET_FIELD
        }
      )
    }`);
    assert.deepEqual(res.body, { data: { updateDescription: true }, extensions: {} });
    const read = await t.graphql(`{ dataset(urn: "${HDFS}") {
      schemaMetadata { fields { fieldPath description } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description } }
    } }`);
    const fields = read.body.data.dataset.schemaMetadata.fields;
    assert.deepEqual(fields.slice(0, 3), [
      { fieldPath: 'shipment_info', description: 'Shipment info description' },
      { fieldPath: 'shipment_info.date', description: 'The date the shipment left.\nUses **UTC**.' },
      { fieldPath: 'shipment_info.target', description: 'Shipment info target description' },
    ]);
    // The sample's own edit of shipment_info (tags only) is kept next to the new one.
    assert.deepEqual(read.body.data.dataset.editableSchemaMetadata.editableSchemaFieldInfo, [
      { fieldPath: 'shipment_info', description: null },
      { fieldPath: 'shipment_info.date', description: 'The date the shipment left.\nUses **UTC**.' },
    ]);
  });

  test('createTag returns the new urn; its properties read back', async () => {
    const res = await t.graphql(`mutation createTag {
      createTag(input: { id: "deprecated", name: "Deprecated", description: "Having this tag means this column or table is deprecated." })
    }`);
    assert.deepEqual(res.body, { data: { createTag: 'urn:li:tag:deprecated' }, extensions: {} });
    const read = await t.graphql(`{ tag(urn: "urn:li:tag:deprecated") { urn type name properties { name description colorHex }
      ownership { owners { owner { ... on CorpUser { urn } } type ownershipType { urn } } } } }`);
    assert.deepEqual(read.body, { data: { tag: {
      urn: 'urn:li:tag:deprecated', type: 'TAG', name: 'deprecated',
      properties: { name: 'Deprecated', description: 'Having this tag means this column or table is deprecated.', colorHex: null },
      ownership: { owners: [{ owner: { urn: 'urn:li:corpuser:datahub' }, type: 'TECHNICAL_OWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__technical_owner' } }] },
    } }, extensions: {} });
  });

  test('createTag without an id makes a UUID urn', async () => {
    const res = await t.graphql('mutation { createTag(input: { name: "No id" }) }');
    assert.match(res.body.data.createTag, /^urn:li:tag:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });
});
