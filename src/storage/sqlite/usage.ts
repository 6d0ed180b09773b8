import { ACTIVITY_TABLE, ASPECT_TABLE, USAGE_EVENT_TABLE, tableFor } from '../schema.js';
import type { ActivityEvent, UsageEventCountQuery, UsageEventRow } from '../types.js';
import { usageCounts, usageCountStatement } from '../usage-sql.js';
import type { SqliteConnection } from './connection.js';

/** Usage and activity on SQLite: recent activity per user, usage events, the busiest datasets. */

export function recordActivity(c: SqliteConnection, a: ActivityEvent, keep: number): void {
  c.db.transaction(() => {
    c.stmt(`INSERT INTO ${ACTIVITY_TABLE} (actor, kind, value, at) VALUES (?, ?, ?, ?)
      ON CONFLICT (actor, kind, value) DO UPDATE SET at = max(at, excluded.at)`).run(a.actor, a.kind, a.value, a.time);
    // Everything older than the keep-th newest goes (nothing while there are fewer).
    c.stmt(`DELETE FROM ${ACTIVITY_TABLE} WHERE actor = ? AND kind = ? AND at < (SELECT at FROM ${ACTIVITY_TABLE}
      WHERE actor = ? AND kind = ? ORDER BY at DESC LIMIT 1 OFFSET ?)`).run(a.actor, a.kind, a.actor, a.kind, keep - 1);
  }).immediate();
}

export function recentActivity(c: SqliteConnection, actor: string, kind: string, limit: number): ActivityEvent[] {
  const rows = c.stmt(`SELECT value, at FROM ${ACTIVITY_TABLE} WHERE actor = ? AND kind = ? ORDER BY at DESC, value LIMIT ?`)
    .all(actor, kind, limit) as { value: string; at: number }[];
  return rows.map((r) => ({ actor, kind, value: r.value, time: Number(r.at) }));
}

export function aspectWritesBy(c: SqliteConnection, actor: string, start: number, count: number): { urn: string; time: number }[] {
  const rows = c.stmt(`SELECT urn, createdon FROM ${ASPECT_TABLE} WHERE createdby = ? ORDER BY createdon DESC, urn LIMIT ? OFFSET ?`)
    .all(actor, count, start) as { urn: string; createdon: number }[];
  return rows.map((r) => ({ urn: r.urn, time: Number(r.createdon) }));
}

export function datasetUsageLeaders(c: SqliteConnection, sinceMillis: number, limit: number): { urn: string; queries: number }[] {
  const t = tableFor('dataset', 'datasetUsageStatistics');
  const rows = c.stmt(`SELECT urn, SUM(COALESCE(json_extract(event, '$.totalSqlQueries'), 0)) AS queries FROM ${t}
    WHERE timestamp_millis >= ? GROUP BY urn HAVING queries > 0 ORDER BY queries DESC, urn LIMIT ?`).all(sinceMillis, limit) as
    { urn: string; queries: number }[];
  return rows.map((r) => ({ urn: r.urn, queries: Number(r.queries) }));
}

export function recordUsageEvents(c: SqliteConnection, events: readonly UsageEventRow[]): void {
  if (events.length === 0) return;
  const insert = c.stmt(`INSERT INTO ${USAGE_EVENT_TABLE} (at, type, actor, browser_id, entity_urn, entity_type, query, section,
    action_type, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  c.db.transaction(() => {
    for (const e of events) {
      insert.run(e.at, e.type, e.actor, e.browser_id, e.entity_urn, e.entity_type, e.query, e.section, e.action_type, e.event);
    }
  }).immediate();
}

export function countUsageEvents(c: SqliteConnection, q: UsageEventCountQuery): { keys: (string | null)[]; count: number }[] {
  const s = usageCountStatement('sqlite', q);
  if (!s) return [];
  // Not cached: the text varies with the query's shape.
  return usageCounts(c.db.prepare(s.sql).all(...s.params) as Record<string, unknown>[], s.keys);
}

export function deleteUsageEventsBefore(c: SqliteConnection, time: number): number {
  return c.stmt(`DELETE FROM ${USAGE_EVENT_TABLE} WHERE at < ?`).run(time).changes;
}
