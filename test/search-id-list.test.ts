import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idList } from '../src/storage/sqlite/search.js';

/** The ids SQLite joins into one string (SqliteSearch.ids), read back as numbers. */
test('a joined id list reads back as the ids, in their order; ids beyond 32 bits as plain numbers', () => {
  assert.deepEqual(Array.from(idList('7')), [7]);
  assert.deepEqual(Array.from(idList('30,1,4294967295,0,12')), [30, 1, 4294967295, 0, 12]);
  assert.equal(idList('1,2').constructor, Uint32Array, 'ids within 32 bits come back as a Uint32Array');
  const big = idList('5,4294967296,9007199254740991');
  assert.deepEqual(big, [5, 4294967296, 9007199254740991]);
  assert.deepEqual(idList('3,-2'), [3, -2]);
  const many = Array.from({ length: 10_000 }, (_, i) => (i * 7919) % 100_003);
  assert.deepEqual(Array.from(idList(many.join(','))), many);
});
