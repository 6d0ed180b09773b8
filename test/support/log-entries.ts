import assert from 'node:assert/strict';
import type { ChangeRecord, Store } from '../../src/storage/types.js';

/**
 * Each log entry after `from` as first read (`note()` after each write), then `unchanged()`: the log read again now
 * holds exactly those entries, each reading as it did then (what entries by reference must keep, whatever came after).
 */
export function entriesAsFirstRead(store: Store, from: number) {
  const seen = new Map<number, ChangeRecord>();
  return {
    async note(): Promise<void> {
      for (const e of await store.changesAfter(from, 10_000, true)) if (!seen.has(e.seq)) seen.set(e.seq, e);
    },
    async unchanged(): Promise<ChangeRecord[]> {
      const now = await store.changesAfter(from, 10_000, true);
      assert.equal(now.length, seen.size, 'the entries first read, no more, no fewer');
      for (const e of now) assert.deepEqual(e, seen.get(e.seq), `entry ${e.seq}`);
      return now;
    },
  };
}
