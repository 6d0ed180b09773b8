import { biLineage, biProperties, inputFieldsOut, usageSummary } from './chart.js';
import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { COMMON_FIELDS } from './graphql-fields.js';
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
    for (const e of v.chartEdges ?? []) add('Contains', e.destinationUrn);
    for (const d of v.datasets ?? []) add('Consumes', d);
    for (const e of v.datasetEdges ?? []) add('Consumes', e.destinationUrn);
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
type Dashboard implements Entity {
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
  "The description users see: the edited text where one exists, else the ingested one (an Almanac difference)."
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

/** Dashboards of BI tools: collections of charts. */
export const dashboard = defineEntity({
  name: 'dashboard',
  category: 'core',
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
        return info ? biProperties(info, info.dashboardUrl, e?.description, f.urn) : null;
      },
      info: async (f) => {
        const info = await f.aspect(dashboardInfo);
        if (!info) return null;
        const charts = [...new Set([...(info.charts ?? []), ...(info.chartEdges ?? []).map((e) => e.destinationUrn)])];
        return { ...biProperties(info, info.dashboardUrl, undefined, f.urn), charts: charts.map(ref) };
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
      lineage: biLineage(['Contains', 'Consumes'], []),
      statsSummary: (f) => usageSummary(f, dashboardUsageStatistics, false),
    },
  },
  search: {},
  browsePath: (k) => `/${k.dashboardTool}`.toLowerCase(),
  platform: (k) => (k.dashboardTool ? `urn:li:dataPlatform:${k.dashboardTool}` : undefined),
});
