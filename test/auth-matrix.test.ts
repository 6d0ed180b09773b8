import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openDump, type DatabaseDump } from './support/db-dump.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Every GraphQL operation and REST endpoint × every kind of caller: no token, a malformed one, a forged one, an
 * expired one, a revoked one, a valid one without the privilege, and one with it. Refusals must change nothing
 * stored (see fingerprint); allowed calls must give the right answer, and writes must store their effect.
 */
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const enc = encodeURIComponent;

const NEEDS_DOCS = 'urn:li:tag:NeedsDocumentation';
const LEGACY = 'urn:li:tag:Legacy';
const ROOT = 'urn:li:corpuser:datahub';

/** What an allowed call is checked against: the answer, then (for writes) what it stored. */
interface Check {
  t: TestApp;
  /** The caller's urn. */
  caller: string;
  /** Names made in `before` for this suite (see VARS). */
  vars: Record<string, string>;
}

interface Op {
  name: string;
  /** GraphQL document, or a REST request; `{name}` stands for vars[name]. */
  graphql?: string;
  rest?: { method: 'GET' | 'POST'; url: string; payload?: unknown };
  /** Whether a valid user without special privileges is refused (false for what every user may do). */
  needsPrivilege: boolean;
  /** Asserts the answer (HTTP status 200 already checked) and, for writes, their effect. */
  check: (res: { status: number; body: any }, c: Check) => void | Promise<void>;
}

const proposal = (urn: string, name: string) => ({ proposal: { entityType: 'tag', entityUrn: urn, changeType: 'UPSERT',
  aspectName: 'tagProperties', aspect: { value: JSON.stringify({ name }), contentType: 'application/json' } } });

/** The answer is exactly `{data, extensions: {}}`. */
const data = (expected: unknown) => (res: { body: any }) => assert.deepEqual(res.body, { data: expected, extensions: {} });
/** As `data`, then an assertion on what is stored. */
const dataThen = (expected: unknown, effect: (c: Check) => Promise<void>) => async (res: { body: any }, c: Check) => {
  data(expected)(res);
  await effect(c);
};
const latest = async (c: Check, urn: string, aspect: string): Promise<any> =>
  (await c.t.catalog.store.getLatest([urn], [aspect])).get(urn)?.get(aspect)?.value;
const tagsOf = async (c: Check, urn: string) => ((await latest(c, urn, 'globalTags'))?.tags ?? []).map((x: any) => x.tag);
const termsOf = async (c: Check, urn: string) => ((await latest(c, urn, 'glossaryTerms'))?.terms ?? []).map((x: any) => x.urn);
const ownersOf = async (c: Check, urn: string) => ((await latest(c, urn, 'ownership'))?.owners ?? []).map((x: any) => x.owner);
const linksOf = async (c: Check, urn: string) => ((await latest(c, urn, 'institutionalMemory'))?.elements ?? []).map((x: any) => x.url);
const exists = async (c: Check, urn: string) => (await c.t.catalog.store.existing([urn])).has(urn);

