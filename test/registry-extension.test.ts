import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';
import { loadRegistryExtension, parseRegistryExtension } from '../src/registry/registry-extension.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { runCli } from './support/processes.js';

/**
 * Issue 33: a deployment declares its own aspects and entity types in ALMANAC_REGISTRY (a YAML file read at start).
 * They ingest, are validated against their JSON Schema, searched by their text and facets, give relationships, read
 * back over REST and GraphQL, and reach the change log; a mistake in the file stops the start naming its line.
 */
const DIR = mkdtempSync(path.join(os.tmpdir(), 'almanac-registry-'));
const REGISTRY = `# Our own metadata
entities:
  - name: service
    key: [id]
aspects:
  - name: serviceInfo
    entityTypes: [service]
    schema:
      type: object
      required: [name, tier]
      properties:
        name: {type: string}
        tier: {type: string, enum: [gold, silver, bronze]}
        summary: {type: string}
        dependsOn: {type: array, items: {type: string, format: urn}}
    search:
      text: [name, summary]
      facets: {tier: tier}
    relationships:
      - {name: DependsOn, path: dependsOn/*}
  - name: riskAssessment
    entityTypes: [dataset]
    schema:
      type: object
      required: [level]
      additionalProperties: false
      properties:
        level: {type: string, enum: [LOW, MEDIUM, HIGH]}
        reviewer: {type: string, format: urn}
        score: {type: integer, minimum: 0, maximum: 100}
    search:
      facets: {riskLevel: level}
    relationships:
      - {name: ReviewedBy, path: reviewer}
`;
const FILE = path.join(DIR, 'registry.yml');
writeFileSync(FILE, REGISTRY);

const SERVICE = 'urn:li:service:checkout';
const PAYMENTS = 'urn:li:service:payments';
const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
const REVIEWER = 'urn:li:corpuser:risk-team';
const enc = encodeURIComponent;

