import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REQUIRES } from '../src/model/privileges.js';
import { forEachEngine, freshSharedDatabaseUrl, type EngineContext } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * Issue 12's holes, end to end through the HTTP surface with real tokens: removed and suspended users are locked
 * out, privileges come only from policies (DataHub's built-in ones, editable), group membership is a relationship
 * that grants and stops granting at once, getAccessToken, and generic reads that respect privileges.
 */
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,SampleKafkaDataset,PROD)';
const enc = encodeURIComponent;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A user with a profile, a token and a header, named uniquely per test so tests do not depend on each other. */
async function makeUser(t: TestApp, name: string) {
  const urn = `urn:li:corpuser:${name}`;
  await t.catalog.entities.ingest([{ urn, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT', systemMetadata: null,
    value: { active: true, displayName: `User ${name}`, email: `${name}@example.com` } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
  const token = await t.tokenFor(name);
  return { urn, token, headers: bearer(token) };
}

async function ok(t: TestApp, query: string, headers?: Record<string, string>) {
  const res = await t.graphql(query, undefined, headers);
  assert.equal(res.status, 200);
  assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
  return res.body.data;
}

const errorOf = async (t: TestApp, query: string, headers?: Record<string, string>) => {
  const res = await t.graphql(query, undefined, headers);
  return { status: res.status, code: res.body.errors?.[0]?.extensions?.code, message: res.body.errors?.[0]?.message };
};

forEachEngine('security: users, tokens, groups and generic reads', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  test('removeUser: the token answers 401, the user\'s aspects, tokens, memberships and search entry are gone', async () => {
    const erin = await makeUser(t, 'erin');
    await ok(t, 'mutation { createGroup(input: { id: "erin-team", name: "Erin team" }) }');
    await ok(t, `mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:erin-team", userUrns: ["${erin.urn}"] }) }`);
    // A legacy member list naming her too, as some connectors write it.
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpGroup:legacy-team', entityType: 'corpGroup', aspect: 'corpGroupInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { displayName: 'Legacy', admins: [], members: [erin.urn, 'urn:li:corpuser:jdoe'], groups: [] } }],
    { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const own = await ok(t, `mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "${erin.urn}", duration: ONE_DAY, name: "erin's own" }) { accessToken } }`, erin.headers);
    assert.equal((await t.app.inject({ url: '/config', headers: erin.headers })).statusCode, 200);
    const search = async () => (await ok(t, '{ searchAcrossEntities(input: { types: [CORP_USER], query: "erin", start: 0, count: 10 }) { total searchResults { entity { urn } } } }')).searchAcrossEntities;
    assert.deepEqual(await search(), { total: 1, searchResults: [{ entity: { urn: erin.urn } }] });

    assert.deepEqual(await ok(t, `mutation { removeUser(urn: "${erin.urn}") }`), { removeUser: true });

    for (const token of [erin.token, own.createAccessToken.accessToken]) {
      const rest = await t.app.inject({ url: `/entitiesV2/${enc(HIVE)}`, headers: bearer(token) });
      assert.deepEqual([rest.statusCode, rest.json()], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Failed to validate DataHub token: Token has been revoked.' }]);
      const gql = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: bearer(token), payload: { query: '{ me { corpUser { urn } } }' } });
      assert.equal(gql.statusCode, 401);
    }
    assert.deepEqual(await errorOf(t, `{ corpUser(urn: "${erin.urn}") { urn info { email } } }`),
      { status: 200, code: 404, message: `Entity ${erin.urn} does not exist` });
    assert.equal((await t.catalog.store.getLatest([erin.urn])).size, 0);
    const tokens = await ok(t, `{ listAccessTokens(input: { start: 0, count: 100, filters: [{ field: "actorUrn", values: ["${erin.urn}"] }] }) { total tokens { name } } }`);
    assert.deepEqual(tokens, { listAccessTokens: { total: 0, tokens: [] } });
    const members = await ok(t, `{ corpGroup(urn: "urn:li:corpGroup:erin-team") { relationships(input: { types: ["IsMemberOfNativeGroup", "IsMemberOfGroup"], direction: INCOMING }) { total } } }`);
    assert.deepEqual(members, { corpGroup: { relationships: { total: 0 } } });
    const legacy = await t.catalog.entities.getLatest('urn:li:corpGroup:legacy-team', ['corpGroupInfo']);
    assert.deepEqual(legacy.get('corpGroupInfo')?.value, { displayName: 'Legacy', admins: [], members: ['urn:li:corpuser:jdoe'], groups: [] });
    assert.deepEqual(await search(), { total: 0, searchResults: [] });
    const users = (await ok(t, '{ listUsers(input: { start: 0, count: 100 }) { users { urn } } }')).listUsers.users.map((u: { urn: string }) => u.urn);
    assert.ok(!users.includes(erin.urn), 'the removed user is not listed');
    // Removing a user that does not exist writes nothing and says so.
    assert.deepEqual(await errorOf(t, `mutation { removeUser(urn: "${erin.urn}") }`), { status: 200, code: 404, message: `Entity ${erin.urn} does not exist` });
  });

  test('suspending a user answers 401 on GraphQL and REST with a clear message; reactivating lets them back in', async () => {
    const fay = await makeUser(t, 'fay');
    const read = () => t.app.inject({ url: `/aspects/${enc(HIVE)}?aspect=ownership`, headers: fay.headers });
    assert.equal((await read()).statusCode, 200);
    await ok(t, `mutation { updateUserStatus(urn: "${fay.urn}", status: SUSPENDED) }`);
    const refused = await read();
    assert.deepEqual([refused.statusCode, refused.json()], [401, { status: 401, code: 'UNAUTHENTICATED', message: `The token's user ${fay.urn} is suspended.` }]);
    const gql = await t.app.inject({ method: 'POST', url: '/api/graphql', headers: fay.headers, payload: { query: '{ me { corpUser { urn } } }' } });
    assert.equal(gql.statusCode, 401);
    assert.equal(gql.json().errors?.[0]?.message ?? gql.json().message, `The token's user ${fay.urn} is suspended.`);
    await ok(t, `mutation { updateUserStatus(urn: "${fay.urn}", status: ACTIVE) }`);
    assert.equal((await read()).statusCode, 200);
    assert.deepEqual(await ok(t, '{ me { corpUser { urn } } }', fay.headers), { me: { corpUser: { urn: fay.urn } } });
  });

  test('policy 7 (All Users - Base Platform Privileges) decides whether an ordinary user may create tokens', async () => {
    const gil = await makeUser(t, 'gil');
    const create = `mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "${gil.urn}", duration: ONE_HOUR, name: "mine" }) { metadata { actorUrn } } }`;
    const getOld = `{ getAccessToken(input: { type: PERSONAL, actorUrn: "${gil.urn}", duration: ONE_HOUR }) { accessToken } }`;
    assert.deepEqual(await ok(t, create, gil.headers), { createAccessToken: { metadata: { actorUrn: gil.urn } } });
    const seven = await ok(t, '{ getPolicy(urn: "urn:li:dataHubPolicy:7") { name state privileges actors { allUsers } } }');
    assert.deepEqual(seven, { getPolicy: { name: 'All Users - Base Platform Privileges', state: 'ACTIVE',
      privileges: ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS'], actors: { allUsers: true } } });
    const setState = (state: string) => ok(t, `mutation { updatePolicy(urn: "urn:li:dataHubPolicy:7", input: { type: PLATFORM,
      name: "All Users - Base Platform Privileges", state: ${state}, privileges: ["VIEW_ANALYTICS", "GENERATE_PERSONAL_ACCESS_TOKENS"],
      actors: { allUsers: true, allGroups: false, resourceOwners: false } }) }`);
    await setState('INACTIVE');
    try {
      for (const q of [create, getOld]) {
        assert.deepEqual(await errorOf(t, q, gil.headers), { status: 200, code: 403,
          message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' });
      }
      const platform = await ok(t, '{ me { platformPrivileges { generatePersonalAccessTokens viewAnalytics } } }', gil.headers);
      assert.deepEqual(platform, { me: { platformPrivileges: { generatePersonalAccessTokens: false, viewAnalytics: false } } });
    } finally {
      await setState('ACTIVE');
    }
    assert.deepEqual(await ok(t, create, gil.headers), { createAccessToken: { metadata: { actorUrn: gil.urn } } });
  });

  test('a policy naming a native group grants its members at once, and stops when they leave; membership shows both ways', async () => {
    const hal = await makeUser(t, 'hal');
    await ok(t, 'mutation { createGroup(input: { id: "taggers", name: "Taggers" }) }');
    await ok(t, `mutation { createPolicy(input: { type: PLATFORM, name: "Taggers create tags", state: ACTIVE, privileges: ["CREATE_TAGS"],
      actors: { groups: ["urn:li:corpGroup:taggers"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
    const createTag = (id: string) => t.graphql(`mutation { createTag(input: { id: "${id}", name: "${id}" }) }`, undefined, hal.headers);
    assert.equal((await createTag('hal-1')).body.errors[0].extensions.code, 403);

    await ok(t, `mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:taggers", userUrns: ["${hal.urn}"] }) }`);
    assert.deepEqual((await createTag('hal-2')).body, { data: { createTag: 'urn:li:tag:hal-2' }, extensions: {} });
    const aspects = await t.catalog.entities.getLatest(hal.urn, ['nativeGroupMembership', 'groupMembership']);
    assert.deepEqual(Object.fromEntries([...aspects].map(([k, r]) => [k, r.value])), { nativeGroupMembership: { nativeGroups: ['urn:li:corpGroup:taggers'] } });
    const incoming = await ok(t, `{ corpGroup(urn: "urn:li:corpGroup:taggers") { relationships(input: { types: ["IsMemberOfNativeGroup"], direction: INCOMING }) {
      total relationships { type direction entity { urn } } } } }`);
    assert.deepEqual(incoming, { corpGroup: { relationships: { total: 1,
      relationships: [{ type: 'IsMemberOfNativeGroup', direction: 'INCOMING', entity: { urn: hal.urn } }] } } });
    const outgoing = await ok(t, `{ corpUser(urn: "${hal.urn}") { relationships(input: { types: ["IsMemberOfNativeGroup", "IsMemberOfGroup"], direction: OUTGOING }) {
      total relationships { type entity { urn } } } } }`);
    assert.deepEqual(outgoing, { corpUser: { relationships: { total: 1,
      relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: 'urn:li:corpGroup:taggers' } }] } } });

    await ok(t, `mutation { removeGroupMembers(input: { groupUrn: "urn:li:corpGroup:taggers", userUrns: ["${hal.urn}"] }) }`);
    assert.equal((await createTag('hal-3')).body.errors[0].extensions.code, 403);
    const after = await ok(t, `{ corpGroup(urn: "urn:li:corpGroup:taggers") { relationships(input: { types: ["IsMemberOfNativeGroup"], direction: INCOMING }) { total } } }`);
    assert.deepEqual(after, { corpGroup: { relationships: { total: 0 } } });
  });

  test('groups from an identity provider: membership is groupMembership and IsMemberOfGroup, and grants too', async () => {
    const ida = await makeUser(t, 'ida');
    // An ingested group (no origin), and the user's membership of it, as an LDAP or Okta connector writes them.
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpGroup:okta-admins', entityType: 'corpGroup', aspect: 'corpGroupInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { displayName: 'Okta admins', admins: [], members: [], groups: [] } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    await ok(t, `mutation { createPolicy(input: { type: PLATFORM, name: "Okta admins manage tests", state: ACTIVE, privileges: ["MANAGE_TESTS"],
      actors: { groups: ["urn:li:corpGroup:okta-admins"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
    const manage = await ok(t, '{ me { platformPrivileges { manageTests } } }', ida.headers);
    assert.deepEqual(manage, { me: { platformPrivileges: { manageTests: false } } });
    await t.catalog.entities.ingest([{ urn: ida.urn, entityType: 'corpuser', aspect: 'groupMembership', changeType: 'UPSERT', systemMetadata: null,
      value: { groups: ['urn:li:corpGroup:okta-admins'] } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    assert.deepEqual(await ok(t, '{ me { platformPrivileges { manageTests } } }', ida.headers), { me: { platformPrivileges: { manageTests: true } } });
    const rel = await ok(t, `{ corpGroup(urn: "urn:li:corpGroup:okta-admins") { relationships(input: { types: ["IsMemberOfGroup"], direction: INCOMING }) {
      relationships { type entity { urn } } } } }`);
    assert.deepEqual(rel, { corpGroup: { relationships: { relationships: [{ type: 'IsMemberOfGroup', entity: { urn: ida.urn } }] } } });
    // Removing her through the API first makes the group native (test/group-members.test.ts), then takes her out.
    await ok(t, `mutation { removeGroupMembers(input: { groupUrn: "urn:li:corpGroup:okta-admins", userUrns: ["${ida.urn}"] }) }`);
    assert.deepEqual(await ok(t, '{ me { platformPrivileges { manageTests } } }', ida.headers), { me: { platformPrivileges: { manageTests: false } } });
  });

  test('getAccessToken issues a working personal token for oneself; for another user 403, for an unknown user 404', async () => {
    const jo = await makeUser(t, 'jo');
    const got = await ok(t, `{ getAccessToken(input: { type: PERSONAL, actorUrn: "${jo.urn}", duration: ONE_HOUR }) { accessToken } }`, jo.headers);
    const token = got.getAccessToken.accessToken;
    assert.deepEqual(await ok(t, '{ me { corpUser { urn } } }', bearer(token)), { me: { corpUser: { urn: jo.urn } } });
    const listed = await ok(t, `{ listAccessTokens(input: { start: 0, count: 10, filters: [{ field: "ownerUrn", values: ["${jo.urn}"] }] }) { tokens { name actorUrn } } }`, jo.headers);
    assert.ok(listed.listAccessTokens.tokens.some((x: { name: string; actorUrn: string }) => x.name === 'getAccessToken' && x.actorUrn === jo.urn), JSON.stringify(listed));
    assert.deepEqual(await errorOf(t, '{ getAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:jdoe", duration: ONE_HOUR }) { accessToken } }', jo.headers),
      { status: 200, code: 403, message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' });
    assert.deepEqual(await errorOf(t, '{ getAccessToken(input: { type: PERSONAL, actorUrn: "urn:li:corpuser:nobody-here", duration: ONE_HOUR }) { accessToken } }', jo.headers),
      { status: 200, code: 404, message: 'User urn:li:corpuser:nobody-here does not exist' });
  });

  test('generic reads of policies, tokens and credentials need the privilege that administers them', async () => {
    const kim = await makeUser(t, 'kim');
    const tokenUrn = (await t.catalog.tokens.list({ actorUrn: kim.urn, start: 0, count: 1 })).tokens[0]!.urn;
    await t.catalog.entities.ingest([{ urn: kim.urn, entityType: 'corpuser', aspect: 'corpUserCredentials', changeType: 'UPSERT',
      systemMetadata: null, value: { salt: 's', hashedPassword: 'h' } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    const forbidden = { status: 403, code: 'FORBIDDEN', message: 'Unauthorized to perform this action. Please contact your DataHub administrator.' };
    const reads = [
      '/entities/urn%3Ali%3AdataHubPolicy%3A0',
      '/entitiesV2/urn%3Ali%3AdataHubPolicy%3A7',
      `/entitiesV2?ids=List(urn%3Ali%3AdataHubPolicy%3A0,${enc(HIVE)})`,
      `/aspects/${enc(tokenUrn)}?aspect=dataHubAccessTokenInfo`,
      `/aspects/${enc(kim.urn)}?aspect=corpUserCredentials`,
    ];
    for (const url of reads) {
      const res = await t.app.inject({ url, headers: kim.headers });
      assert.deepEqual([url, res.statusCode, res.json()], [url, 403, forbidden]);
      assert.equal((await t.app.inject({ url, headers: t.auth })).statusCode, 200, url);
    }
    for (const q of ['{ entity(urn: "urn:li:dataHubPolicy:0") { urn } }', `{ entities(urns: ["${tokenUrn}"]) { urn } }`]) {
      assert.deepEqual(await errorOf(t, q, kim.headers), { status: 200, code: 403, message: forbidden.message });
      assert.equal((await t.graphql(q)).body.errors, undefined);
    }
    // A whole-user read leaves the credentials out for others, and keeps them for the administrator.
    const aspectNames = async (headers: Record<string, string>) => {
      const res = await t.app.inject({ url: `/entities/${enc(kim.urn)}`, headers });
      return res.json().value['com.linkedin.metadata.snapshot.CorpUserSnapshot'].aspects.map((a: object) => Object.keys(a)[0]).sort();
    };
    assert.deepEqual(await aspectNames(kim.headers), ['com.linkedin.identity.CorpUserInfo', 'com.linkedin.metadata.key.CorpUserKey']);
    assert.deepEqual(await aspectNames(t.auth), ['com.linkedin.identity.CorpUserCredentials', 'com.linkedin.identity.CorpUserInfo',
      'com.linkedin.metadata.key.CorpUserKey']);
    const v2 = async (headers: Record<string, string>) =>
      Object.keys((await t.app.inject({ url: `/entitiesV2/${enc(kim.urn)}`, headers })).json().aspects).sort();
    assert.deepEqual(await v2(kim.headers), ['corpUserInfo', 'corpUserKey']);
    assert.deepEqual(await v2(t.auth), ['corpUserCredentials', 'corpUserInfo', 'corpUserKey']);
  });
});

forEachEngine('security: a catalog from an earlier Almanac moves to DataHub\'s policy urns', (ctx) => {
  test('the old "Edit All Metadata" policy 7 and base platform policy become DataHub\'s policy 7, keeping its on/off state', async () => {
    const shared = await sharedUrl(ctx);
    const first = await startApp({ ...ctx, url: shared.url });
    const root = { urn: 'urn:li:corpuser:datahub', kind: 'user' as const };
    // What an earlier Almanac bootstrapped, with the administrator having switched the base platform policy off.
    await first.catalog.entities.ingest([
      { urn: 'urn:li:dataHubPolicy:7', entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT', systemMetadata: null,
        value: { displayName: 'All Users - Edit All Metadata', type: 'METADATA', state: 'INACTIVE', privileges: ['EDIT_ENTITY'],
          actors: { allUsers: true }, resources: { allResources: true }, editable: true } },
      { urn: 'urn:li:dataHubPolicy:all-users-base-platform', entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo', changeType: 'UPSERT',
        systemMetadata: null, value: { displayName: 'All Users - Base Platform Privileges', type: 'PLATFORM', state: 'INACTIVE',
          privileges: ['GENERATE_PERSONAL_ACCESS_TOKENS', 'VIEW_ANALYTICS'], actors: { allUsers: true }, editable: true } },
    ], root);
    await first.close();
    const second = await startApp({ ...ctx, url: shared.url });
    try {
      const seven = await second.catalog.policies.get('urn:li:dataHubPolicy:7');
      assert.deepEqual([seven.info.displayName, seven.info.type, seven.info.state, seven.info.privileges],
        ['All Users - Base Platform Privileges', 'PLATFORM', 'INACTIVE', ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS']]);
      assert.equal(await second.catalog.entities.exists('urn:li:dataHubPolicy:all-users-base-platform'), false);
      assert.equal(await second.catalog.authz.allowed({ urn: 'urn:li:corpuser:lee', kind: 'user' }, [['GENERATE_PERSONAL_ACCESS_TOKENS']]), false);
    } finally {
      await second.close();
      await shared.cleanup();
    }
  });

  test('an old "Edit All Metadata" policy an administrator had switched on keeps granting, under a urn of its own', async () => {
    const shared = await sharedUrl(ctx);
    const first = await startApp({ ...ctx, url: shared.url });
    const root = { urn: 'urn:li:corpuser:datahub', kind: 'user' as const };
    const editAll = { displayName: 'All Users - Edit All Metadata', type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY'],
      actors: { allUsers: true }, resources: { allResources: true }, editable: true };
    await first.catalog.entities.ingest([{ urn: 'urn:li:dataHubPolicy:7', entityType: 'dataHubPolicy', aspect: 'dataHubPolicyInfo',
      changeType: 'UPSERT', systemMetadata: null, value: editAll }], root);
    await first.close();
    const second = await startApp({ ...ctx, url: shared.url });
    try {
      const kept = await second.catalog.policies.get('urn:li:dataHubPolicy:all-users-edit-all-metadata');
      assert.deepEqual({ ...kept.info, lastUpdatedTimestamp: undefined }, { ...editAll, lastUpdatedTimestamp: undefined });
      assert.equal((await second.catalog.policies.get('urn:li:dataHubPolicy:7')).info.displayName, 'All Users - Base Platform Privileges');
      assert.equal(await second.catalog.authz.allowed({ urn: 'urn:li:corpuser:lee', kind: 'user' }, [['EDIT_ENTITY']],
        'urn:li:dataset:(urn:li:dataPlatform:hive,any,PROD)'), true);
    } finally {
      await second.close();
      await shared.cleanup();
    }
  });
});

/** A database of the test's own that two servers can share: a fresh PostgreSQL database, or a SQLite file. */
function sharedUrl(ctx: EngineContext): Promise<{ url: string; cleanup: () => Promise<void> }> {
  return freshSharedDatabaseUrl(ctx.engine);
}

forEachEngine('security: two servers on one database', (ctx) => {
  test('suspending a user or switching a policy off on one server applies on the other', async () => {
    const shared = await sharedUrl(ctx);
    const a = await startApp({ ...ctx, url: shared.url });
    const b = await startApp({ ...ctx, url: shared.url });
    try {
      const mo = await makeUser(a, 'mo');
      const me = '{ me { corpUser { urn } platformPrivileges { generatePersonalAccessTokens } } }';
      assert.deepEqual(await ok(b, me, mo.headers), { me: { corpUser: { urn: mo.urn }, platformPrivileges: { generatePersonalAccessTokens: true } } });
      // Policy 7 off on server a: server b stops granting (within a second as a rule; timing is the bench's business).
      const seven = await a.catalog.policies.get('urn:li:dataHubPolicy:7');
      await a.catalog.policies.update(seven.urn, { ...seven.info, state: 'INACTIVE' }, { urn: 'urn:li:corpuser:datahub', kind: 'user' });
      await waitFor(async () => (await ok(b, me, mo.headers)).me.platformPrivileges.generatePersonalAccessTokens === false);
      // Suspended on server a: server b refuses the token.
      await ok(a, `mutation { updateUserStatus(urn: "${mo.urn}", status: SUSPENDED) }`);
      await waitFor(async () => (await b.app.inject({ url: '/config', headers: mo.headers })).statusCode === 401);
    } finally {
      await a.close();
      await b.close();
      await shared.cleanup();
    }
  });
});

async function waitFor(check: () => Promise<boolean>) {
  const until = Date.now() + 30_000; // generous: a loaded machine is slow, not wrong
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Every privilege-checked operation, one row per entry of the privilege table (model/privileges.ts). With every
 * editable policy switched off, nobody but the root user may act: not an owner, not a group member, not a role.
 */
type Call = { graphql: string } | { method: 'GET' | 'POST'; url: string; payload?: unknown };
const proposal = (urn: string) => ({ proposal: { entityType: 'tag', entityUrn: urn, changeType: 'UPSERT', aspectName: 'tagProperties',
  aspect: { value: JSON.stringify({ name: 'x' }), contentType: 'application/json' } } });
const OPERATIONS: Record<keyof typeof REQUIRES, Call> = {
  'rest.ingestProposal': { method: 'POST', url: '/aspects?action=ingestProposal', payload: proposal('urn:li:tag:inactive') },
  'rest.deleteEntity': { method: 'POST', url: '/entities?action=delete', payload: { urn: 'urn:li:corpGroup:jdoe' } },
  'rest.getAspect': { method: 'GET', url: `/aspects/${enc(HIVE)}?aspect=schemaMetadata` },
  'rest.getEntity': { method: 'GET', url: `/entities/${enc(HIVE)}` },
  'rest.search': { method: 'POST', url: '/entities?action=search', payload: { entity: 'dataset', input: 'sample' } },
  'rest.getRelationships': { method: 'GET', url: `/relationships?urn=${enc(HIVE)}&direction=OUTGOING&types=List(TaggedWith)` },
  'rest.deleteReferences': { method: 'POST', url: '/entities?action=deleteReferences', payload: { urn: 'urn:li:tag:Legacy', dryRun: true } },
  'rest.rollbackRun': { method: 'POST', url: '/runs?action=rollback', payload: { runId: 'security-run', dryRun: true } },
  'rest.getTimeseriesAspectValues': { method: 'POST', url: '/aspects?action=getTimeseriesAspectValues', payload: { urn: HIVE, entity: 'dataset', aspect: 'datasetProfile' } },
  'rest.usage': { method: 'POST', url: '/usageStats?action=queryRange', payload: { resource: HIVE, duration: 'DAY', rangeFromEnd: 'ALL' } },
  'rest.getIndexSizes': { method: 'POST', url: '/operations?action=getIndexSizes', payload: {} },
  'rest.truncateTimeseriesAspect': { method: 'POST', url: '/operations?action=truncateTimeseriesAspect',
    payload: { entityType: 'dataset', aspect: 'datasetProfile', endTimeMillis: 1, dryRun: true } },
  'rest.getEsTaskStatus': { method: 'POST', url: '/operations?action=getEsTaskStatus', payload: { task: 'almanac:1' } },
  'changes.subscribe': { method: 'GET', url: '/api/changes?format=json' },
  'webhooks.manage': { method: 'GET', url: '/api/webhooks' },
  'webhooks.register': { method: 'POST', url: '/api/webhooks', payload: { url: 'http://127.0.0.1:9/unused' } },
  'metrics.read': { method: 'GET', url: '/metrics' },
  'rest.evaluateTests': { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE } },
  'rest.pushTestResults': { method: 'POST', url: '/gms/test?action=evaluate', payload: { urn: HIVE, push: true } },
  'graphql.read': { graphql: `{ dataset(urn: "${HIVE}") { urn } }` },
  'graphql.search': { graphql: '{ searchAcrossEntities(input: { query: "sample" }) { total } }' },
  'graphql.readProfiles': { graphql: `{ dataset(urn: "${HIVE}") { datasetProfiles { rowCount } } }` },
  'graphql.readUsage': { graphql: `{ dataset(urn: "${HIVE}") { usageStats(range: ALL) { buckets { bucket } } } }` },
  'graphql.viewTests': { graphql: '{ listTests(input: { start: 0, count: 5 }) { total } }' },
  'graphql.explainTests': { graphql: `{ explainTests(urn: "${HIVE}") { failing { type } } }` },
  'graphql.timeseriesIndexSizes': { graphql: '{ timeseriesIndexSizes { indexName } }' },
  'graphql.manageEntity': { graphql: `{ dataset(urn: "${HIVE}") { privileges { canManageEntity } } }` },
  'graphql.updateDataset.editableProperties': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { editableProperties: { description: "d" } }) { urn } }` },
  'graphql.updateDataset.institutionalMemory': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { institutionalMemory: { elements: [{ url: "https://x.example.com", author: "urn:li:corpuser:carol", description: "x" }] } }) { urn } }` },
  'graphql.updateDataset.ownership': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { ownership: { owners: [{ owner: "urn:li:corpuser:carol", type: DATAOWNER }] } }) { urn } }` },
  'graphql.updateDataset.tags': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { globalTags: { tags: [{ tag: { urn: "urn:li:tag:Legacy", name: "Legacy" } }] } }) { urn } }` },
  'graphql.updateDataset.deprecation': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { deprecation: { deprecated: true, note: "old" } }) { urn } }` },
  'graphql.updateDataset.editableSchemaMetadata': { graphql: `mutation { updateDataset(urn: "${HIVE}", input: { editableSchemaMetadata: { editableSchemaFieldInfo: [{ fieldPath: "field_foo", description: "d" }] } }) { urn } }` },
  'graphql.updateDescription': { graphql: `mutation { updateDescription(input: { description: "d", resourceUrn: "${HIVE}" }) }` },
  'graphql.updateDescription.column': { graphql: `mutation { updateDescription(input: { description: "d", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }` },
  'graphql.tags': { graphql: `mutation { addTag(input: { tagUrn: "urn:li:tag:Legacy", resourceUrn: "${KAFKA}" }) }` },
  'graphql.tags.column': { graphql: `mutation { addTag(input: { tagUrn: "urn:li:tag:Legacy", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }` },
  'graphql.terms': { graphql: `mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}" }) }` },
  'graphql.terms.column': { graphql: `mutation { addTerm(input: { termUrn: "urn:li:glossaryTerm:SavingAccount", resourceUrn: "${HIVE}", subResource: "field_foo", subResourceType: DATASET_FIELD }) }` },
  'graphql.links': { graphql: `mutation { addLink(input: { linkUrl: "https://y.example.com", label: "y", resourceUrn: "${HIVE}" }) }` },
  'graphql.owners': { graphql: `mutation { addOwners(input: { owners: [{ ownerUrn: "urn:li:corpuser:jdoe", type: BUSINESS_OWNER }], resourceUrn: "${KAFKA}" }) }` },
  'graphql.domains': { graphql: `mutation { unsetDomain(entityUrn: "${HIVE}") }` },
  'graphql.deprecation': { graphql: `mutation { updateDeprecation(input: { urn: "${HIVE}", deprecated: true, note: "old" }) }` },
  'graphql.reportOperation': { graphql: `mutation { reportOperation(input: { urn: "${HIVE}", operationType: INSERT, sourceType: MANUAL }) }` },
  'graphql.updateEmbed': { graphql: `mutation { updateEmbed(input: { urn: "${HIVE}", renderUrl: "https://example.com/embed" }) }` },
  'graphql.editQueries': { graphql: `mutation { createQuery(input: { properties: { statement: { value: "SELECT 1", language: SQL } }, subjects: [{ datasetUrn: "${HIVE}" }] }) { urn } }` },
  // an assertion on HIVE, ingested before the table runs
  'graphql.deleteAssertion': { graphql: 'mutation { deleteAssertion(urn: "urn:li:assertion:security-check") }' },
  'graphql.softDelete': { graphql: `mutation { batchUpdateSoftDeleted(input: { urns: ["${HIVE}"], deleted: false }) }` },
  'graphql.updateLineage': { graphql: `mutation { updateLineage(input: { edgesToAdd: [{ downstreamUrn: "${HIVE}", upstreamUrn: "${KAFKA}" }], edgesToRemove: [] }) }` },
  'graphql.createTag': { graphql: 'mutation { createTag(input: { id: "inactive-tag", name: "t" }) }' },
  'graphql.updateTag': { graphql: 'mutation { updateTag(urn: "urn:li:tag:Legacy", input: { urn: "urn:li:tag:Legacy", name: "Legacy" }) { urn } }' },
  'graphql.deleteTag': { graphql: 'mutation { deleteTag(urn: "urn:li:tag:NeedsDocumentation") }' },
  'graphql.setTagColor': { graphql: 'mutation { setTagColor(urn: "urn:li:tag:Legacy", colorHex: "#00ff00") }' },
  'graphql.createOwnAccessToken': { graphql: 'mutation { createAccessToken(input: { type: PERSONAL, actorUrn: "ACTOR", duration: ONE_DAY, name: "x" }) { accessToken } }' },
  'graphql.listOwnAccessTokens': { graphql: '{ listAccessTokens(input: { start: 0, count: 10, filters: [{ field: "ownerUrn", values: ["ACTOR"] }] }) { total } }' },
  'graphql.manageAccessTokens': { graphql: '{ listAccessTokens(input: { start: 0, count: 10 }) { total } }' },
  'graphql.managePolicies': { graphql: '{ listPolicies(input: { start: 0, count: 10 }) { total } }' },
  'graphql.manageTests': { graphql: 'mutation { createTest(input: { id: "inactive", name: "m", category: "c", definition: { json: "{\\"on\\": {\\"types\\": [\\"dataset\\"]}, \\"rules\\": []}" } }) }' },
  'graphql.manageUsersAndGroups': { graphql: 'mutation { createGroup(input: { id: "inactive-group", name: "g" }) }' },
  'graphql.manageUserCredentials': { graphql: 'mutation { createNativeUserResetToken(input: { userUrn: "urn:li:corpuser:jdoe" }) { resetToken } }' },
  'graphql.groupMembers': { graphql: 'mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:bfoo", userUrns: ["urn:li:corpuser:jdoe"] }) }' },
  'graphql.userProfile': { graphql: 'mutation { updateCorpUserProperties(urn: "urn:li:corpuser:jdoe", input: { title: "t" }) { urn } }' },
  'graphql.userContactInfo': { graphql: 'mutation { updateCorpUserProperties(urn: "urn:li:corpuser:jdoe", input: { slack: "s" }) { urn } }' },
  'graphql.groupProperties': { graphql: 'mutation { updateCorpGroupProperties(urn: "urn:li:corpGroup:bfoo", input: { description: "d" }) { urn } }' },
  'graphql.manageOwnershipTypes': { graphql: 'mutation { createOwnershipType(input: { name: "Reviewer", description: "Reviews it" }) { urn } }' },
  'graphql.createDomain': { graphql: 'mutation { createDomain(input: { id: "sec-domain", name: "Sec" }) }' },
  'graphql.manageDomains': { graphql: 'mutation { moveDomain(input: { resourceUrn: "urn:li:domain:sec-domain" }) }' },
  'graphql.deleteDomain': { graphql: 'mutation { deleteDomain(urn: "urn:li:domain:none") }' },
  'graphql.manageGlossaries': { graphql: 'mutation { addRelatedTerms(input: { urn: "urn:li:glossaryTerm:SavingAccount", termUrns: ["urn:li:glossaryTerm:AccountBalance"], relationshipType: isA }) }' },
  'graphql.manageGlossaryChildren': { graphql: 'mutation { createGlossaryTerm(input: { id: "sec-term", name: "Sec", parentNode: "urn:li:glossaryNode:ClientsAndAccounts" }) }' },
  'graphql.manageAllGlossaryChildren': { graphql: 'mutation { createGlossaryNode(input: { id: "sec-node", name: "Sec", parentNode: "urn:li:glossaryNode:ClientsAndAccounts" }) }' },
  'graphql.manageDataProducts': { graphql: 'mutation { createDataProduct(input: { domainUrn: "urn:li:domain:sec-domain", properties: { name: "P" } }) { urn } }' },
  'graphql.dataProducts': { graphql: `mutation { batchSetDataProduct(input: { resourceUrns: ["${HIVE}"] }) }` },
  'graphql.manageGlobalViews': { graphql: 'mutation { updateGlobalViewsSettings(input: {}) }' },
  'graphql.createPost': { graphql: 'mutation { createPost(input: { postType: HOME_PAGE_ANNOUNCEMENT, content: { contentType: TEXT, title: "Hello" } }) }' },
  'graphql.deletePost': { graphql: 'mutation { deletePost(urn: "urn:li:post:none") }' },
  'graphql.viewAnalytics': { graphql: '{ getHighlights { value } }' },
  'read.dataHubPolicy': { graphql: '{ entity(urn: "urn:li:dataHubPolicy:7") { urn } }' },
  'read.dataHubAccessToken': { graphql: '{ entity(urn: "urn:li:dataHubAccessToken:none") { urn } }' },
  'read.dataHubSecret': { graphql: '{ entity(urn: "urn:li:dataHubSecret:none") { urn } }' },
  'read.ingestion': { graphql: '{ entity(urn: "urn:li:dataHubIngestionSource:none") { urn } }' },
  'read.inviteToken': { graphql: '{ entity(urn: "urn:li:inviteToken:none") { urn } }' },
};

