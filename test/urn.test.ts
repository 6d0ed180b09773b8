import assert from 'node:assert/strict';
import { test } from 'node:test';
import { datasetKeyOf, datasetUrn, decodeUrnPart, encodeUrnPart, makeUrn, parseUrn, tryParseUrn } from '../src/model/urn.js';
import { aspectNameOfClass, entitySpec, entityTypeOfSnapshot, findTimeseriesIndex, keyAspectValue, TIMESERIES_INDICES } from '../src/registry/registry.js';

test('simple and tuple urns parse into their parts', () => {
  assert.deepEqual({ ...parseUrn('urn:li:corpuser:jdoe') }, { raw: 'urn:li:corpuser:jdoe', namespace: 'li', entityType: 'corpuser', key: 'jdoe', parts: ['jdoe'] });
  const ds = parseUrn('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)');
  assert.deepEqual(ds.parts, ['urn:li:dataPlatform:hive', 'db.table', 'PROD']);
  assert.deepEqual(datasetKeyOf(ds), { platform: 'urn:li:dataPlatform:hive', name: 'db.table', origin: 'PROD' });
  // Nested tuples stay whole inside their part.
  const field = parseUrn('urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD),a.b)');
  assert.deepEqual(field.parts, ['urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'a.b']);
});

test('malformed urns are refused with the reason', () => {
  const cases: [unknown, string][] = [
    ['not-a-urn', "'not-a-urn' is not a URN of the form urn:li:<entityType>:<id>"],
    ['urn:li:dataset:', "URN 'urn:li:dataset:' has an empty key"],
    ['urn:li:dataset:(a,b', "URN 'urn:li:dataset:(a,b': mismatched paren nesting"],
    ['urn:li:dataset:(a,,b)', "URN 'urn:li:dataset:(a,,b)': empty part disallowed"],
    ['urn:li:tag:a)b', "URN 'urn:li:tag:a)b': mismatched paren nesting"],
    [42, 'a URN must be a string'],
  ];
  for (const [raw, reason] of cases) assert.equal(tryParseUrn(raw), reason, String(raw));
  assert.throws(() => parseUrn('nope'), (e: any) => e.code === 'BAD_REQUEST' && e.message.startsWith('Invalid urn: '));
  assert.throws(() => datasetKeyOf(parseUrn('urn:li:tag:x')), /is not a dataset urn/);
});

test('reserved characters in tuple parts are percent-encoded as DataHub does', () => {
  assert.equal(encodeUrnPart('a,b(c)'), 'a%2Cb%28c%29');
  assert.equal(decodeUrnPart('a%2Cb%28c%29'), 'a,b(c)');
  const urn = datasetUrn('hive', 'weird,name(1)', 'DEV');
  assert.equal(urn, 'urn:li:dataset:(urn:li:dataPlatform:hive,weird%2Cname%281%29,DEV)');
  assert.deepEqual(datasetKeyOf(parseUrn(urn)), { platform: 'urn:li:dataPlatform:hive', name: 'weird,name(1)', origin: 'DEV' });
  assert.equal(makeUrn('tag', 'pii'), 'urn:li:tag:pii');
});

test('the registry maps wire class names, key aspects and time-series indices', () => {
  assert.equal(aspectNameOfClass('com.linkedin.pegasus2avro.dataset.DatasetProperties'), 'datasetProperties');
  assert.equal(aspectNameOfClass('com.linkedin.ml.metadata.MLModelProperties'), 'mlModelProperties');
  assert.equal(aspectNameOfClass('com.linkedin.pegasus2avro.schema.SchemaMetadata'), 'schemaMetadata');
  assert.equal(aspectNameOfClass('com.example.Nope'), undefined);
  assert.equal(entityTypeOfSnapshot('com.linkedin.pegasus2avro.metadata.snapshot.MLFeatureTableSnapshot'), 'mlFeatureTable');
  assert.equal(entitySpec('DATASET')?.name, 'dataset');
  assert.deepEqual(keyAspectValue('dataset', ['urn:li:dataPlatform:hive', 't', 'PROD']), { platform: 'urn:li:dataPlatform:hive', name: 't', origin: 'PROD' });
  assert.deepEqual(findTimeseriesIndex('dataset', 'datasetusagestatistics'), { entityType: 'dataset', aspect: 'datasetUsageStatistics',
    indexName: 'dataset_datasetusagestatisticsaspect_v1' });
  assert.equal(findTimeseriesIndex('dataset', 'schemaMetadata'), undefined);
  assert.deepEqual(TIMESERIES_INDICES.map((i) => i.indexName).sort(), [
    'assertion_assertionruneventaspect_v1', 'chart_chartusagestatisticsaspect_v1', 'dashboard_dashboardusagestatisticsaspect_v1',
    'datajob_datahubingestioncheckpointaspect_v1', 'datajob_datahubingestionrunsummaryaspect_v1',
    'dataprocessinstance_dataprocessinstanceruneventaspect_v1', 'dataset_datasetprofileaspect_v1', 'dataset_datasetusagestatisticsaspect_v1',
    'dataset_operationaspect_v1', 'query_queryusagestatisticsaspect_v1']);
});
