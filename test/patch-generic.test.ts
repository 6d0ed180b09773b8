import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPatch } from '../src/services/patch.js';

/**
 * DataHub 1.x connectors send some PATCHes as `{patch: [...], arrayPrimaryKeys: {<list>: [key fields]}}` (Unity
 * Catalog's ownership): the list is keyed by the fields the patch names, nested ones joined by '␟', a missing one ''.
 */
const STAMP = { time: 1, actor: 'urn:li:corpuser:datahub' };
const KEYS = { owners: ['owner', 'type', 'typeUrn', 'attribution\u241fsource'] };

test('a 1.x patch with arrayPrimaryKeys adds and removes list items by those keys', () => {
  const current = { owners: [
    { owner: 'urn:li:corpuser:a', type: 'DATAOWNER' },
    { owner: 'urn:li:corpuser:b', type: 'DATAOWNER', attribution: { source: 'urn:li:dataHubAction:x', time: 0, actor: 'urn:li:corpuser:b' } },
  ], lastModified: STAMP };
  const out = applyPatch('ownership', current, { arrayPrimaryKeys: KEYS, patch: [
    { op: 'add', path: '/owners/urn:li:corpuser:account users/DATAOWNER//', value: { owner: 'urn:li:corpuser:account users', type: 'DATAOWNER' } },
    { op: 'remove', path: '/owners/urn:li:corpuser:a/DATAOWNER//' },
    { op: 'remove', path: '/owners/urn:li:corpuser:b/DATAOWNER//urn:li:dataHubAction:x' },
  ] }, STAMP);
  assert.deepEqual(out, { owners: [{ owner: 'urn:li:corpuser:account users', type: 'DATAOWNER' }], lastModified: STAMP });
});

test('a 1.x patch without arrayPrimaryKeys is its operations; a malformed one is refused', () => {
  assert.deepEqual(applyPatch('globalTags', undefined, { patch: [{ op: 'add', path: '/tags/urn:li:tag:pii', value: { tag: 'urn:li:tag:pii' } }] }, STAMP),
    { tags: [{ tag: 'urn:li:tag:pii' }] });
  assert.throws(() => applyPatch('ownership', undefined, { arrayPrimaryKeys: { owners: 'owner' }, patch: [] }, STAMP),
    { message: "A PATCH aspect's arrayPrimaryKeys must map list paths to lists of key fields" });
});
