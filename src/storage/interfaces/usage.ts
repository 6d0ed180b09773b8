/** Usage events (the web app's /track) and user activity: records and the store's part. */

/** The columns of a usage event that queries may filter, group and count on. */
export type UsageColumn = 'type' | 'actor' | 'browser_id' | 'entity_urn' | 'entity_type' | 'query' | 'section' | 'action_type';
export const USAGE_COLUMNS: readonly UsageColumn[] = ['type', 'actor', 'browser_id', 'entity_urn', 'entity_type', 'query', 'section', 'action_type'];

export interface UsageEventRow {
  at: number;
  type: string;
  actor: string | null;
  browser_id: string | null;
  entity_urn: string | null;
  entity_type: string | null;
  query: string | null;
  section: string | null;
  action_type: string | null;
  /** The event as sent (JSON). */
  event: string;
}

export interface UsageEventCountQuery {
  from: number;
  to: number;
  types?: readonly string[];
  where?: Partial<Record<UsageColumn, string>>;
  groupBy: readonly UsageColumn[];
  distinct?: UsageColumn;
  limit?: number;
}

/** One thing a user did: kind 'view' (value: an entity urn) or 'search' (value: the query), at a time in ms. */
export interface ActivityEvent {
  actor: string;
  kind: string;
  value: string;
  time: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Export and backup (src/services/export.ts, src/services/backup.ts). Declared apart, merged into Store above by
// TypeScript's interface merging, so that these reads stay out of the way of changes to the write path.


export interface UsageStore {
  // User activity (recommendations): what each user viewed and searched recently
  /** Records one event, replacing an older one of the same value; then keeps only the `keep` newest of that actor and kind. */
  recordActivity(a: ActivityEvent, keep: number): Promise<void>;
  /** One actor's events of one kind, newest first. */
  recentActivity(actor: string, kind: string, limit: number): Promise<ActivityEvent[]>;
  /** Aspect versions written by one actor (urn and time), newest first, paged. */
  aspectWritesBy(actor: string, start: number, count: number): Promise<{ urn: string; time: number }[]>;
  /** Datasets by the sum of `totalSqlQueries` of their usage statistics since a time, most first (ties by urn), only those above 0. */
  datasetUsageLeaders(sinceMillis: number, limit: number): Promise<{ urn: string; queries: number }[]>;

  // Usage events (the web app's /track): stored one row each, counted for the analytics charts
  recordUsageEvents(events: readonly UsageEventRow[]): Promise<void>;
  /**
   * Events with `at` in [from, to), of the given types (any when absent) and column values, grouped by `groupBy`
   * (a null key where the event has no value), counted as events or as distinct non-null values of `distinct`;
   * groups most first (ties by key), at most `limit`.
   */
  countUsageEvents(q: UsageEventCountQuery): Promise<{ keys: (string | null)[]; count: number }[]>;
  /** Deletes the events older than a time; returns how many went. */
  deleteUsageEventsBefore(time: number): Promise<number>;
}
