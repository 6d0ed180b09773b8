import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { any, arr, enumOf, int, map, num, rec, str, urn } from './schema.js';

export const assertionKey = keyAspect('assertionKey', 'com.linkedin.metadata.key.AssertionKey', [['assertionId', 'string']]);

const stdOperator = enumOf(['BETWEEN', 'LESS_THAN', 'LESS_THAN_OR_EQUAL_TO', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'EQUAL_TO',
  'NOT_NULL', 'CONTAIN', 'END_WITH', 'START_WITH', 'REGEX_MATCH', 'IN', 'NOT_IN']);
const stdParameter = rec({ value: str, type: enumOf(['STRING', 'NUMBER', 'LIST', 'SET', 'UNKNOWN']) });
const stdParameters = rec({ 'value?': stdParameter, 'maxValue?': stdParameter, 'minValue?': stdParameter });

/** The assertion on a dataset as dbt and Great Expectations send it; the newer kinds (freshness, volume, sql, schema) are kept as sent. */
const datasetAssertion = rec({
  dataset: urn, scope: enumOf(['DATASET_COLUMN', 'DATASET_ROWS', 'DATASET_STORAGE_SIZE', 'DATASET_SCHEMA', 'UNKNOWN']),
  'fields?': arr(urn),
  'aggregation?': enumOf(['ROW_COUNT', 'COLUMNS', 'COLUMN_COUNT', 'IDENTITY', 'MEAN', 'MEDIAN', 'UNIQUE_COUNT', 'UNIQUE_PROPORTION',
    'UNIQUE_PROPOTION', 'NULL_COUNT', 'NULL_PROPORTION', 'STDDEV', 'MIN', 'MAX', 'SUM']),
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

/** Data quality rules on datasets, and their results. */
export const assertion = defineEntity({
  name: 'assertion',
  category: 'core',
  key: assertionKey,
  aspects: [assertionInfo, shared.dataPlatformInstance, assertionRunEvent, assertionActions, shared.status],
  graphql: { entityType: 'ASSERTION' },
});
