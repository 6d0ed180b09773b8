import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AlmanacError } from '../src/errors.js';
import { findPrototypeKey, lookupTable, parseJsonSafely } from '../src/model/safe-keys.js';
import { normaliseAspectValue } from '../src/model/wire-format.js';
import { validateAspect } from '../src/registry/aspect-schemas.js';
import { systemActor } from '../src/model/actor.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { applyPatch } from '../src/services/patch.js';
import { policyRule } from '../src/services/policy-rules.js';
import { parseTestDefinition } from '../src/services/metadata-tests/definition.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Keys that name a prototype (`__proto__`, `constructor`/`prototype`) through every way a user's keys enter the
 * catalog. A JSON Patch path through `/__proto__/` once wrote into Object.prototype, after which every policy
 * matched every actor: each case here checks that nothing in the process changed and that an ordinary user
 * still holds no privilege.
 */

const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';

/** What Object.prototype holds: its own keys and their descriptors, compared before and after each attack. */
function prototypeState(): string {
  const proto = Object.prototype as unknown as Record<string, unknown>;
  return JSON.stringify(Reflect.ownKeys(proto).map((k) => {
    const d = Object.getOwnPropertyDescriptor(proto, k)!;
    return [String(k), typeof d.value, d.enumerable, d.writable];
  }));
}
const CLEAN_PROTOTYPE = prototypeState();

function assertPrototypeClean(what: string) {
  assert.equal(prototypeState(), CLEAN_PROTOTYPE, `${what}: Object.prototype changed`);
  const probe = {} as Record<string, unknown>;
  for (const k of ['allUsers', 'users', 'allGroups', 'groups', 'state', 'privileges', 'polluted', 'x', 'description']) {
    assert.equal(probe[k], undefined, `${what}: a new object inherits '${k}'`);
  }
}

function is422(e: unknown, pattern: RegExp): boolean {
  return e instanceof AlmanacError && e.code === 'UNPROCESSABLE' && pattern.test(e.message);
}

