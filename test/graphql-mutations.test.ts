import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const LEGACY = 'urn:li:tag:Legacy';
const NEEDS_DOCS = 'urn:li:tag:NeedsDocumentation';
const ROOT = 'urn:li:corpuser:datahub';

forEachEngine('GraphQL: label, link, owner and description mutations', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const ok = async (query: string, variables?: Record<string, unknown>) => {
    const res = await t.graphql(query, variables);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  const tagsOf = async (urn: string) =>
    (await ok(`{ dataset(urn: "${urn}") { tags { tags { tag { urn } } } } }`)).dataset.tags?.tags.map((x: any) => x.tag.urn);

  test('addTag is idempotent and stamps a new version with the caller', async () => {
    assert.deepEqual(await ok(`mutation { addTag(input: { tagUrn: "${NEEDS_DOCS}", resourceUrn: "${HIVE}" }) }`), { addTag: true });
    assert.deepEqual(await ok(`mutation { addTag(input: { tagUrn: "${NEEDS_DOCS}", resourceUrn: "${HIVE}" }) }`), { addTag: true });
    assert.deepEqual(await tagsOf(HIVE), [LEGACY, NEEDS_DOCS]);
    const versions = await t.catalog.store.listVersions(HIVE, 'globalTags');
    assert.deepEqual(versions.map((v) => [v.version, v.createdBy]), [[0, ROOT], [1, 'urn:li:corpuser:__datahub_system']]);
  });

  test('removeTag takes the tag off again', async () => {
    await ok(`mutation { removeTag(input: { tagUrn: "${NEEDS_DOCS}", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual(await tagsOf(HIVE), [LEGACY]);
  });

  test('a column tag shows in editableSchemaMetadata alone; schemaMetadata keeps the ingested tags, as in DataHub', async () => {
    await ok(`mutation { addTags(input: { tagUrns: ["${LEGACY}"], resourceUrn: "${KAFKA}",
      subResource: "[version=2.0].[type=boolean].field_foo_2", subResourceType: DATASET_FIELD }) }`);
    const data = await ok(`{ dataset(urn: "${KAFKA}") {
      schemaMetadata { fields { fieldPath tags { tags { tag { urn name properties { name } } } } } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath tags { tags { tag { urn } } } } } } }`);
    assert.deepEqual(data.dataset.schemaMetadata.fields[0], { fieldPath: '[version=2.0].[type=boolean].field_foo_2', tags: { tags: [
      { tag: { urn: NEEDS_DOCS, name: 'NeedsDocumentation', properties: { name: 'NeedsDocumentation' } } },
    ] } });
    assert.equal(data.dataset.schemaMetadata.fields[1].tags, null);
    assert.deepEqual(data.dataset.editableSchemaMetadata, { editableSchemaFieldInfo: [
      { fieldPath: '[version=2.0].[type=boolean].field_foo_2', tags: { tags: [{ tag: { urn: LEGACY } }] } }] });
  });

  test('batchAddTags applies to every resource or to none', async () => {
    const before = [await tagsOf(HDFS), await tagsOf(KAFKA)];
    const res = await t.graphql(`mutation { batchAddTags(input: { tagUrns: ["${NEEDS_DOCS}"], resources: [
      { resourceUrn: "${HDFS}" }, { resourceUrn: "${KAFKA}", subResource: "no_such_field", subResourceType: DATASET_FIELD }] }) }`);
    assert.equal(res.body.errors[0].extensions.code, 404);
    assert.deepEqual([await tagsOf(HDFS), await tagsOf(KAFKA)], before);
    await ok(`mutation { batchAddTags(input: { tagUrns: ["${NEEDS_DOCS}"], resources: [{ resourceUrn: "${HDFS}" }, { resourceUrn: "${KAFKA}" }] }) }`);
    assert.deepEqual([await tagsOf(HDFS), await tagsOf(KAFKA)], [[NEEDS_DOCS], [NEEDS_DOCS]]);
    await ok(`mutation { batchRemoveTags(input: { tagUrns: ["${NEEDS_DOCS}"], resources: [{ resourceUrn: "${HDFS}" }, { resourceUrn: "${KAFKA}" }] }) }`);
    assert.deepEqual([await tagsOf(HDFS), await tagsOf(KAFKA)], [[], []]);
  });

  test('adding a tag that does not exist is 404 and writes nothing', async () => {
    const res = await t.graphql(`mutation { addTag(input: { tagUrn: "urn:li:tag:ghost", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual([res.body.errors[0].message, res.body.errors[0].extensions.code], ['Tag urn:li:tag:ghost does not exist', 404]);
    assert.deepEqual(await tagsOf(HIVE), [LEGACY]);
  });

  test('terms: add to the dataset and a column (in editableSchemaMetadata), read them with their properties, remove one', async () => {
    await ok(`mutation { addTerms(input: { termUrns: ["urn:li:glossaryTerm:SavingAccount", "urn:li:glossaryTerm:AccountBalance"], resourceUrn: "${HIVE}" }) }`);
    await ok(`mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:CustomerAccount", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }`);
    await ok(`mutation { removeTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }`);
    const data = await ok(`{ dataset(urn: "${HIVE}") { glossaryTerms { terms { term { urn name properties { definition termSource sourceRef } } associatedUrn } }
      schemaMetadata { fields { fieldPath glossaryTerms { terms { term { urn } } } } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath glossaryTerms { terms { term { urn } } } } } } }`);
    assert.deepEqual(data.dataset.glossaryTerms, { terms: [{ term: { urn: 'urn:li:glossaryTerm:AccountBalance', name: 'AccountBalance',
      properties: { definition: 'amount of money available or owed', termSource: 'EXTERNAL', sourceRef: 'FIBO' } }, associatedUrn: HIVE }] });
    assert.deepEqual(data.dataset.schemaMetadata.fields.map((f: any) => f.glossaryTerms), [null, null]);
    assert.deepEqual(data.dataset.editableSchemaMetadata.editableSchemaFieldInfo.find((f: any) => f.fieldPath === 'field_foo'),
      { fieldPath: 'field_foo', glossaryTerms: { terms: [{ term: { urn: 'urn:li:glossaryTerm:CustomerAccount' } }] } });
  });

  test('links: addLink appends, removeLink removes by url', async () => {
    await ok(`mutation { addLink(input: { linkUrl: "https://runbooks.example.com/hive", label: "Runbook", resourceUrn: "${HIVE}" }) }`);
    const data = await ok(`{ dataset(urn: "${HIVE}") { institutionalMemory { elements { url label author { urn } created { actor } } } } }`);
    assert.deepEqual(data.dataset.institutionalMemory.elements, [
      { url: 'https://www.linkedin.com', label: 'Sample doc', author: { urn: 'urn:li:corpuser:jdoe' }, created: { actor: 'urn:li:corpuser:jdoe' } },
      { url: 'https://runbooks.example.com/hive', label: 'Runbook', author: { urn: ROOT }, created: { actor: ROOT } }]);
    await ok(`mutation { removeLink(input: { linkUrl: "https://runbooks.example.com/hive", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual((await ok(`{ dataset(urn: "${HIVE}") { institutionalMemory { elements { url } } } }`)).dataset.institutionalMemory,
      { elements: [{ url: 'https://www.linkedin.com' }] });
    const bad = await t.graphql(`mutation { addLink(input: { linkUrl: "javascript:alert(1)", label: "x", resourceUrn: "${HIVE}" }) }`);
    assert.equal(bad.body.errors[0].extensions.code, 400);
  });

  test('owners: legacy types map to ownership-type urns as DataHub maps them; groups can own; removeOwner without a type removes all', async () => {
    await ok(`mutation { addOwner(input: { ownerUrn: "urn:li:corpGroup:bfoo", ownerEntityType: CORP_GROUP, type: BUSINESS_OWNER, resourceUrn: "${HIVE}" }) }`);
    await ok(`mutation { addOwners(input: { owners: [{ ownerUrn: "urn:li:corpuser:jdoe", type: DATA_STEWARD }], resourceUrn: "${HIVE}" }) }`);
    const q = `{ dataset(urn: "${HIVE}") { ownership { owners { owner { __typename ... on CorpUser { urn username } ... on CorpGroup { urn name } }
      type ownershipType { urn info { name } } } } } }`;
    assert.deepEqual((await ok(q)).dataset.ownership.owners, [
      // A legacy DATAOWNER is its own type (no entity, so no info), not a technical owner.
      { owner: { __typename: 'CorpUser', urn: 'urn:li:corpuser:jdoe', username: 'jdoe' }, type: 'DATAOWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__dataowner', info: null } },
      { owner: { __typename: 'CorpUser', urn: ROOT, username: 'datahub' }, type: 'DATAOWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__dataowner', info: null } },
      { owner: { __typename: 'CorpGroup', urn: 'urn:li:corpGroup:bfoo', name: 'bfoo' }, type: 'BUSINESS_OWNER',
        ownershipType: { urn: 'urn:li:ownershipType:__system__business_owner', info: { name: 'Business Owner' } } },
      { owner: { __typename: 'CorpUser', urn: 'urn:li:corpuser:jdoe', username: 'jdoe' }, type: 'DATA_STEWARD',
        ownershipType: { urn: 'urn:li:ownershipType:__system__data_steward', info: { name: 'Data Steward' } } },
    ]);
    await ok(`mutation { removeOwner(input: { ownerUrn: "urn:li:corpuser:jdoe", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual((await ok(q)).dataset.ownership.owners.map((o: any) => o.owner.urn), [ROOT, 'urn:li:corpGroup:bfoo']);
    const ghost = await t.graphql(`mutation { addOwner(input: { ownerUrn: "urn:li:corpuser:ghost", resourceUrn: "${HIVE}" }) }`);
    assert.deepEqual([ghost.body.errors[0].message, ghost.body.errors[0].extensions.code], ['Owner urn:li:corpuser:ghost does not exist', 404]);
  });

  test('updateDataset: ownership, tags, deprecation and column edits, merged per column', async () => {
    await ok(`mutation { updateDataset(urn: "${HDFS}", input: {
      ownership: { owners: [{ owner: "urn:li:corpuser:jdoe", type: TECHNICAL_OWNER }] }
      tags: { tags: [{ tag: { urn: "${LEGACY}", name: "Legacy" } }] }
      deprecation: { deprecated: true, note: "Use the Hive copy", decommissionTime: 1893456000000 }
      editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: "shipment_info.target", description: "Where it goes" }] }
    }) { urn } }`);
    await ok(`mutation { updateDataset(urn: "${HDFS}", input: {
      editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: "shipment_info.destination", description: "Final stop",
        globalTags: { tags: [{ tag: { urn: "${NEEDS_DOCS}", name: "NeedsDocumentation" } }] } }] } }) { urn } }`);
    const data = await ok(`{ dataset(urn: "${HDFS}") {
      ownership { owners { owner { ... on CorpUser { urn } } type } lastModified { actor } }
      tags { tags { tag { urn } } }
      deprecation { deprecated note decommissionTime actor }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn } } } } } } }`);
    assert.deepEqual(data.dataset, {
      ownership: { owners: [{ owner: { urn: 'urn:li:corpuser:jdoe' }, type: 'TECHNICAL_OWNER' }], lastModified: { actor: ROOT } },
      tags: { tags: [{ tag: { urn: LEGACY } }] },
      deprecation: { deprecated: true, note: 'Use the Hive copy', decommissionTime: 1893456000000, actor: ROOT },
      editableSchemaMetadata: { editableSchemaFieldInfo: [
        { fieldPath: 'shipment_info', description: null, tags: { tags: [{ tag: { urn: 'urn:li:tag:Legacy' } }] } },
        { fieldPath: 'shipment_info.target', description: 'Where it goes', tags: null },
        { fieldPath: 'shipment_info.destination', description: 'Final stop', tags: { tags: [{ tag: { urn: NEEDS_DOCS } }] } },
      ] },
    });
  });

  test('tags: updateTag, setTagColor, updateDescription on a tag, deleteTag', async () => {
    await ok('mutation { createTag(input: { id: "pii", name: "PII" }) }');
    await ok('mutation { updateTag(urn: "urn:li:tag:pii", input: { urn: "urn:li:tag:pii", name: "Personal data", description: "GDPR scope" }) { urn } }');
    await ok('mutation { setTagColor(urn: "urn:li:tag:pii", colorHex: "#d00000") }');
    await ok('mutation { updateDescription(input: { resourceUrn: "urn:li:tag:pii", description: "Personal data under GDPR" }) }');
    assert.deepEqual((await ok('{ tag(urn: "urn:li:tag:pii") { name properties { name description colorHex } } }')).tag,
      { name: 'pii', properties: { name: 'Personal data', description: 'Personal data under GDPR', colorHex: '#d00000' } });
    assert.deepEqual(await ok('mutation { deleteTag(urn: "urn:li:tag:pii") }'), { deleteTag: true });
    const gone = await t.graphql('{ tag(urn: "urn:li:tag:pii") { urn } }');
    assert.equal(gone.body.errors[0].extensions.code, 404);
    const color = await t.graphql('mutation { setTagColor(urn: "urn:li:tag:pii", colorHex: "#000000") }');
    assert.deepEqual([color.body.errors[0].message, color.body.errors[0].extensions.code],
      ['Failed to set Tag urn:li:tag:pii color. Tag does not exist.', 404]);
  });

  test('updateDescription on a dataset writes editableDatasetProperties; every read shows the edit, the ingested text stays', async () => {
    const CREATED = 'urn:li:dataset:(urn:li:dataPlatform:hive,fct_users_created,PROD)';
    const ingested = 'table containing all the users created on a single day';
    const before = Date.now();
    assert.deepEqual(await ok(`mutation { updateDescription(input: { resourceUrn: "${CREATED}", description: "Sign-ups, one row per user and day" }) }`),
      { updateDescription: true });
    assert.deepEqual((await ok(`{ dataset(urn: "${CREATED}") { properties { name description } editableProperties { description } } }`)).dataset, {
      properties: { name: 'fct_users_created', description: 'Sign-ups, one row per user and day' },
      editableProperties: { description: 'Sign-ups, one row per user and day' } });
    const edited = await t.catalog.entities.getAspect(CREATED, 'editableDatasetProperties');
    assert.equal((edited.value as { description: string }).description, 'Sign-ups, one row per user and day');
    assert.equal(edited.createdBy, ROOT);
    assert.ok(edited.createdOn >= before, `stamped ${edited.createdOn}, during the test`);
    const rest = await t.app.inject({ url: `/aspects/${encodeURIComponent(CREATED)}?aspect=editableDatasetProperties`, headers: t.auth });
    assert.equal(rest.json().aspect['com.linkedin.dataset.EditableDatasetProperties'].description, 'Sign-ups, one row per user and day');
    assert.equal(((await t.catalog.entities.getAspect(CREATED, 'datasetProperties')).value as { description: string }).description, ingested);
  });

  test('updateDescription on containers, glossary terms and groups', async () => {
    await ingestSamples(t.catalog, 'test_containers.json');
    await ok('mutation { updateDescription(input: { resourceUrn: "urn:li:container:SCHEMA", description: "Edited schema" }) }');
    await ok('mutation { updateDescription(input: { resourceUrn: "urn:li:glossaryTerm:SavingAccount", description: "Edited term" }) }');
    await ok('mutation { updateDescription(input: { resourceUrn: "urn:li:corpGroup:bfoo", description: "Edited group" }) }');
    const data = await ok(`{ container(urn: "urn:li:container:SCHEMA") { properties { name description } editableProperties { description } }
      glossaryTerm(urn: "urn:li:glossaryTerm:SavingAccount") { properties { definition } }
      corpGroup(urn: "urn:li:corpGroup:bfoo") { editableProperties { description } } }`);
    assert.deepEqual(data, {
      container: { properties: { name: 'information_schema', description: 'Edited schema' }, editableProperties: { description: 'Edited schema' } },
      glossaryTerm: { properties: { definition: 'Edited term' } },
      corpGroup: { editableProperties: { description: 'Edited group' } },
    });
    const chart = await t.graphql('mutation { updateDescription(input: { resourceUrn: "urn:li:chart:(looker,baz1)", description: "x" }) }');
    assert.equal(chart.body.errors[0].extensions.code, 400);
  });
});
