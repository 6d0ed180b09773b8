import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';

/**
 * An entity's description in its two layers — what ingestion wrote (datasetProperties, chartInfo, …) and what users
 * edited (editableDatasetProperties, editableChartProperties, …). On DataHub's web app's /api/v2/graphql they are served
 * as DataHub 0.12.1's mappers serve them: `properties.description` the ingested text alone (DatasetMapper,
 * ChartMapper, ContainerMapper, MLFeatureMapper, …; `properties` null without the ingested aspect), the edited one in
 * `editableProperties`. /api/graphql keeps answering the text users see in `properties.description` (the seed's
 * contract). A glossary term has one layer (an edit rewrites its definition), the same on both. The web app's own
 * operations (test/fixtures/datahub-webapp-graphql) with the variables it sends.
 */

const ROOT = 'urn:li:corpuser:datahub';
const datasetUrn = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,shop.${name},PROD)`;
const chartUrn = (name: string) => `urn:li:chart:(looker,${name})`;
const TERM = 'urn:li:glossaryTerm:Sales.Order';
const CONTAINER = 'urn:li:container:5f1b9e07d2a44c6f8e3b2a1c0d9e8f7a';
const FEATURE = 'urn:li:mlFeature:(orders,amount)';
const V2 = '/api/v2/graphql';
const V1 = '/api/graphql';

/** The dataset's `properties` as the web app's getDataset reads them. */
const datasetProps = (name: string, description: string | null) =>
  ({ name, description, customProperties: [], externalUrl: null, lastModified: { time: 0, actor: null } });
/** The chart's `properties` as the web app's getChart reads them. */
const chartProps = (description: string) => ({ name: 'Orders by day', description, externalUrl: null, type: null, access: null,
  lastRefreshed: null, lastModified: { time: 0 }, created: { time: 0 }, customProperties: [] });
/** The term's `properties` as the web app's getGlossaryTerm reads them. */
const termProps = (description: string) =>
  ({ name: 'Order', description, termSource: 'INTERNAL', sourceRef: null, sourceUrl: null, rawSchema: null, customProperties: null });

forEachEngine('description layers: properties ingested, editableProperties edited, on the web app\'s path', (ctx) => {
  let t: TestApp;

  const put = (urn: string, aspectName: string, value: unknown) => t.put(urn, aspectName, value);
  /** One of the web app's operations on `url` (/api/v2/graphql or /api/graphql); its data, failing on any error. */
  const op = async (url: string, name: string, variables: Record<string, unknown>) => {
    const res = await t.app.inject({ method: 'POST', url, headers: t.auth, payload: { query: webappText(name), variables } });
    assert.equal(res.statusCode, 200, res.body);
    const body = JSON.parse(res.body);
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    return body.data;
  };
  const dataset = async (url: string, urn: string) => {
    const { dataset: d } = await op(url, 'getDataset', { urn });
    return { properties: d.properties, editableProperties: d.editableProperties };
  };
  const chart = async (url: string, urn: string) => {
    const { chart: c } = await op(url, 'getChart', { urn });
    return { properties: c.properties, editableProperties: c.editableProperties };
  };
  const stamps = { created: { time: 0, actor: ROOT }, lastModified: { time: 0, actor: ROOT } };

  before(async () => {
    t = await startApp(ctx);
    for (const name of ['orders', 'returns']) {
      await put(datasetUrn(name), 'datasetProperties', { name, description: 'Orders as loaded', customProperties: {} });
      await put(chartUrn(name), 'chartInfo', { title: 'Orders by day', description: 'Daily order count', lastModified: stamps, customProperties: {} });
    }
    await put(TERM, 'glossaryTermInfo', { name: 'Order', definition: 'A purchase', termSource: 'INTERNAL' });
    await put(CONTAINER, 'containerProperties', { name: 'shop', description: 'The shop schema', customProperties: {} });
    await put(FEATURE, 'mlFeatureProperties', { description: 'Order amount as computed' });
  });
  after(async () => t.close());

  test('/api/v2/graphql: descriptions edited as the web app sends them read back as DataHub serves them', async () => {
    const [DATASET, CHART] = [datasetUrn('orders'), chartUrn('orders')];
    await op(V2, 'updateDataset', { urn: DATASET, input: { editableProperties: { description: 'Orders placed' } } });
    await op(V2, 'updateChart', { urn: CHART, input: { editableProperties: { description: 'Orders per day' } } });
    assert.deepEqual(await op(V2, 'updateDescription', { input: { description: 'A customer purchase', resourceUrn: TERM } }), { updateDescription: true });

    assert.deepEqual(await dataset(V2, DATASET),
      { properties: datasetProps('orders', 'Orders as loaded'), editableProperties: { description: 'Orders placed' } });
    assert.deepEqual(await chart(V2, CHART),
      { properties: chartProps('Daily order count'), editableProperties: { description: 'Orders per day' } });
    // One layer: DataHub's updateDescription rewrites the term's definition.
    assert.deepEqual((await op(V2, 'getGlossaryTerm', { urn: TERM })).glossaryTerm.properties, termProps('A customer purchase'));

    // The versioned dataset has the same layers (VersionedDatasetMapper); /api/graphql the text users see.
    const versioned = `query($urn: String!) { versionedDataset(urn: $urn) { properties { description } editableProperties { description } } }`;
    for (const [url, description] of [[V2, 'Orders as loaded'], [V1, 'Orders placed']] as const) {
      const res = await t.app.inject({ method: 'POST', url, headers: t.auth, payload: { query: versioned, variables: { urn: DATASET } } });
      assert.deepEqual(JSON.parse(res.body).data, { versionedDataset: { properties: { description }, editableProperties: { description: 'Orders placed' } } }, url);
    }
  });

  test('/api/v2/graphql: a container and an ML feature as ContainerMapper and MLFeatureMapper serve them', async () => {
    await op(V2, 'updateDescription', { input: { description: 'Where orders live', resourceUrn: CONTAINER } });
    await op(V2, 'updateDescription', { input: { description: 'Order amount in cents', resourceUrn: FEATURE } });
    for (const [url, container, feature] of [[V2, 'The shop schema', 'Order amount as computed'], [V1, 'Where orders live', 'Order amount in cents']] as const) {
      const c = (await op(url, 'getContainer', { urn: CONTAINER })).container;
      assert.deepEqual({ properties: c.properties, editableProperties: c.editableProperties }, { properties: { name: 'shop', description: container,
        customProperties: [] }, editableProperties: { description: 'Where orders live' } }, url);
      const f = (await op(url, 'getMLFeature', { urn: FEATURE })).mlFeature;
      // The top-level description is the ingested one on both (MLFeatureMapper).
      assert.deepEqual({ description: f.description, properties: f.properties, editableProperties: f.editableProperties }, {
        description: 'Order amount as computed', properties: { description: feature, dataType: null, version: null, sources: null },
        editableProperties: { description: 'Order amount in cents' } }, url);
    }
  });

  test('/api/graphql: the same descriptions read as users see them (the seed\'s contract)', async () => {
    const [DATASET, CHART] = [datasetUrn('returns'), chartUrn('returns')];
    await op(V1, 'updateDataset', { urn: DATASET, input: { editableProperties: { description: 'Orders returned' } } });
    await op(V1, 'updateChart', { urn: CHART, input: { editableProperties: { description: 'Returns per day' } } });
    assert.deepEqual(await dataset(V1, DATASET),
      { properties: datasetProps('returns', 'Orders returned'), editableProperties: { description: 'Orders returned' } });
    assert.deepEqual(await chart(V1, CHART),
      { properties: chartProps('Returns per day'), editableProperties: { description: 'Returns per day' } });
    assert.deepEqual((await op(V1, 'getGlossaryTerm', { urn: TERM })).glossaryTerm.properties, termProps('A customer purchase'));
    // An empty edit shows the ingested text again.
    await op(V1, 'updateDataset', { urn: DATASET, input: { editableProperties: { description: '' } } });
    assert.deepEqual(await dataset(V1, DATASET), { properties: datasetProps('returns', 'Orders as loaded'), editableProperties: { description: '' } });
  });

  test('a dataset with an edited description and nothing ingested: properties only on /api/graphql, as DataHub maps them', async () => {
    const BARE = datasetUrn('refunds');
    await put(BARE, 'editableDatasetProperties', { description: 'Money sent back' });
    assert.deepEqual(await dataset(V2, BARE), { properties: null, editableProperties: { description: 'Money sent back' } });
    assert.deepEqual(await dataset(V1, BARE), { properties: { name: 'shop.refunds', description: 'Money sent back', customProperties: null,
      externalUrl: null, lastModified: { time: 0, actor: null } }, editableProperties: { description: 'Money sent back' } });
  });
});
