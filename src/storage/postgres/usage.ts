import { ACTIVITY_TABLE, ASPECT_TABLE, USAGE_EVENT_TABLE, tableFor } from '../schema.js';
import type { ActivityEvent, UsageEventCountQuery, UsageEventRow } from '../types.js';
import { usageCounts, usageCountStatement } from '../usage-sql.js';
import type { PostgresConnection } from './connection.js';

/** Usage and activity on PostgreSQL: recent activity per user, usage events, the busiest datasets. */

export async function recordActivity(db: PostgresConnection, a: ActivityEvent, keep: number): Promise<void> {
  await db.tx(async (c) => {
    await c.query(`INSERT INTO ${ACTIVITY_TABLE} AS t (actor, kind, value, at) VALUES ($1, $2, $3, $4)
      ON CONFLICT (actor, kind, value) DO UPDATE SET at = GREATEST(t.at, EXCLUDED.at)`, [a.actor, a.kind, a.value, a.time]);
    // Everything older than the keep-th newest goes (nothing while there are fewer).
    await c.query(`DELETE FROM ${ACTIVITY_TABLE} WHERE actor = $1 AND kind = $2 AND at < (SELECT at FROM ${ACTIVITY_TABLE}
      WHERE actor = $1 AND kind = $2 ORDER BY at DESC LIMIT 1 OFFSET $3)`, [a.actor, a.kind, keep - 1]);
  });
}

export async function recentActivity(db: PostgresConnection, actor: string, kind: string, limit: number): Promise<ActivityEvent[]> {
  const { rows } = await db.query(`SELECT value, at FROM ${ACTIVITY_TABLE} WHERE actor = $1 AND kind = $2
    ORDER BY at DESC, value COLLATE "C" LIMIT $3`, [actor, kind, limit]);
  return rows.map((r) => ({ actor, kind, value: r.value as string, time: Number(r.at) }));
}

export async function aspectWritesBy(db: PostgresConnection, actor: string, start: number, count: number): Promise<{ urn: string; time: number }[]> {
  const { rows } = await db.query(`SELECT urn, createdon FROM ${ASPECT_TABLE} WHERE createdby = $1
    ORDER BY createdon DESC, urn COLLATE "C" LIMIT $2 OFFSET $3`, [actor, count, start]);
  return rows.map((r) => ({ urn: r.urn as string, time: Number(r.createdon) }));
}

export async function datasetUsageLeaders(db: PostgresConnection, sinceMillis: number, limit: number): Promise<{ urn: string; queries: number }[]> {
  const t = tableFor('dataset', 'datasetUsageStatistics');
  const { rows } = await db.query(`SELECT urn, SUM(COALESCE((event::jsonb ->> 'totalSqlQueries')::numeric, 0)) AS queries FROM ${t}
    WHERE timestamp_millis >= $1 GROUP BY urn HAVING SUM(COALESCE((event::jsonb ->> 'totalSqlQueries')::numeric, 0)) > 0
    ORDER BY queries DESC, urn COLLATE "C" LIMIT $2`, [sinceMillis, limit]);
  return rows.map((r) => ({ urn: r.urn as string, queries: Number(r.queries) }));
}

export async function recordUsageEvents(db: PostgresConnection, events: readonly UsageEventRow[]): Promise<void> {
  if (events.length === 0) return;
  const cols = ['at', 'type', 'actor', 'browser_id', 'entity_urn', 'entity_type', 'query', 'section', 'action_type', 'event'] as const;
  await db.query(`INSERT INTO ${USAGE_EVENT_TABLE} (${cols.join(', ')})
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])`,
  cols.map((c) => events.map((e) => e[c])));
}

export async function countUsageEvents(db: PostgresConnection, q: UsageEventCountQuery): Promise<{ keys: (string | null)[]; count: number }[]> {
  const s = usageCountStatement('postgres', q);
  if (!s) return [];
  return usageCounts((await db.query(s.sql, s.params)).rows, s.keys);
}

export async function deleteUsageEventsBefore(db: PostgresConnection, time: number): Promise<number> {
  const r = await db.query(`DELETE FROM ${USAGE_EVENT_TABLE} WHERE at < $1`, [time]);
  return r.rowCount ?? 0;
}
