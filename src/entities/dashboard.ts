import { biProperties, inputFieldsOut, usageByUser, usageSummary } from './chart.js';
import { aspect, defineEntity, edgeMeta, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { COMMON_FIELDS, descriptionFor } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, int, rec, str, urn } from './schema.js';

export const dashboardKey = keyAspect('dashboardKey', 'com.linkedin.metadata.key.DashboardKey',
  [['dashboardTool', 'string'], ['dashboardId', 'string']]);

export const dashboardInfo = aspect('dashboardInfo', 'com.linkedin.dashboard.DashboardInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, title: str, description: str, 'charts?': arr(urn),
  'chartEdges?': arr(shared.edge), 'datasets?': arr(urn), 'datasetEdges?': arr(shared.edge), lastModified: shared.changeAuditStamps,
  'dashboardUrl?': str, 'access?': enumOf(['PUBLIC', 'PRIVATE']), 'lastRefreshed?': int,
}), {
  edges: (v, add) => {
    for (const c of v.charts ?? []) add('Contains', c);
    for (const e of v.chartEdges ?? []) add('Contains', e.destinationUrn, edgeMeta(e));
    for (const d of v.datasets ?? []) add('Consumes', d);
    for (const e of v.datasetEdges ?? []) add('Consumes', e.destinationUrn, edgeMeta(e));
  },
  searchText: shared.propertiesText,
});

export const editableDashboardProperties = aspect('editableDashboardProperties', 'com.linkedin.dashboard.EditableDashboardProperties',
  rec({ ...shared.changeAuditStampFields, 'description?': str }), { searchText: shared.editableText });

export const dashboardUsageStatistics = aspect('dashboardUsageStatistics', 'com.linkedin.dashboard.DashboardUsageStatistics', rec({
  ...shared.timeseriesFields, 'viewsCount?': int, 'executionsCount?': int, 'uniqueUserCount?': int,
  'userCounts?': arr(rec({ user: urn, 'viewsCount?': int, 'executionsCount?': int, 'usageCount?': int, 'userEmail?': str })),
  'favoritesCount?': int, 'lastViewedAt?': int,
}), { timeseries: true });

const SDL = gql`
type Dashboard implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  lastIngested: Long
  container: Container
  parentContainers: ParentContainersResult
  "The BI tool, from the urn (platform is the same as a DataPlatform)."
  tool: String!
  "The dashboard's id within its tool, from the urn."
  dashboardId: String!
  properties: DashboardProperties
  editableProperties: DashboardEditableProperties
  ownership: Ownership
  status: Status
  embed: Embed
  deprecation: Deprecation
  tags: GlobalTags
  institutionalMemory: InstitutionalMemory
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  dataPlatformInstance: DataPlatformInstance
  "Its charts are the OUTGOING relationships of type Contains; the datasets it reads, of type Consumes."
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Upstream: its charts (Contains) and datasets (Consumes)."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  "Deprecated: use properties."
  info: DashboardInfo @deprecated(reason: "Use properties")
  "Deprecated: use editableProperties."
  editableInfo: DashboardEditableProperties @deprecated(reason: "Use editableProperties")
  "Deprecated: use tags."
  globalTags: GlobalTags @deprecated(reason: "Use tags")
  platform: DataPlatform!
  inputFields: InputFields
  subTypes: SubTypes
  privileges: EntityPrivileges
  exists: Boolean
  "From dashboardUsageStatistics."
  statsSummary: DashboardStatsSummary
  "Daily buckets, per-user totals and absolute reports from dashboardUsageStatistics, in the range given (limit: absolute reports)."
  usageStats(startTimeMillis: Long, endTimeMillis: Long, limit: Int): DashboardUsageQueryResult
}

type DashboardUsageQueryResult {
  buckets: [DashboardUsageAggregation]
  aggregations: DashboardUsageQueryResultAggregations
  metrics: [DashboardUsageMetrics!]
}

type DashboardUsageAggregation {
  "Start of the day (UTC)."
  bucket: Long
  duration: WindowDuration
  resource: String
  metrics: DashboardUsageAggregationMetrics
}

type DashboardUsageAggregationMetrics {
  uniqueUserCount: Int
  viewsCount: Int
  executionsCount: Int
}

type DashboardUsageQueryResultAggregations {
  uniqueUserCount: Int
  users: [DashboardUserUsageCounts]
  viewsCount: Int
  executionsCount: Int
}

type DashboardUserUsageCounts {
  user: CorpUser
  viewsCount: Int
  executionsCount: Int
  usageCount: Int
}

"An absolute usage report of a dashboard (a dashboardUsageStatistics row without eventGranularity)."
type DashboardUsageMetrics {
  timestampMillis: Long!
  favoritesCount: Int
  viewsCount: Int
  executionsCount: Int
  lastViewed: Long
}

"Usage of a dashboard: the latest reported total views, and the last 30 days of daily buckets."
type DashboardStatsSummary {
  viewCount: Int
  viewCountLast30Days: Int
  uniqueUserCountLast30Days: Int
  topUsersLast30Days: [CorpUser!]
}

type DashboardProperties {
  name: String!
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  "externalUrl, else the tool's dashboardUrl."
  externalUrl: String
  access: AccessLevel
  customProperties: [CustomPropertiesEntry!]
  lastRefreshed: Long
  created: AuditStamp!
  lastModified: AuditStamp!
  deleted: AuditStamp
}

"Deprecated form of DashboardProperties, with the dashboard's charts."
type DashboardInfo {
  name: String!
  "The ingested description."
  description: String
  charts: [Chart!]! @deprecated(reason: "Use relationships of type Contains")
  externalUrl: String
  access: AccessLevel
  customProperties: [CustomPropertiesEntry!]
  lastRefreshed: Long
  created: AuditStamp!
  lastModified: AuditStamp!
  deleted: AuditStamp
}

type DashboardEditableProperties {
  description: String
}
`;

