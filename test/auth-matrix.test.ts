import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Every GraphQL operation and REST endpoint × every kind of caller: no token, a malformed one, a forged one, an
 * expired one, a revoked one, a valid one without the privilege, and one with it. Refusals must change nothing.
 */
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const enc = encodeURIComponent;

interface Op {
  name: string;
  /** GraphQL document, or a REST request. */
  graphql?: string;
  rest?: { method: 'GET' | 'POST'; url: string; payload?: unknown };
  /** Whether a valid user without special privileges is refused (false for what every user may do). */
  needsPrivilege: boolean;
}

const proposal = (urn: string, name: string) => ({ proposal: { entityType: 'tag', entityUrn: urn, changeType: 'UPSERT',
  aspectName: 'tagProperties', aspect: { value: JSON.stringify({ name }), contentType: 'application/json' } } });

const OPS: Op[] = [
  { name: 'dataset', graphql: `{ dataset(urn: "${HIVE}") { urn } }`, needsPrivilege: false },
  { name: 'tag', graphql: '{ tag(urn: "urn:li:tag:Legacy") { urn } }', needsPrivilege: false },
  { name: 'me', graphql: '{ me { corpUser { urn } } }', needsPrivilege: false },
  { name: 'updateDataset', graphql: `mutation { updateDataset(urn: "${HIVE}", input: { editableProperties: { description: "m" } }) { urn } }`, needsPrivilege: true },
  { name: 'updateDescription', graphql: `mutation { updateDescription(input: { description: "m", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }`, needsPrivilege: true },
  { name: 'createTag', graphql: 'mutation { createTag(input: { id: "matrix", name: "Matrix" }) }', needsPrivilege: true },
  { name: 'updateTag', graphql: 'mutation { updateTag(urn: "urn:li:tag:Legacy", input: { urn: "urn:li:tag:Legacy", name: "L2" }) { urn } }', needsPrivilege: true },
  { name: 'setTagColor', graphql: 'mutation { setTagColor(urn: "urn:li:tag:Legacy", colorHex: "#ff0000") }', needsPrivilege: true },
  { name: 'addTag', graphql: `mutation { addTag(input: { tagUrn: "urn:li:tag:NeedsDocumentation", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'addTags', graphql: `mutation { addTags(input: { tagUrns: ["urn:li:tag:NeedsDocumentation"], resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true },
  { name: 'removeTag', graphql: `mutation { removeTag(input: { tagUrn: "urn:li:tag:Legacy", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'batchAddTags', graphql: `mutation { batchAddTags(input: { tagUrns: ["urn:li:tag:Legacy"], resources: [{ resourceUrn: "${KAFKA}" }] }) }`, needsPrivilege: true },
  { name: 'batchRemoveTags', graphql: `mutation { batchRemoveTags(input: { tagUrns: ["urn:li:tag:Legacy"], resources: [{ resourceUrn: "${KAFKA}" }] }) }`, needsPrivilege: true },
  { name: 'addTerm', graphql: `mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'addTerms', graphql: `mutation { addTerms(input: { termUrns: ["urn:li:glossaryTerm:AccountBalance"], resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'removeTerm', graphql: `mutation { removeTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'addLink', graphql: `mutation { addLink(input: { linkUrl: "https://x.example.com", label: "x", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'removeLink', graphql: `mutation { removeLink(input: { linkUrl: "https://www.linkedin.com", resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'addOwner', graphql: `mutation { addOwner(input: { ownerUrn: "urn:li:corpGroup:bfoo", ownerEntityType: CORP_GROUP, resourceUrn: "${HIVE}" }) }`, needsPrivilege: true },
  { name: 'addOwners', graphql: `mutation { addOwners(input: { owners: [{ ownerUrn: "urn:li:corpuser:jdoe", type: BUSINESS_OWNER }], resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true },
  { name: 'removeOwner', graphql: `mutation { removeOwner(input: { ownerUrn: "urn:li:corpuser:datahub", resourceUrn: "${KAFKA}" }) }`, needsPrivilege: true },
  { name: 'deleteTag', graphql: 'mutation { deleteTag(urn: "urn:li:tag:NeedsDocumentation") }', needsPrivilege: true },
  { name: 'createAccessToken (for someone else)', graphql: 'mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:jdoe", duration: ONE_DAY, name: "x" }) { accessToken } }', needsPrivilege: true },
  { name: 'listAccessTokens (everyone\'s)', graphql: '{ listAccessTokens(input: { start: 0, count: 10 }) { total } }', needsPrivilege: true },
  { name: 'listPolicies', graphql: '{ listPolicies(input: { start: 0, count: 10 }) { total } }', needsPrivilege: true },
  { name: 'getPolicy', graphql: '{ getPolicy(urn: "urn:li:dataHubPolicy:7") { name } }', needsPrivilege: true },
  { name: 'createPolicy', graphql: 'mutation { createPolicy(input: { type: PLATFORM, name: "p", state: ACTIVE, privileges: ["CREATE_TAGS"], actors: { allUsers: false, allGroups: false, resourceOwners: false, users: ["urn:li:corpuser:jdoe"] } }) }', needsPrivilege: true },
  { name: 'updatePolicy', graphql: 'mutation { updatePolicy(urn: "urn:li:dataHubPolicy:view-dataset-sensitive", input: { type: METADATA, name: "v", state: INACTIVE, privileges: ["VIEW_DATASET_USAGE"], actors: { allUsers: true, allGroups: false, resourceOwners: false } }) }', needsPrivilege: true },
  { name: 'deletePolicy', graphql: 'mutation { deletePolicy(urn: "urn:li:dataHubPolicy:view-dataset-sensitive") }', needsPrivilege: true },
  { name: 'REST ingestProposal', rest: { method: 'POST', url: '/aspects?action=ingestProposal', payload: proposal('urn:li:tag:matrix_rest', 'r') }, needsPrivilege: true },
  { name: 'REST entities ingest', rest: { method: 'POST', url: '/gms/entities?action=ingest', payload: { entity: { value: {
    'com.linkedin.metadata.snapshot.TagSnapshot': { urn: 'urn:li:tag:matrix_mce', aspects: [{ 'com.linkedin.tag.TagProperties': { name: 'm' } }] } } } } }, needsPrivilege: true },
  { name: 'REST entities delete', rest: { method: 'POST', url: '/api/gms/entities?action=delete', payload: { urn: 'urn:li:corpGroup:jdoe' } }, needsPrivilege: true },
  { name: 'REST get aspect', rest: { method: 'GET', url: `/aspects/${enc(HIVE)}?aspect=schemaMetadata` }, needsPrivilege: false },
  { name: 'REST entitiesV2', rest: { method: 'GET', url: `/entitiesV2/${enc(HIVE)}` }, needsPrivilege: false },
  { name: 'REST config', rest: { method: 'GET', url: '/config' }, needsPrivilege: false },
  { name: 'REST getIndexSizes', rest: { method: 'POST', url: '/gms/operations?action=getIndexSizes', payload: {} }, needsPrivilege: true },
  { name: 'REST truncateTimeseriesAspect', rest: { method: 'POST', url: '/operations?action=truncateTimeseriesAspect',
    payload: { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 1629010800001, dryRun: false } }, needsPrivilege: true },
  { name: 'REST getEsTaskStatus', rest: { method: 'POST', url: '/operations?action=getEsTaskStatus', payload: { task: 'almanac:1' } }, needsPrivilege: true },
  { name: 'REST getTimeseriesAspectValues', rest: { method: 'POST', url: '/aspects?action=getTimeseriesAspectValues',
    payload: { urn: HIVE, entity: 'dataset', aspect: 'datasetProfile' } }, needsPrivilege: false },
  { name: 'REST search', rest: { method: 'POST', url: '/entities?action=search', payload: { entity: 'dataset', input: 'sample' } }, needsPrivilege: false },
  { name: 'search', graphql: '{ searchAcrossEntities(input: { query: "sample" }) { total } }', needsPrivilege: false },
  { name: 'REST test evaluate', rest: { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE } }, needsPrivilege: false },
  { name: 'REST test evaluate with push', rest: { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE, push: true } }, needsPrivilege: true },
  { name: 'createTest', graphql: 'mutation { createTest(input: { id: "m", name: "m", category: "c", definition: { json: "{\\"on\\": {\\"types\\": [\\"dataset\\"]}, \\"rules\\": []}" } }) }', needsPrivilege: true },
  { name: 'runTests', graphql: `mutation { runTests(urn: "${HIVE}") { passing { type } } }`, needsPrivilege: true },
  { name: 'listTests', graphql: '{ listTests(input: { start: 0, count: 5 }) { total } }', needsPrivilege: false },
  { name: 'listUsers', graphql: '{ listUsers(input: {}) { total } }', needsPrivilege: false },
  { name: 'createGroup', graphql: 'mutation { createGroup(input: { id: "matrix", name: "m" }) }', needsPrivilege: true },
  { name: 'addGroupMembers', graphql: 'mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:bfoo", userUrns: ["urn:li:corpuser:jdoe"] }) }', needsPrivilege: true },
  { name: 'updateUserStatus', graphql: 'mutation { updateUserStatus(urn: "urn:li:corpuser:jdoe", status: ACTIVE) }', needsPrivilege: true },
  { name: 'reportOperation', graphql: `mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL }) }`, needsPrivilege: true },
];

forEachEngine('authorization matrix', (ctx) => {
  let t: TestApp;
  const callers: Record<string, string | undefined> = {};
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    const root = { urn: 'urn:li:corpuser:datahub', kind: 'user' as const };
    callers.none = undefined;
    callers.malformed = 'Bearer not-a-token';
    const forged = (await t.tokenFor('alice')).split('.');
    callers.forged = `Bearer ${forged[0]}.${forged[1]}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    const expired = await t.catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub',
      name: 'short', durationMs: 1000 }, root);
    const revoked = await t.catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub',
      name: 'revoked', durationMs: 3_600_000 }, root);
    await t.catalog.tokens.revoke(revoked.metadata.id);
    callers.revoked = `Bearer ${revoked.accessToken}`;
    callers.unprivileged = `Bearer ${await t.tokenFor('alice')}`;
    callers.privileged = `Bearer ${t.rootToken}`;
    await new Promise((r) => setTimeout(r, 2100)); // let the short token expire (JWT expiry has one-second resolution)
    callers.expired = `Bearer ${expired.accessToken}`;
  });
  after(async () => t.close());

  /** Everything stored, as one comparable value. */
  async function fingerprint() {
    const rows = await t.catalog.store.listEntities({});
    const latest = await t.catalog.store.getLatest(rows.map((r) => r.urn));
    return JSON.stringify([...latest].map(([u, m]) => [u, [...m].map(([a, r]) => [a, r.version, r.value])]).sort());
  }

  async function call(op: Op, authorization: string | undefined) {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    if (op.graphql) {
      const res = await t.app.inject({ method: 'POST', url: '/api/graphql', headers, payload: { query: op.graphql } });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    }
    const res = await t.app.inject({ method: op.rest!.method, url: op.rest!.url, headers,
      ...(op.rest!.payload ? { payload: op.rest!.payload as object } : {}) });
    return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
  }

  for (const op of OPS) {
    describe(op.name, () => {
      for (const kind of ['none', 'malformed', 'forged', 'expired', 'revoked']) {
        test(`${kind} token → 401, nothing changes`, async () => {
          const before = await fingerprint();
          const res = await call(op, callers[kind]);
          assert.equal(res.status, 401);
          assert.equal(res.body.status, 401);
          assert.equal(res.body.code, 'UNAUTHENTICATED');
          assert.equal(typeof res.body.message, 'string');
          assert.equal(await fingerprint(), before);
        });
      }
      test(`valid user without the privilege → ${op.needsPrivilege ? '403, nothing changes' : 'allowed'}`, async () => {
        const before = await fingerprint();
        const res = await call(op, callers.unprivileged);
        if (!op.needsPrivilege) {
          assert.equal(res.status, 200);
          assert.equal(res.body.errors, undefined);
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
      test('valid user with the privilege → success', async () => {
        const res = await call(op, callers.privileged);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        if (op.graphql) assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
      });
    });
  }

  test('reads are refused too once the view policy is switched off', async () => {
    const root = { urn: 'urn:li:corpuser:datahub', kind: 'user' as const };
    const view = await t.catalog.policies.get('urn:li:dataHubPolicy:view-entity-page-all');
    await t.catalog.policies.update(view.urn, { ...view.info, state: 'INACTIVE' }, root);
    try {
      for (const op of OPS.filter((o) => !o.needsPrivilege && o.name !== 'me' && o.name !== 'REST config')) {
        const res = await call(op, callers.unprivileged);
        if (op.graphql) assert.equal(res.body.errors[0].extensions.code, 403, op.name);
        else assert.equal(res.status, 403, op.name);
      }
    } finally {
      await t.catalog.policies.update(view.urn, { ...view.info, state: 'ACTIVE' }, root);
    }
  });
});
