import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parseRegistryExtension } from '../src/registry/registry-extension.js';
import { startApp, type TestApp } from './support/app.js';
import { ensureUiBuilt } from './support/ui-build.js';
import { audit, chromiumSuite, launchChromium, signedInContext, watchPage } from './support/browser.js';

/**
 * The entity page shows aspects it has no view of its own for — a deployment's own (ALMANAC_REGISTRY) and a later
 * DataHub release's — as collapsible JSON panels, on a 0.12.1 type and on a type of the deployment's own.
 * SQLite only: the UI reads the GraphQL API, whose storage is tested on both engines by the API suites.
 */
const REGISTRY = `
entities:
  - name: service
aspects:
  - name: riskAssessment
    entityTypes: [dataset, service]
    schema: {type: object, required: [level], properties: {level: {type: string}, notes: {type: string}}}
`;
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,risky_orders,PROD)';
const SERVICE = 'urn:li:service:checkout';
const JOB = 'urn:li:dataJob:(urn:li:dataFlow:(mysql,shop,PROD),add_customer)';
const enc = encodeURIComponent;

describe('web UI: aspects without a view of their own, as JSON panels', { timeout: 300_000 }, () => {
  const { skip, requireChromium } = chromiumSuite('aspect panel browser tests');

  let t: TestApp;
  let origin = '';
  let browser: import('playwright-core').Browser | undefined;
  let context: import('playwright-core').BrowserContext;
  const problems: string[] = [];
  const foreign: string[] = [];

  before(async () => {
    if (skip) return;
    requireChromium();
    ensureUiBuilt();
    t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' }, { registry: parseRegistryExtension(REGISTRY) });
    await t.put(DATASET, 'datasetProperties', { name: 'risky_orders', customProperties: {} });
    await t.put(DATASET, 'riskAssessment', { level: 'HIGH', notes: 'Holds card numbers' });
    await t.put(SERVICE, 'riskAssessment', { level: 'LOW' });
    await t.put(JOB, 'dataTransformLogic', { transforms: [{ queryStatement: { value: 'INSERT INTO customers SELECT 1', language: 'SQL' } }] });
    origin = await t.listen();
    browser = await launchChromium();
    context = await signedInContext(browser, t.rootToken, { viewport: { width: 1280, height: 900 } });
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function panels(path: string) {
    const page = watchPage(await context.newPage(), problems, foreign);
    const res = await page.goto(`${origin}${path}`, { waitUntil: 'load' });
    assert.equal(res?.status(), 200, path);
    const section = page.getByRole('region', { name: /More aspects/ });
    await section.waitFor({ timeout: 20_000 });
    return { page, section };
  }

  test('a dataset\'s own aspect is a closed panel that opens on its pretty-printed JSON', { skip }, async () => {
    const { page, section } = await panels(`/dataset/${enc(DATASET)}`);
    assert.deepEqual(await section.locator('summary').allInnerTexts(), ['riskAssessment']);
    const pre = section.locator('pre');
    assert.equal(await pre.isVisible(), false, 'closed until asked');
    await section.getByText('riskAssessment').click();
    assert.equal(await pre.innerText(), JSON.stringify({ level: 'HIGH', notes: 'Holds card numbers' }, null, 2));
    await audit(page, 'aspect-panels');
    assert.deepEqual([problems, foreign], [[], []]);
  });

  test('a later DataHub aspect on a job, and an entity type of the deployment\'s own', { skip }, async () => {
    const job = await panels(`/dataJob/${enc(JOB)}`);
    assert.deepEqual(await job.section.locator('summary').allInnerTexts(), ['dataTransformLogic']);
    const service = await panels(`/service/${enc(SERVICE)}`);
    assert.deepEqual(await service.section.locator('summary').allInnerTexts(), ['riskAssessment']);
    assert.deepEqual([problems, foreign], [[], []]);
  });
});