const OPS: Op[] = [
  { name: 'dataset', graphql: `{ dataset(urn: "${HIVE}") { urn } }`, needsPrivilege: false, check: data({ dataset: { urn: HIVE } }) },
  { name: 'tag', graphql: `{ tag(urn: "${LEGACY}") { urn } }`, needsPrivilege: false, check: data({ tag: { urn: LEGACY } }) },
  { name: 'me', graphql: '{ me { corpUser { urn } } }', needsPrivilege: false,
    check: (res, c) => data({ me: { corpUser: { urn: c.caller } } })(res) },
  { name: 'updateDataset', graphql: `mutation { updateDataset(urn: "${HIVE}", input: { editableProperties: { description: "m" } }) { urn } }`, needsPrivilege: true,
    check: dataThen({ updateDataset: { urn: HIVE } }, async (c) => assert.equal((await latest(c, HIVE, 'editableDatasetProperties')).description, 'm')) },
  { name: 'updateDescription', graphql: `mutation { updateDescription(input: { description: "m", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }`, needsPrivilege: true,
    check: dataThen({ updateDescription: true }, async (c) => assert.deepEqual((await latest(c, HIVE, 'editableSchemaMetadata')).editableSchemaFieldInfo
      .filter((f: any) => f.fieldPath === 'field_foo').map((f: any) => f.description), ['m'])) },
  { name: 'createTag', graphql: 'mutation { createTag(input: { id: "matrix", name: "Matrix" }) }', needsPrivilege: true,
    check: dataThen({ createTag: 'urn:li:tag:matrix' }, async (c) => assert.equal((await latest(c, 'urn:li:tag:matrix', 'tagProperties')).name, 'Matrix')) },
  { name: 'updateTag', graphql: `mutation { updateTag(urn: "${LEGACY}", input: { urn: "${LEGACY}", name: "L2" }) { urn } }`, needsPrivilege: true,
    check: dataThen({ updateTag: { urn: LEGACY } }, async (c) => assert.equal((await latest(c, LEGACY, 'tagProperties')).name, 'L2')) },
  { name: 'setTagColor', graphql: `mutation { setTagColor(urn: "${LEGACY}", colorHex: "#ff0000") }`, needsPrivilege: true,
    check: dataThen({ setTagColor: true }, async (c) => assert.equal((await latest(c, LEGACY, 'tagProperties')).colorHex, '#ff0000')) },
  { name: 'addTag', graphql: `mutation { addTag(input: { tagUrn: "${NEEDS_DOCS}", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ addTag: true }, async (c) => assert.ok((await tagsOf(c, HIVE)).includes(NEEDS_DOCS), 'the tag added')) },
  { name: 'addTags', graphql: `mutation { addTags(input: { tagUrns: ["${NEEDS_DOCS}"], resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true,
    check: dataThen({ addTags: true }, async (c) => assert.ok((await tagsOf(c, KAFKA)).includes(NEEDS_DOCS), 'the tag added')) },
  { name: 'removeTag', graphql: `mutation { removeTag(input: { tagUrn: "${LEGACY}", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ removeTag: true }, async (c) => assert.ok(!(await tagsOf(c, HIVE)).includes(LEGACY), 'the tag removed')) },
  { name: 'batchAddTags', graphql: `mutation { batchAddTags(input: { tagUrns: ["${LEGACY}"], resources: [{ resourceUrn: "${KAFKA}" }] }) }`, needsPrivilege: true,
    check: dataThen({ batchAddTags: true }, async (c) => assert.ok((await tagsOf(c, KAFKA)).includes(LEGACY), 'the tag added')) },
  { name: 'batchRemoveTags', graphql: `mutation { batchRemoveTags(input: { tagUrns: ["${LEGACY}"], resources: [{ resourceUrn: "${KAFKA}" }] }) }`, needsPrivilege: true,
    check: dataThen({ batchRemoveTags: true }, async (c) => assert.ok(!(await tagsOf(c, KAFKA)).includes(LEGACY), 'the tag removed')) },
  { name: 'addTerm', graphql: `mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ addTerm: true }, async (c) => assert.ok((await termsOf(c, HIVE)).includes('urn:li:glossaryTerm:SavingAccount'), 'the term added')) },
  { name: 'addTerms', graphql: `mutation { addTerms(input: { termUrns: ["urn:li:glossaryTerm:AccountBalance"], resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ addTerms: true }, async (c) => assert.ok((await termsOf(c, HIVE)).includes('urn:li:glossaryTerm:AccountBalance'), 'the term added')) },
  { name: 'removeTerm', graphql: `mutation { removeTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ removeTerm: true }, async (c) => assert.ok(!(await termsOf(c, HIVE)).includes('urn:li:glossaryTerm:SavingAccount'), 'the term removed')) },
  { name: 'addLink', graphql: `mutation { addLink(input: { linkUrl: "https://x.example.com", label: "x", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ addLink: true }, async (c) => assert.ok((await linksOf(c, HIVE)).includes('https://x.example.com'), 'the link added')) },
  { name: 'removeLink', graphql: `mutation { removeLink(input: { linkUrl: "https://www.linkedin.com", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ removeLink: true }, async (c) => assert.ok(!(await linksOf(c, HIVE)).includes('https://www.linkedin.com'), 'the link removed')) },
  { name: 'addOwner', graphql: `mutation { addOwner(input: { ownerUrn: "urn:li:corpGroup:bfoo", ownerEntityType: CORP_GROUP, resourceUrn: "${HIVE}" }) }`, needsPrivilege: true,
    check: dataThen({ addOwner: true }, async (c) => assert.ok((await ownersOf(c, HIVE)).includes('urn:li:corpGroup:bfoo'), 'the owner added')) },
  { name: 'addOwners', graphql: `mutation { addOwners(input: { owners: [{ ownerUrn: "urn:li:corpuser:jdoe", type: BUSINESS_OWNER }], resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true,
    check: dataThen({ addOwners: true }, async (c) => assert.ok((await latest(c, KAFKA, 'ownership')).owners
      .some((o: any) => o.owner === 'urn:li:corpuser:jdoe' && o.type === 'BUSINESS_OWNER'), 'jdoe a business owner')) },
  { name: 'removeOwner', graphql: `mutation { removeOwner(input: { ownerUrn: "${ROOT}", resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true,
    check: dataThen({ removeOwner: true }, async (c) => assert.ok(!(await ownersOf(c, KAFKA)).includes(ROOT), 'the owner removed')) },
  { name: 'deleteTag', graphql: `mutation { deleteTag(urn: "${NEEDS_DOCS}") }`, needsPrivilege: true,
    check: dataThen({ deleteTag: true }, async (c) => assert.equal(await exists(c, NEEDS_DOCS), false)) },
  { name: 'createAccessToken (for someone else)', graphql: 'mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:jdoe", duration: ONE_DAY, name: "x" }) { accessToken } }', needsPrivilege: true,
    check: async (res, c) => {
      const token = res.body.data?.createAccessToken?.accessToken;
      data({ createAccessToken: { accessToken: token } })(res);
      assert.equal((await c.t.catalog.tokens.authenticate(token)).urn, 'urn:li:corpuser:jdoe');
    } },
  // The lists ask for what `before` made and no operation changes, so that the answer is the same whichever ran first.
  { name: 'listAccessTokens (everyone\'s)', graphql: '{ listAccessTokens(input: { start: 0, count: 10, filters: [{ field: "ownerUrn", values: ["urn:li:corpuser:matrixowner"] }] }) { total tokens { name actorUrn ownerUrn } } }', needsPrivilege: true,
    check: data({ listAccessTokens: { total: 1, tokens: [{ name: 'matrix: list me', actorUrn: 'urn:li:corpuser:matrixowner', ownerUrn: 'urn:li:corpuser:matrixowner' }] } }) },
  { name: 'listPolicies', graphql: '{ listPolicies(input: { start: 0, count: 10, query: "matrix: read me" }) { total policies { urn name } } }', needsPrivilege: true,
    check: (res, c) => data({ listPolicies: { total: 1, policies: [{ urn: c.vars.policyToRead, name: 'matrix: read me' }] } })(res) },
  { name: 'getPolicy', graphql: '{ getPolicy(urn: "{policyToRead}") { name } }', needsPrivilege: true,
    check: data({ getPolicy: { name: 'matrix: read me' } }) },
  { name: 'createPolicy', graphql: 'mutation { createPolicy(input: { type: PLATFORM, name: "p", state: ACTIVE, privileges: ["CREATE_TAGS"], actors: { allUsers: false, allGroups: false, resourceOwners: false, users: ["urn:li:corpuser:jdoe"] } }) }', needsPrivilege: true,
    check: async (res, c) => {
      const urn = res.body.data?.createPolicy;
      data({ createPolicy: urn })(res);
      const made = (await c.t.catalog.policies.get(urn)).info;
      assert.deepEqual([made.displayName, made.privileges, made.actors.users], ['p', ['CREATE_TAGS'], ['urn:li:corpuser:jdoe']]);
    } },
  { name: 'updatePolicy', graphql: 'mutation { updatePolicy(urn: "{policyToUpdate}", input: { type: METADATA, name: "v", state: INACTIVE, privileges: ["VIEW_DATASET_USAGE"], actors: { allUsers: true, allGroups: false, resourceOwners: false } }) }', needsPrivilege: true,
    check: async (res, c) => {
      data({ updatePolicy: c.vars.policyToUpdate })(res);
      const info = (await c.t.catalog.policies.get(c.vars.policyToUpdate!)).info;
      assert.deepEqual([info.displayName, info.state, info.privileges], ['v', 'INACTIVE', ['VIEW_DATASET_USAGE']]);
    } },
  { name: 'deletePolicy', graphql: 'mutation { deletePolicy(urn: "{policyToDelete}") }', needsPrivilege: true,
    check: async (res, c) => {
      data({ deletePolicy: c.vars.policyToDelete })(res);
      assert.equal(await exists(c, c.vars.policyToDelete!), false);
    } },
  { name: 'REST ingestProposal', rest: { method: 'POST', url: '/aspects?action=ingestProposal', payload: proposal('urn:li:tag:matrix_rest', 'r') }, needsPrivilege: true,
    check: async (res, c) => {
      assert.deepEqual(res.body, { value: 'urn:li:tag:matrix_rest' });
      assert.deepEqual(await latest(c, 'urn:li:tag:matrix_rest', 'tagProperties'), { name: 'r' });
    } },
  { name: 'REST entities ingest', rest: { method: 'POST', url: '/gms/entities?action=ingest', payload: { entity: { value: {
    'com.linkedin.metadata.snapshot.TagSnapshot': { urn: 'urn:li:tag:matrix_mce', aspects: [{ 'com.linkedin.tag.TagProperties': { name: 'm' } }] } } } } }, needsPrivilege: true,
    check: async (res, c) => {
      assert.equal(res.body, undefined); // Rest.li's ingest answers with an empty body
      assert.deepEqual(await latest(c, 'urn:li:tag:matrix_mce', 'tagProperties'), { name: 'm' });
    } },
  { name: 'REST entities delete', rest: { method: 'POST', url: '/api/gms/entities?action=delete', payload: { urn: '{groupToDelete}' } }, needsPrivilege: true,
    check: async (res, c) => {
      assert.deepEqual(res.body, { value: { urn: c.vars.groupToDelete, rows: 2, timeseriesRows: 0 } });
      assert.equal(await exists(c, c.vars.groupToDelete!), false);
    } },
  { name: 'REST get aspect', rest: { method: 'GET', url: `/aspects/${enc(HIVE)}?aspect=schemaMetadata` }, needsPrivilege: false,
    check: (res) => {
      assert.deepEqual(Object.keys(res.body).sort(), ['aspect', 'version']);
      assert.equal(res.body.version, 0);
      assert.deepEqual(res.body.aspect['com.linkedin.schema.SchemaMetadata'].fields.map((f: any) => f.fieldPath), ['field_foo', 'field_bar']);
    } },
  { name: 'REST entitiesV2', rest: { method: 'GET', url: `/entitiesV2/${enc(HIVE)}` }, needsPrivilege: false,
    check: (res) => {
      assert.deepEqual([res.body.entityName, res.body.urn], ['dataset', HIVE]);
      assert.deepEqual(res.body.aspects.datasetKey.value, { platform: 'urn:li:dataPlatform:hive', name: 'SampleHiveDataset', origin: 'PROD' });
      assert.equal(res.body.aspects.schemaMetadata.value.schemaName, 'SampleHiveSchema');
    } },
  { name: 'REST config', rest: { method: 'GET', url: '/config' }, needsPrivilege: false,
    check: (res) => assert.deepEqual([res.body.versions['linkedin/datahub'].version, res.body.datahub.serverType], ['v0.12.1', 'almanac']) },
  { name: 'REST getIndexSizes', rest: { method: 'POST', url: '/gms/operations?action=getIndexSizes', payload: {} }, needsPrivilege: true,
    check: (res) => {
      const sizes = res.body.value.indexSizes;
      assert.ok(sizes.some((s: any) => s.indexName === 'dataset_datasetprofileaspect_v1' && s.entityName === 'dataset' && s.aspectName === 'datasetprofile'), JSON.stringify(sizes));
      for (const s of sizes) assert.ok(typeof s.sizeMb === 'number' && s.sizeMb >= 0, JSON.stringify(s));
    } },
  { name: 'REST truncateTimeseriesAspect', rest: { method: 'POST', url: '/operations?action=truncateTimeseriesAspect',
    payload: { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 1629010800001, dryRun: false } }, needsPrivilege: true,
    check: async (res, c) => {
      assert.match(res.body.value, /^Deleted \d+ out of \d+ rows .*Task almanac:\d+\.$/);
      assert.equal(await c.t.catalog.store.countTimeseries('dataset', 'datasetProfile', 1629010800001), 0);
    } },
  { name: 'REST getEsTaskStatus', rest: { method: 'POST', url: '/operations?action=getEsTaskStatus', payload: { task: '{task}' } }, needsPrivilege: true,
    check: (res, c) => {
      const status = JSON.parse(res.body.value);
      assert.deepEqual([status.completed, status.taskId], [true, c.vars.task]);
    } },
  { name: 'REST getTimeseriesAspectValues', rest: { method: 'POST', url: '/aspects?action=getTimeseriesAspectValues',
    payload: { urn: HIVE, entity: 'dataset', aspect: 'datasetProfile' } }, needsPrivilege: false,
    check: async (res, c) => {
      const stored = await c.t.catalog.store.queryTimeseries({ entityType: 'dataset', aspect: 'datasetProfile', urn: HIVE });
      assert.ok(stored.length > 0, 'profiles stored');
      assert.deepEqual(res.body.value.values.map((v: any) => JSON.parse(v.aspect.value).timestampMillis), stored.map((r) => r.timestampMillis));
    } },
  { name: 'REST search', rest: { method: 'POST', url: '/entities?action=search', payload: { entity: 'dataset', input: 'sample' } }, needsPrivilege: false,
    check: (res) => assert.deepEqual(res.body.value.entities.map((e: any) => e.entity).sort(), [
      'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)', HIVE, KAFKA]) },
  { name: 'search', graphql: '{ searchAcrossEntities(input: { query: "sample", types: [DATASET] }) { total searchResults { entity { urn } } } }', needsPrivilege: false,
    check: (res) => {
      const r = res.body.data.searchAcrossEntities;
      assert.deepEqual(r.searchResults.map((x: any) => x.entity.urn).sort(), ['urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)', HIVE, KAFKA]);
      assert.equal(r.total, 3);
    } },
  { name: 'REST test evaluate', rest: { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE, testUrns: ['{testToRun}'] } }, needsPrivilege: false,
    check: (res, c) => assert.deepEqual(res.body, { value: { passing: [{ test: c.vars.testToRun, type: 'SUCCESS' }], failing: [] } }) },
  { name: 'REST test evaluate with push', rest: { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE, push: true, testUrns: ['{testToRun}'] } }, needsPrivilege: true,
    check: async (res, c) => {
      assert.deepEqual(res.body, { value: { passing: [{ test: c.vars.testToRun, type: 'SUCCESS' }], failing: [] } });
      const stored = await latest(c, HIVE, 'testResults'); // the sample's results for other tests stay beside it
      assert.deepEqual(stored.passing.filter((r: any) => r.test === c.vars.testToRun), [{ test: c.vars.testToRun, type: 'SUCCESS' }]);
    } },
  { name: 'createTest', graphql: 'mutation { createTest(input: { id: "m", name: "m", category: "c", definition: { json: "{\\"on\\": {\\"types\\": [\\"dataset\\"]}, \\"rules\\": []}" } }) }', needsPrivilege: true,
    check: dataThen({ createTest: 'urn:li:test:m' }, async (c) => assert.equal((await latest(c, 'urn:li:test:m', 'testInfo')).name, 'm')) },
  { name: 'runTests', graphql: `mutation { runTests(urn: "${HIVE}") { passing { test { urn } type } failing { test { urn } } } }`, needsPrivilege: true,
    check: (res, c) => {
      const r = res.body.data.runTests;
      assert.ok(r.passing.some((p: any) => p.test.urn === c.vars.testToRun && p.type === 'SUCCESS'), JSON.stringify(r));
      assert.deepEqual(r.failing, []);
    } },
  { name: 'listTests', graphql: '{ listTests(input: { start: 0, count: 5, query: "matrix-run" }) { total tests { urn name } } }', needsPrivilege: false,
    check: (res, c) => data({ listTests: { total: 1, tests: [{ urn: c.vars.testToRun, name: 'every dataset' }] } })(res) },
  { name: 'listUsers', graphql: '{ listUsers(input: {}) { total users { urn } } }', needsPrivilege: false,
    check: (res) => data({ listUsers: { total: 2, users: [{ urn: ROOT }, { urn: 'urn:li:corpuser:jdoe' }] } })(res) },
  { name: 'createGroup', graphql: 'mutation { createGroup(input: { id: "matrix", name: "m" }) }', needsPrivilege: true,
    check: dataThen({ createGroup: 'urn:li:corpGroup:matrix' }, async (c) => assert.equal(await exists(c, 'urn:li:corpGroup:matrix'), true)) },
  { name: 'addGroupMembers', graphql: 'mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:bfoo", userUrns: ["urn:li:corpuser:jdoe"] }) }', needsPrivilege: true,
    check: dataThen({ addGroupMembers: true }, async (c) => assert.ok((await latest(c, 'urn:li:corpuser:jdoe', 'nativeGroupMembership')).nativeGroups.includes('urn:li:corpGroup:bfoo'), 'a native member of the sample group')) },
  { name: 'updateUserStatus', graphql: 'mutation { updateUserStatus(urn: "urn:li:corpuser:jdoe", status: ACTIVE) }', needsPrivilege: true,
    check: dataThen({ updateUserStatus: 'urn:li:corpuser:jdoe' }, async (c) => assert.equal((await latest(c, 'urn:li:corpuser:jdoe', 'corpUserStatus')).status, 'ACTIVE')) },
  { name: 'reportOperation', graphql: `mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL }) }`, needsPrivilege: true,
    check: dataThen({ reportOperation: 'true' }, async (c) => assert.ok((await c.t.catalog.store.queryTimeseries({ entityType: 'dataset', aspect: 'operation', urn: HIVE }))
      .some((r: any) => r.value.operationType === 'INSERT' && r.value.sourceType === 'MANUAL'), 'the operation stored')) },
];

const ROOT_ACTOR = { urn: ROOT, kind: 'user' as const };

forEachEngine('authorization matrix', (ctx) => {
  let t: TestApp;
  const callers: Record<string, string | undefined> = {};
  /** Objects this suite makes for the operations to act on, so that no test needs another to have run first. */
  const vars: Record<string, string> = {};
  let database: DatabaseDump;
  let cleanup = async () => {};
  before(async () => {
    // A database the fingerprint can read over a connection of its own (SQLite on a file).
    const db = await freshSharedDatabaseUrl(ctx.engine);
    cleanup = db.cleanup;
    t = await startApp({ ...ctx, url: db.url });
    database = await openDump(db.url);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    callers.none = undefined;
    callers.malformed = 'Bearer not-a-token';
    const forged = (await t.tokenFor('alice')).split('.');
    callers.forged = `Bearer ${forged[0]}.${forged[1]}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    const expired = await t.catalog.tokens.create({ actorUrn: ROOT, ownerUrn: ROOT, name: 'short', durationMs: 1000 }, ROOT_ACTOR);
    const revoked = await t.catalog.tokens.create({ actorUrn: ROOT, ownerUrn: ROOT, name: 'revoked', durationMs: 3_600_000 }, ROOT_ACTOR);
    await t.catalog.tokens.revoke(revoked.metadata.id);
    callers.revoked = `Bearer ${revoked.accessToken}`;
    callers.unprivileged = `Bearer ${await t.tokenFor('alice')}`;
    await t.catalog.tokens.create({ actorUrn: 'urn:li:corpuser:matrixowner', ownerUrn: 'urn:li:corpuser:matrixowner', name: 'matrix: list me',
      durationMs: 3_600_000 }, ROOT_ACTOR);
    callers.privileged = `Bearer ${t.rootToken}`;
    const policy = (displayName: string) => t.catalog.policies.create({ displayName, type: 'PLATFORM', state: 'ACTIVE',
      privileges: ['VIEW_ANALYTICS'], actors: { users: ['urn:li:corpuser:jdoe'] }, editable: true }, ROOT_ACTOR);
    vars.policyToRead = await policy('matrix: read me');
    vars.policyToUpdate = await policy('matrix: update me');
    vars.policyToDelete = await policy('matrix: delete me');
    vars.groupToDelete = 'urn:li:corpGroup:jdoe'; // in the samples
    vars.testToRun = await t.catalog.metadataTests.create({ id: 'matrix-run', name: 'every dataset', category: 'matrix',
      definition: { json: JSON.stringify({ on: { types: ['dataset'] }, rules: [{ property: 'urn', operator: 'exists' }] }) } }, ROOT_ACTOR);
    const truncated = await t.catalog.timeseries.truncate({ entityType: 'dataset', aspect: 'operation', endTimeMillis: 1, dryRun: false });
    vars.task = /Task (\S+)\.$/.exec(truncated)![1]!;
    await new Promise((r) => setTimeout(r, 2100)); // let the short token expire (JWT expiry has one-second resolution)
    callers.expired = `Bearer ${expired.accessToken}`;
  });
  after(async () => {
    await database?.close();
    await t?.close();
    await cleanup();
  });

  /**
   * Everything stored, as one comparable value: every row of every table of the suite's database — aspects with
   * their whole history, time-series rows, tokens, search documents, relationships, settings.
   */
  const fingerprint = async () => {
    // The indexes apply a write just after it answers: the previous test's write is applied before the snapshot.
    await t.catalog.changeLog.catchUpIndexes();
    return database.dump();
  };

  const fill = (text: string) => text.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);

  async function call(op: Op, authorization: string | undefined) {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    if (op.graphql) {
      const res = await t.app.inject({ method: 'POST', url: '/api/graphql', headers, payload: { query: fill(op.graphql) } });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    }
    const res = await t.app.inject({ method: op.rest!.method, url: fill(op.rest!.url), headers,
      ...(op.rest!.payload ? { payload: JSON.parse(fill(JSON.stringify(op.rest!.payload))) as object } : {}) });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  }

  // Test names start with the operation's, so that `--test-name-pattern` can pick any one of them.
  for (const op of OPS) {
    describe(op.name, () => {
      for (const kind of ['none', 'malformed', 'forged', 'expired', 'revoked']) {
        test(`${op.name}: ${kind} token → 401, nothing changes`, async () => {
          const before = await fingerprint();
          const res = await call(op, callers[kind]);
          assert.equal(res.status, 401);
          assert.equal(res.body.status, 401);
          assert.equal(res.body.code, 'UNAUTHENTICATED');
          assert.equal(typeof res.body.message, 'string');
          assert.equal(await fingerprint(), before);
        });
      }
      test(`${op.name}: valid user without the privilege → ${op.needsPrivilege ? '403, nothing changes' : 'allowed, with the answer'}`, async () => {
        const before = await fingerprint();
        const res = await call(op, callers.unprivileged);
        if (!op.needsPrivilege) {
          assert.equal(res.status, 200, JSON.stringify(res.body));
          await op.check(res, { t, caller: 'urn:li:corpuser:alice', vars });
          return;
        }
        if (op.graphql) {
          assert.equal(res.status, 200);
          assert.deepEqual(res.body.errors.map((e: any) => [e.message, e.extensions.code, e.extensions.type]),
            [['Unauthorized to perform this action. Please contact your DataHub administrator.', 403, 'UNAUTHORIZED']]);
        } else {
          assert.equal(res.status, 403);
          assert.deepEqual(res.body, { status: 403, code: 'FORBIDDEN', message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' });
        }
        assert.equal(await fingerprint(), before);
      });
      test(`${op.name}: valid user with the privilege → success, with the answer and its effect`, async () => {
        const res = await call(op, callers.privileged);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await op.check(res, { t, caller: ROOT, vars });
      });
    });
  }

  test('reads are refused too once the view policy is switched off', async () => {
    const view = await t.catalog.policies.get('urn:li:dataHubPolicy:view-entity-page-all');
    await t.catalog.policies.update(view.urn, { ...view.info, state: 'INACTIVE' }, ROOT_ACTOR);
    try {
      for (const op of OPS.filter((o) => !o.needsPrivilege && o.name !== 'me' && o.name !== 'REST config')) {
        const res = await call(op, callers.unprivileged);
        if (op.graphql) assert.equal(res.body.errors[0].extensions.code, 403, op.name);
        else assert.equal(res.status, 403, op.name);
      }
    } finally {
      await t.catalog.policies.update(view.urn, { ...view.info, state: 'ACTIVE' }, ROOT_ACTOR);
    }
  });
});
