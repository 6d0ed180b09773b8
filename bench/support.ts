import pg from 'pg';

/** Shared helpers for benchmarks: a throwaway PostgreSQL database when one is reachable, and percentiles. */
export async function throwawayPostgres(tag: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const admin = process.env.ALMANAC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `almanac_bench_${tag}_${process.pid}`;
  const c = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
  } catch {
    return null;
  } finally {
    await c.end().catch(() => {});
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const median = (xs: number[]) => percentile([...xs].sort((a, b) => a - b), 50);
