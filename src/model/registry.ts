/**
 * The entity registry: for every entity type, its key aspect and fields and the aspects it may carry;
 * for every aspect, its Pegasus class (the union key used on the wire) and whether it is time-series.
 * Written from DataHub 0.12.1's documented model (entity-registry.yml and the snapshot unions).
 */

import { lookupTable } from './safe-keys.js';

export interface AspectSpec {
  readonly name: string;
  /** Fully qualified Pegasus class, without `pegasus2avro`: the key of the aspect union on the wire. */
  readonly className: string;
  readonly timeseries: boolean;
}

export interface EntitySpec {
  readonly name: string;
  readonly keyAspect: string;
  /** Key aspect fields, in URN order. */
  readonly keyFields: readonly string[];
  readonly aspects: readonly string[];
  /** Snapshot class of the legacy MCE form, when the entity has one. */
  readonly snapshotClass?: string;
}

// Aspect name → package under com.linkedin. Class name is the aspect name with the first letter upper-cased
// (and the ML prefix written `ML`), except where CLASS_OVERRIDES says otherwise.
const ASPECT_PACKAGES: Record<string, string> = {
  // common
  ownership: 'common', status: 'common', globalTags: 'common', glossaryTerms: 'common',
  institutionalMemory: 'common', browsePaths: 'common', browsePathsV2: 'common', deprecation: 'common',
  subTypes: 'common', dataPlatformInstance: 'common', cost: 'common', operation: 'common', siblings: 'common',
  embed: 'common', origin: 'common', incidentsSummary: 'common', access: 'common',
  // dataset
  datasetProperties: 'dataset', editableDatasetProperties: 'dataset', upstreamLineage: 'dataset',
  datasetProfile: 'dataset', datasetUsageStatistics: 'dataset', datasetDeprecation: 'dataset',
  viewProperties: 'dataset', datasetUpstreamLineage: 'dataset',
  // schema
  schemaMetadata: 'schema', editableSchemaMetadata: 'schema',
  // identity
  corpUserInfo: 'identity', corpUserEditableInfo: 'identity', corpUserStatus: 'identity',
  corpUserCredentials: 'identity', corpUserSettings: 'identity', groupMembership: 'identity',
  nativeGroupMembership: 'identity', roleMembership: 'identity', corpGroupInfo: 'identity',
  corpGroupEditableInfo: 'identity',
  // jobs and flows
  dataJobInfo: 'datajob', dataJobInputOutput: 'datajob', editableDataJobProperties: 'datajob',
  dataFlowInfo: 'datajob', editableDataFlowProperties: 'datajob',
  datahubIngestionRunSummary: 'datajob.datahub', datahubIngestionCheckpoint: 'datajob.datahub',
  // charts and dashboards
  chartInfo: 'chart', chartQuery: 'chart', editableChartProperties: 'chart', chartUsageStatistics: 'chart',
  dashboardInfo: 'dashboard', editableDashboardProperties: 'dashboard', dashboardUsageStatistics: 'dashboard',
  // ML
  mlModelProperties: 'ml.metadata', trainingData: 'ml.metadata', evaluationData: 'ml.metadata',
  intendedUse: 'ml.metadata', metrics: 'ml.metadata', ethicalConsiderations: 'ml.metadata',
  caveatsAndRecommendations: 'ml.metadata', quantitativeAnalyses: 'ml.metadata',
  editableMLModelProperties: 'ml.metadata', mlPrimaryKeyProperties: 'ml.metadata',
  mlFeatureProperties: 'ml.metadata', mlFeatureTableProperties: 'ml.metadata',
  editableMLFeatureTableProperties: 'ml.metadata', mlModelGroupProperties: 'ml.metadata',
  // tags, platforms, glossary
  tagProperties: 'tag', dataPlatformInfo: 'dataplatform', glossaryTermInfo: 'glossary',
  glossaryNodeInfo: 'glossary', glossaryRelatedTerms: 'glossary',
  // containers and domains
  containerProperties: 'container', editableContainerProperties: 'container', container: 'container',
  domainProperties: 'domain', domains: 'domain',
  // metadata tests
  testInfo: 'test', testResults: 'test',
  // access control
  dataHubAccessTokenInfo: 'access.token', dataHubPolicyInfo: 'policy', dataHubRoleInfo: 'policy',
  ownershipTypeInfo: 'ownership',
  // assertions and process instances
  assertionInfo: 'assertion', assertionRunEvent: 'assertion',
  dataProcessInstanceProperties: 'dataprocess', dataProcessInstanceRunEvent: 'dataprocess',
  dataProcessInstanceInput: 'dataprocess', dataProcessInstanceOutput: 'dataprocess',
  dataProcessInstanceRelationships: 'dataprocess',
  // notebooks and data products
  notebookInfo: 'notebook', notebookContent: 'notebook', editableNotebookProperties: 'notebook',
  dataProductProperties: 'dataproduct',
};

