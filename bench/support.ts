/** Shared helpers for benchmarks. */
import type { ChangeItem } from '../src/services/ingest-format.js';
import type { DecodedRecord } from '../src/services/record-decoding.js';
import { throwawayPostgres as createThrowaway } from '../test/support/engines.js';

/** A throwaway PostgreSQL database (the test suites' helper), or null when no server is reachable. */
export async function throwawayPostgres(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  try {
    return await createThrowaway();
  } catch {
    return null;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);

/** The change items of decoded records, all of which must have passed (generated records are valid). */
export function decodedItems(records: DecodedRecord[]): ChangeItem[] {
  return records.flatMap((r) => {
    if (!('items' in r) || r.invalid !== undefined) throw new Error(`a generated record was refused: ${JSON.stringify(r)}`);
    return r.items;
  });
}