describe('prototype keys: the shared helpers', () => {
  test('findPrototypeKey names the path of __proto__ anywhere and of constructor holding prototype', () => {
    assert.equal(findPrototypeKey(JSON.parse('{"a":{"b":[1,{"__proto__":{}}]}}')), 'a.b[1].__proto__');
    assert.equal(findPrototypeKey(JSON.parse('{"constructor":{"prototype":{"x":1}}}')), 'constructor.prototype');
    assert.equal(findPrototypeKey(JSON.parse('[{"a":{"constructor":{"prototype":null}}}]')), '[0].a.constructor.prototype');
    // Plain keys named constructor or prototype are data (a custom property may be called so).
    assert.equal(findPrototypeKey({ customProperties: { constructor: 'x', prototype: 'y' } }), undefined);
    assert.equal(findPrototypeKey({ a: [1, 'b', null, { c: true }] }), undefined);
  });

  test('parseJsonSafely refuses with 422 naming the key, and leaves syntax errors to the caller', () => {
    assert.throws(() => parseJsonSafely('{"ok":1,"nested":{"__proto__":{"allUsers":true}}}', 'The body'),
      (e) => is422(e, /^The body holds the key 'nested\.__proto__', which is not allowed/));
    assert.throws(() => parseJsonSafely('{"x":', 'The body'), SyntaxError);
    assert.deepEqual(parseJsonSafely('{"constructor":"c","a":[1]}', 'The body'), { constructor: 'c', a: [1] });
    assertPrototypeClean('parseJsonSafely');
  });

  test('lookup tables find nothing inherited', () => {
    const table = lookupTable({ DAY: 1 });
    for (const k of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      assert.equal(table[k], undefined, k);
      assert.equal(k in table, false, k);
    }
    assert.equal(table.DAY, 1);
    assert.equal(Object.isFrozen(table), true);
  });

  test('normalising a wire value keeps a __proto__ key visible (so validation refuses it) and never sets a prototype', () => {
    const v = normaliseAspectValue(JSON.parse('{"description":"d","__proto__":{"allUsers":true}}')) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(v), Object.prototype);
    assert.equal(v.allUsers, undefined);
    assert.deepEqual(Object.keys(v), ['description', '__proto__']);
    assert.deepEqual(validateAspect('datasetProperties', v),
      { path: '__proto__', message: "__proto__: this key is not allowed (it names an object's prototype)" });
    assertPrototypeClean('normaliseAspectValue');
  });

  test('every aspect refuses prototype keys at any depth, whatever its schema', () => {
    assert.equal(validateAspect('globalTags', JSON.parse('{"tags":[{"tag":"urn:li:tag:a","__proto__":{}}]}'))?.path, 'tags[0].__proto__');
    assert.equal(validateAspect('datasetProperties', JSON.parse('{"customProperties":{"constructor":{"prototype":{"x":"1"}}}}'))?.path,
      'customProperties.constructor.prototype');
    assert.equal(validateAspect('chartQuery', JSON.parse('{"rawQuery":"q","__proto__":{"x":1}}'))?.path, '__proto__');
    assert.equal(validateAspect('datasetProperties', { customProperties: { constructor: 'kept', prototype: 'kept' } }), null);
  });

  test('a metadata test definition with a prototype key is refused with 400, in JSON and in YAML', () => {
    const json = '{"on":{"types":["dataset"]},"rules":[{"property":"x","operator":"exists"}],"__proto__":{"polluted":1}}';
    assert.throws(() => parseTestDefinition(json), (e) => e instanceof AlmanacError && e.code === 'BAD_REQUEST' && /__proto__/.test(e.message));
    const yaml = 'on:\n  types: [dataset]\nrules:\n  - property: x\n    operator: exists\n    __proto__:\n      polluted: 1\n';
    assert.throws(() => parseTestDefinition(yaml, 'YAML'), (e) => e instanceof AlmanacError && e.code === 'BAD_REQUEST' && /rules\[0\]\.__proto__/.test(e.message));
    assertPrototypeClean('test definitions');
  });

  test('policy rules read own properties only: an inherited field grants nothing', () => {
    const inherited = Object.create({ state: 'ACTIVE', type: 'PLATFORM', privileges: ['MANAGE_POLICIES'],
      actors: { allUsers: true } }) as object;
    const rule = policyRule(inherited);
    assert.deepEqual({ ...rule, users: [...rule.users], groups: [...rule.groups], roles: [...rule.roles] }, { active: false, type: undefined,
      privileges: [], users: [], groups: [], roles: [], allUsers: false, allGroups: false, resourceOwners: false, resources: undefined });
    const actors = Object.create({ allUsers: true, users: ['urn:li:corpuser:alice'] }) as object;
    const own = policyRule({ state: 'ACTIVE', type: 'PLATFORM', privileges: ['MANAGE_POLICIES'], actors });
    assert.equal(own.allUsers, false);
    assert.deepEqual([...own.users], []);
  });
});

