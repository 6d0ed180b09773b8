import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { AlmanacError } from '../src/errors.js';
import { aspectNameOfClass, aspectSpec, entityTypeOfSnapshot } from '../src/registry/registry.js';
import { normaliseAspectValue } from '../src/model/wire-format.js';
import { parsePropertyPath, parseTestDefinition, type TestDefinition } from '../src/services/metadata-tests/definition.js';
import {
  evaluateTest, evaluateTests, resolveProperty, targetsEntityType, type EntityView, type Explanation,
} from '../src/services/metadata-tests/evaluate.js';

// ---------------------------------------------------------------------------------------------------------------
// Fixtures: the entities of DataHub's bootstrap_mce.json, with the latest value of each versioned aspect.

const BOOTSTRAP = path.resolve(import.meta.dirname, '../samples/datahub/bootstrap_mce.json'); // the repository's copy
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';

interface Mcp { entityType: string; entityUrn: string; aspectName: string; aspect: { value: string } }

const records = JSON.parse(readFileSync(BOOTSTRAP, 'utf8')) as Record<string, unknown>[];
const entities = new Map<string, EntityView & { aspects: Record<string, unknown> }>();
const testInfos: { urn: string; json: string }[] = [];
for (const r of records) {
  if (r.proposedSnapshot) {
    const [cls, snap] = Object.entries(r.proposedSnapshot as Record<string, { urn: string; aspects: object[] }>)[0]!;
    const aspects: Record<string, unknown> = {};
    for (const a of snap.aspects) {
      const [aCls, v] = Object.entries(a)[0]!;
      aspects[aspectNameOfClass(aCls)!] = normaliseAspectValue(v);
    }
    entities.set(snap.urn, { urn: snap.urn, entityType: entityTypeOfSnapshot(cls)!, aspects });
  } else {
    const m = r as unknown as Mcp;
    if (aspectSpec(m.aspectName)?.timeseries) continue; // tests resolve versioned aspects only
    const value = normaliseAspectValue(JSON.parse(m.aspect.value));
    if (m.aspectName === 'testInfo') testInfos.push({ urn: m.entityUrn, json: (value as any).definition.json });
    const e = entities.get(m.entityUrn) ?? { urn: m.entityUrn, entityType: m.entityType, aspects: {} };
    e.aspects[m.aspectName] = value;
    entities.set(m.entityUrn, e);
  }
}
const hdfs = entities.get(HDFS)!;
const hive = entities.get(HIVE)!;
const schemaContainer = entities.get('urn:li:container:SCHEMA')!;

/** A dataset built around the HDFS sample, with extra aspects for cases the samples lack. */
function dataset(extra: Record<string, unknown>): EntityView {
  return { urn: HDFS, entityType: 'dataset', aspects: { ...hdfs.aspects, ...extra } };
}

const def = (doc: unknown): TestDefinition => parseTestDefinition(JSON.stringify(doc));
const onDatasets = (rules: unknown) => def({ on: { types: ['dataset'] }, rules });

/** Whether `rules` passes on the entity (asserting the test applies). */
function passes(rules: unknown, entity: EntityView = hdfs): boolean {
  const out = evaluateTest(onDatasets(rules), entity);
  assert.equal(out.applies, true);
  return (out as { passed: boolean }).passed;
}
const leaf = (property: string, operator: string, values?: unknown) =>
  values === undefined ? { property, operator } : { property, operator, values };

/** The whole message (and details) a definition is refused with. */
function refusal(text: string, format?: 'JSON' | 'YAML'): { message: string; details?: Record<string, unknown> } {
  try {
    parseTestDefinition(text, format);
  } catch (e) {
    assert.ok(e instanceof AlmanacError, `not an AlmanacError: ${e}`);
    assert.equal(e.code, 'BAD_REQUEST');
    return { message: e.message, details: e.details };
  }
  assert.fail(`accepted: ${text}`);
}
const refusalOf = (doc: unknown) => refusal(JSON.stringify(doc)).message;

test('fixtures: the HDFS sample is a dataset with ownership and seven schema fields', () => {
  assert.equal(hdfs.entityType, 'dataset');
  assert.deepEqual(resolveProperty(hdfs, parsePropertyPath('ownership.owners.owner')),
    ['urn:li:corpuser:jdoe', 'urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub']);
  assert.equal(resolveProperty(hdfs, parsePropertyPath('schemaMetadata.fields.fieldPath')).length, 7);
  assert.deepEqual(hive.aspects.container, { container: 'urn:li:container:SCHEMA' });
});

// ---------------------------------------------------------------------------------------------------------------