/** The error loadConfig gives for a registry file with this text. */
function configError(text: string): string {
  const file = path.join(DIR, `bad-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, text);
  try {
    loadConfig({ ALMANAC_REGISTRY: file });
  } catch (e) {
    assert.ok(e instanceof ConfigError, `a ConfigError, got ${String(e)}`);
    return e.message.replace(file, '<file>');
  }
  assert.fail('the registry file was accepted');
}

test('a malformed registry file is refused with the file and line of the mistake', () => {
  assert.equal(configError('aspects:\n  - name: a\n    entityTypes: [dataset]\n    schema: {type: object}\n  - name: b\n    entityTypes: [nowhere]\n    schema: {type: object}\n'),
    "ALMANAC_REGISTRY: <file> line 6: aspects[1].entityTypes[0]: unknown entity type 'nowhere'");
  assert.equal(configError('aspects:\n  - name: a\n    entityTypes: [dataset]\n    schema:\n      type: object\n      oneOf: []\n'),
    'ALMANAC_REGISTRY: <file> line 6: aspects[0].schema.oneOf: JSON Schema keyword \'oneOf\' is not supported (supported: type, properties, required, '
    + 'additionalProperties, items, enum, const, format, minimum, maximum, minLength, maxLength, pattern, minItems, maxItems, description, title, default, examples, $comment)');
  assert.equal(configError('aspects:\n  - name: status\n    entityTypes: [dataset]\n    schema: {type: object}\n'),
    "ALMANAC_REGISTRY: <file> line 2: aspects[0].name: aspect 'status' exists already (DataHub's registry has it); choose another name");
  assert.equal(configError('entities:\n  - name: dataset\n'), "ALMANAC_REGISTRY: <file> line 2: entities[0].name: entity type 'dataset' exists already (DataHub's registry has it)");
  assert.equal(configError('aspects:\n  - name: a\n    entityTypes: [dataset]\n   schema: {}\n'),
    'ALMANAC_REGISTRY: <file> line 4: not valid YAML: Sequence item without - indicator');
  assert.equal(configError('aspects:\n  - name: a\n    entityTypes: [dataset]\n    schema: {type: object}\n    search: {facets: {x: "a b"}}\n'),
    "ALMANAC_REGISTRY: <file> line 5: aspects[0].search.facets.x: 'a b' is not a field name");
  assert.throws(() => loadConfig({ ALMANAC_REGISTRY: path.join(DIR, 'missing.yml') }),
    (e: Error) => e instanceof ConfigError && e.message === `ALMANAC_REGISTRY: ${path.join(DIR, 'missing.yml')}: cannot read it (ENOENT)`);
});

test('the server does not start with a malformed registry file: one line naming the file and line', async () => {
  const bad = path.join(DIR, 'bad-start.yml');
  writeFileSync(bad, 'entities:\n  - name: service\n    key: []\n');
  const res = await runCli(['serve'], { ALMANAC_REGISTRY: bad, DATABASE_URL: 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent' });
  assert.equal(res.code, 1, res.stderr);
  assert.equal(res.stderr.trim(), `almanac: invalid configuration: ALMANAC_REGISTRY: ${bad} line 3: entities[0].key: key needs at least one field`);
});

test('an aspect\'s JSON Schema validates values and names the field at fault', () => {
  const ext = parseRegistryExtension(REGISTRY);
  const risk = ext.aspects.get('dataset')![0]!;
  assert.equal(risk.schema.check({ level: 'LOW', score: 3 }, []), null);
  assert.deepEqual(risk.schema.check({ level: 'SEVERE' }, []), { path: 'level', message: 'level: "SEVERE" is not one of "LOW", "MEDIUM", "HIGH"' });
  assert.deepEqual(risk.schema.check({ level: 'LOW', score: 101 }, []), { path: 'score', message: 'score: must be at most 100' });
  assert.deepEqual(risk.schema.check({ level: 'LOW', extra: 1 }, []), { path: 'extra', message: 'extra: field is not allowed' });
  assert.deepEqual(risk.schema.check({ level: 'LOW', reviewer: 'bob' }, []), { path: 'reviewer', message: "reviewer: expected a urn, got 'bob'" });
  assert.deepEqual(risk.schema.check({}, []), { path: 'level', message: 'level: required field is missing' });
  assert.deepEqual(risk.schema.check([], []), { path: '', message: 'expected an object, got array' });
});

forEachEngine('aspects and entity types a deployment declares (ALMANAC_REGISTRY)', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx, { registry: loadRegistryExtension(FILE) });
    await t.put(PAYMENTS, 'serviceInfo', { name: 'Payments', tier: 'gold' });
    await t.put(SERVICE, 'serviceInfo', { name: 'Checkout', tier: 'silver', summary: 'Takes the basket to an order', dependsOn: [PAYMENTS] });
    await t.put(DATASET, 'riskAssessment', { level: 'HIGH', reviewer: REVIEWER, score: 80 });
    await t.catalog.changeLog.catchUpIndexes();
  });
  after(async () => t?.close());

  const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: t.auth, payload: payload as object });
  const proposal = (entityType: string, urn: string, aspectName: string, value: unknown) => post('/aspects?action=ingestProposal', {
    proposal: { entityType, entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } });

  test('values are validated against the declared schema: a wrong one is a 422 naming the field', async () => {
    const res = await proposal('service', SERVICE, 'serviceInfo', { name: 'Checkout', tier: 'platinum' });
    assert.deepEqual([res.statusCode, res.json().message], [422, 'Invalid aspect serviceInfo: tier: "platinum" is not one of "gold", "silver", "bronze"']);
    const wrongType = await proposal('dataset', DATASET, 'serviceInfo', { name: 'x', tier: 'gold' });
    assert.deepEqual([wrongType.statusCode, wrongType.json().message], [422, "Aspect 'serviceInfo' is not an aspect of entity type 'dataset'"]);
    assert.deepEqual((await t.catalog.entities.getAspect(SERVICE, 'serviceInfo')).value,
      { name: 'Checkout', tier: 'silver', summary: 'Takes the basket to an order', dependsOn: [PAYMENTS] });
  });

  test('REST reads them back: /aspects, /entitiesV2 and /entities', async () => {
    const one = await t.app.inject({ url: `/aspects/${enc(DATASET)}?aspect=riskAssessment`, headers: t.auth });
    assert.deepEqual(one.json(), { version: 0, aspect: { 'almanac.custom.RiskAssessment': { level: 'HIGH', reviewer: REVIEWER, score: 80 } } });
    const v2 = (await t.app.inject({ url: `/entitiesV2/${enc(SERVICE)}`, headers: t.auth })).json();
    assert.deepEqual([v2.entityName, Object.keys(v2.aspects).sort(), v2.aspects.serviceKey.value, v2.aspects.serviceInfo.value],
      ['service', ['serviceInfo', 'serviceKey'], { id: 'checkout' }, { name: 'Checkout', tier: 'silver', summary: 'Takes the basket to an order', dependsOn: [PAYMENTS] }]);
    const legacy = (await t.app.inject({ url: `/entities/${enc(SERVICE)}`, headers: t.auth })).json();
    assert.deepEqual(legacy, { value: { 'com.linkedin.metadata.snapshot.ServiceSnapshot': { urn: SERVICE, aspects: [
      { 'almanac.custom.ServiceInfo': { name: 'Checkout', tier: 'silver', summary: 'Takes the basket to an order', dependsOn: [PAYMENTS] } },
      { 'almanac.custom.ServiceKey': { id: 'checkout' } }] } } });
  });

  test('GraphQL reads them back through entity(urn:) and the generic aspects field', async () => {
    const res = await t.graphql(`{ service: entity(urn: "${SERVICE}") { __typename urn type ... on GenericEntity { aspects { aspectName payload } } }
      dataset(urn: "${DATASET}") { aspects { aspectName payload } } }`);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    assert.deepEqual(res.body.data.service, { __typename: 'GenericEntity', urn: SERVICE, type: 'OTHER', aspects: [
      { aspectName: 'serviceKey', payload: JSON.stringify({ id: 'checkout' }) },
      { aspectName: 'serviceInfo', payload: JSON.stringify({ name: 'Checkout', tier: 'silver', summary: 'Takes the basket to an order', dependsOn: [PAYMENTS] }) },
    ] });
    assert.deepEqual(res.body.data.dataset.aspects.filter((a: any) => a.aspectName === 'riskAssessment'),
      [{ aspectName: 'riskAssessment', payload: JSON.stringify({ level: 'HIGH', reviewer: REVIEWER, score: 80 }) }]);
  });

  test('search finds them by their text and filters them by their facets', async () => {
    const byText = await t.catalog.search.search({ query: 'basket', entityTypes: ['service'] });
    assert.deepEqual(byText.urns, [SERVICE]);
    const byFacet = await t.catalog.search.search({ query: '*', entityTypes: ['service'], filters: [[{ field: 'tier', values: ['gold'] }]] });
    assert.deepEqual(byFacet.urns, [PAYMENTS]);
    const risky = await t.catalog.search.search({ query: '*', filters: [[{ field: 'riskLevel', values: ['HIGH'] }]] });
    assert.deepEqual(risky.urns, [DATASET]);
    const rest = await post('/entities?action=search', { entity: 'service', input: 'checkout', start: 0, count: 10 });
    assert.deepEqual(rest.json().value.entities.map((e: any) => e.entity), [SERVICE]);
    const gql = await t.graphql(`{ searchAcrossEntities(input: { query: "*", orFilters: [{ and: [{ field: "tier", values: ["gold"] }] }] }) {
      total searchResults { entity { urn type } } } }`);
    assert.deepEqual(gql.body, { data: { searchAcrossEntities: { total: 1, searchResults: [{ entity: { urn: PAYMENTS, type: 'OTHER' } }] } }, extensions: {} });
  });

  test('their relationships are followed both ways', async () => {
    assert.deepEqual((await t.catalog.relationships.list({ urn: SERVICE, direction: 'OUTGOING', types: ['DependsOn'] })).edges,
      [{ source: SERVICE, type: 'DependsOn', destination: PAYMENTS }]);
    assert.deepEqual((await t.catalog.relationships.list({ urn: PAYMENTS, direction: 'INCOMING', types: ['DependsOn'] })).edges,
      [{ source: SERVICE, type: 'DependsOn', destination: PAYMENTS }]);
    const res = await t.graphql(`{ entity(urn: "${DATASET}") { relationships(input: { types: ["ReviewedBy"], direction: OUTGOING }) { total relationships { entity { urn } } } } }`);
    assert.deepEqual(res.body.data.entity.relationships, { total: 1, relationships: [{ entity: { urn: REVIEWER } }] });
  });

  test('they appear in the change log', async () => {
    const page = (await t.app.inject({ url: '/api/changes?since=0&limit=1000&aspect=serviceInfo', headers: t.auth })).json();
    assert.deepEqual(page.events.map((e: any) => [e.entityType, e.entityUrn, e.aspectName, JSON.parse(e.aspect.value).name]),
      [['service', PAYMENTS, 'serviceInfo', 'Payments'], ['service', SERVICE, 'serviceInfo', 'Checkout']]);
  });
});

forEachEngine('an aspect taken out of the registry file', (ctx) => {
  test('stays readable over REST after a restart without it; writing it is refused', async () => {
    // SQLite on a file, so that the restarted server finds what the first one wrote.
    const db = await freshSharedDatabaseUrl(ctx.engine);
    after(() => db.cleanup());
    ctx = { ...ctx, url: db.url };
    const first = await startApp(ctx, { registry: loadRegistryExtension(FILE) });
    await first.put(DATASET, 'riskAssessment', { level: 'LOW' });
    await first.close();
    const later = await startApp(ctx, { registry: parseRegistryExtension('entities: []\n') });
    try {
      const one = await later.app.inject({ url: `/aspects/${enc(DATASET)}?aspect=riskAssessment`, headers: later.auth });
      assert.deepEqual([one.statusCode, one.json()], [200, { version: 0, aspect: { riskAssessment: { level: 'LOW' } } }]);
      const v2 = (await later.app.inject({ url: `/entitiesV2/${enc(DATASET)}`, headers: later.auth })).json();
      assert.deepEqual(v2.aspects.riskAssessment.value, { level: 'LOW' });
      const write = await later.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: later.auth, payload: { proposal: {
        entityType: 'dataset', entityUrn: DATASET, changeType: 'UPSERT', aspectName: 'riskAssessment', aspect: { value: '{"level":"LOW"}', contentType: 'application/json' } } } });
      assert.deepEqual([write.statusCode, write.json().message], [422, "Unknown aspect 'riskAssessment' for entity type 'dataset'"]);
    } finally {
      await later.close();
    }
  });
});