const TIMESERIES = new Set([
  'datasetProfile', 'datasetUsageStatistics', 'operation', 'chartUsageStatistics', 'dashboardUsageStatistics',
  'assertionRunEvent', 'dataProcessInstanceRunEvent', 'datahubIngestionRunSummary', 'datahubIngestionCheckpoint',
]);

const CLASS_OVERRIDES: Readonly<Record<string, string>> = lookupTable<string>({
  container: 'com.linkedin.container.Container',
  domains: 'com.linkedin.domain.Domains',
});

function className(aspect: string, pkg: string): string {
  if (CLASS_OVERRIDES[aspect]) return CLASS_OVERRIDES[aspect]!;
  const base = aspect.startsWith('ml') ? `ML${aspect.slice(2)}` : aspect[0]!.toUpperCase() + aspect.slice(1);
  return `com.linkedin.${pkg}.${base}`;
}

type EntityDef = [name: string, keyAspect: string, keyFields: string[], aspects: string[], snapshot?: string];

const COMMON_EDITABLE = ['ownership', 'globalTags', 'glossaryTerms', 'institutionalMemory', 'status', 'deprecation',
  'browsePaths', 'browsePathsV2', 'domains', 'dataPlatformInstance', 'subTypes', 'container', 'testResults'];

const ENTITIES: EntityDef[] = [
  ['dataset', 'datasetKey', ['platform', 'name', 'origin'], [
    'datasetProperties', 'editableDatasetProperties', 'schemaMetadata', 'editableSchemaMetadata', 'upstreamLineage',
    'datasetDeprecation', 'datasetUpstreamLineage', 'viewProperties', 'siblings', 'embed', 'incidentsSummary', 'access',
    'datasetProfile', 'datasetUsageStatistics', 'operation', ...COMMON_EDITABLE], 'DatasetSnapshot'],
  ['schemaField', 'schemaFieldKey', ['parent', 'fieldPath'], []],
  ['corpuser', 'corpUserKey', ['username'], ['corpUserInfo', 'corpUserEditableInfo', 'corpUserStatus',
    'corpUserCredentials', 'corpUserSettings', 'groupMembership', 'nativeGroupMembership', 'roleMembership',
    'globalTags', 'status', 'origin', 'testResults'], 'CorpUserSnapshot'],
  ['corpGroup', 'corpGroupKey', ['name'], ['corpGroupInfo', 'corpGroupEditableInfo', 'ownership', 'status', 'origin',
    'globalTags', 'testResults'], 'CorpGroupSnapshot'],
  ['dataJob', 'dataJobKey', ['flow', 'jobId'], ['dataJobInfo', 'dataJobInputOutput', 'editableDataJobProperties',
    'datahubIngestionRunSummary', 'datahubIngestionCheckpoint', 'incidentsSummary', ...COMMON_EDITABLE], 'DataJobSnapshot'],
  ['dataFlow', 'dataFlowKey', ['orchestrator', 'flowId', 'cluster'], ['dataFlowInfo', 'editableDataFlowProperties',
    ...COMMON_EDITABLE], 'DataFlowSnapshot'],
  ['chart', 'chartKey', ['dashboardTool', 'chartId'], ['chartInfo', 'chartQuery', 'editableChartProperties',
    'chartUsageStatistics', 'embed', ...COMMON_EDITABLE], 'ChartSnapshot'],
  ['dashboard', 'dashboardKey', ['dashboardTool', 'dashboardId'], ['dashboardInfo', 'editableDashboardProperties',
    'dashboardUsageStatistics', 'embed', ...COMMON_EDITABLE], 'DashboardSnapshot'],
  ['mlModel', 'mlModelKey', ['platform', 'name', 'origin'], ['mlModelProperties', 'trainingData', 'evaluationData',
    'intendedUse', 'metrics', 'ethicalConsiderations', 'caveatsAndRecommendations', 'quantitativeAnalyses',
    'editableMLModelProperties', 'cost', ...COMMON_EDITABLE], 'MLModelSnapshot'],
  ['mlModelGroup', 'mlModelGroupKey', ['platform', 'name', 'origin'], ['mlModelGroupProperties', ...COMMON_EDITABLE],
    'MLModelGroupSnapshot'],
  ['mlPrimaryKey', 'mlPrimaryKeyKey', ['featureNamespace', 'name'], ['mlPrimaryKeyProperties', ...COMMON_EDITABLE],
    'MLPrimaryKeySnapshot'],
  ['mlFeature', 'mlFeatureKey', ['featureNamespace', 'name'], ['mlFeatureProperties', ...COMMON_EDITABLE],
    'MLFeatureSnapshot'],
  ['mlFeatureTable', 'mlFeatureTableKey', ['platform', 'name'], ['mlFeatureTableProperties',
    'editableMLFeatureTableProperties', ...COMMON_EDITABLE], 'MLFeatureTableSnapshot'],
  ['tag', 'tagKey', ['name'], ['tagProperties', 'ownership', 'deprecation', 'status', 'testResults'], 'TagSnapshot'],
  ['dataPlatform', 'dataPlatformKey', ['platformName'], ['dataPlatformInfo'], 'DataPlatformSnapshot'],
  ['glossaryTerm', 'glossaryTermKey', ['name'], ['glossaryTermInfo', 'glossaryRelatedTerms', 'ownership', 'status',
    'deprecation', 'institutionalMemory', 'browsePaths', 'domains', 'testResults'], 'GlossaryTermSnapshot'],
  ['glossaryNode', 'glossaryNodeKey', ['name'], ['glossaryNodeInfo', 'ownership', 'status', 'institutionalMemory'],
    'GlossaryNodeSnapshot'],
  ['container', 'containerKey', ['guid'], ['containerProperties', 'editableContainerProperties', ...COMMON_EDITABLE]],
  ['domain', 'domainKey', ['id'], ['domainProperties', 'ownership', 'institutionalMemory']],
  ['test', 'testKey', ['id'], ['testInfo']],
  ['dataHubAccessToken', 'dataHubAccessTokenKey', ['id'], ['dataHubAccessTokenInfo']],
  ['dataHubPolicy', 'dataHubPolicyKey', ['id'], ['dataHubPolicyInfo']],
  ['dataHubRole', 'dataHubRoleKey', ['id'], ['dataHubRoleInfo']],
  ['ownershipType', 'ownershipTypeKey', ['id'], ['ownershipTypeInfo', 'status']],
  ['assertion', 'assertionKey', ['assertionId'], ['assertionInfo', 'assertionRunEvent', 'dataPlatformInstance', 'status']],
  ['dataProcessInstance', 'dataProcessInstanceKey', ['id'], ['dataProcessInstanceProperties',
    'dataProcessInstanceRunEvent', 'dataProcessInstanceInput', 'dataProcessInstanceOutput',
    'dataProcessInstanceRelationships', 'status']],
  ['notebook', 'notebookKey', ['notebookTool', 'notebookId'], ['notebookInfo', 'notebookContent',
    'editableNotebookProperties', ...COMMON_EDITABLE]],
  ['dataProduct', 'dataProductKey', ['id'], ['dataProductProperties', 'ownership', 'globalTags', 'glossaryTerms',
    'institutionalMemory', 'domains', 'status']],
];