const DAY = 24 * 3600 * 1000;
const add = (a: number | null, b: number | undefined) => (b == null ? a : (a ?? 0) + b);

/** Dashboard usageStats as DataHub 0.12.1 answers it: daily buckets oldest first, their totals and users, absolute reports newest first. */
async function usageStats(f: FieldContext) {
  const args = f.args as { startTimeMillis?: number | null; endTimeMillis?: number | null; limit?: number | null };
  const range = { ...(args.startTimeMillis != null ? { startTimeMillis: args.startTimeMillis } : {}),
    ...(args.endTimeMillis != null ? { endTimeMillis: args.endTimeMillis } : {}) };
  const rows = await f.timeseries(dashboardUsageStatistics, { ...range, limit: 10_000 });
  const daily = rows.filter((r) => r.eventGranularity !== undefined);
  const days = new Map<number, { uniqueUserCount: number | null; viewsCount: number | null; executionsCount: number | null }>();
  for (const r of daily) {
    const day = Math.floor(r.timestampMillis / DAY) * DAY;
    const cur = days.get(day) ?? { uniqueUserCount: null, viewsCount: null, executionsCount: null };
    days.set(day, { uniqueUserCount: add(cur.uniqueUserCount, r.uniqueUserCount), viewsCount: add(cur.viewsCount, r.viewsCount),
      executionsCount: add(cur.executionsCount, r.executionsCount) });
  }
  const buckets = [...days].sort((a, b) => a[0] - b[0])
    .map(([bucket, metrics]) => ({ bucket, duration: 'DAY', resource: f.urn, metrics }));
  const users = usageByUser(daily);
  const limit = args.limit != null && args.limit >= 0 ? args.limit : Infinity;
  return {
    buckets,
    aggregations: {
      uniqueUserCount: users.length,
      users: users.map((u) => ({ ...u, user: ref(u.user) })),
      viewsCount: buckets.reduce<number | null>((s, b) => add(s, b.metrics.viewsCount ?? undefined), null),
      executionsCount: buckets.reduce<number | null>((s, b) => add(s, b.metrics.executionsCount ?? undefined), null),
    },
    metrics: rows.filter((r) => r.eventGranularity === undefined).slice(0, limit).map((r) => ({
      timestampMillis: r.timestampMillis, favoritesCount: r.favoritesCount ?? null, viewsCount: r.viewsCount ?? null,
      executionsCount: r.executionsCount ?? null, lastViewed: r.lastViewedAt ?? null })),
  };
}

/** Dashboards of BI tools: collections of charts. */
export const dashboard = defineEntity({
  name: 'dashboard',
  category: 'core',
  display: { label: 'Dashboard', rank: 30 },
  // dashboardInfo: charts and chartEdges (Contains), datasets and datasetEdges (Consumes), both upstream.
  lineage: { upstream: [{ type: 'Contains', entityTypes: ['chart'] }, { type: 'Consumes', entityTypes: ['dataset'] }] },
  key: dashboardKey,
  aspects: [shared.domains, shared.container, shared.deprecation, dashboardUsageStatistics, shared.inputFields, shared.subTypes,
    shared.embed, dashboardInfo, editableDashboardProperties, shared.ownership, shared.status, shared.globalTags, shared.browsePaths,
    shared.glossaryTerms, shared.institutionalMemory, shared.dataPlatformInstance, shared.browsePathsV2],
  // Metadata tests push their results to dashboards too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.DashboardSnapshot',
  graphql: {
    entityType: 'DASHBOARD',
    objectType: 'Dashboard',
    rootField: 'dashboard',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      tool: (f) => f.key.dashboardTool,
      dashboardId: (f) => f.key.dashboardId,
      platform: (f) => ref(`urn:li:dataPlatform:${f.key.dashboardTool}`),
      properties: async (f) => {
        const [info, e] = await Promise.all([f.aspect(dashboardInfo), f.aspect(editableDashboardProperties)]);
        return info ? biProperties(info, info.dashboardUrl, f.urn, descriptionFor(f, e?.description, info.description)) : null;
      },
      info: async (f) => {
        const info = await f.aspect(dashboardInfo);
        if (!info) return null;
        const charts = [...new Set([...(info.charts ?? []), ...(info.chartEdges ?? []).map((e) => e.destinationUrn)])];
        return { ...biProperties(info, info.dashboardUrl, f.urn), charts: charts.map(ref) };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableDashboardProperties);
        return e ? { description: e.description ?? null } : null;
      },
      editableInfo: async (f) => {
        const e = await f.aspect(editableDashboardProperties);
        return e ? { description: e.description ?? null } : null;
      },
      inputFields: inputFieldsOut,
      statsSummary: (f) => usageSummary(f, dashboardUsageStatistics, false),
      usageStats,
    },
  },
  search: {},
  browsePath: (k) => `/${k.dashboardTool}`.toLowerCase(),
  platform: (k) => (k.dashboardTool ? `urn:li:dataPlatform:${k.dashboardTool}` : undefined),
});
