/** Shared helpers for benchmarks. */
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
