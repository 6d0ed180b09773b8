import { parseUrn } from '../model/urn.js';
import type { Store, UsageColumn } from '../storage/types.js';
import { SEARCHABLE, type FilterClause, type SearchService } from './search.js';

/**
 * The analytics page of DataHub 0.12.1's web app (getAnalyticsCharts, getMetadataAnalyticsCharts, getHighlights),
 * computed as DataHub computes them: the usage charts from the usage events the web app posts to /track (DataHub's
 * `datahub_usage_event` index), the metadata charts from the search index's exact facet counts (soft-deleted
 * entities left out). Titles, groups, bucket sizes, top-N sizes and texts are DataHub's. Times are UTC.
 */

type Obj = Record<string, any>;

export interface NamedBar { name: string; segments: { label: string; value: number }[] }
export interface Cell {
  value: string;
  entity?: string;
  linkParams?: { searchParams?: { query: string }; entityProfileParams?: { urn: string; type: string } };
}
export type AnalyticsChart =
  | { __typename: 'TimeSeriesChart'; title: string; lines: { name: string; data: { x: string; y: number }[] }[];
    dateRange: { start: string; end: string }; interval: 'DAY' | 'WEEK' | 'MONTH' }
  | { __typename: 'BarChart'; title: string; bars: NamedBar[] }
  | { __typename: 'TableChart'; title: string; columns: string[]; rows: { values: string[]; cells: Cell[] }[] };
export interface ChartGroup { groupId: string; title: string; charts: AnalyticsChart[] }
export interface Highlight { value: number; title: string; body: string }

const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** DataHub's terms aggregations: ten buckets when no size is given. */
const TERMS = 10;
/** The value DataHub's bar charts show for an event without the grouped field. */
const NA = 'N/A';

const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;
/** Monday 00:00 UTC of t's week (ES calendar weeks start on Monday). */
const startOfWeek = (t: number) => startOfDay(t) - ((new Date(t).getUTCDay() + 6) % 7) * DAY;
const startOfMonth = (t: number) => { const d = new Date(t); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1); };
const addMonths = (t: number, n: number) => { const d = new Date(t); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, d.getUTCDate(),
  d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()); };
const next = (t: number, interval: 'DAY' | 'WEEK' | 'MONTH') => (interval === 'MONTH' ? addMonths(t, 1) : t + (interval === 'WEEK' ? WEEK : DAY));
const pct = (n: number, d: number) => (100 * n / d).toFixed(2);

/** DataHub's highlights: entity types counted, with their titles. */
const HIGHLIGHT_TYPES: [string, string][] = [['Datasets', 'dataset'], ['Dashboards', 'dashboard'], ['Charts', 'chart'], ['Pipelines', 'dataFlow'],
  ['Tasks', 'dataJob'], ['Domains', 'domain']];

export class AnalyticsService {
  constructor(private readonly store: Store, private readonly search: SearchService, private readonly opts: { now?: () => number } = {}) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Usage (events)

  /**
   * One line named "total": events (or distinct values of `unique`) per interval from `start` to `end`, as ES's date
   * histogram returns them: the buckets from the first to the last that has events, those between at 0.
   */
  private async timeSeries(title: string, start: number, end: number, interval: 'DAY' | 'WEEK' | 'MONTH', types?: string[],
    unique?: UsageColumn): Promise<AnalyticsChart> {
    const buckets: [number, number][] = [];
    for (let b = start; b <= end; b = next(b, interval)) buckets.push([b, Math.min(next(b, interval), end + 1)]);
    const counts = await Promise.all(buckets.map(async ([from, to]) =>
      (await this.store.countUsageEvents({ from, to, types, groupBy: [], distinct: unique }))[0]?.count ?? 0));
    const any = (await Promise.all(buckets.map(async ([from, to]) =>
      (await this.store.countUsageEvents({ from, to, types, groupBy: [] }))[0]?.count ?? 0))).map((n) => n > 0);
    const first = any.indexOf(true);
    const last = any.lastIndexOf(true);
    const data = first < 0 ? [] : buckets.slice(first, last + 1).map(([from], i) => ({ x: new Date(from).toISOString(), y: counts[first + i]! }));
    return { __typename: 'TimeSeriesChart', title, lines: [{ name: 'total', data }], dateRange: { start: String(start), end: String(end) }, interval };
  }

