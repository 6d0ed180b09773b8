import { aspect, defineEntity, gql, keyAspect, ref, type AspectValue, type FieldContext } from './descriptor.js';
import { dataPlatformInstance as platformInstanceOut } from './graphql-fields.js';
import { badRequest } from '../errors.js';
import { tryParseUrn } from '../model/urn.js';
import * as shared from './shared-aspects.js';
import { any, arr, enumOf, int, map, num, rec, str, urn } from './schema.js';

export const assertionKey = keyAspect('assertionKey', 'com.linkedin.metadata.key.AssertionKey', [['assertionId', 'string']]);

const stdOperator = enumOf(['BETWEEN', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'EQUAL_TO',
  'NOT_NULL', 'CONTAIN', 'END_WITH', 'START_WITH', 'REGEX_MATCH', 'IN', 'NOT_IN', '_NATIVE_']);
const stdParameter = rec({ value: str, type: enumOf(['STRING', 'NUMBER', 'LIST', 'SET', 'UNKNOWN']) });
const stdParameters = rec({ 'value?': stdParameter, 'maxValue?': stdParameter, 'minValue?': stdParameter });

/** The assertion on a dataset as dbt and Great Expectations send it; the newer kinds (freshness, volume, sql, schema) are kept as sent. */
const datasetAssertion = rec({
  dataset: urn, scope: enumOf(['DATASET_COLUMN', 'DATASET_ROWS', 'DATASET_STORAGE_SIZE', 'DATASET_SCHEMA', 'UNKNOWN']),
  'fields?': arr(urn),
  'aggregation?': enumOf(['ROW_COUNT', 'COLUMNS', 'COLUMN_COUNT', 'IDENTITY', 'MEAN', 'MEDIAN', 'UNIQUE_COUNT', 'UNIQUE_PROPORTION',
    'UNIQUE_PROPOTION', 'NULL_COUNT', 'NULL_PROPORTION', 'STDDEV', 'MIN', 'MAX', 'SUM', '_NATIVE_']),
  operator: stdOperator, 'parameters?': stdParameters, 'nativeType?': str, 'nativeParameters?': map(str), 'logic?': str,
});
const entityAssertion = rec({ entity: urn });

export const assertionInfo = aspect('assertionInfo', 'com.linkedin.assertion.AssertionInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField,
  type: enumOf(['DATASET', 'FRESHNESS', 'VOLUME', 'SQL', 'DATA_SCHEMA']),
  'datasetAssertion?': datasetAssertion, 'freshnessAssertion?': entityAssertion, 'volumeAssertion?': entityAssertion,
  'sqlAssertion?': entityAssertion, 'schemaAssertion?': entityAssertion,
  'source?': rec({ type: enumOf(['NATIVE', 'EXTERNAL', 'INFERRED']) }), 'description?': str,
}), {
  edges: (v, add) => {
    add('Asserts', v.datasetAssertion?.dataset);
    for (const f of v.datasetAssertion?.fields ?? []) add('Asserts', f);
    for (const a of [v.freshnessAssertion, v.volumeAssertion, v.sqlAssertion, v.schemaAssertion]) add('Asserts', a?.entity);
  },
});

export const assertionRunEvent = aspect('assertionRunEvent', 'com.linkedin.assertion.AssertionRunEvent', rec({
  ...shared.timeseriesFields, runId: str, asserteeUrn: urn, 'batchSpec?': any, status: enumOf(['COMPLETE', 'RUNNING']),
  'result?': rec({ type: enumOf(['SUCCESS', 'FAILURE', 'ERROR', 'INIT']), 'rowCount?': int, 'missingCount?': int,
    'unexpectedCount?': int, 'actualAggValue?': num, 'nativeResults?': map(str), 'externalUrl?': str, 'error?': any }),
  assertionUrn: urn, 'runtimeContext?': map(str),
}), { timeseries: true });

const assertionAction = rec({ type: enumOf(['RAISE_INCIDENT', 'RESOLVE_INCIDENT']) });
export const assertionActions = aspect('assertionActions', 'com.linkedin.assertion.AssertionActions',
  rec({ 'onSuccess?': arr(assertionAction), 'onFailure?': arr(assertionAction) }));

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

/** A schema field urn as DataHub's SchemaFieldRef: the dataset's urn and the field's path. */
function schemaFieldRef(fieldUrn: string) {
  const u = tryParseUrn(fieldUrn);
  const parts = typeof u !== 'string' && u.entityType === 'schemaField' ? u.parts : undefined;
  return parts && parts.length >= 2 ? { urn: parts[0]!, path: parts.slice(1).join(',') } : { urn: fieldUrn, path: '' };
}