forEachEngine('security: with every editable policy inactive, only the root user may act', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
    await t.catalog.entities.ingest([{ urn: 'urn:li:assertion:security-check', entityType: 'assertion', aspect: 'assertionInfo', changeType: 'UPSERT',
      systemMetadata: null, value: { type: 'DATASET', datasetAssertion: { dataset: HIVE, scope: 'DATASET_ROWS', operator: 'GREATER_THAN' } } }],
    { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    // An ingestion run to roll back (/runs?action=rollback checks DELETE_ENTITY on what it wrote).
    await t.catalog.entities.ingest([{ urn: HIVE, entityType: 'dataset', aspect: 'status', changeType: 'UPSERT',
      systemMetadata: { runId: 'security-run', lastObserved: 1 }, value: { removed: false } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
  });
  after(async () => t.close());

  async function call(c: Call, headers: Record<string, string>, actor: string): Promise<{ refused: boolean; detail: string }> {
    if ('graphql' in c) {
      const res = await t.graphql(c.graphql.replaceAll('ACTOR', actor), undefined, headers);
      return { refused: res.body.errors?.[0]?.extensions?.code === 403, detail: JSON.stringify(res.body).slice(0, 300) };
    }
    const res = await t.app.inject({ method: c.method, url: c.url, headers, ...(c.payload !== undefined ? { payload: c.payload as object } : {}) });
    return { refused: res.statusCode === 403, detail: `${res.statusCode} ${res.body.slice(0, 300)}` };
  }

  test('every operation in the privilege table is refused to an owner, a group member and a role holder, and allowed to root', async () => {
    assert.deepEqual(Object.keys(OPERATIONS).sort(), Object.keys(REQUIRES).sort(), 'one row per privilege-checked operation');
    // carol owns the samples' datasets (through a group too) and holds the Editor role: all of it comes from policies.
    const carol = await makeUser(t, 'carol');
    await ok(t, 'mutation { createGroup(input: { id: "owners", name: "Owners" }) }');
    await ok(t, `mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:owners", userUrns: ["${carol.urn}"] }) }`);
    await ok(t, `mutation { addOwners(input: { owners: [{ ownerUrn: "${carol.urn}", type: DATAOWNER }, { ownerUrn: "urn:li:corpGroup:owners", type: DATAOWNER }], resourceUrn: "${HIVE}" }) }`);
    await t.catalog.entities.ingest([{ urn: carol.urn, entityType: 'corpuser', aspect: 'roleMembership', changeType: 'UPSERT', systemMetadata: null,
      value: { roles: ['urn:li:dataHubRole:Editor'] } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    assert.equal((await call(OPERATIONS['graphql.tags'], carol.headers, carol.urn)).refused, false, 'allowed while the policies are on');

    const { policies } = await t.catalog.policies.list({ start: 0, count: 1000 });
    const editable = policies.filter((p) => p.info.editable !== false && p.info.state === 'ACTIVE');
    assert.equal(editable.length, 5); // 7, view-entity-page-all, view-dataset-sensitive, asset owners, editors edit entities
    for (const p of editable) {
      await ok(t, `mutation { updatePolicy(urn: "${p.urn}", input: { type: ${p.info.type}, name: ${JSON.stringify(p.info.displayName)}, state: INACTIVE,
        privileges: ${JSON.stringify(p.info.privileges)}, actors: { allUsers: ${!!p.info.actors.allUsers}, allGroups: false,
        resourceOwners: ${!!p.info.actors.resourceOwners}, users: ${JSON.stringify(p.info.actors.users ?? [])}, groups: ${JSON.stringify(p.info.actors.groups ?? [])},
        roles: ${JSON.stringify(p.info.actors.roles ?? [])} } }) }`);
    }
    // The role policies DataHub ships are not editable; take the role away to show nothing else grants.
    await t.catalog.entities.ingest([{ urn: carol.urn, entityType: 'corpuser', aspect: 'roleMembership', changeType: 'UPSERT', systemMetadata: null,
      value: { roles: [] } }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });

    for (const [op, c] of Object.entries(OPERATIONS)) {
      const r = await call(c, carol.headers, carol.urn);
      assert.equal(r.refused, true, `${op} should be refused to carol: ${r.detail}`);
    }
    for (const [op, c] of Object.entries(OPERATIONS)) {
      const r = await call(c, t.auth, 'urn:li:corpuser:datahub');
      assert.equal(r.refused, false, `${op} should be allowed to root: ${r.detail}`);
    }
  });
});
