import { USAGE_EVENT_TABLE, type Dialect } from './schema.js';
import { SqlParams } from './search-sql.js';
import { USAGE_COLUMNS, type UsageColumn, type UsageEventCountQuery } from './types.js';

/**
 * The count of usage events (Store.countUsageEvents), written once for both engines; null when it is known to be
 * empty. Keys sort in byte order on both.
 */
export function usageCountStatement(dialect: Dialect, q: UsageEventCountQuery): { sql: string; params: unknown[]; keys: UsageColumn[] } | null {
  const col = (c: UsageColumn) => {
    if (!USAGE_COLUMNS.includes(c)) throw new Error(`unknown usage event column ${c}`);
    return c;
  };
  const p = new SqlParams(dialect);
  const where = [`at >= ${p.add(q.from)}`, `at < ${p.add(q.to)}`];
  if (q.types) {
    if (q.types.length === 0) return null;
    where.push(`type ${p.in(q.types)}`);
  }
  for (const [c, v] of Object.entries(q.where ?? {})) where.push(`${col(c as UsageColumn)} = ${p.add(v)}`);
  const keys = q.groupBy.map(col);
  const collate = dialect === 'postgres' ? ' COLLATE "C"' : '';
  const count = q.distinct ? `COUNT(DISTINCT ${col(q.distinct)})` : 'COUNT(*)';
  const select = keys.map((k, i) => `${k} AS k${i}`).join(', ');
  const sql = `SELECT ${select}${select ? ', ' : ''}${count} AS n FROM ${USAGE_EVENT_TABLE} WHERE ${where.join(' AND ')}`
    + (keys.length ? ` GROUP BY ${keys.join(', ')} ORDER BY n DESC, ${keys.map((k) => `${k} IS NULL, ${k}${collate}`).join(', ')}` : '')
    + (q.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(q.limit))}` : '');
  return { sql, params: p.list, keys };
}

/** A count's rows as Store.countUsageEvents answers them. */
export function usageCounts(rows: Record<string, unknown>[], keys: readonly UsageColumn[]): { keys: (string | null)[]; count: number }[] {
  return rows.map((r) => ({ keys: keys.map((_, i) => (r[`k${i}`] ?? null) as string | null), count: Number(r.n) }));
}
