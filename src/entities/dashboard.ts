import { aspect, defineEntity, keyAspect } from './descriptor.js';
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
  graphql: { entityType: 'DASHBOARD' },
  search: {},
  browsePath: (k) => `/${k.dashboardTool}`.toLowerCase(),
  platform: (k) => (k.dashboardTool ? `urn:li:dataPlatform:${k.dashboardTool}` : undefined),
});