describe('prototype keys: JSON Patch', () => {
  const refused = [
    '/__proto__/allUsers', '/__proto__/users', '/__proto__', '/constructor/prototype/allUsers', '/constructor', '/prototype/x',
    '/tags/__proto__/tag', '/tags/urn:li:tag:a/__proto__', '/tags/urn:li:tag:a/constructor/prototype',
    // JSON Pointer escapes are decoded before the check, and a decoded `/` does not hide a prototype name.
    '/__proto__~1allUsers', '/tags/a~1b/__proto__', '/constructor~1prototype/allUsers',
  ];
  for (const p of refused) {
    test(`path ${p} is refused with 422 before anything is applied`, () => {
      const current = { tags: [{ tag: 'urn:li:tag:a' }] };
      const snapshot = structuredClone(current);
      assert.throws(() => applyPatch('globalTags', current, [
        { op: 'add', path: '/tags/urn:li:tag:b', value: { tag: 'urn:li:tag:b' } },
        { op: 'add', path: p, value: { allUsers: true } },
      ]), (e) => is422(e, /^Patch operation 1: path '.*' has the segment '.*', which is not allowed: it names an object's prototype$/));
      assert.deepEqual(current, snapshot, 'the current value is untouched');
      assertPrototypeClean(p);
    });
  }

  test('~0 and ~1 decode as RFC 6901 says (~1 first), and decoded names that are not prototype keys are ordinary', () => {
    assert.deepEqual(applyPatch('datasetProperties', { customProperties: {} }, [
      { op: 'add', path: '/customProperties/~01', value: 'tilde-one' },
      { op: 'add', path: '/customProperties/a~1b', value: 'slash' },
      { op: 'add', path: '/customProperties/~0__proto__', value: 'not a prototype' },
    ]), { customProperties: { '~1': 'tilde-one', 'a/b': 'slash', '~__proto__': 'not a prototype' } });
    assertPrototypeClean('escapes');
  });

  test('a value holding a prototype key is refused with 422 naming it', () => {
    assert.throws(() => applyPatch('datasetProperties', {}, [
      { op: 'add', path: '/customProperties', value: JSON.parse('{"a":"1","__proto__":{"allUsers":true}}') },
    ]), (e) => is422(e, /^Patch operation 0: the value holds the key '__proto__'/));
    assert.throws(() => applyPatch('datasetProperties', {}, [
      { op: 'replace', path: '', value: JSON.parse('{"constructor":{"prototype":{"allUsers":true}}}') },
    ]), (e) => is422(e, /^Patch operation 0: the value holds the key 'constructor\.prototype'/));
    assertPrototypeClean('values');
  });

  test('stored list keys that look like prototype names are ordinary keys of the working tree', () => {
    // Stored data may key a list by such a name (a column called __proto__); the patch must neither lose that
    // item nor step out of the tree through it.
    const schema = { schemaName: 's', fields: [
      { fieldPath: '__proto__', nativeDataType: 'int' }, { fieldPath: 'constructor', nativeDataType: 'int' },
    ] };
    const out = applyPatch('schemaMetadata', schema, [{ op: 'add', path: '/fields/b', value: { fieldPath: 'b', nativeDataType: 'text' } }]);
    assert.deepEqual(JSON.parse(JSON.stringify(out)), { schemaName: 's', fields: [
      { fieldPath: '__proto__', nativeDataType: 'int' }, { fieldPath: 'constructor', nativeDataType: 'int' },
      { fieldPath: 'b', nativeDataType: 'text' },
    ] });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
    const owners = applyPatch('ownership', { owners: [{ owner: 'urn:li:corpuser:a', type: '__proto__' }] }, [
      { op: 'remove', path: '/owners/urn:li:corpuser:a/TECHNICAL_OWNER' },
    ]);
    assert.deepEqual(owners, { owners: [{ owner: 'urn:li:corpuser:a', type: '__proto__' }] });
    assertPrototypeClean('stored keys');
  });
});

forEachEngine('prototype keys through every entry point', (ctx) => {
  let t: TestApp;
  let alice: { authorization: string };
  let dir: string;

  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    // alice may edit one dataset (HIVE) and nothing else: the attacker of the report.
    const created = await t.graphql(`mutation { createPolicy(input: { type: METADATA, name: "alice edits hive", state: ACTIVE,
      privileges: ["EDIT_ENTITY"], resources: { resources: ["${HIVE}"], allResources: false },
      actors: { users: ["urn:li:corpuser:alice"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    alice = { authorization: `Bearer ${await t.tokenFor('alice')}` };
    dir = await mkdtemp(path.join(tmpdir(), 'almanac-proto-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Everything stored: aspect values and versions, time-series rows of HIVE, and the policy list. */
  async function fingerprint() {
    const rows = await t.catalog.store.listEntities({});
    const latest = await t.catalog.store.getLatest(rows.map((r) => r.urn));
    const aspects = [...latest].map(([u, m]) => [u, [...m].map(([a, r]) => [a, r.version, r.value])]).sort();
    const ops = await t.catalog.store.countTimeseries('dataset', 'operation');
    return JSON.stringify([aspects, ops]);
  }

  /** After an attack: nothing polluted, and alice holds no privilege she was not given. */
  async function assertNoPrivilegeGained(what: string) {
    assertPrototypeClean(what);
    const refused = (res: { status: number; body: any }, op: string) => assert.deepEqual([res.status, res.body], [200, { data: { [op]: null }, extensions: {}, errors: [{
      message: 'Unauthorized to perform this action. Please contact your DataHub administrator.', locations: res.body.errors?.[0]?.locations,
      path: [op], extensions: { code: 403, type: 'UNAUTHORIZED', classification: 'DataFetchingException' } }] }], `${what}: ${op} as alice`);
    refused(await t.graphql('{ listPolicies(input: { start: 0, count: 10 }) { total } }', undefined, alice), 'listPolicies');
    refused(await t.graphql('mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:datahub", duration: ONE_HOUR, name: "root" }) { accessToken } }',
      undefined, alice), 'createAccessToken');
    const elsewhere = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: alice,
      payload: { proposal: { entityUrn: HDFS, aspectName: 'status', aspect: { value: '{"removed":true}', contentType: 'application/json' } } } });
    assert.equal(elsewhere.statusCode, 403, `${what}: ingest on a dataset alice may not edit`);
    const rootPolicies = await t.graphql('{ listPolicies(input: { start: 0, count: 1 }) { total } }');
    assert.equal(rootPolicies.body.errors, undefined, `${what}: the root user still lists policies`);
    assert.equal(typeof rootPolicies.body.data.listPolicies.total, 'number');
  }

  const proposal = (aspectName: string, changeType: string, value: string, contentType = 'application/json') =>
    ({ proposal: { entityType: 'dataset', entityUrn: HIVE, changeType, aspectName, aspect: { value, contentType } } });
  const patchBody = (aspectName: string, ops: unknown) => proposal(aspectName, 'PATCH', JSON.stringify(ops), 'application/json-patch+json');

  interface Attack { name: string; url: string; payload: unknown; status: number; message: RegExp }
  const REST_ATTACKS: Attack[] = [
    ...[
      ['globalTags', '/__proto__/allUsers', true],
      ['globalTags', '/__proto__/users', ['urn:li:corpuser:alice']],
      ['globalTags', '/constructor/prototype/allUsers', true],
      ['globalTags', '/tags/__proto__/tag', 'urn:li:tag:x'],
      ['datasetProperties', '/customProperties/__proto__/allUsers', 'true'],
      ['editableSchemaMetadata', '/editableSchemaFieldInfo/__proto__/description', 'd'],
      ['editableSchemaMetadata', '/editableSchemaFieldInfo/field_foo/constructor/prototype/allUsers', true],
      ['globalTags', '/__proto__~1allUsers', true],
    ].map(([aspect, p, value]) => ({ name: `PATCH ${aspect} ${p}`, url: '/aspects?action=ingestProposal',
      payload: patchBody(aspect as string, [{ op: 'add', path: p, value }]), status: 422, message: /which is not allowed: it names an object's prototype/ })),
    { name: 'PATCH whose value holds __proto__', url: '/aspects?action=ingestProposal', status: 422,
      message: /^aspect\.value holds the key '\[0\]\.value\.__proto__', which is not allowed/,
      payload: proposal('datasetProperties', 'PATCH', '[{"op":"add","path":"/customProperties","value":{"__proto__":{"allUsers":true}}}]',
        'application/json-patch+json') },
    { name: 'UPSERT whose aspect.value holds __proto__ at the top', url: '/aspects?action=ingestProposal', status: 422,
      message: /^aspect\.value holds the key '__proto__'/,
      payload: proposal('datasetProperties', 'UPSERT', '{"description":"x","__proto__":{"allUsers":true}}') },
    { name: 'UPSERT whose aspect.value holds __proto__ in a map', url: '/aspects?action=ingestProposal', status: 422,
      message: /^aspect\.value holds the key 'customProperties\.__proto__'/,
      payload: proposal('datasetProperties', 'UPSERT', '{"customProperties":{"__proto__":{"users":["urn:li:corpuser:alice"]}}}') },
    { name: 'UPSERT whose aspect.value holds constructor.prototype', url: '/aspects?action=ingestProposal', status: 422,
      message: /^aspect\.value holds the key 'constructor\.prototype'/,
      payload: proposal('globalTags', 'UPSERT', '{"tags":[],"constructor":{"prototype":{"allUsers":true}}}') },
    { name: 'UPSERT with the aspect as a JSON object (aspect.json)', url: '/aspects?action=ingestProposal', status: 422,
      message: /^The request body holds the key 'proposal\.aspect\.json\.__proto__'/,
      payload: JSON.parse(`{"proposal":{"entityUrn":"${HIVE}","aspectName":"status","aspect":{"json":{"removed":false,"__proto__":{"allUsers":true}}}}}`) },
    { name: 'a request body with __proto__ at its top', url: '/aspects?action=ingestProposal', status: 422,
      message: /^The request body holds the key '__proto__'/,
      payload: JSON.parse(`{"__proto__":{"allUsers":true},"proposal":{"entityUrn":"${HIVE}","aspectName":"status","aspect":{"value":"{\\"removed\\":false}","contentType":"application/json"}}}`) },
    { name: 'ingestProposalBatch with one bad proposal among good ones', url: '/aspects?action=ingestProposalBatch', status: 422,
      message: /^aspect\.value holds the key '__proto__'/,
      payload: { proposals: [proposal('status', 'UPSERT', '{"removed":false}').proposal,
        proposal('datasetProperties', 'UPSERT', '{"__proto__":{"allUsers":true}}').proposal] } },
    { name: 'entityKeyAspect holding __proto__', url: '/aspects?action=ingestProposal', status: 422,
      message: /^entityKeyAspect\.value holds the key '__proto__'/,
      payload: { proposal: { entityType: 'tag', entityKeyAspect: { value: '{"name":"t","__proto__":{"allUsers":true}}', contentType: 'application/json' },
        changeType: 'UPSERT', aspectName: 'tagProperties', aspect: { value: '{"name":"t"}', contentType: 'application/json' } } } },
    { name: 'an MCE snapshot whose aspect holds __proto__', url: '/entities?action=ingest', status: 422,
      message: /^The request body holds the key 'entity\.value\.com\.linkedin\.metadata\.snapshot\.DatasetSnapshot\.aspects\[0\]\.com\.linkedin\.common\.Status\.__proto__'/,
      payload: JSON.parse(`{"entity":{"value":{"com.linkedin.metadata.snapshot.DatasetSnapshot":{"urn":"${HIVE}","aspects":[{"com.linkedin.common.Status":{"removed":false,"__proto__":{"allUsers":true}}}]}}}}`) },
  ];

  for (const a of REST_ATTACKS) {
    test(`REST: ${a.name} → ${a.status}, nothing stored, nothing gained`, async () => {
      const before = await fingerprint();
      const res = await t.app.inject({ method: 'POST', url: a.url, headers: { ...alice, 'content-type': 'application/json' },
        payload: JSON.stringify(a.payload) });
      assert.equal(res.statusCode, a.status, res.body);
      const body = res.json();
      assert.equal(body.status, a.status);
      assert.equal(body.code, 'UNPROCESSABLE');
      assert.match(body.message, a.message);
      assert.equal(await fingerprint(), before);
      await assertNoPrivilegeGained(a.name);
    });
  }

  test('REST: alice\'s own edits still work (the policy that the attacks abuse is real)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: alice,
      payload: patchBody('datasetProperties', [{ op: 'add', path: '/customProperties/proto', value: 'a plain key' },
        { op: 'add', path: '/customProperties/owner~1team', value: 'data' }]) });
    assert.deepEqual([res.statusCode, res.json()], [200, { value: HIVE }]);
    const stored = (await t.catalog.entities.getAspect(HIVE, 'datasetProperties')).value as { customProperties: Record<string, string> };
    assert.equal(stored.customProperties.proto, 'a plain key');
    assert.equal(stored.customProperties['owner/team'], 'data');
    // A key named constructor is data when sent whole (UPSERT); only patch paths may not name it.
    const upsert = await t.app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: alice,
      payload: proposal('datasetProperties', 'UPSERT', '{"customProperties":{"constructor":"c","prototype":"p"}}') });
    assert.deepEqual([upsert.statusCode, upsert.json()], [200, { value: HIVE }]);
    assert.deepEqual((await t.catalog.entities.getAspect(HIVE, 'datasetProperties')).value, { customProperties: { constructor: 'c', prototype: 'p' } });
    await assertNoPrivilegeGained('a legitimate patch');
  });

  test('GraphQL: variables holding __proto__ are refused with 422 before execution', async () => {
    const before = await fingerprint();
    const res = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: { ...alice, 'content-type': 'application/json' },
      payload: `{"query":"mutation($input: DatasetUpdateInput!) { updateDataset(urn: \\"${HIVE.replace(/"/g, '\\\\"')}\\", input: $input) { urn } }",
        "variables":{"input":{"editableProperties":{"description":"x","__proto__":{"allUsers":true}}}}}` });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.json().message, /^The request body holds the key 'variables\.input\.editableProperties\.__proto__'/);
    assert.equal(await fingerprint(), before);
    await assertNoPrivilegeGained('GraphQL variables');
  });

  test('GraphQL: a custom property named __proto__ (a key made from an input list) is refused, nothing stored', async () => {
    const before = await fingerprint();
    const res = await t.graphql(`mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL,
      customProperties: [{ key: "__proto__", value: "x" }, { key: "ok", value: "y" }] }) }`, undefined, root());
    assert.equal(res.status, 200, JSON.stringify(res.body)); // GraphQL errors travel in the body, as DataHub's do
    assert.deepEqual(res.body.data, { reportOperation: null });
    assert.deepEqual(res.body.errors.map((e: { message: string; extensions: unknown }) => [e.message, e.extensions]), [[
      "Invalid aspect operation: customProperties.__proto__: this key is not allowed (it names an object's prototype)",
      { code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException' }]]);
    assert.equal(await fingerprint(), before);
    // The same key as plain data works: constructor is an ordinary map key.
    const ok = await t.graphql(`mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL,
      customProperties: [{ key: "constructor", value: "x" }] }) }`, undefined, root());
    assert.deepEqual(ok.body, { data: { reportOperation: 'true' }, extensions: {} });
    await assertNoPrivilegeGained('GraphQL input lists');
  });

  test('GraphQL: a metadata test whose definition holds __proto__ is refused with 400', async () => {
    const before = await fingerprint();
    const json = '{"on":{"types":["dataset"]},"rules":[],"__proto__":{"allUsers":true}}';
    const res = await t.graphql('mutation($json: String!) { createTest(input: { id: "p", name: "p", category: "c", definition: { json: $json } }) }',
      { json }, root());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.errors.map((e: { message: string; extensions: { code: number } }) => [e.message, e.extensions.code]),
      [["Invalid test definition: __proto__: this key is not allowed (it names an object's prototype)", 400]]);
    assert.equal(await fingerprint(), before);
    await assertNoPrivilegeGained('test definitions');
  });

  test('file ingest: a record holding a prototype key fails alone; the rest of the file is ingested', async () => {
    const file = path.join(dir, 'mixed.json');
    const good = { entityType: 'dataset', entityUrn: HIVE, changeType: 'UPSERT', aspectName: 'subTypes',
      aspect: { value: '{"typeNames":["Table"]}', contentType: 'application/json' } };
    await writeFile(file, `[${JSON.stringify(good)},
      {"entityType":"dataset","entityUrn":"${HIVE}","changeType":"UPSERT","aspectName":"status","aspect":{"json":{"removed":false,"__proto__":{"allUsers":true}}}},
      {"proposedSnapshot":{"com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot":{"urn":"${HDFS}","aspects":[{"com.linkedin.pegasus2avro.common.Status":{"removed":true,"constructor":{"prototype":{"allUsers":true}}}}]}}},
      {"entityType":"dataset","entityUrn":"${HIVE}","changeType":"PATCH","aspectName":"globalTags","aspect":{"value":"[{\\"op\\":\\"add\\",\\"path\\":\\"/__proto__/allUsers\\",\\"value\\":true}]","contentType":"application/json-patch+json"}}]`);
    const hdfsStatus = (await t.catalog.entities.getLatest(HDFS, ['status'])).get('status')?.value;
    const summary = await ingestFiles(t.catalog.entities, [file], systemActor());
    assert.deepEqual(summary.failures, [
      { file, index: 1, urn: HIVE, kind: 'unrecognised', reason: "The record holds the key 'aspect.json.__proto__', which is not allowed: it names an object's prototype" },
      { file, index: 2, urn: HDFS, kind: 'unrecognised', reason: "The record holds the key 'proposedSnapshot.com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot.aspects[0].com.linkedin.pegasus2avro.common.Status.constructor.prototype', which is not allowed: it names an object's prototype" },
      { file, index: 3, urn: HIVE, kind: 'invalid', reason: "Patch operation 0: path '/__proto__/allUsers' has the segment '__proto__', which is not allowed: it names an object's prototype" },
    ]);
    assert.deepEqual((await t.catalog.entities.getAspect(HIVE, 'subTypes')).value, { typeNames: ['Table'] });
    assert.deepEqual((await t.catalog.entities.getLatest(HDFS, ['status'])).get('status')?.value, hdfsStatus);
    await assertNoPrivilegeGained('file ingest');
  });

  test('lookups by a user-given name find nothing inherited: a usage range named constructor is a 400', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/usageStats?action=queryRange', headers: t.auth,
      payload: { resource: HIVE, duration: 'DAY', rangeFromEnd: 'constructor' } });
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.json().message, /^rangeFromEnd must be one of DAY, WEEK, MONTH, QUARTER, YEAR, ALL/);
    for (const action of ['constructor', 'toString', '__proto__', 'hasOwnProperty', '__defineSetter__']) {
      const r = await t.app.inject({ method: 'POST', url: `/aspects?action=${action}`, headers: t.auth, payload: { x: 1 } });
      assert.equal(r.statusCode, 400, `${action}: ${r.body}`);
      assert.equal(r.json().message, `Unknown action '${action}' on /aspects; known: ingestProposal, getTimeseriesAspectValues, ingestProposalBatch`);
    }
    const aspect = await t.app.inject({ method: 'GET', url: `/aspects/${encodeURIComponent(HIVE)}?aspect=constructor&version=0`, headers: t.auth });
    assert.equal(aspect.statusCode, 422, aspect.body);
    assert.equal(aspect.json().message, "Unknown aspect 'constructor'");
  });

  test('even with Object.prototype polluted, policies grant nothing they do not own', async () => {
    // Simulates pollution that slipped in some other way: matching must ignore inherited fields.
    const proto = Object.prototype as unknown as Record<string, unknown>;
    const planted = { allUsers: true, users: ['urn:li:corpuser:alice'], allGroups: true, resourceOwners: true, state: 'ACTIVE',
      privileges: ['MANAGE_POLICIES', 'MANAGE_ACCESS_TOKENS', 'EDIT_ENTITY'], allResources: true };
    try {
      Object.assign(proto, planted);
      for (const privilege of ['MANAGE_POLICIES', 'MANAGE_ACCESS_TOKENS']) {
        assert.equal(await t.catalog.authz.allowed({ kind: 'user', urn: 'urn:li:corpuser:alice' }, [[privilege]]), false, privilege);
      }
      assert.equal(await t.catalog.authz.allowed({ kind: 'user', urn: 'urn:li:corpuser:alice' }, [['EDIT_ENTITY']], HDFS), false);
      assert.equal(await t.catalog.authz.allowed({ kind: 'user', urn: 'urn:li:corpuser:alice' }, [['EDIT_ENTITY']], HIVE), true);
      assert.equal(await t.catalog.authz.allowed({ kind: 'user', urn: 'urn:li:corpuser:datahub' }, [['MANAGE_POLICIES']]), true);
    } finally {
      for (const k of Object.keys(planted)) delete proto[k];
    }
    await assertNoPrivilegeGained('after simulated pollution');
  });

  function root() {
    return t.auth;
  }
});