  /** Bars by one column, segments by another (a missing value counted as N/A), ten of each, most first. */
  private async usageBars(title: string, from: number, to: number, type: string, bar: UsageColumn, segment: UsageColumn): Promise<AnalyticsChart> {
    const rows = await this.store.countUsageEvents({ from, to, types: [type], groupBy: [bar, segment] });
    const bars = new Map<string, { total: number; segments: Map<string, number> }>();
    for (const r of rows) {
      const name = r.keys[0] ?? NA;
      const b = bars.get(name) ?? { total: 0, segments: new Map() };
      b.total += r.count;
      b.segments.set(r.keys[1] ?? NA, (b.segments.get(r.keys[1] ?? NA) ?? 0) + r.count);
      bars.set(name, b);
    }
    const byCount = <T>(a: [string, T], b: [string, T], n: (x: T) => number) => n(b[1]) - n(a[1]) || (a[0] < b[0] ? -1 : 1);
    return { __typename: 'BarChart', title, bars: [...bars].sort((a, b) => byCount(a, b, (x) => x.total)).slice(0, TERMS).map(([name, b]) => ({
      name, segments: [...b.segments].sort((x, y) => byCount(x, y, (v) => v)).slice(0, TERMS).map(([label, value]) => ({ label, value })) })) };
  }

  /** The trailing week: from the start of the day six days ago to the end of today. */
  private trailingWeek(): [number, number] {
    const end = startOfDay(this.now()) + DAY - 1;
    return [end - WEEK + 1, end];
  }