describe('property resolution', () => {
  const resolve = (e: EntityView, p: string) => resolveProperty(e, parsePropertyPath(p));

  test('urn and entityType', () => {
    assert.deepEqual(resolve(hdfs, 'urn'), [HDFS]);
    assert.deepEqual(resolve(hdfs, 'entityType'), ['dataset']);
  });

  test('lists are flattened at every level', () => {
    assert.deepEqual(resolve(hdfs, 'schemaMetadata.fields.fieldPath'), ['shipment_info', 'shipment_info.date',
      'shipment_info.target', 'shipment_info.destination', 'shipment_info.geo_info', 'shipment_info.geo_info.lat',
      'shipment_info.geo_info.lng']);
    assert.deepEqual(resolve(hdfs, 'editableSchemaMetadata.editableSchemaFieldInfo.globalTags.tags.tag'),
      ['urn:li:tag:Legacy']);
    assert.deepEqual(resolve(hive, 'globalTags.tags.tag'), ['urn:li:tag:Legacy']);
    const nested = dataset({ subTypes: { typeNames: [['a', ['b']], null, 'c'] } });
    assert.deepEqual(resolve(nested, 'subTypes.typeNames'), ['a', 'b', 'c']);
  });

  test('missing aspects, missing fields and paths past a primitive resolve to nothing', () => {
    assert.deepEqual(resolve(hdfs, 'glossaryTerms.terms.urn'), []);
    assert.deepEqual(resolve(hdfs, 'ownership.nope'), []);
    assert.deepEqual(resolve(hdfs, 'schemaMetadata.schemaName.length'), []);
    assert.deepEqual(resolve(hdfs, 'urn.foo'), []);
    assert.deepEqual(resolve(hdfs, 'ownership.constructor'), [], 'prototype members are not fields');
  });

  test('map keys: the rest of the path is the key, dots included', () => {
    const e = dataset({ datasetProperties: { customProperties: { 'spark.app.name': 'etl', team: 'core' } } });
    assert.deepEqual(resolve(e, 'datasetProperties.customProperties.spark.app.name'), ['etl']);
    assert.deepEqual(resolve(e, 'datasetProperties.customProperties.team'), ['core']);
    assert.deepEqual(resolve(e, 'datasetProperties.customProperties.spark'), []);
  });

  test('URN hops are not followed: the path stops at the URN string', () => {
    assert.deepEqual(resolve(hive, 'container.container'), ['urn:li:container:SCHEMA']);
    assert.deepEqual(resolve(hive, 'container.container.containerProperties.name'), []);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('operators', () => {
  test('equals: any resolved value equal to any given value, exactly', () => {
    assert.equal(passes(leaf('ownership.owners.type', 'equals', ['TECHNICAL_OWNER'])), true);
    assert.equal(passes(leaf('ownership.owners.type', 'equals', ['BUSINESS_OWNER', 'DATAOWNER'])), true);
    assert.equal(passes(leaf('ownership.owners.type', 'equals', ['dataowner'])), false);
    assert.equal(passes(leaf('schemaMetadata.schemaName', 'equals', ['SampleHdfs'])), false);
    assert.equal(passes(leaf('glossaryTerms.terms.urn', 'equals', ['x'])), false);
  });

  test('equals compares numbers and booleans by their text; numeric definition values are accepted', () => {
    assert.equal(passes(leaf('schemaMetadata.version', 'equals', ['0'])), true);
    assert.equal(passes(leaf('schemaMetadata.version', 'equals', [0])), true);
    assert.equal(passes(leaf('ownership.lastModified.time', 'equals', ['1581407189000'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'equals', [false])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'equals', ['False'])), false);
    assert.equal(passes(leaf('schemaMetadata.created', 'equals', ['[object Object]'])), false, 'records never equal');
  });

  test('contains_any: intersection of the resolved list with the given list', () => {
    assert.equal(passes(leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:nobody', 'urn:li:corpuser:datahub'])), true);
    assert.equal(passes(leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:nobody'])), false);
    assert.equal(passes(leaf('glossaryTerms.terms.urn', 'contains_any', ['urn:li:glossaryTerm:Classification.Confidential'])), false);
    // Many values take the set path.
    const many = Array.from({ length: 20 }, (_, i) => `urn:li:corpuser:u${i}`);
    assert.equal(passes(leaf('ownership.owners.owner', 'contains_any', [...many, 'urn:li:corpuser:jdoe'])), true);
    assert.equal(passes(leaf('ownership.owners.owner', 'contains_any', many)), false);
  });

  test('contains_str: substring of any value, case-sensitive', () => {
    assert.equal(passes(leaf('schemaMetadata.fields.description', 'contains_str', ['geo_info lat'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.description', 'contains_str', ['GEO', 'destination desc'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.description', 'contains_str', ['GEO'])), false);
    assert.equal(passes(leaf('schemaMetadata.version', 'contains_str', ['0'])), true, 'numbers compare as text');
  });

  test('starts_with: prefix of any value', () => {
    assert.equal(passes(leaf('urn', 'starts_with', ['urn:li:dataset:(urn:li:dataPlatform:hdfs,'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'starts_with', ['shipment_info.geo'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'starts_with', ['geo'])), false);
  });

  test('regex_match: the whole string must match', () => {
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['shipment_info\\.geo_info\\.l..'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['geo_info'])), false, 'partial match');
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['.*geo_info.*'])), true);
    assert.equal(passes(leaf('urn', 'regex_match', ['urn|nothing'])), false, 'alternation is anchored as a whole');
    assert.equal(passes(leaf('ownership.owners.owner', 'regex_match', ['x', 'urn:li:corpuser:(jdoe|alice)'])), true);
  });

  test('regex_match: special characters, escapes, unicode and line ends', () => {
    assert.equal(passes(leaf('urn', 'regex_match', ['urn:li:dataset:\\(urn:li:dataPlatform:hdfs,[A-Za-z]+,PROD\\)'])), true);
    assert.equal(passes(leaf('urn', 'regex_match', ['urn:li:dataset:(urn:li:dataPlatform:hdfs,[A-Za-z]+,PROD)'])), false,
      'unescaped parentheses group instead of matching');
    assert.equal(passes(leaf('institutionalMemory.elements.url', 'regex_match', ['https://www\\.linkedin\\.com'])), true);
    assert.equal(passes(leaf('institutionalMemory.elements.description', 'regex_match', ['\\p{Lu}\\p{Ll}+ doc'])), true);
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['shipment\\_info'])), true,
      'identity escapes Java accepts');
    const e = dataset({ editableDatasetProperties: { description: 'line one\nline two\n' } });
    assert.equal(passes(leaf('editableDatasetProperties.description', 'regex_match', ['line one.line two']), e), false,
      '. does not match a line break');
    assert.equal(passes(leaf('editableDatasetProperties.description', 'regex_match', ['line one\\nline two']), e), false,
      'a trailing line break is part of the string');
    assert.equal(passes(leaf('editableDatasetProperties.description', 'regex_match', ['[\\s\\S]*two\\n']), e), true);
    assert.equal(passes(leaf('schemaMetadata.version', 'regex_match', ['\\d+'])), true, 'numbers match as text');
  });

  test('greater_than / less_than: integers after truncation', () => {
    assert.equal(passes(leaf('ownership.lastModified.time', 'greater_than', ['1581407188999'])), true);
    assert.equal(passes(leaf('ownership.lastModified.time', 'less_than', ['1581407189000'])), false);
    assert.equal(passes(leaf('schemaMetadata.version', 'greater_than', ['-1'])), true);
    const e = dataset({ datasetProperties: { customProperties: { rows: '10', ratio: '5.9', neg: '-1.5' } },
      cost: { costType: 'ORG_COST_TYPE', cost: { costId: 5.9 } } });
    const cp = 'datasetProperties.customProperties';
    assert.equal(passes(leaf(`${cp}.rows`, 'greater_than', ['9']), e), true, 'numeric, not text, comparison');
    assert.equal(passes(leaf(`${cp}.ratio`, 'greater_than', ['5']), e), false, '5.9 truncates to 5');
    assert.equal(passes(leaf(`${cp}.ratio`, 'greater_than', ['4.5']), e), true, '5 > 4');
    assert.equal(passes(leaf(`${cp}.ratio`, 'less_than', ['6']), e), true);
    assert.equal(passes(leaf(`${cp}.neg`, 'greater_than', ['-1']), e), false, '-1.5 truncates toward zero');
    assert.equal(passes(leaf('cost.cost.costId', 'less_than', ['5.99']), e), false, 'both sides truncate: 5 < 5');
    assert.equal(passes(leaf(`${cp}.rows`, 'greater_than', ['100', '1']), e), true, 'any given value');
    assert.equal(passes(leaf(`${cp}.rows`, 'less_than', [3, 11]), e), true, 'numbers in the definition');
  });

  test('greater_than / less_than on non-numbers are false, never errors', () => {
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'greater_than', ['1'])), false);
    assert.equal(passes(leaf('schemaMetadata.fields.fieldPath', 'less_than', ['1'])), false);
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'less_than', ['1'])), false);
    assert.equal(passes(leaf('schemaMetadata.created', 'greater_than', ['1'])), false);
    assert.equal(passes(leaf('glossaryTerms.terms.urn', 'less_than', ['1'])), false);
  });

  test('exists: some non-null, non-empty value', () => {
    assert.equal(passes(leaf('ownership.owners.owner', 'exists')), true);
    assert.equal(passes(leaf('editableDatasetProperties.description', 'exists')), false, 'missing aspect');
    assert.equal(passes(leaf('schemaMetadata.hash', 'exists')), false, 'empty string');
    assert.equal(passes(leaf('schemaMetadata.version', 'exists')), true, 'zero is a value');
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'exists')), true, 'false is a value');
    assert.equal(passes(leaf('ownership', 'exists')), true, 'a whole aspect');
    const e = dataset({ glossaryTerms: { terms: [] }, datasetProperties: { customProperties: {}, tags: ['', 'x'] } });
    assert.equal(passes(leaf('glossaryTerms.terms', 'exists'), e), false, 'empty list');
    assert.equal(passes(leaf('datasetProperties.customProperties', 'exists'), e), false, 'empty map');
    assert.equal(passes(leaf('datasetProperties.tags', 'exists'), e), true, 'one non-empty element is enough');
  });

  test('is_true / is_false on booleans and the strings "true"/"false"', () => {
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'is_false')), true);
    assert.equal(passes(leaf('schemaMetadata.fields.nullable', 'is_true')), false);
    const e = dataset({ status: { removed: true }, deprecation: { deprecated: false, note: '' },
      datasetProperties: { customProperties: { a: 'TRUE', b: 'False', c: 'yes' } } });
    assert.equal(passes(leaf('status.removed', 'is_true'), e), true);
    assert.equal(passes(leaf('status.removed', 'is_false'), e), false);
    assert.equal(passes(leaf('deprecation.deprecated', 'is_false'), e), true);
    assert.equal(passes(leaf('datasetProperties.customProperties.a', 'is_true'), e), true);
    assert.equal(passes(leaf('datasetProperties.customProperties.b', 'is_false'), e), true);
    assert.equal(passes(leaf('datasetProperties.customProperties.c', 'is_true'), e), false, 'not a boolean');
    assert.equal(passes(leaf('datasetProperties.customProperties.c', 'is_false'), e), false, 'not a boolean');
    assert.equal(passes(leaf('schemaMetadata.version', 'is_true')), false, 'numbers are not booleans');
  });

  test('is_false holds when nothing resolves (an absent flag is false); is_true does not', () => {
    assert.equal(passes(leaf('status.removed', 'is_false')), true);
    assert.equal(passes(leaf('status.removed', 'is_true')), false);
    const e = dataset({ deprecation: { note: '' } });
    assert.equal(passes(leaf('deprecation.note', 'is_false'), e), true, 'only empty strings');
  });

  test('operator names are case-insensitive', () => {
    assert.equal(passes(leaf('ownership.owners.owner', 'CONTAINS_ANY', ['urn:li:corpuser:jdoe'])), true);
    assert.equal(passes(leaf('ownership', 'Exists')), true);
  });

  test('value (scalar) and values given as a scalar mean a one-item list', () => {
    assert.equal(passes({ property: 'ownership.owners.type', operator: 'equals', value: 'DATAOWNER' }), true);
    assert.equal(passes({ property: 'ownership.owners.type', operator: 'equals', values: 'DATAOWNER' }), true);
  });

  test('odd aspect shapes never throw', () => {
    const weird = dataset({
      ownership: { owners: [null, 7, 'x', [{ owner: { nested: true } }], { owner: ['a', null, [true]] }] },
      schemaMetadata: 'not an object', globalTags: null, status: [[[]]],
    });
    const ops = ['equals', 'contains_any', 'contains_str', 'starts_with', 'regex_match', 'greater_than', 'less_than'];
    for (const path of ['ownership.owners.owner', 'ownership.owners', 'schemaMetadata.fields.fieldPath', 'globalTags.tags.tag', 'status.removed']) {
      for (const op of ops) passes(leaf(path, op, ['1']), weird);
      for (const op of ['exists', 'is_true', 'is_false']) passes(leaf(path, op), weird);
    }
    assert.deepEqual(resolveProperty(weird, parsePropertyPath('ownership.owners.owner')), [{ nested: true }, 'a', true]);
    assert.equal(passes(leaf('ownership.owners.owner', 'is_true'), weird), true);
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('logic', () => {
  const yes = leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:jdoe']);
  const no = leaf('editableDatasetProperties.description', 'exists');

  test('negate inverts a leaf', () => {
    assert.equal(passes({ ...yes, negate: true }), false);
    assert.equal(passes({ ...no, negate: true }), true);
    assert.equal(passes({ ...yes, negate: false }), true);
  });

  test('and, or, not and bare lists', () => {
    assert.equal(passes({ and: [yes, no] }), false);
    assert.equal(passes({ or: [no, yes] }), true);
    assert.equal(passes({ not: no }), true);
    assert.equal(passes({ not: [yes, no] }), true, 'a list under not is an and');
    assert.equal(passes([yes, yes]), true);
    assert.equal(passes([yes, no]), false);
    assert.equal(passes({ and: [] }), true);
    assert.equal(passes([]), true);
    assert.equal(passes({ or: [] }), false);
  });

  test('nested and/or/not', () => {
    assert.equal(passes({ or: [{ and: [yes, no] }, { not: { or: [no, { not: yes }] } }] }), true);
    assert.equal(passes({ and: [yes, { or: [no, [yes, { not: yes }]] }] }), false);
    assert.equal(passes({ not: { not: { not: yes } } }), false);
  });

  test('legacy negate on and/or nodes', () => {
    assert.equal(passes({ and: [yes, no], negate: true }), true);
    assert.equal(passes({ or: [yes], negate: true }), false);
  });

  test('legacy leaf form: query, operation, params', () => {
    assert.equal(passes({ query: 'ownership.owners.owner', operation: 'contains_any',
      params: { values: ['urn:li:corpuser:datahub'] } }), true);
    assert.equal(passes({ query: 'ownership.owners.type', operation: 'EQUALS', params: { value: 'NONE' } }), false);
    assert.equal(passes({ query: 'editableDatasetProperties.description', operation: 'exists', negate: true }), true);
    // DataHub's smoke test definition.
    const smoke = parseTestDefinition('{"on":{"types":["dataset"]},"rules":{"or":[{"query":"editableDatasetProperties.description","operation":"exists"},{"query":"ownership.owners.owner","operation":"exists"}]}}');
    assert.deepEqual(evaluateTest(smoke, hdfs), { applies: true, passed: true });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('selection', () => {
  const anyRules = leaf('urn', 'exists');

  test('on.types selects by entity type, case-insensitively', () => {
    assert.deepEqual(evaluateTest(def({ on: { types: ['DATASET'] }, rules: anyRules }), hdfs), { applies: true, passed: true });
    assert.deepEqual(evaluateTest(def({ on: { types: ['chart', 'dataset'] }, rules: anyRules }), hdfs), { applies: true, passed: true });
    assert.deepEqual(evaluateTest(def({ on: { types: ['chart', 'dashboard'] }, rules: anyRules }), hdfs), { applies: false });
    assert.deepEqual(evaluateTest(def({ on: { types: ['dataset'] }, rules: anyRules }), schemaContainer), { applies: false });
  });

  test('GraphQL enum spellings match registry names (underscores ignored)', () => {
    const t = def({ on: { types: ['DATA_FLOW', 'GLOSSARY_TERM'] }, rules: anyRules });
    assert.equal(targetsEntityType(t, 'dataFlow'), true);
    assert.equal(targetsEntityType(t, 'glossaryTerm'), true);
    assert.equal(targetsEntityType(t, 'dataJob'), false);
    const job = [...entities.values()].find((e) => e.entityType === 'dataJob')!;
    assert.deepEqual(evaluateTest(t, job), { applies: false });
    const term = [...entities.values()].find((e) => e.entityType === 'glossaryTerm')!;
    assert.deepEqual(evaluateTest(t, term), { applies: true, passed: true });
  });

  test('on.conditions further selects; rules are not evaluated for unselected entities', () => {
    const t = def({
      on: { types: ['dataset'], conditions: { and: [leaf('urn', 'contains_str', ['dataPlatform:hdfs'])] } },
      rules: leaf('globalTags.tags.tag', 'contains_any', ['urn:li:tag:Legacy']),
    });
    assert.deepEqual(evaluateTest(t, hdfs), { applies: true, passed: false });
    assert.deepEqual(evaluateTest(t, hive), { applies: false });
    assert.deepEqual(evaluateTest(t, hive, { explain: true }), { applies: false });
  });

  test('the legacy match alias of conditions', () => {
    const t = def({ on: { types: ['dataset'], match: [leaf('globalTags.tags.tag', 'exists')] }, rules: anyRules });
    assert.deepEqual(evaluateTest(t, hdfs), { applies: false });
    assert.deepEqual(evaluateTest(t, hive), { applies: true, passed: true });
  });

  test('containers from the sample MCPs', () => {
    const t = def({
      on: { types: ['container'], conditions: leaf('subTypes.typeNames', 'equals', ['Schema']) },
      rules: [leaf('container.container', 'equals', ['urn:li:container:DATABASE']),
        leaf('dataPlatformInstance.platform', 'equals', ['urn:li:dataPlatform:hive'])],
    });
    assert.deepEqual(evaluateTest(t, schemaContainer), { applies: true, passed: true });
    assert.deepEqual(evaluateTest(t, entities.get('urn:li:container:DATABASE')!), { applies: false });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('YAML', () => {
  const yaml = `on:
  types: [dataset, dashboard]
  conditions:
    and:
      - property: dataPlatformInstance.platform
        operator: equals
        values: ["urn:li:dataPlatform:snowflake"]
rules:
  or:
    - property: editableDatasetProperties.description
      operator: exists
    - property: glossaryTerms.terms.urn
      operator: contains_any
      values: ["urn:li:glossaryTerm:Classification.Confidential"]
actions:
  passing: [ { type: add_tags, values: ["urn:li:tag:Tier1"] } ]
`;

  test("the reference's illustrative definition", () => {
    const t = parseTestDefinition(yaml);
    assert.equal(JSON.stringify(t), JSON.stringify(parseTestDefinition(yaml, 'YAML')));
    assert.deepEqual(t.types, ['dataset', 'dashboard']);
    assert.deepEqual(t.actions, { passing: [{ type: 'add_tags', values: ['urn:li:tag:Tier1'] }] });
    assert.deepEqual(evaluateTest(t, hdfs), { applies: false });
    const snowflake = (extra: Record<string, unknown>) =>
      dataset({ dataPlatformInstance: { platform: 'urn:li:dataPlatform:snowflake' }, ...extra });
    assert.deepEqual(evaluateTest(t, snowflake({})), { applies: true, passed: false });
    assert.deepEqual(evaluateTest(t, snowflake({ editableDatasetProperties: { description: 'Orders' } })),
      { applies: true, passed: true });
    assert.deepEqual(evaluateTest(t, snowflake({ glossaryTerms: { terms: [
      { urn: 'urn:li:glossaryTerm:Other' }, { urn: 'urn:li:glossaryTerm:Classification.Confidential' }] } })),
    { applies: true, passed: true });
  });

  test('YAML scalars: numbers and booleans as values, bare-list rules', () => {
    const t = parseTestDefinition('on: {types: [dataset]}\nrules:\n  - property: schemaMetadata.version\n    operator: less_than\n    values: [1]\n  - query: schemaMetadata.fields.nullable\n    operation: equals\n    params: {value: false}\n');
    assert.deepEqual(t.rules.kind === 'and' && t.rules.children.map((c) => c.kind === 'leaf' && c.values), [['1'], ['false']]);
    assert.deepEqual(evaluateTest(t, hdfs), { applies: true, passed: true });
  });

  test('JSON text is YAML too when the format says so', () => {
    const t = parseTestDefinition('{"on": {"types": ["dataset"]}, "rules": []}', 'YAML');
    assert.deepEqual(evaluateTest(t, hdfs), { applies: true, passed: true });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('definition errors', () => {
  test('the "{}" sample definitions of bootstrap_mce.json are refused, not crashed on', () => {
    assert.equal(testInfos.length, 2);
    for (const { json } of testInfos) {
      assert.equal(json, '{}');
      assert.deepEqual(refusal(json), {
        message: "Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: on, rules)",
        details: { path: '' },
      });
    }
    assert.equal(refusalOf({ on: { types: ['dataset'] } }),
      "Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: rules)");
  });

  test('JSON syntax errors carry line and column', () => {
    assert.deepEqual(refusal('{\n  "on": {"types": ["dataset"]},\n  "rules": [\n    {"property": "urn", "operator": }\n  ]\n}'), {
      message: "Invalid test definition: line 4, column 37: Unexpected token '}', expected a value",
      details: { format: 'JSON', line: 4, column: 37 },
    });
    assert.equal(refusal('{"on": {"types": ["dataset"]}, "rules": [1,]}').message,
      "Invalid test definition: line 1, column 44: Unexpected token ']', expected a value");
    assert.equal(refusal('{"on": {"types": ["dataset"],}}').message,
      "Invalid test definition: line 1, column 30: Unexpected token '}', expected a property name in double quotes");
    assert.equal(refusal('{on: {types: [dataset]}}').message,
      "Invalid test definition: line 1, column 2: Unexpected token 'on', expected a property name in double quotes");
    assert.equal(refusal('{"on" {}}').message, "Invalid test definition: line 1, column 7: Unexpected token '{', expected ':'");
    assert.equal(refusal('{"on": tru}').message, "Invalid test definition: line 1, column 8: Unexpected token 'tru', expected a value");
    assert.equal(refusal('{"on": {}').message,
      "Invalid test definition: line 1, column 10: Unexpected end of input, expected ',' or '}'");
    assert.equal(refusal('{"on": "a\nb"}').message, 'Invalid test definition: line 1, column 10: Unexpected line break in string');
    assert.equal(refusal('{"on": "\\x"}').message, 'Invalid test definition: line 1, column 9: Bad escape sequence in string');
    assert.equal(refusal('{}\n  x').message,
      "Invalid test definition: line 2, column 3: Unexpected token 'x' after the end of the definition");
    assert.equal(refusal('{"on": "abc').message, 'Invalid test definition: line 1, column 8: Unterminated string');
    assert.equal(refusal('rules: []', 'JSON').message,
      "Invalid test definition: line 1, column 1: Unexpected token 'rules', expected a value");
  });

  test('YAML syntax errors carry line and column', () => {
    assert.deepEqual(refusal('on:\n  types: [dataset\nrules: []\n'), {
      message: 'Invalid test definition: line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]',
      details: { format: 'YAML', line: 3, column: 1 },
    });
    assert.equal(refusal('on:\n  types: [dataset]\non: {}\nrules: []\n').message,
      'Invalid test definition: line 3, column 1: Map keys must be unique');
    assert.equal(refusal('on: {types: [dataset]}\nrules: []\n---\non: {}\n').message,
      'Invalid test definition: line 3, column 1: a test definition must be a single YAML document');
  });

  test('empty and non-object definitions', () => {
    assert.equal(refusal('').message, 'Invalid test definition: the definition is empty');
    assert.equal(refusal(' \n ').message, 'Invalid test definition: the definition is empty');
    assert.equal(refusal('[]').message, "Invalid test definition: expected an object with 'on' and 'rules', got a list");
    assert.equal(refusal('"{}"').message, "Invalid test definition: expected an object with 'on' and 'rules', got a string");
    assert.equal(refusal('just words').message, "Invalid test definition: expected an object with 'on' and 'rules', got a string");
  });

  test('on and types', () => {
    const rules: unknown[] = [];
    assert.equal(refusalOf({ on: ['dataset'], rules }), "Invalid test definition: on: must be an object with 'types', got a list");
    assert.equal(refusalOf({ on: {}, rules }), 'Invalid test definition: on.types: is required');
    assert.equal(refusalOf({ on: { types: 'dataset' }, rules }),
      'Invalid test definition: on.types: must be a list of entity types, got a string');
    assert.equal(refusalOf({ on: { types: [] }, rules }), 'Invalid test definition: on.types: must name at least one entity type');
    assert.equal(refusalOf({ on: { types: ['dataset', 3] }, rules }), 'Invalid test definition: on.types[1]: must be a string, got a number');
    assert.equal(refusalOf({ on: { types: ['dataset', ' '] }, rules }), 'Invalid test definition: on.types[1]: must not be empty');
    assert.equal(refusalOf({ on: { dataset: [] }, rules }), 'Invalid test definition: on.dataset: unknown key');
    assert.equal(refusalOf({ on: { types: ['dataset'], conditions: [], match: [] }, rules }),
      "Invalid test definition: on: cannot combine 'conditions' with 'match'");
    assert.equal(refusalOf({ on: { types: ['dataset'], conditions: 'yes' }, rules }),
      'Invalid test definition: on.conditions: must be a predicate (an object or a list), got a string');
    assert.equal(refusalOf({ on: { types: ['dataset'] }, rules, name: 'x' }), 'Invalid test definition: name: unknown key');
  });

  test('predicate structure', () => {
    const on = { types: ['dataset'] };
    const ok = leaf('urn', 'exists');
    assert.deepEqual(refusal(JSON.stringify({ on, rules: { and: [ok, { property: 'urn', operator: 'equal', values: ['x'] }] } })), {
      message: "Invalid test definition: rules.and[1].operator: unknown operator 'equal' (expected one of equals, contains_any, contains_str, starts_with, regex_match, greater_than, less_than, exists, is_true, is_false)",
      details: { path: 'rules.and[1].operator' },
    });
    assert.equal(refusalOf({ on, rules: 'urn exists' }),
      'Invalid test definition: rules: must be a predicate (an object or a list), got a string');
    assert.equal(refusalOf({ on, rules: [ok, null] }),
      'Invalid test definition: rules[1]: must be a predicate (an object or a list), got null');
    assert.equal(refusalOf({ on, rules: { or: ok } }), 'Invalid test definition: rules.or: must be a list of predicates, got an object');
    assert.equal(refusalOf({ on, rules: { and: [], or: [] } }), "Invalid test definition: rules: cannot combine 'and' with 'or'");
    assert.equal(refusalOf({ on, rules: { and: [], property: 'urn' } }), "Invalid test definition: rules: cannot combine 'and' with 'property'");
    assert.equal(refusalOf({ on, rules: { not: ok, negate: true } }), "Invalid test definition: rules: cannot combine 'not' with 'negate'");
    assert.equal(refusalOf({ on, rules: { or: [], extra: 1 } }), 'Invalid test definition: rules.extra: unknown key');
    assert.equal(refusalOf({ on, rules: { or: [{ not: {} }] } }),
      "Invalid test definition: rules.or[0].not: not a predicate: expected 'and', 'or', 'not', or a 'property' with an 'operator'");
    assert.equal(refusalOf({ on, rules: { or: [{ not: { foo: 1 } }] } }), 'Invalid test definition: rules.or[0].not.foo: unknown key');
    assert.equal(refusalOf({ on, rules: [{ operator: 'exists' }] }), 'Invalid test definition: rules[0].property: is required');
    assert.equal(refusalOf({ on, rules: [{ property: 'urn' }] }), 'Invalid test definition: rules[0].operator: is required');
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', query: 'urn', operator: 'exists' }] }),
      "Invalid test definition: rules[0]: cannot combine 'property' with 'query'");
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'exists', operation: 'exists' }] }),
      "Invalid test definition: rules[0]: cannot combine 'operator' with 'operation'");
    assert.equal(refusalOf({ on, rules: [{ property: ['urn'], operator: 'exists' }] }),
      'Invalid test definition: rules[0].property: must be a string, got a list');
    assert.equal(refusalOf({ on, rules: [{ query: '', operation: 'exists' }] }), 'Invalid test definition: rules[0].query: must not be empty');
    assert.equal(refusalOf({ on, rules: [leaf('ownership..owner', 'exists')] }),
      "Invalid test definition: rules[0].property: 'ownership..owner' is not a valid property path (empty segment)");
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 5 }] }),
      'Invalid test definition: rules[0].operator: must be a string, got a number');
    assert.equal(refusalOf({ on, rules: [{ ...ok, negate: 'yes' }] }), 'Invalid test definition: rules[0].negate: must be true or false, got a string');
    assert.equal(refusalOf({ on, rules: [{ ...ok, valeus: ['x'] }] }), 'Invalid test definition: rules[0].valeus: unknown key');
  });

  test('operands', () => {
    const on = { types: ['dataset'] };
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'equals')] }), 'Invalid test definition: rules[0].values: is required by equals');
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'contains_any', [])] }),
      'Invalid test definition: rules[0].values: contains_any needs at least one value');
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'equals', ['a', { b: 1 }])] }),
      'Invalid test definition: rules[0].values[1]: must be a string, got an object');
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'equals', [null])] }), 'Invalid test definition: rules[0].values[0]: must be a string, got null');
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'equals', [['a']])] }), 'Invalid test definition: rules[0].values[0]: must be a string, got a list');
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'equals', value: {} }] }),
      'Invalid test definition: rules[0].value: must be a string, got an object');
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'exists', ['x'])] }), 'Invalid test definition: rules[0].values: exists takes no values');
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'equals', values: ['a'], value: 'a' }] }),
      "Invalid test definition: rules[0]: cannot combine 'values' with 'value'");
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'equals', values: ['a'], params: { values: ['a'] } }] }),
      "Invalid test definition: rules[0]: cannot combine 'values' with 'params.values'");
    assert.equal(refusalOf({ on, rules: [{ query: 'urn', operation: 'equals', params: ['a'] }] }),
      'Invalid test definition: rules[0].params: must be an object, got a list');
    assert.equal(refusalOf({ on, rules: [{ query: 'urn', operation: 'equals', params: { vals: ['a'] } }] }),
      'Invalid test definition: rules[0].params.vals: unknown key');
    assert.equal(refusalOf({ on, rules: [{ query: 'urn', operation: 'equals', params: { values: [] } }] }),
      'Invalid test definition: rules[0].params.values: equals needs at least one value');
    assert.equal(refusalOf({ on, rules: { not: leaf('urn', 'greater_than', ['10', 'ten']) } }),
      "Invalid test definition: rules.not.values[1]: greater_than needs a number, got 'ten'");
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'less_than', value: '' }] }),
      "Invalid test definition: rules[0].value: less_than needs a number, got ''");
  });

  test('invalid regular expressions are refused at parse time', () => {
    const on = { types: ['dataset'] };
    assert.deepEqual(refusal(JSON.stringify({ on, rules: { or: [leaf('urn', 'regex_match', ['ok', '[a-'])] } })), {
      message: "Invalid test definition: rules.or[0].values[1]: invalid regular expression '[a-': Unterminated character class",
      details: { path: 'rules.or[0].values[1]' },
    });
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'regex_match', ['a)(b'])] }),
      "Invalid test definition: rules[0].values[0]: invalid regular expression 'a)(b': Unmatched ')'");
    assert.equal(refusalOf({ on, rules: [leaf('urn', 'regex_match', ['*x'])] }),
      "Invalid test definition: rules[0].values[0]: invalid regular expression '*x': Nothing to repeat");
    assert.equal(refusalOf({ on, rules: [{ property: 'urn', operator: 'regex_match', value: 'x\\' }] }),
      "Invalid test definition: rules[0].value: invalid regular expression 'x\\': \\ at end of pattern");
  });

  test('actions are checked for shape and otherwise kept', () => {
    const on = { types: ['dataset'] };
    assert.equal(refusalOf({ on, rules: [], actions: [] }), 'Invalid test definition: actions: must be an object, got a list');
    assert.equal(refusalOf({ on, rules: [], actions: { passing: {} } }), 'Invalid test definition: actions.passing: must be a list, got an object');
    assert.equal(refusalOf({ on, rules: [], actions: { failing: ['add_tags'] } }),
      'Invalid test definition: actions.failing[0]: must be an object, got a string');
    const t = def({ on, rules: [], actions: { failing: [{ type: 'add_tags', params: { values: ['urn:li:tag:x'] } }], custom: 1 } });
    assert.deepEqual(t.actions, { failing: [{ type: 'add_tags', params: { values: ['urn:li:tag:x'] } }], custom: 1 });
  });

  test('nesting is bounded', () => {
    let deep: unknown = leaf('urn', 'exists');
    for (let i = 0; i < 40; i++) deep = { not: deep };
    const msg = refusalOf({ on: { types: ['dataset'] }, rules: deep });
    assert.equal(msg, `Invalid test definition: rules${'.not'.repeat(32)}: predicates are nested too deeply (at most 32 levels)`);
    let ok: unknown = leaf('urn', 'exists');
    for (let i = 0; i < 31; i++) ok = { not: ok };
    assert.equal(passes(ok), false);
  });

  test('an unknown format is refused', () => {
    assert.equal(refusal('{}', 'XML' as 'JSON').message, "Invalid test definition: unknown format 'XML' (expected JSON or YAML)");
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('compiled definitions', () => {
  test('are immutable', () => {
    const t = def({ on: { types: ['dataset'], conditions: [leaf('urn', 'exists')] },
      rules: { and: [leaf('urn', 'equals', ['a'])] }, actions: { passing: [{ type: 'x' }] } });
    for (const part of [t, t.types, t.typeKeys, t.rules, t.conditions, t.actions, (t.actions as any).passing[0]]) {
      assert.equal(Object.isFrozen(part), true);
    }
    assert.ok(t.rules.kind === 'and', `rules of kind ${t.rules.kind}`);
    const l = t.rules.children[0]!;
    assert.ok(l.kind === 'leaf', `a child of kind ${l.kind}`);
    assert.equal(Object.isFrozen(l), true);
    assert.equal(Object.isFrozen(l.values), true);
    assert.equal(Object.isFrozen(l.property.steps), true);
    assert.throws(() => (t.types as string[]).push('chart'), TypeError);
  });

  test('hold split property paths and canonical operator names', () => {
    const t = def({ on: { types: ['Dataset'] }, rules: leaf('datasetProperties.customProperties.a.b', 'STARTS_WITH', ['x']) });
    assert.deepEqual(t.typeKeys, ['dataset']);
    assert.ok(t.rules.kind === 'leaf', `rules of kind ${t.rules.kind}`);
    assert.equal(t.rules.operator, 'starts_with');
    assert.equal(t.rules.path, 'rules');
    assert.deepEqual({ ...t.rules.property, dotted: t.rules.property.dotted.map((d) => d.map((x) => ({ ...x }))) }, {
      text: 'datasetProperties.customProperties.a.b', kind: 'aspect', aspect: 'datasetProperties',
      steps: ['customProperties', 'a', 'b'],
      dotted: [[{ key: 'customProperties.a', next: 2 }, { key: 'customProperties.a.b', next: 3 }], [{ key: 'a.b', next: 3 }], []],
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('explanations', () => {
  const jdoe = leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:jdoe']);
  const nobody = leaf('ownership.owners.owner', 'contains_any', ['urn:li:corpuser:nobody']);
  const described = leaf('editableDatasetProperties.description', 'exists');
  const explain = (rules: unknown, entity: EntityView = hdfs) => evaluateTest(onDatasets(rules), entity, { explain: true });
  const OWNERS = ['urn:li:corpuser:jdoe', 'urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'];

  const describedX: Explanation = {
    property: 'editableDatasetProperties.description', operator: 'exists', negated: false, result: false, seen: [],
    text: 'editableDatasetProperties.description does not exist',
  };
  const nobodyX: Explanation = {
    property: 'ownership.owners.owner', operator: 'contains_any', values: ['urn:li:corpuser:nobody'], negated: false,
    result: false, seen: OWNERS,
    text: 'ownership.owners.owner contains_any [urn:li:corpuser:nobody]: saw [urn:li:corpuser:jdoe, urn:li:corpuser:jdoe, urn:li:corpuser:datahub]',
  };
  const jdoeX: Explanation = {
    property: 'ownership.owners.owner', operator: 'contains_any', values: ['urn:li:corpuser:jdoe'], negated: false,
    result: true, seen: OWNERS,
    text: 'ownership.owners.owner contains_any [urn:li:corpuser:jdoe]: saw [urn:li:corpuser:jdoe, urn:li:corpuser:jdoe, urn:li:corpuser:datahub]',
  };

  test('only built when asked for', () => {
    assert.deepEqual(evaluateTest(onDatasets([jdoe, described]), hdfs), { applies: true, passed: false });
    assert.deepEqual(evaluateTest(onDatasets([jdoe, described]), hdfs, { explain: false }), { applies: true, passed: false });
  });

  test('a failed and lists its failing leaves', () => {
    assert.deepEqual(explain({ and: [jdoe, described, nobody] }), { applies: true, passed: false, explanation: [describedX, nobodyX] });
  });

  test('a passed and lists every leaf', () => {
    assert.deepEqual(explain([jdoe, leaf('schemaMetadata.schemaName', 'equals', ['SampleHdfsSchema'])]), {
      applies: true, passed: true,
      explanation: [jdoeX, {
        property: 'schemaMetadata.schemaName', operator: 'equals', values: ['SampleHdfsSchema'], negated: false,
        result: true, seen: ['SampleHdfsSchema'], text: 'schemaMetadata.schemaName equals [SampleHdfsSchema]: saw [SampleHdfsSchema]',
      }],
    });
  });

  test('a passed or lists its passing leaf; a failed or lists every leaf', () => {
    assert.deepEqual(explain({ or: [described, jdoe, nobody] }), { applies: true, passed: true, explanation: [jdoeX] });
    assert.deepEqual(explain({ or: [described, nobody] }), { applies: true, passed: false, explanation: [describedX, nobodyX] });
  });

  test('negated leaves and not', () => {
    assert.deepEqual(explain({ ...jdoe, negate: true }), {
      applies: true, passed: false,
      explanation: [{ ...jdoeX, negated: true, result: false,
        text: 'ownership.owners.owner not contains_any [urn:li:corpuser:jdoe]: saw [urn:li:corpuser:jdoe, urn:li:corpuser:jdoe, urn:li:corpuser:datahub]' }],
    });
    // not: the leaf keeps its own result; the not inverts it.
    assert.deepEqual(explain({ not: described }), { applies: true, passed: true, explanation: [describedX] });
    assert.deepEqual(explain({ ...leaf('ownership', 'exists'), negate: true }).applies, true);
    assert.deepEqual(explain({ ...described, negate: true }), {
      applies: true, passed: true, explanation: [{ ...describedX, negated: true, result: true }],
    });
  });

  test('exists that holds, is_false on an absent flag, numbers as seen', () => {
    assert.deepEqual(explain([leaf('institutionalMemory.elements.url', 'exists'), leaf('status.removed', 'is_false'),
      leaf('schemaMetadata.version', 'less_than', ['1'])]), {
      applies: true, passed: true,
      explanation: [
        { property: 'institutionalMemory.elements.url', operator: 'exists', negated: false, result: true,
          seen: ['https://www.linkedin.com'], text: 'institutionalMemory.elements.url exists: saw [https://www.linkedin.com]' },
        { property: 'status.removed', operator: 'is_false', negated: false, result: true, seen: [],
          text: 'status.removed is_false: saw nothing' },
        { property: 'schemaMetadata.version', operator: 'less_than', values: ['1'], negated: false, result: true,
          seen: [0], text: 'schemaMetadata.version less_than [1]: saw [0]' },
      ],
    });
  });

  test('exists on empty values and records as seen values', () => {
    assert.deepEqual(explain([leaf('schemaMetadata.hash', 'exists'), leaf('ownership.lastModified', 'equals', ['x'])]), {
      applies: true, passed: false,
      explanation: [
        { property: 'schemaMetadata.hash', operator: 'exists', negated: false, result: false, seen: [''],
          text: 'schemaMetadata.hash does not exist: saw [""]' },
        { property: 'ownership.lastModified', operator: 'equals', values: ['x'], negated: false, result: false,
          seen: [{ time: 1581407189000, actor: 'urn:li:corpuser:jdoe' }],
          text: 'ownership.lastModified equals [x]: saw [{"time":1581407189000,"actor":"urn:li:corpuser:jdoe"}]' },
      ],
    });
  });

  test('long value lists are cut short in the text and name the matching values', () => {
    const fields = Array.from({ length: 100 }, (_, i) => ({ fieldPath: `col_${i}`, nativeDataType: 'varchar' }));
    const wide = dataset({ schemaMetadata: { ...(hdfs.aspects.schemaMetadata as object), fields } });
    const out = explain(leaf('schemaMetadata.fields.fieldPath', 'regex_match', ['col_9[7-9]']), wide);
    assert.deepEqual(out, {
      applies: true, passed: true,
      explanation: [{
        property: 'schemaMetadata.fields.fieldPath', operator: 'regex_match', values: ['col_9[7-9]'], negated: false,
        result: true, seen: fields.map((f) => f.fieldPath),
        text: 'schemaMetadata.fields.fieldPath regex_match [col_9[7-9]]: saw [col_0, col_1, col_2, col_3, col_4, col_5, col_6, col_7, col_8, col_9, … (90 more)], matching [col_97, col_98, col_99]',
      }],
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------

describe('evaluateTests', () => {
  const tests = [
    { urn: 'urn:li:test:documented', def: onDatasets(leaf('editableDatasetProperties.description', 'exists')) },
    { urn: 'urn:li:test:owned', def: onDatasets(leaf('ownership.owners.owner', 'exists')) },
    { urn: 'urn:li:test:charts', def: def({ on: { types: ['chart'] }, rules: [] }) },
    { urn: 'urn:li:test:hive-only', def: def({ on: { types: ['dataset'], conditions: leaf('urn', 'contains_str', [',SampleHiveDataset,']) },
      rules: leaf('globalTags.tags.tag', 'equals', ['urn:li:tag:Legacy']) }) },
  ];

  test('eligible tests go to passing or failing, the others nowhere', () => {
    assert.deepEqual(evaluateTests(tests, hdfs), {
      passing: [{ test: 'urn:li:test:owned', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:documented', type: 'FAILURE' }],
    });
    assert.deepEqual(evaluateTests(tests, hive), {
      passing: [{ test: 'urn:li:test:owned', type: 'SUCCESS' }, { test: 'urn:li:test:hive-only', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:documented', type: 'FAILURE' }],
    });
    assert.deepEqual(evaluateTests([], hdfs), { passing: [], failing: [] });
    assert.deepEqual(evaluateTests(tests, schemaContainer), { passing: [], failing: [] });
  });

  test('with explanations by test URN', () => {
    assert.deepEqual(evaluateTests(tests.slice(0, 3), hdfs, { explain: true }), {
      passing: [{ test: 'urn:li:test:owned', type: 'SUCCESS' }],
      failing: [{ test: 'urn:li:test:documented', type: 'FAILURE' }],
      explanations: {
        'urn:li:test:documented': [{ property: 'editableDatasetProperties.description', operator: 'exists', negated: false,
          result: false, seen: [], text: 'editableDatasetProperties.description does not exist' }],
        'urn:li:test:owned': [{ property: 'ownership.owners.owner', operator: 'exists', negated: false, result: true,
          seen: ['urn:li:corpuser:jdoe', 'urn:li:corpuser:jdoe', 'urn:li:corpuser:datahub'],
          text: 'ownership.owners.owner exists: saw [urn:li:corpuser:jdoe, urn:li:corpuser:jdoe, urn:li:corpuser:datahub]' }],
      },
    });
  });
});