export const ASPECTS: ReadonlyMap<string, AspectSpec> = new Map(
  Object.entries(ASPECT_PACKAGES).map(([name, pkg]) => [
    name,
    { name, className: className(name, pkg), timeseries: TIMESERIES.has(name) },
  ]),
);

/** Key aspects are aspects too (DataHub writes them for every new entity). */
const KEY_ASPECTS = new Map<string, AspectSpec>();

export const ENTITY_TYPES: ReadonlyMap<string, EntitySpec> = new Map(
  ENTITIES.map(([name, keyAspect, keyFields, aspects, snapshot]) => {
    const keyClass = `com.linkedin.metadata.key.${keyAspect[0]!.toUpperCase()}${keyAspect.slice(1)}`
      .replace('.MlModel', '.MLModel').replace('.MlPrimary', '.MLPrimary').replace('.MlFeature', '.MLFeature');
    KEY_ASPECTS.set(keyAspect, { name: keyAspect, className: keyClass, timeseries: false });
    return [name, {
      name, keyAspect, keyFields, aspects: [keyAspect, ...new Set(aspects)],
      snapshotClass: snapshot ? `com.linkedin.metadata.snapshot.${snapshot}` : undefined,
    }];
  }),
);

// Entity type names are case-sensitive in URNs, but the REST surface sees lower-case forms too.
const ENTITY_BY_LOWER = new Map([...ENTITY_TYPES.keys()].map((n) => [n.toLowerCase(), n]));

