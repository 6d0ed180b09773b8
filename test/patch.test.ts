import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { applyPatch } from '../src/services/patch.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

test('keyed lists are addressed by key: add is idempotent, remove by key, order kept', () => {
  const current = { tags: [{ tag: 'urn:li:tag:a' }, { tag: 'urn:li:tag:b' }] };
  assert.deepEqual(applyPatch('globalTags', current, [
    { op: 'add', path: '/tags/urn:li:tag:c', value: { tag: 'urn:li:tag:c' } },
    { op: 'add', path: '/tags/urn:li:tag:a', value: { tag: 'urn:li:tag:a', context: 'again' } },
    { op: 'remove', path: '/tags/urn:li:tag:b' },
  ]), { tags: [{ tag: 'urn:li:tag:a', context: 'again' }, { tag: 'urn:li:tag:c' }] });
  assert.deepEqual(current, { tags: [{ tag: 'urn:li:tag:a' }, { tag: 'urn:li:tag:b' }] }, 'the input is not modified');
});

test('owners are keyed by owner and type; absent aspects start from their empty value, stamped', () => {
  const stamp = { time: 1700000000000, actor: 'urn:li:corpuser:__datahub_system' };
  assert.deepEqual(applyPatch('ownership', undefined, [
    { op: 'add', path: '/owners/urn:li:corpuser:a/TECHNICAL_OWNER', value: { owner: 'urn:li:corpuser:a', type: 'TECHNICAL_OWNER' } },
    { op: 'add', path: '/owners/urn:li:corpuser:a/BUSINESS_OWNER', value: { owner: 'urn:li:corpuser:a', type: 'BUSINESS_OWNER' } },
    { op: 'remove', path: '/owners/urn:li:corpuser:a/TECHNICAL_OWNER' },
  ], stamp), { owners: [{ owner: 'urn:li:corpuser:a', type: 'BUSINESS_OWNER' }], lastModified: stamp });
  assert.deepEqual(applyPatch('globalTags', undefined, [{ op: 'remove', path: '/tags/urn:li:tag:t' }], stamp), { tags: [] });
  assert.deepEqual(applyPatch('glossaryTerms', undefined, [], stamp), { terms: [], auditStamp: stamp });
  assert.deepEqual(applyPatch('editableDatasetProperties', undefined, [{ op: 'add', path: '/description', value: 'd' }], stamp), { description: 'd' });
});

test('column edits: a new column entry carries its fieldPath; nested tags are keyed too; ~1 escapes a slash', () => {
  const out = applyPatch('editableSchemaMetadata', { editableSchemaFieldInfo: [{ fieldPath: 'a', description: 'A' }] }, [
    { op: 'add', path: '/editableSchemaFieldInfo/b~1c/description', value: 'BC' },
    { op: 'add', path: '/editableSchemaFieldInfo/a/globalTags/tags/urn:li:tag:pii', value: { tag: 'urn:li:tag:pii' } },
  ]);
  assert.deepEqual(out, { editableSchemaFieldInfo: [
    { fieldPath: 'a', description: 'A', globalTags: { tags: [{ tag: 'urn:li:tag:pii' }] } },
    { fieldPath: 'b/c', description: 'BC' },
  ] });
});

test('plain objects and maps patch like JSON Patch', () => {
  assert.deepEqual(applyPatch('datasetProperties', { description: 'x', customProperties: { a: '1' } }, [
    { op: 'add', path: '/customProperties/b', value: '2' },
    { op: 'remove', path: '/customProperties/a' },
    { op: 'replace', path: '/description', value: 'y' },
  ]), { description: 'y', customProperties: { b: '2' } });
});

test('malformed patches are refused', () => {
  assert.throws(() => applyPatch('globalTags', undefined, { op: 'add' }), /must be a JSON array/);
  assert.throws(() => applyPatch('globalTags', undefined, [{ op: 'move', path: '/tags', from: '/x' }]), /must be \{op: add\|remove\|replace/);
  assert.throws(() => applyPatch('globalTags', undefined, [{ op: 'add', path: 'tags', value: 1 }]), /must start with '\/'/);
});

forEachEngine('PATCH proposals over REST', (ctx) => {
  let t: TestApp;
  const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const patch = (aspectName: string, ops: unknown) => t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: t.auth,
    payload: { proposal: { entityType: 'dataset', entityUrn: HIVE, changeType: 'PATCH', aspectName,
      aspect: { value: JSON.stringify(ops), contentType: 'application/json-patch+json' } } } });

  test('a tag patch adds to what is stored, as the Python SDK\'s patch builders send it', async () => {
    const res = await patch('globalTags', [{ op: 'add', path: '/tags/urn:li:tag:NeedsDocumentation', value: { tag: 'urn:li:tag:NeedsDocumentation' } }]);
    assert.deepEqual([res.statusCode, res.json()], [200, { value: HIVE }]);
    assert.deepEqual((await t.catalog.entities.getAspect(HIVE, 'globalTags')).value,
      { tags: [{ tag: 'urn:li:tag:Legacy' }, { tag: 'urn:li:tag:NeedsDocumentation' }] });
  });

  test('a patch whose result is not a valid aspect is refused with 422 and nothing changes', async () => {
    const before = await t.catalog.entities.getAspect(HIVE, 'globalTags');
    const res = await patch('globalTags', [{ op: 'add', path: '/tags/x', value: { tag: 42 } }]);
    assert.equal(res.statusCode, 422);
    // The new entry comes after those stored (the sample's one, and the one the test above adds when it ran).
    const at = (before.value as { tags: unknown[] }).tags.length;
    assert.equal(res.json().message, `Invalid aspect globalTags: tags[${at}].tag: expected a urn, got number`);
    assert.deepEqual(await t.catalog.entities.getAspect(HIVE, 'globalTags'), before);
  });
});