  private async usageCharts(): Promise<AnalyticsChart[]> {
    const now = this.now();
    const nextWeek = startOfWeek(now) + WEEK;
    const nextMonth = addMonths(startOfMonth(now), 1);
    const [wFrom, wTo] = this.trailingWeek();
    const topQueries = await this.store.countUsageEvents({ from: wFrom, to: wTo + 1, types: ['SearchEvent'], groupBy: ['query'], limit: TERMS });
    const topViewed = await this.store.countUsageEvents({ from: wFrom, to: wTo + 1, types: ['EntityViewEvent'], where: { entity_type: 'DATASET' },
      groupBy: ['entity_urn'], limit: TERMS });
    return [
      await this.timeSeries('Weekly Active Users', nextWeek - 10 * WEEK, nextWeek - 1, 'WEEK', undefined, 'browser_id'),
      await this.timeSeries('Monthly Active Users', addMonths(nextMonth, -12), nextMonth - 1, 'MONTH', undefined, 'browser_id'),
      await this.timeSeries('Searches Last Week', wFrom, wTo, 'DAY', ['SearchEvent']),
      { __typename: 'TableChart', title: 'Top Search Queries', columns: ['Query', 'Count'], rows: topQueries.filter((r) => r.keys[0] !== null)
        .map((r) => ({ values: [r.keys[0]!, String(r.count)],
          cells: [{ value: r.keys[0]!, linkParams: { searchParams: { query: r.keys[0]! } } }, { value: String(r.count) }] })) },
      await this.usageBars('Section Views across Entity Types', wFrom, wTo + 1, 'EntitySectionViewEvent', 'entity_type', 'section'),
      await this.usageBars('Actions by Entity Type', wFrom, wTo + 1, 'EntityActionEvent', 'entity_type', 'action_type'),
      { __typename: 'TableChart', title: 'Top Viewed Dataset', columns: ['Dataset', '#Views'], rows: topViewed.filter((r) => r.keys[0] !== null)
        .map((r) => {
          const urn = r.keys[0]!;
          return { values: [urn, String(r.count)], cells: [datasetCell(urn), { value: String(r.count) }] };
        }) },
    ];
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Metadata (search facets)

  private async facet(field: string, opts: { query?: string; entityTypes?: string[]; filters?: FilterClause[] } = {}) {
    const res = await this.search.search({ query: opts.query ?? '*', entityTypes: opts.entityTypes, filters: opts.filters ? [opts.filters] : undefined,
      count: 0, facets: [field] });
    return (res.facets.find((f) => f.field === field)?.aggregations ?? []).filter((a) => a.count > 0)
      .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1)).slice(0, TERMS);
  }

  /** Display names as DataHub hydrates them: domain and term names, platform display names; the value itself otherwise. */
  private async names(values: string[]): Promise<Map<string, string>> {
    const urns = values.filter((v) => v.startsWith('urn:li:'));
    const latest = await this.store.getLatest(urns, ['domainProperties', 'dataPlatformInfo', 'glossaryTermInfo']);
    const out = new Map<string, string>();
    for (const u of urns) {
      const a = latest.get(u);
      const type = parseUrn(u).entityType;
      const v = (name: string) => a?.get(name)?.value as Obj | undefined;
      const name = type === 'domain' ? v('domainProperties')?.name
        : type === 'dataPlatform' ? (v('dataPlatformInfo')?.displayName ?? v('dataPlatformInfo')?.name)
          : type === 'glossaryTerm' ? (v('glossaryTermInfo')?.name ?? parseUrn(u).parts[0]) : undefined;
      if (typeof name === 'string') out.set(u, name);
    }
    return out;
  }

  private async facetBars(field: string, label: string, opts: Parameters<AnalyticsService['facet']>[1] = {}): Promise<NamedBar[]> {
    const aggs = await this.facet(field, opts);
    const names = await this.names(aggs.map((a) => a.value));
    return aggs.map((a) => ({ name: names.get(a.value) ?? a.value, segments: [{ label, value: a.count }] }));
  }

  private async landscapeCharts(): Promise<AnalyticsChart[]> {
    const charts: AnalyticsChart[] = [];
    // Entities per domain, segmented by platform.
    const domains = await this.facet('domains');
    const perDomain = await Promise.all(domains.map(async (d) => ({ domain: d.value,
      platforms: await this.facet('platform', { filters: [{ field: 'domains', values: [d.value] }] }) })));
    const names = await this.names([...domains.map((d) => d.value), ...perDomain.flatMap((d) => d.platforms.map((p) => p.value))]);
    const byDomain: NamedBar[] = perDomain.map((d) => ({ name: names.get(d.domain) ?? d.domain,
      segments: d.platforms.map((p) => ({ label: names.get(p.value) ?? p.value, value: p.count })) }));
    if (byDomain.length) charts.push({ __typename: 'BarChart', title: 'Entities per Domain', bars: byDomain });
    const byPlatform = await this.facetBars('platform', 'Count');
    if (byPlatform.length) charts.push({ __typename: 'BarChart', title: 'Entities per Platform', bars: byPlatform });
    const byTerm = await this.facetBars('glossaryTerms', 'Count');
    if (byTerm.length) charts.push({ __typename: 'BarChart', title: 'Entities per Term', bars: byTerm });
    const byEnv = await this.facetBars('origin', 'Count');
    if (byEnv.length > 1) charts.push({ __typename: 'BarChart', title: 'Entities per Environment', bars: byEnv });
    return charts;
  }

  async charts(): Promise<ChartGroup[]> {
    return [
      { groupId: 'DataHubUsageAnalytics', title: 'DataHub Usage Analytics', charts: await this.usageCharts() },
      { groupId: 'GlobalMetadataAnalytics', title: 'Data Landscape Summary', charts: await this.landscapeCharts() },
    ];
  }

  /** The analytics page's filtered charts: entities of a type, in a domain (ALL: any), matching a query. */
  async metadataCharts(input: { entityType?: string; domain?: string | null; query?: string | null }): Promise<ChartGroup[]> {
    const opts = {
      query: input.query ? input.query : '*',
      entityTypes: input.entityType ? [input.entityType] : undefined,
      filters: input.domain && input.domain !== 'ALL' ? [{ field: 'domains', values: [input.domain] }] : undefined,
    };
    const charts: AnalyticsChart[] = [];
    if (!input.domain) {
      const bars = await this.facetBars('domains', '#Entities', opts);
      if (bars.length) charts.push({ __typename: 'BarChart', title: 'Entities by Domain', bars });
    }
    const platforms = await this.facetBars('platform', '#Entities', opts);
    if (platforms.length) charts.push({ __typename: 'BarChart', title: 'Entities by Platform', bars: platforms });
    const terms = await this.facetBars('glossaryTerms', '#Entities', opts);
    if (terms.length) charts.push({ __typename: 'BarChart', title: 'Entities by Term', bars: terms });
    const envs = await this.facetBars('origin', '#Entities', opts);
    if (envs.length > 1) charts.push({ __typename: 'BarChart', title: 'Entities by Environment', bars: envs });
    return [{ groupId: 'FilteredMetadataAnalytics', title: '', charts }];
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Highlights

  private async activeUsers(title: string, unit: string, now: number, back: (t: number) => number): Promise<Highlight> {
    const start = back(now);
    const before = back(start);
    const count = async (from: number, to: number) =>
      (await this.store.countUsageEvents({ from, to, groupBy: [], distinct: 'browser_id' }))[0]?.count ?? 0;
    const [current, previous] = [await count(start, now), await count(before, start)];
    let body = '';
    if (previous > 0) {
      const change = (current - previous) / previous * 100;
      body = `${change.toFixed(2)}% ${change > 0 ? 'increase' : 'decrease'} from last ${unit}`;
    }
    return { title, value: current, body };
  }

  private async total(entityType: string, clause?: FilterClause): Promise<number> {
    return (await this.search.search({ query: '*', entityTypes: [entityType], filters: clause ? [[clause]] : undefined, count: 0, facets: [] })).total;
  }

  async highlights(): Promise<Highlight[]> {
    const now = this.now();
    const out = [
      await this.activeUsers('Weekly Active Users', 'week', now, (t) => t - WEEK),
      await this.activeUsers('Monthly Active Users', 'month', now, (t) => addMonths(t, -1)),
    ];
    for (const [title, type] of HIGHLIGHT_TYPES) {
      if (!SEARCHABLE.has(type)) continue;
      const n = await this.total(type);
      if (n === 0) continue;
      const exists = (field: string) => this.total(type, { field, values: [], condition: 'EXISTS' });
      const [owners, tags, terms, description] = [await exists('owners'), await exists('tags'), await exists('glossaryTerms'),
        await this.total(type, { field: 'hasDescription', values: ['true'] })];
      let body = `${pct(owners, n)}% have owners, ${pct(tags, n)}% have tags, ${pct(terms, n)}% have glossary terms, ${pct(description, n)}% have description`;
      body += type === 'domain' ? '!' : `, ${pct(await exists('domains'), n)}% have domain assigned!`;
      out.push({ title, value: n, body });
    }
    return out;
  }
}

/** A dataset cell of the Top Viewed table: its name (from the urn), a link to its page. */
function datasetCell(urn: string): Cell {
  try {
    const u = parseUrn(urn);
    return { value: u.entityType === 'dataset' ? (u.parts[1] ?? urn) : urn, entity: urn,
      linkParams: { entityProfileParams: { urn, type: u.entityType === 'dataset' ? 'DATASET' : 'OTHER' } } };
  } catch {
    return { value: urn };
  }
}