const stdParam = (p: { value: string; type: string } | undefined) => (p ? { value: p.value, type: p.type } : null);

type RunEvent = AspectValue<typeof assertionRunEvent>;
type FacetFilterIn = { field: string; value?: string | null; values?: string[] | null; negated?: boolean | null };

/** A facet filter on a run event's own top-level fields (runId, asserteeUrn, status…), by equality. */
function matches(e: RunEvent, f: FacetFilterIn): boolean {
  const wanted = f.values ?? (f.value != null ? [f.value] : []);
  const actual = (e as Record<string, unknown>)[f.field];
  const hit = wanted.some((w) => String(actual) === w);
  return f.negated ? !hit : hit;
}

const stringMap = (m: Readonly<Record<string, unknown>> | undefined) =>
  m ? Object.entries(m).map(([key, value]) => ({ key, value: value == null ? null : String(value) })) : null;

function runEventOut(e: RunEvent) {
  const b = e.batchSpec as { nativeBatchId?: string; query?: string; limit?: number; customProperties?: Record<string, string> } | undefined;
  const r = e.result;
  return {
    timestampMillis: e.timestampMillis, assertionUrn: e.assertionUrn, asserteeUrn: e.asserteeUrn, runId: e.runId, status: e.status,
    batchSpec: b ? { nativeBatchId: b.nativeBatchId ?? null, query: b.query ?? null, limit: b.limit ?? null,
      customProperties: stringMap(b.customProperties) } : null,
    partitionSpec: e.partitionSpec ? { type: e.partitionSpec.type ?? 'FULL_TABLE', partition: e.partitionSpec.partition ?? '' } : null,
    runtimeContext: stringMap(e.runtimeContext),
    result: r ? { type: r.type, rowCount: r.rowCount ?? null, missingCount: r.missingCount ?? null, unexpectedCount: r.unexpectedCount ?? null,
      actualAggValue: r.actualAggValue ?? null, externalUrl: r.externalUrl ?? null, nativeResults: stringMap(r.nativeResults) } : null,
  };
}

/** The assertion's runs, newest first; total, failed and succeeded count the runs answered, as DataHub counts them. */
async function runEvents(f: FieldContext) {
  const { status, startTimeMillis, endTimeMillis, filter, limit } = f.args as { status?: string | null; startTimeMillis?: number | null;
    endTimeMillis?: number | null; filter?: { and?: FacetFilterIn[] | null } | null; limit?: number | null };
  const max = limit ?? 10_000;
  if (!Number.isInteger(max) || max < 1 || max > 10_000) throw badRequest(`limit must be between 1 and 10000, got ${max}`);
  const filters: FacetFilterIn[] = [...(status ? [{ field: 'status', values: [status] }] : []), ...(filter?.and ?? [])];
  const range = { startTimeMillis: startTimeMillis ?? undefined, endTimeMillis: endTimeMillis ?? undefined };
  const events = filters.length
    ? (await f.timeseries(assertionRunEvent, { ...range, limit: 10_000 })).filter((e) => filters.every((x) => matches(e, x))).slice(0, max)
    : await f.timeseries(assertionRunEvent, { ...range, limit: max });
  const completed = (type: string) => events.filter((e) => e.status === 'COMPLETE' && e.result?.type === type).length;
  return { total: events.length, failed: completed('FAILURE'), succeeded: completed('SUCCESS'), runEvents: events.map(runEventOut) };
}

