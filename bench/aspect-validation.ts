import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { validateAspect } from '../src/registry/aspect-schemas.js';
import { aspectNameOfClass } from '../src/registry/registry.js';
import { normaliseAspectValue } from '../src/model/wire-format.js';
import { percentile } from './support.js';

/**
 * Why aspect payloads are checked by our own schema module rather than Ajv (the stack's default): the same
 * schemaMetadata rules written as JSON Schema and compiled by Ajv 8 (the copy Fastify ships), measured on the
 * sample SampleHdfsDataset schema, for a valid value and for one with a wrong field.
 */
const require = createRequire(import.meta.url);
const Ajv = require('ajv').default as new (o: object) => { compile: (s: object) => ((v: unknown) => boolean) & { errors?: { instancePath: string; message?: string }[] } };

const urn = { type: 'string', pattern: '^urn:' };
const auditStamp = { type: 'object', required: ['time', 'actor'], properties: { time: { type: 'integer' }, actor: urn } };
const tags = { type: 'object', required: ['tags'], properties: { tags: { type: 'array', items: { type: 'object', required: ['tag'], properties: { tag: urn } } } } };
const terms = { type: 'object', required: ['terms'], properties: { terms: { type: 'array', items: { type: 'object', required: ['urn'], properties: { urn } } } } };
const schemaMetadataSchema = {
  type: 'object', required: ['schemaName', 'platform', 'version', 'hash', 'platformSchema', 'fields'],
  properties: {
    schemaName: { type: 'string' }, platform: urn, version: { type: 'integer' }, hash: { type: 'string' }, created: auditStamp, lastModified: auditStamp,
    platformSchema: { type: 'object', minProperties: 1, maxProperties: 1 },
    fields: { type: 'array', items: { type: 'object', required: ['fieldPath', 'type', 'nativeDataType'], properties: {
      fieldPath: { type: 'string' }, nullable: { type: 'boolean' }, description: { type: 'string' }, nativeDataType: { type: 'string' },
      recursive: { type: 'boolean' }, isPartOfKey: { type: 'boolean' }, globalTags: tags, glossaryTerms: terms,
      type: { type: 'object', required: ['type'], properties: { type: { type: 'object', minProperties: 1, maxProperties: 1 } } } } } },
  },
};

function time(fn: () => unknown, n: number) {
  for (let i = 0; i < 2000; i++) fn();
  const xs: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return `p50 ${(percentile(xs, 50) * 1000).toFixed(2)} µs, p99 ${(percentile(xs, 99) * 1000).toFixed(2)} µs`;
}

export async function run() {
  const file = path.resolve(import.meta.dirname, '../samples/datahub/bootstrap_mce.json');
  const records = JSON.parse(readFileSync(file, 'utf8')) as Record<string, any>[];
  const hdfs = records.find((r) => JSON.stringify(r).includes('SampleHdfsDataset') && r.proposedSnapshot);
  const aspects = (Object.values(hdfs!.proposedSnapshot)[0] as { aspects: object[] }).aspects;
  const raw = aspects.find((a) => aspectNameOfClass(Object.keys(a)[0]!) === 'schemaMetadata')!;
  const value = normaliseAspectValue(Object.values(raw)[0]) as Record<string, any>;
  const bad = structuredClone(value);
  bad.fields[5].globalTags = { tags: [{ tag: 42 }] };

  const ajv = new Ajv({ allErrors: false });
  const check = ajv.compile(schemaMetadataSchema);
  if (!check(value) || check(bad) || validateAspect('schemaMetadata', value) !== null) throw new Error('validators disagree');
  console.log(`schemaMetadata with ${value.fields.length} fields, valid:`);
  console.log(`  Almanac's schema module  ${time(() => validateAspect('schemaMetadata', value), 50_000)}`);
  console.log(`  Ajv 8 (compiled)         ${time(() => check(value), 50_000)}`);
  console.log('with one wrong field, and the message each gives:');
  console.log(`  Almanac's schema module  ${time(() => validateAspect('schemaMetadata', bad), 50_000)}  "${validateAspect('schemaMetadata', bad)!.message}"`);
  check(bad);
  const e = check.errors![0]!;
  console.log(`  Ajv 8 (compiled)         ${time(() => check(bad), 50_000)}  "${e.instancePath} ${e.message}"`);
}