export function entitySpec(entityType: string): EntitySpec | undefined {
  return ENTITY_TYPES.get(entityType) ?? ENTITY_TYPES.get(ENTITY_BY_LOWER.get(entityType.toLowerCase()) ?? '');
}

export function aspectSpec(aspect: string): AspectSpec | undefined {
  return ASPECTS.get(aspect) ?? KEY_ASPECTS.get(aspect);
}

export function entityHasAspect(entityType: string, aspect: string): boolean {
  return entitySpec(entityType)?.aspects.includes(aspect) ?? false;
}

// Wire class name (with or without pegasus2avro, short or qualified) → aspect name.
const ASPECT_BY_CLASS = new Map<string, string>();
for (const spec of [...ASPECTS.values(), ...KEY_ASPECTS.values()]) {
  ASPECT_BY_CLASS.set(spec.className, spec.name);
  ASPECT_BY_CLASS.set(spec.className.split('.').pop()!, spec.name);
}
const ENTITY_BY_SNAPSHOT = new Map<string, string>();
for (const spec of ENTITY_TYPES.values()) {
  if (!spec.snapshotClass) continue;
  ENTITY_BY_SNAPSHOT.set(spec.snapshotClass, spec.name);
  ENTITY_BY_SNAPSHOT.set(spec.snapshotClass.split('.').pop()!, spec.name);
}

export function stripPegasus2Avro(className: string): string {
  return className.replace('.pegasus2avro.', '.');
}

/** `com.linkedin.pegasus2avro.dataset.DatasetProperties` → `datasetProperties`. */
export function aspectNameOfClass(cls: string): string | undefined {
  const c = stripPegasus2Avro(cls);
  return ASPECT_BY_CLASS.get(c) ?? ASPECT_BY_CLASS.get(c.split('.').pop()!);
}

/** `com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot` → `dataset`. */
export function entityTypeOfSnapshot(cls: string): string | undefined {
  const c = stripPegasus2Avro(cls);
  return ENTITY_BY_SNAPSHOT.get(c) ?? ENTITY_BY_SNAPSHOT.get(c.split('.').pop()!);
}

/** DataHub's index name for a time-series aspect: `dataset_datasetprofileaspect_v1`. */
export function timeseriesIndexName(entityType: string, aspect: string): string {
  return `${entityType.toLowerCase()}_${aspect.toLowerCase()}aspect_v1`;
}

export interface TimeseriesIndex {
  readonly entityType: string;
  readonly aspect: string;
  readonly indexName: string;
}

/** Every (entity type, time-series aspect) pair: one table each. */
export const TIMESERIES_INDICES: readonly TimeseriesIndex[] = [...ENTITY_TYPES.values()].flatMap((e) =>
  e.aspects
    .filter((a) => ASPECTS.get(a)?.timeseries)
    .map((a) => ({ entityType: e.name, aspect: a, indexName: timeseriesIndexName(e.name, a) })),
);

/** Finds a time-series index by entity type and aspect, accepting DataHub's lower-case aspect spelling. */
export function findTimeseriesIndex(entityType: string, aspect: string): TimeseriesIndex | undefined {
  const et = entitySpec(entityType)?.name;
  if (!et) return undefined;
  const a = aspect.toLowerCase();
  return TIMESERIES_INDICES.find((i) => i.entityType === et && i.aspect.toLowerCase() === a);
}

/** The key aspect value DataHub derives from an entity's URN parts. */
export function keyAspectValue(entityType: string, parts: readonly string[]): Record<string, string> | undefined {
  const spec = entitySpec(entityType);
  if (!spec || parts.length !== spec.keyFields.length) return undefined;
  return Object.fromEntries(spec.keyFields.map((f, i) => [f, parts[i]!]));
}
