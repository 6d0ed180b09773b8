import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * A column's two layers — what ingestion wrote (schemaMetadata) and what users edited (editableSchemaMetadata) — as
 * DataHub 0.12.1 serves them (SchemaFieldMapper copies the ingested field alone; EditableSchemaFieldInfoMapper the
 * edited one) and its web app merges them itself. Tags and terms are served that way on both endpoints; a column's
 * description too on the web app's /api/v2/graphql, while /api/graphql keeps answering the text users see (the
 * seed's contract). The web app's own operations (test/fixtures/datahub-webapp-graphql) with the variables it sends.
 */

const ROOT = 'urn:li:corpuser:datahub';
const PII = 'urn:li:tag:PII';
const LEGACY = 'urn:li:tag:Legacy';
const AMOUNT = 'urn:li:glossaryTerm:Payments.Amount';
const PAYER = 'urn:li:glossaryTerm:Payments.Payer';
const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,shop.${name},PROD)`;
const WEBAPP = datasetUrn('payments');
const API = datasetUrn('refunds');
const CACHED = datasetUrn('chargebacks');

const numberType = { type: { 'com.linkedin.schema.NumberType': {} } };
const stringType = { type: { 'com.linkedin.schema.StringType': {} } };
/** Two columns: amount ingested with a description, the PII tag and the Amount term; payer bare. */
const ingestedSchema = (name: string) => ({ schemaName: `shop.${name}`, platform: 'urn:li:dataPlatform:hive', version: 0, hash: '',
  platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields: [
    { fieldPath: 'amount', nativeDataType: 'bigint', type: numberType, nullable: false, recursive: false, description: 'Amount in cents',
      globalTags: { tags: [{ tag: PII }] }, glossaryTerms: { terms: [{ urn: AMOUNT }], auditStamp: { time: 0, actor: ROOT } } },
    { fieldPath: 'payer', nativeDataType: 'string', type: stringType, nullable: true, recursive: false },
  ] });

/** A tag as the web app's globalTagsFields fragment reads it. */
const tagOut = (urn: string, name: string, colorHex: string | null, associatedUrn: string) =>
  ({ tag: { urn, type: 'TAG', name, description: null, properties: { name, colorHex } }, associatedUrn });
/** A term as the web app's glossaryTerms fragment reads it (DataHub serves the definition as the description too). */
const termOut = (urn: string, name: string, definition: string, associatedUrn: string) => ({ term: { urn, name, type: 'GLOSSARY_TERM',
  hierarchicalName: urn.slice('urn:li:glossaryTerm:'.length), properties: { name, description: definition, definition, termSource: 'INTERNAL', customProperties: null },
  ownership: null, parentNodes: { count: 0, nodes: [] } }, associatedUrn });
/** A column as the web app's schemaFieldFields fragment reads it. */
const fieldOut = (fieldPath: string, over: Record<string, unknown>) => ({ fieldPath, label: null, jsonPath: null, nullable: false, description: null,
  type: 'STRING', nativeDataType: 'string', recursive: false, isPartOfKey: null, isPartitioningKey: null, globalTags: null, glossaryTerms: null, ...over });

forEachEngine('column layers: ingested in schemaMetadata, edited in editableSchemaMetadata', (ctx) => {
  let t: TestApp;

  const put = (urn: string, aspectName: string, value: unknown) => t.put(urn, aspectName, value);
  /** One GraphQL request on `url` (the web app's /api/v2/graphql or /api/graphql); its data, failing on any error. */
  const post = async (url: string, query: string, variables: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url, headers: t.auth, payload: { query, variables } });
    assert.equal(res.statusCode, 200, res.body);
    const body = JSON.parse(res.body);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return body.data;
  };
  const v2 = (op: string, variables: Record<string, unknown>) => post('/api/v2/graphql', webappText(op), variables);
  /** The web app's Schema tab: getDatasetSchema, its schemaMetadata fields and editableSchemaMetadata. */
  const schemaTab = async (url: string, urn: string) => {
    const { dataset } = await post(url, webappText('getDatasetSchema'), { urn });
    return { fields: dataset.schemaMetadata.fields, editable: dataset.editableSchemaMetadata };
  };
  const column = (urn: string, fieldPath: string) => ({ resourceUrn: urn, subResource: fieldPath, subResourceType: 'DATASET_FIELD' });

  before(async () => {
    t = await startApp(ctx);
    await put(PII, 'tagProperties', { name: 'PII', colorHex: '#d0021b' });
    await put(LEGACY, 'tagProperties', { name: 'Legacy' });
    await put(AMOUNT, 'glossaryTermInfo', { name: 'Amount', definition: 'Money moved', termSource: 'INTERNAL' });
    await put(PAYER, 'glossaryTermInfo', { name: 'Payer', definition: 'Who pays', termSource: 'INTERNAL' });
    for (const [urn, name] of [[WEBAPP, 'payments'], [API, 'refunds'], [CACHED, 'chargebacks']] as const) {
      await put(urn, 'datasetProperties', { name, customProperties: {} });
      await put(urn, 'schemaMetadata', ingestedSchema(name));
    }
  });
  after(async () => t.close());

  test('/api/v2/graphql: a column tag, term and description edited as the web app sends them read back as DataHub serves them', async () => {
    assert.deepEqual(await v2('addTag', { input: { tagUrn: LEGACY, ...column(WEBAPP, 'amount') } }), { addTag: true });
    assert.deepEqual(await v2('addTerm', { input: { termUrn: PAYER, ...column(WEBAPP, 'payer') } }), { addTerm: true });
    assert.deepEqual(await v2('updateDescription', { input: { description: 'Amount in euro cents', ...column(WEBAPP, 'amount') } }),
      { updateDescription: true });

    const { fields, editable } = await schemaTab('/api/v2/graphql', WEBAPP);
    // The ingested layer alone: the ingested description, tag and term; nothing the user added.
    assert.deepEqual(fields, [
      fieldOut('amount', { type: 'NUMBER', nativeDataType: 'bigint', description: 'Amount in cents', globalTags: { tags: [tagOut(PII, 'PII', '#d0021b', WEBAPP)] },
        glossaryTerms: { terms: [termOut(AMOUNT, 'Amount', 'Money moved', WEBAPP)] } }),
      fieldOut('payer', { nullable: true }),
    ]);
    // The edited layer: each added tag and term once, and the new description.
    assert.deepEqual(editable, { editableSchemaFieldInfo: [
      { fieldPath: 'amount', description: 'Amount in euro cents', globalTags: { tags: [tagOut(LEGACY, 'Legacy', null, WEBAPP)] }, glossaryTerms: null },
      { fieldPath: 'payer', description: null, globalTags: null, glossaryTerms: { terms: [termOut(PAYER, 'Payer', 'Who pays', WEBAPP)] } },
    ] });
    // Every tag shows once across the two layers, as the web app merges them.
    const tagsShown = [...fields, ...editable.editableSchemaFieldInfo].flatMap((f: { globalTags: { tags: { tag: { urn: string } }[] } | null }) =>
      (f.globalTags?.tags ?? []).map((x) => x.tag.urn));
    assert.deepEqual(tagsShown, [PII, LEGACY]);

    // The lineage graph's and the versioned dataset's columns are the same ingested layer.
    const lineage = await v2('getEntityLineage', { urn: WEBAPP, separateSiblings: false, showColumns: true, excludeUpstream: false, excludeDownstream: false });
    assert.deepEqual(lineage.entity.schemaMetadata.fields, fields);
    const versioned = await v2('getVersionedDataset', { urn: WEBAPP, versionStamp: null });
    assert.deepEqual(versioned.versionedDataset.schema.fields.map((f: { fieldPath: string; description: string | null }) => [f.fieldPath, f.description]),
      [['amount', 'Amount in cents'], ['payer', null]]);
  });

  test('/api/graphql: a column description reads as users see it (the seed\'s contract); tags and terms in their own layers', async () => {
    const ok = (query: string, variables: Record<string, unknown> = {}) => post('/api/graphql', query, variables);
    await ok(`mutation { addTag(input: { tagUrn: "${LEGACY}", resourceUrn: "${API}", subResource: "amount", subResourceType: DATASET_FIELD }) }`);
    await ok(`mutation { addTerm(input: { termUrn: "${PAYER}", resourceUrn: "${API}", subResource: "payer", subResourceType: DATASET_FIELD }) }`);
    assert.deepEqual(await ok(`mutation { updateDescription(input: { description: "Refunded amount", resourceUrn: "${API}",
      subResource: "amount", subResourceType: DATASET_FIELD }) }`), { updateDescription: true });

    const read = await ok(`{ dataset(urn: "${API}") {
      schemaMetadata { fields { fieldPath description tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } } } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description tags { tags { tag { urn } } } glossaryTerms { terms { term { urn } } } } }
    } }`);
    assert.deepEqual(read, { dataset: {
      schemaMetadata: { fields: [
        { fieldPath: 'amount', description: 'Refunded amount', tags: { tags: [{ tag: { urn: PII } }] }, glossaryTerms: { terms: [{ term: { urn: AMOUNT } }] } },
        { fieldPath: 'payer', description: null, tags: null, glossaryTerms: null },
      ] },
      editableSchemaMetadata: { editableSchemaFieldInfo: [
        { fieldPath: 'amount', description: 'Refunded amount', tags: { tags: [{ tag: { urn: LEGACY } }] }, glossaryTerms: null },
        { fieldPath: 'payer', description: null, tags: null, glossaryTerms: { terms: [{ term: { urn: PAYER } }] } },
      ] },
    } });
    // The web app's own document on this endpoint: the same layers, the description as users see it.
    const { fields } = await schemaTab('/api/graphql', API);
    assert.deepEqual(fields, [
      fieldOut('amount', { type: 'NUMBER', nativeDataType: 'bigint', description: 'Refunded amount', globalTags: { tags: [tagOut(PII, 'PII', '#d0021b', API)] },
        glossaryTerms: { terms: [termOut(AMOUNT, 'Amount', 'Money moved', API)] } }),
      fieldOut('payer', { nullable: true }),
    ]);
    // An empty edit shows the ingested text again.
    await ok(`mutation { updateDescription(input: { description: "", resourceUrn: "${API}", subResource: "amount", subResourceType: DATASET_FIELD }) }`);
    assert.deepEqual((await ok(`{ dataset(urn: "${API}") { schemaMetadata { fields { fieldPath description } } } }`)).dataset.schemaMetadata.fields,
      [{ fieldPath: 'amount', description: 'Amount in cents' }, { fieldPath: 'payer', description: null }]);
  });

  test('the same query by the same caller on the two endpoints: each answer is its own (kept answers are not shared)', async () => {
    await post('/api/graphql', `mutation { updateDescription(input: { description: "Disputed amount", resourceUrn: "${CACHED}",
      subResource: "amount", subResourceType: DATASET_FIELD }) }`, {});
    const query = `{ dataset(urn: "${CACHED}") { schemaMetadata { fields { fieldPath description } }
      editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description } } } }`;
    const edited = { editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: 'amount', description: 'Disputed amount' }] } };
    const visible = { dataset: { schemaMetadata: { fields: [{ fieldPath: 'amount', description: 'Disputed amount' }, { fieldPath: 'payer', description: null }] }, ...edited } };
    const ingested = { dataset: { schemaMetadata: { fields: [{ fieldPath: 'amount', description: 'Amount in cents' }, { fieldPath: 'payer', description: null }] }, ...edited } };
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(await post('/api/graphql', query, {}), visible, `round ${round}`);
      assert.deepEqual(await post('/api/v2/graphql', query, {}), ingested, `round ${round}`);
    }
  });

  test('search still finds a dataset by the tags and terms of either layer (fieldTags, editedFieldTags, …)', async () => {
    const found = async (field: string, value: string) => {
      const data = await post('/api/graphql', `query($input: SearchInput!) { search(input: $input) { searchResults { entity { urn } } } }`,
        { input: { type: 'DATASET', query: '*', start: 0, count: 10, orFilters: [{ and: [{ field, values: [value] }] }] } });
      return data.search.searchResults.map((r: { entity: { urn: string } }) => r.entity.urn).sort();
    };
    assert.deepEqual(await found('fieldTags', PII), [CACHED, API, WEBAPP].sort());
    assert.deepEqual(await found('editedFieldTags', LEGACY), [API, WEBAPP].sort());
    assert.deepEqual(await found('fieldGlossaryTerms', AMOUNT), [CACHED, API, WEBAPP].sort());
    assert.deepEqual(await found('editedFieldGlossaryTerms', PAYER), [API, WEBAPP].sort());
  });
});
