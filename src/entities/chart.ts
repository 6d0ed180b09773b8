import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, int, rec, str, urn } from './schema.js';

export const chartKey = keyAspect('chartKey', 'com.linkedin.metadata.key.ChartKey', [['dashboardTool', 'string'], ['chartId', 'string']]);

export const chartInfo = aspect('chartInfo', 'com.linkedin.chart.ChartInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, title: str, description: str, lastModified: shared.changeAuditStamps,
  'chartUrl?': str, 'inputs?': arr(urn), 'inputEdges?': arr(shared.edge),
  'type?': enumOf(['BAR', 'PIE', 'SCATTER', 'TABLE', 'TEXT', 'LINE', 'AREA', 'HISTOGRAM', 'BOX_PLOT', 'WORD_CLOUD', 'COHORT']),
  'access?': enumOf(['PUBLIC', 'PRIVATE']), 'lastRefreshed?': int,
}), {
  edges: (v, add) => {
    for (const d of v.inputs ?? []) add('Consumes', d);
    for (const e of v.inputEdges ?? []) add('Consumes', e.destinationUrn);
  },
  searchText: shared.propertiesText,
});

export const chartQuery = aspect('chartQuery', 'com.linkedin.chart.ChartQuery',
  rec({ rawQuery: str, type: enumOf(['LOOKML', 'SQL']) }));

export const editableChartProperties = aspect('editableChartProperties', 'com.linkedin.chart.EditableChartProperties',
  rec({ ...shared.changeAuditStampFields, 'description?': str }), { searchText: shared.editableText });

export const chartUsageStatistics = aspect('chartUsageStatistics', 'com.linkedin.chart.ChartUsageStatistics', rec({
  ...shared.timeseriesFields, 'viewsCount?': int, 'uniqueUserCount?': int, 'userCounts?': arr(rec({ user: urn, 'viewsCount?': int })),
}), { timeseries: true });

/** Charts of BI tools (Looker looks, Tableau sheets, Superset charts…). */
export const chart = defineEntity({
  name: 'chart',
  category: 'core',
  key: chartKey,
  aspects: [chartInfo, editableChartProperties, chartQuery, shared.inputFields, chartUsageStatistics, shared.embed, shared.browsePaths,
    shared.domains, shared.container, shared.deprecation, shared.ownership, shared.status, shared.institutionalMemory,
    shared.dataPlatformInstance, shared.globalTags, shared.glossaryTerms, shared.browsePathsV2, shared.subTypes],
  // Metadata tests push their results to charts too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.ChartSnapshot',
  graphql: { entityType: 'CHART' },
  search: {},
  browsePath: (k) => `/${k.dashboardTool}`,
  platform: (k) => (k.dashboardTool ? `urn:li:dataPlatform:${k.dashboardTool}` : undefined),
});
