import { lookupTable } from '../model/safe-keys.js';
import { aspect, defineEntity, edgeMeta, gql, keyAspect, ref, type AspectDef, type FieldContext } from './descriptor.js';
import { auditStamp, COMMON_FIELDS, customProperties, globalTags, glossaryTerms, descriptionFor } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, int, rec, str, urn, type Infer, type UnionValue } from './schema.js';

export const chartKey = keyAspect('chartKey', 'com.linkedin.metadata.key.ChartKey', [['dashboardTool', 'string'], ['chartId', 'string']]);

export const chartInfo = aspect('chartInfo', 'com.linkedin.chart.ChartInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, title: str, description: str, lastModified: shared.changeAuditStamps,
  'chartUrl?': str, 'inputs?': arr(urn), 'inputEdges?': arr(shared.edge),
  'type?': enumOf(['BAR', 'PIE', 'SCATTER', 'TABLE', 'TEXT', 'LINE', 'AREA', 'HISTOGRAM', 'BOX_PLOT', 'WORD_CLOUD', 'COHORT']),
  'access?': enumOf(['PUBLIC', 'PRIVATE']), 'lastRefreshed?': int,
}), {
  edges: (v, add) => {
    for (const d of v.inputs ?? []) add('Consumes', d);
    for (const e of v.inputEdges ?? []) add('Consumes', e.destinationUrn, edgeMeta(e));
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

// ---------------------------------------------------------------------------------------------------------------
// GraphQL: what charts and dashboards share

const FIELD_TYPES: Readonly<Record<string, string>> = lookupTable<string>({
  BooleanType: 'BOOLEAN', FixedType: 'FIXED', StringType: 'STRING', BytesType: 'BYTES', NumberType: 'NUMBER', DateType: 'DATE',
  TimeType: 'TIME', EnumType: 'ENUM', NullType: 'NULL', MapType: 'MAP', ArrayType: 'ARRAY', UnionType: 'UNION', RecordType: 'STRUCT',
});

type InputFieldsValue = Infer<typeof shared.inputFields.schema>;
type SchemaFieldValue = NonNullable<InputFieldsValue['fields'][number]['schemaField']>;

function schemaFieldType(t: { type?: UnionValue } | undefined): string {
  const cls = t?.type && typeof t.type === 'object' ? Object.keys(t.type)[0] : undefined;
  return FIELD_TYPES[cls?.split('.').pop() ?? ''] ?? 'NULL';
}

/** A column as DataHub's SchemaField, its schemaFieldEntity named under `parent` (the chart or dashboard, as DataHub names it). */
function schemaFieldOut(f: SchemaFieldValue, parent: string) {
  const tags = globalTags(f.globalTags, parent);
  return {
    fieldPath: f.fieldPath, jsonPath: f.jsonPath ?? null, label: f.label ?? null, nullable: !!f.nullable, description: f.description ?? null,
    type: schemaFieldType(f.type), nativeDataType: f.nativeDataType ?? null, recursive: !!f.recursive, globalTags: tags, tags,
    glossaryTerms: glossaryTerms(f.glossaryTerms, parent), isPartOfKey: f.isPartOfKey ?? null, isPartitioningKey: f.isPartitioningKey ?? null,
    jsonProps: f.jsonProps ?? null, schemaFieldEntity: ref(`urn:li:schemaField:(${parent},${f.fieldPath})`),
  };
}

/** The inputFields aspect of a chart or dashboard: each column's urn, and its schema where the source sent one. */
export async function inputFieldsOut(f: FieldContext) {
  const v = await f.aspect(shared.inputFields);
  if (!v) return null;
  return { fields: (v.fields ?? []).map((i) => ({ schemaFieldUrn: i.schemaFieldUrn ?? null,
    schemaField: i.schemaField ? schemaFieldOut(i.schemaField, f.urn) : null })) };
}

type BiInfo = { title: string; description: string; customProperties?: Record<string, string>; externalUrl?: string;
  lastModified: { created?: { time?: number; actor?: string }; lastModified?: { time?: number; actor?: string }; deleted?: { time?: number; actor?: string } };
  access?: string; lastRefreshed?: number };

/**
 * The read-only properties of a chart or dashboard from its info aspect: the tool's own url (chartUrl, dashboardUrl)
 * stands in for externalUrl when that is missing, as in DataHub. `description` is the ingested one unless given
 * (`properties` gives the one the read answers, descriptionFor); `info` keeps the ingested text.
 */
export function biProperties(info: BiInfo, toolUrl: string | undefined, urnText: string, description: string | null = info.description) {
  return {
    name: info.title,
    description,
    externalUrl: info.externalUrl ?? toolUrl ?? null,
    access: info.access ?? null,
    customProperties: customProperties(info.customProperties, urnText),
    lastRefreshed: info.lastRefreshed ?? null,
    created: auditStamp(info.lastModified.created),
    lastModified: auditStamp(info.lastModified.lastModified),
    deleted: info.lastModified.deleted ? auditStamp(info.lastModified.deleted) : null,
  };
}

type UsageRow = { readonly timestampMillis: number; readonly eventGranularity?: unknown; readonly viewsCount?: number;
  readonly userCounts?: readonly { readonly user: string; readonly viewsCount?: number; readonly executionsCount?: number; readonly usageCount?: number }[] };

/** DataHub's "last month": 31 days and a millisecond. */
export const ONE_MONTH = 31 * 24 * 3600 * 1000 + 1;
const TOP_USERS = 5;

const add = (a: number | null, b: number | undefined) => (b == null ? a : (a ?? 0) + b);

/**
 * Per-user usage over daily buckets (rows with eventGranularity), as DataHub groups it: users named in more buckets
 * first, then by urn; each count summed over the rows that have it, else null.
 */
export function usageByUser(buckets: readonly UsageRow[]) {
  const users = new Map<string, { rows: number; viewsCount: number | null; executionsCount: number | null; usageCount: number | null }>();
  for (const b of buckets) {
    for (const u of b.userCounts ?? []) {
      const cur = users.get(u.user) ?? { rows: 0, viewsCount: null, executionsCount: null, usageCount: null };
      users.set(u.user, { rows: cur.rows + 1, viewsCount: add(cur.viewsCount, u.viewsCount),
        executionsCount: add(cur.executionsCount, u.executionsCount), usageCount: add(cur.usageCount, u.usageCount) });
    }
  }
  return [...users].sort((a, b) => b[1].rows - a[1].rows || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([user, c]) => ({ user, viewsCount: c.viewsCount, executionsCount: c.executionsCount, usageCount: c.usageCount }));
}

/**
 * A chart's or dashboard's statsSummary from its usage time series, as DataHub 0.12.1 sums a dashboard's: viewCount is
 * the latest absolute report's (a row without eventGranularity), the last month comes from the daily buckets (rows with
 * one): their views, their distinct users and the top five of them. DataHub leaves viewCountLast30Days unset and a
 * chart's summary unimplemented; Almanac fills both from the same rows. Null when `nullWithoutRows` and the entity has
 * no usage rows at all.
 */
export async function usageSummary<T extends UsageRow>(f: FieldContext, def: AspectDef<string, T>, nullWithoutRows: boolean) {
  const [latest] = (await f.timeseries(def, { limit: 10_000 })).filter((r) => r.eventGranularity === undefined);
  const since = Date.now() - ONE_MONTH;
  const buckets = (await f.timeseries(def, { startTimeMillis: since, limit: 10_000 })).filter((r) => r.eventGranularity !== undefined);
  if (nullWithoutRows && !latest && buckets.length === 0 && (await f.timeseries(def, { limit: 1 })).length === 0) return null;
  let views: number | null = null;
  for (const b of buckets) views = add(views, b.viewsCount);
  const users = usageByUser(buckets);
  return { viewCount: latest?.viewsCount ?? null, viewCountLast30Days: views, uniqueUserCountLast30Days: users.length,
    topUsersLast30Days: users.slice(0, TOP_USERS).map((u) => ref(u.user)) };
}

/** Shared SDL of charts and dashboards. */
export const BI_SDL = gql`
enum AccessLevel { PUBLIC PRIVATE }
`;

const SDL = gql`
type Chart implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  lastIngested: Long
  container: Container
  parentContainers: ParentContainersResult
  "The BI tool, from the urn (platform is the same as a DataPlatform)."
  tool: String!
  "The chart's id within its tool, from the urn."
  chartId: String!
  properties: ChartProperties
  editableProperties: ChartEditableProperties
  query: ChartQuery
  ownership: Ownership
  status: Status
  deprecation: Deprecation
  embed: Embed
  tags: GlobalTags
  institutionalMemory: InstitutionalMemory
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Upstream: the datasets the chart reads (chartInfo inputs and inputEdges); downstream: dashboards containing it."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  "Deprecated: use properties."
  info: ChartInfo @deprecated(reason: "Use properties")
  "Deprecated: use editableProperties."
  editableInfo: ChartEditableProperties @deprecated(reason: "Use editableProperties")
  "Deprecated: use tags."
  globalTags: GlobalTags @deprecated(reason: "Use tags")
  platform: DataPlatform!
  inputFields: InputFields
  privileges: EntityPrivileges
  exists: Boolean
  subTypes: SubTypes
  "From chartUsageStatistics (DataHub 0.12.1 leaves it unimplemented); null when the chart has no usage rows."
  statsSummary: ChartStatsSummary
}

"Usage of a chart: the latest reported total views, and the last 30 days of daily buckets."
type ChartStatsSummary {
  viewCount: Int
  viewCountLast30Days: Int
  uniqueUserCountLast30Days: Int
  topUsersLast30Days: [CorpUser!]
}

type ChartProperties {
  name: String!
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  "externalUrl, else the tool's chartUrl."
  externalUrl: String
  type: ChartType
  access: AccessLevel
  customProperties: [CustomPropertiesEntry!]
  lastRefreshed: Long
  created: AuditStamp!
  lastModified: AuditStamp!
  deleted: AuditStamp
}

"Deprecated form of ChartProperties, with the chart's input datasets."
type ChartInfo {
  name: String!
  "The ingested description."
  description: String
  inputs: [Dataset!] @deprecated(reason: "Use relationships of type Consumes")
  externalUrl: String
  type: ChartType
  access: AccessLevel
  customProperties: [CustomPropertiesEntry!]
  lastRefreshed: Long
  created: AuditStamp!
  lastModified: AuditStamp!
  deleted: AuditStamp
}

type ChartEditableProperties {
  description: String
}

enum ChartType { BAR PIE SCATTER TABLE TEXT LINE AREA HISTOGRAM BOX_PLOT WORD_CLOUD COHORT }

type ChartQuery {
  rawQuery: String!
  type: ChartQueryType!
}

enum ChartQueryType { SQL LOOKML }
`;

/** Charts of BI tools (Looker looks, Tableau sheets, Superset charts…). */
export const chart = defineEntity({
  name: 'chart',
  category: 'core',
  display: { label: 'Chart', rank: 20 },
  // chartInfo.inputs and inputEdges: Consumes a dataset.
  lineage: { upstream: [{ type: 'Consumes', entityTypes: ['dataset'] }] },
  key: chartKey,
  aspects: [chartInfo, editableChartProperties, chartQuery, shared.inputFields, chartUsageStatistics, shared.embed, shared.browsePaths,
    shared.domains, shared.container, shared.deprecation, shared.ownership, shared.status, shared.institutionalMemory,
    shared.dataPlatformInstance, shared.globalTags, shared.glossaryTerms, shared.browsePathsV2, shared.subTypes],
  // Metadata tests push their results to charts too.
  almanacAspects: [shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.ChartSnapshot',
  graphql: {
    entityType: 'CHART',
    objectType: 'Chart',
    rootField: 'chart',
    sdl: BI_SDL + SDL,
    fields: {
      ...COMMON_FIELDS,
      tool: (f) => f.key.dashboardTool,
      chartId: (f) => f.key.chartId,
      platform: (f) => ref(`urn:li:dataPlatform:${f.key.dashboardTool}`),
      properties: async (f) => {
        const [info, e] = await Promise.all([f.aspect(chartInfo), f.aspect(editableChartProperties)]);
        return info ? { ...biProperties(info, info.chartUrl, f.urn, descriptionFor(f, e?.description, info.description)), type: info.type ?? null } : null;
      },
      info: async (f) => {
        const info = await f.aspect(chartInfo);
        if (!info) return null;
        const inputs = [...new Set([...(info.inputs ?? []), ...(info.inputEdges ?? []).map((e) => e.destinationUrn)])];
        return { ...biProperties(info, info.chartUrl, f.urn), type: info.type ?? null, inputs: inputs.map(ref) };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableChartProperties);
        return e ? { description: e.description ?? null } : null;
      },
      editableInfo: async (f) => {
        const e = await f.aspect(editableChartProperties);
        return e ? { description: e.description ?? null } : null;
      },
      query: async (f) => {
        const q = await f.aspect(chartQuery);
        return q ? { rawQuery: q.rawQuery, type: q.type } : null;
      },
      inputFields: inputFieldsOut,
      statsSummary: (f) => usageSummary(f, chartUsageStatistics, true),
    },
  },
  search: {},
  browsePath: (k) => `/${k.dashboardTool}`,
  platform: (k) => (k.dashboardTool ? `urn:li:dataPlatform:${k.dashboardTool}` : undefined),
});