const SDL = gql`
type Assertion implements EntityWithRelationships & Entity {
  urn: String!
  type: EntityType!
  "The platform of the dataPlatformInstance aspect, else urn:li:dataPlatform:unknown."
  platform: DataPlatform!
  info: AssertionInfo
  dataPlatformInstance: DataPlatformInstance
  "Runs from the assertionRunEvent time series, newest first (limit: at most 10000, the default)."
  runEvents(status: AssertionRunStatus, startTimeMillis: Long, endTimeMillis: Long, filter: FilterInput, limit: Int): AssertionRunEventsResult
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "One hop of lineage: an empty page, as no lineage edge starts or ends at an assertion."
  lineage(input: LineageInput!): EntityLineageResult
}

type AssertionRunEventsResult {
  total: Int!
  failed: Int!
  succeeded: Int!
  runEvents: [AssertionRunEvent!]!
}

type AssertionRunEvent {
  timestampMillis: Long!
  assertionUrn: String!
  asserteeUrn: String!
  runId: String!
  status: AssertionRunStatus!
  batchSpec: BatchSpec
  partitionSpec: PartitionSpec
  runtimeContext: [StringMapEntry!]
  result: AssertionResult
}

"COMPLETE is DataHub 0.12.1's value; RUNNING is accepted on ingest and answered as stored."
enum AssertionRunStatus { COMPLETE RUNNING }

type BatchSpec {
  nativeBatchId: String
  query: String
  limit: Int
  customProperties: [StringMapEntry!]
}

type AssertionResult {
  type: AssertionResultType!
  rowCount: Long
  missingCount: Long
  unexpectedCount: Long
  actualAggValue: Float
  externalUrl: String
  nativeResults: [StringMapEntry!]
}

"SUCCESS and FAILURE are DataHub 0.12.1's GraphQL values; ERROR and INIT are accepted on ingest and answered as stored."
enum AssertionResultType { SUCCESS FAILURE ERROR INIT }

type AssertionInfo {
  type: AssertionType!
  datasetAssertion: DatasetAssertionInfo
}

"DATASET is DataHub 0.12.1's value; the later kinds are accepted on ingest and answered as stored."
enum AssertionType { DATASET FRESHNESS VOLUME SQL DATA_SCHEMA }

type DatasetAssertionInfo {
  datasetUrn: String!
  scope: DatasetAssertionScope!
  fields: [SchemaFieldRef!]
  aggregation: AssertionStdAggregation
  operator: AssertionStdOperator!
  parameters: AssertionStdParameters
  nativeType: String
  nativeParameters: [StringMapEntry!]
  logic: String
}

enum DatasetAssertionScope { DATASET_COLUMN DATASET_ROWS DATASET_STORAGE_SIZE DATASET_SCHEMA UNKNOWN }

enum AssertionStdAggregation {
  IDENTITY MEAN MEDIAN UNIQUE_COUNT UNIQUE_PROPOTION UNIQUE_PROPORTION NULL_COUNT NULL_PROPORTION STDDEV MIN MAX SUM COLUMNS COLUMN_COUNT
  ROW_COUNT _NATIVE_
}

enum AssertionStdOperator {
  BETWEEN LESS_THAN LESS_THAN_OR_EQUAL_TO GREATER_THAN GREATER_THAN_OR_EQUAL_TO EQUAL_TO NOT_NULL CONTAIN END_WITH START_WITH REGEX_MATCH
  IN NOT_IN _NATIVE_
}

type AssertionStdParameters {
  value: AssertionStdParameter
  maxValue: AssertionStdParameter
  minValue: AssertionStdParameter
}

type AssertionStdParameter {
  value: String!
  type: AssertionStdParameterType!
}

enum AssertionStdParameterType { STRING NUMBER LIST SET UNKNOWN }
`;

/** Data quality rules on datasets, and their results. */
export const assertion = defineEntity({
  name: 'assertion',
  category: 'core',
  key: assertionKey,
  aspects: [assertionInfo, shared.dataPlatformInstance, assertionRunEvent, assertionActions, shared.status],
  graphql: {
    entityType: 'ASSERTION',
    objectType: 'Assertion',
    sdl: SDL,
    rootField: 'assertion',
    fields: {
      platform: async (f) => ref((await f.aspect(shared.dataPlatformInstance))?.platform ?? 'urn:li:dataPlatform:unknown'),
      dataPlatformInstance: async (f) => platformInstanceOut(await f.aspect(shared.dataPlatformInstance)),
      runEvents,
      info: async (f) => {
        const i = await f.aspect(assertionInfo);
        if (!i) return null;
        const d = i.datasetAssertion;
        return {
          type: i.type,
          datasetAssertion: d ? {
            datasetUrn: d.dataset, scope: d.scope, fields: (d.fields ?? []).map(schemaFieldRef), aggregation: d.aggregation ?? null,
            operator: d.operator,
            parameters: d.parameters ? { value: stdParam(d.parameters.value), maxValue: stdParam(d.parameters.maxValue),
              minValue: stdParam(d.parameters.minValue) } : null,
            nativeType: d.nativeType ?? null,
            nativeParameters: d.nativeParameters ? Object.entries(d.nativeParameters).map(([key, value]) => ({ key, value })) : null,
            logic: d.logic ?? null,
          } : null,
        };
      },
    },
  },
});
