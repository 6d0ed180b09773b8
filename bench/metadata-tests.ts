import { loadConfig } from '../src/config.js';
import { rootActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { parseTestDefinition } from '../src/services/metadata-tests/definition.js';
import { evaluateTests, type EntityView } from '../src/services/metadata-tests/evaluate.js';
import { percentile } from './support.js';

/**
 * Evaluating 20 metadata tests against one dataset with 100 columns: the rule engine alone, and the whole service
 * call (load the entity's aspects and the tests from SQLite, evaluate, no push). Target: engine p50 under 1 ms.
 */
const DS = 'urn:li:dataset:(urn:li:dataPlatform:hive,bench.wide,PROD)';

const fields = Array.from({ length: 100 }, (_, i) => ({
  fieldPath: `col_${i}`, nativeDataType: i % 3 ? 'varchar(100)' : 'bigint', nullable: i % 2 === 0,
  type: { type: { 'com.linkedin.schema.StringType': {} } }, ...(i % 5 ? { description: `Column ${i}` } : {}),
  ...(i % 10 ? {} : { globalTags: { tags: [{ tag: 'urn:li:tag:PII' }] } }),
}));
const aspects = {
  schemaMetadata: { schemaName: 'wide', platform: 'urn:li:dataPlatform:hive', version: 0, hash: '', platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } }, fields },
  datasetProperties: { description: 'Orders', customProperties: { 'spark.app.name': 'etl', rows: '1200' } },
  ownership: { owners: [{ owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER' }] },
  status: { removed: false },
};
const leaf = (property: string, operator: string, values?: string[]) => ({ property, operator, ...(values ? { values } : {}) });
const shapes = [
  { or: [leaf('editableDatasetProperties.description', 'exists'), leaf('datasetProperties.description', 'exists')] },
  [leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['col_\\d+']), leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:jdoe'])],
  { not: leaf('schemaMetadata.fields.globalTags.tags.tag', 'contains_any', ['urn:li:tag:PII']) },
  leaf('schemaMetadata.fields.description', 'starts_with', ['Nothing like this']),
  leaf('schemaMetadata.fields.nativeDataType', 'contains_str', ['int']),
  [leaf('datasetProperties.customProperties.rows', 'greater_than', ['1000']), leaf('status.removed', 'is_false')],
  leaf('schemaMetadata.fields.fieldPath', 'equals', ['col_99', 'col_98']),
];
const definitions = Array.from({ length: 20 }, (_, i) =>
  JSON.stringify({ on: { types: ['dataset'], conditions: leaf('urn', 'starts_with', ['urn:li:dataset:']) }, rules: shapes[i % shapes.length] }));

function stats(label: string, samples: number[]) {
  samples.sort((a, b) => a - b);
  const p50 = percentile(samples, 50);
  console.log(`${label.padEnd(44)} p50 ${(p50 * 1000).toFixed(1).padStart(7)} µs  p99 ${(percentile(samples, 99) * 1000).toFixed(1).padStart(7)} µs  ` +
    `${Math.round(1000 / p50)} evaluations/s`);
}

export async function run() {
  const defs = definitions.map((json, i) => ({ urn: `urn:li:test:t${i}`, def: parseTestDefinition(json) }));
  const entity: EntityView = { urn: DS, entityType: 'dataset', aspects };
  for (let i = 0; i < 500; i++) evaluateTests(defs, entity);
  const engine: number[] = [];
  for (let i = 0; i < 5000; i++) {
    const t = performance.now();
    evaluateTests(defs, entity);
    engine.push(performance.now() - t);
  }
  stats('rule engine: 20 tests × 100 columns', engine);
  const explained: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = performance.now();
    evaluateTests(defs, entity, { explain: true });
    explained.push(performance.now() - t);
  }
  stats('rule engine with explanations', explained);

  const catalog = await openCatalog(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }));
  try {
    await catalog.entities.ingest(Object.entries(aspects).map(([aspect, value]) => ({ urn: DS, entityType: 'dataset', aspect,
      changeType: 'UPSERT' as const, value, systemMetadata: null })), rootActor());
    for (let i = 0; i < definitions.length; i++) {
      await catalog.metadataTests.create({ id: `t${i}`, name: `t${i}`, category: 'bench', definition: { json: definitions[i]! } }, rootActor());
    }
    for (let i = 0; i < 200; i++) await catalog.metadataTests.evaluate(DS, {}, rootActor());
    const service: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      await catalog.metadataTests.evaluate(DS, {}, rootActor());
      service.push(performance.now() - t);
    }
    stats('service call (SQLite reads + evaluation)', service);
  } finally {
    await catalog.close();
  }
}
