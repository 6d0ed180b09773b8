import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { hasSchema, validateAspect } from '../src/registry/aspect-schemas.js';
import { ALL_ASPECTS, ENTITY_DESCRIPTORS } from '../src/entities/index.js';
import { aspectNameOfClass } from '../src/registry/registry.js';
import { normaliseAspectValue } from '../src/model/wire-format.js';
import { SAMPLES, readSample, startApp } from './support/app.js';

test('every aspect of every sample file validates', () => {
  let n = 0;
  for (const file of readdirSync(SAMPLES).filter((f) => f.endsWith('.json'))) {
    const data = readSample(file);
    for (const rec of (Array.isArray(data) ? data : [data]) as Record<string, any>[]) {
      const items: [string, unknown][] = rec.proposedSnapshot
        ? (Object.values(rec.proposedSnapshot)[0] as any).aspects.map((a: object) => {
          const [cls, v] = Object.entries(a)[0]!;
          return [aspectNameOfClass(cls)!, normaliseAspectValue(v)];
        })
        : [[rec.aspectName, normaliseAspectValue(rec.aspect.json ?? JSON.parse(rec.aspect.value))]];
      for (const [aspect, value] of items) {
        assert.equal(validateAspect(aspect, value), null, `${file}: ${aspect}`);
        n++;
      }
    }
  }
  assert.equal(n, 247);
});

test('every registered aspect, key aspects included, has a schema', () => {
  for (const a of ALL_ASPECTS.keys()) assert.ok(hasSchema(a), a);
  for (const d of ENTITY_DESCRIPTORS) assert.ok(hasSchema(d.key.name), d.key.name);
  assert.equal(hasSchema('noSuchAspect'), false);
});

test('wrong shapes name the field', () => {
  const cases: [string, unknown, { path: string; message: string }][] = [
    ['status', { removed: 'yes' }, { path: 'removed', message: 'removed: expected a boolean, got string' }],
    ['status', {}, { path: 'removed', message: 'removed: required field is missing' }],
    ['status', [], { path: '', message: 'expected an object, got array' }],
    ['tagProperties', { name: 7 }, { path: 'name', message: 'name: expected a string, got number' }],
    ['ownership', { owners: [{ owner: 'urn:li:corpuser:a', type: 'DATAOWNER' }, { owner: 'jdoe', type: 'DATAOWNER' }] },
      { path: 'owners[1].owner', message: "owners[1].owner: expected a urn, got 'jdoe'" }],
    ['ownership', { owners: [{ owner: 'urn:li:corpuser:a', type: 'BOSS' }] },
      { path: 'owners[0].type', message: "owners[0].type: 'BOSS' is not one of TECHNICAL_OWNER, BUSINESS_OWNER, DATA_STEWARD, NONE, CUSTOM, DATAOWNER, PRODUCER, DEVELOPER, CONSUMER, DELEGATE, STAKEHOLDER" }],
    ['schemaMetadata', { schemaName: 's', platform: 'urn:li:dataPlatform:x', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.MySqlDDL': { tableSchema: '' } },
      fields: [{ fieldPath: 'a', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } }, { fieldPath: 'b', type: { type: {} }, nativeDataType: 'x' }] },
      { path: 'fields[1].type.type', message: 'fields[1].type.type: expected a one-key object naming the union member, got object' }],
    ['datasetProperties', { customProperties: { a: 1 } }, { path: 'customProperties.a', message: 'customProperties.a: expected a string, got number' }],
    ['datasetProfile', { rowCount: 3 }, { path: 'timestampMillis', message: 'timestampMillis: required field is missing' }],
    ['datasetProfile', { timestampMillis: 1.5 }, { path: 'timestampMillis', message: 'timestampMillis: expected a whole number, got 1.5' }],
    ['operation', { timestampMillis: 1, operationType: 'INSERT' }, { path: 'lastUpdatedTimestamp', message: 'lastUpdatedTimestamp: required field is missing' }],
    ['testInfo', { name: 'n', category: 'c', definition: { type: 'XML', json: '{}' } },
      { path: 'definition.type', message: "definition.type: 'XML' is not one of JSON, YAML" }],
    ['datasetKey', { platform: 'urn:li:dataPlatform:x', name: 5 }, { path: 'name', message: 'name: expected a string, got number' }],
  ];
  for (const [aspect, value, expected] of cases) assert.deepEqual(validateAspect(aspect, value), expected, aspect);
});

test('unknown extra fields are accepted and kept: stored and read back as sent, over REST and by the service', async () => {
  const t = await startApp({ engine: 'sqlite', url: 'sqlite::memory:' });
  try {
    const urn = 'urn:li:tag:extra_fields';
    const sent = { name: 'Extra', description: 'd', reason: 'kept', nested: { anything: [1, 2], deeper: { x: 'y' } } };
    assert.equal(validateAspect('tagProperties', sent), null);
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth, payload: { proposal: {
      entityType: 'tag', entityUrn: urn, changeType: 'UPSERT', aspectName: 'tagProperties',
      aspect: { value: JSON.stringify(sent), contentType: 'application/json' } } } });
    assert.deepEqual([res.statusCode, res.json()], [200, { value: urn }]);
    const read = await t.app.inject({ url: `/aspects/${encodeURIComponent(urn)}?aspect=tagProperties`, headers: t.auth });
    assert.deepEqual(read.json(), { version: 0, aspect: { 'com.linkedin.tag.TagProperties': { name: 'Extra', description: 'd',
      reason: 'kept', nested: { anything: [1, 2], deeper: { x: 'y' } } } } });
    assert.deepEqual((await t.catalog.entities.getAspect(urn, 'tagProperties')).value,
      { name: 'Extra', description: 'd', reason: 'kept', nested: { anything: [1, 2], deeper: { x: 'y' } } });
  } finally {
    await t.close();
  }
});

test('fitsSchema checks a frozen value once per schema, and a value that can still change every time', async () => {
  const { fitsSchema, rec, str } = await import('../src/entities/schema.js');
  const { deepFreeze } = await import('../src/model/deep-freeze.js');
  const inner = rec({ name: str });
  let checks = 0;
  const counted = { ...inner, check: (v: unknown, p: (string | number)[]) => { checks++; return inner.check(v, p); } };
  const frozen = deepFreeze({ name: 'orders' });
  assert.deepEqual([fitsSchema(counted, frozen), fitsSchema(counted, frozen), checks], [true, true, 1]);
  // Another schema (a registry that replaced the aspect's definition) checks it again.
  const other = { ...inner, check: (v: unknown, p: (string | number)[]) => { checks++; return inner.check(v, p); } };
  assert.deepEqual([fitsSchema(other, frozen), checks], [true, 2]);
  const open: Record<string, unknown> = { name: 'orders' };
  assert.equal(fitsSchema(counted, open), true);
  open.name = 5;
  assert.deepEqual([fitsSchema(counted, open), checks], [false, 4]);
  // A frozen value that does not fit is not remembered as fitting.
  const bad = deepFreeze({ name: 5 });
  assert.deepEqual([fitsSchema(counted, bad), fitsSchema(counted, bad), checks], [false, false, 6]);
});
