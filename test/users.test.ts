import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

forEachEngine('users and groups', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const ok = async (query: string, headers?: Record<string, string>) => {
    const res = await t.graphql(query, undefined, headers);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };

  test('listUsers and listGroups page and filter', async () => {
    assert.deepEqual(await ok('{ listUsers(input: { start: 0, count: 10 }) { total users { username } } listGroups(input: { query: "bfoo" }) { total groups { name } } }'), {
      listUsers: { total: 2, users: [{ username: 'datahub' }, { username: 'jdoe' }] },
      listGroups: { total: 1, groups: [{ name: 'bfoo' }] },
    });
  });

  test('createGroup, members, properties; membership grants the group\'s policies', async () => {
    assert.deepEqual(await ok('mutation { createGroup(input: { id: "stewards", name: "Data stewards", description: "They curate" }) }'), { createGroup: 'urn:li:corpGroup:stewards' });
    const dup = await t.graphql('mutation { createGroup(input: { id: "stewards", name: "again" }) }');
    assert.equal(dup.body.errors[0].extensions.code, 409);
    await ok('mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:stewards", userUrns: ["urn:li:corpuser:jdoe"] }) }');
    await ok('mutation { updateCorpGroupProperties(urn: "urn:li:corpGroup:stewards", input: { slack: "#stewards" }) { urn } }');
    const g = await ok('{ corpGroup(urn: "urn:li:corpGroup:stewards") { properties { displayName description } editableProperties { slack } } }');
    assert.deepEqual(g.corpGroup, { properties: { displayName: 'Data stewards', description: 'They curate' }, editableProperties: { slack: '#stewards' } });
    const jdoe = { authorization: `Bearer ${await t.tokenFor('jdoe')}` };
    assert.equal((await t.graphql('mutation { createTag(input: { id: "by-steward", name: "x" }) }', undefined, jdoe)).body.errors[0].extensions.code, 403);
    await ok(`mutation { createPolicy(input: { type: PLATFORM, name: "stewards tag", state: ACTIVE, privileges: ["CREATE_TAGS"],
      actors: { groups: ["urn:li:corpGroup:stewards"], allUsers: false, allGroups: false, resourceOwners: false } }) }`);
    assert.deepEqual(await ok('mutation { createTag(input: { id: "by-steward", name: "x" }) }', jdoe), { createTag: 'urn:li:tag:by-steward' });
    await ok('mutation { removeGroupMembers(input: { groupUrn: "urn:li:corpGroup:stewards", userUrns: ["urn:li:corpuser:jdoe"] }) }');
    assert.equal((await t.graphql('mutation { createTag(input: { id: "by-steward-2", name: "x" }) }', undefined, jdoe)).body.errors[0].extensions.code, 403);
    const ghost = await t.graphql('mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:stewards", userUrns: ["urn:li:corpuser:ghost"] }) }');
    assert.equal(ghost.body.errors[0].extensions.code, 404);
  });

  test('suspending or removing a user stops their tokens; only administrators may', async () => {
    // A user and a group of this test's own, so it runs alone and leaves the samples' users as they were.
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpuser:pat', entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
      value: { active: true, displayName: 'Pat' }, systemMetadata: null }], { urn: 'urn:li:corpuser:datahub', kind: 'user' });
    await ok('mutation { createGroup(input: { id: "reviewers", name: "Reviewers" }) }');
    const pat = { authorization: `Bearer ${await t.tokenFor('pat')}` };
    assert.equal((await t.graphql('mutation { removeUser(urn: "urn:li:corpuser:datahub") }', undefined, pat)).body.errors[0].extensions.code, 403);
    await ok('mutation { updateUserStatus(urn: "urn:li:corpuser:pat", status: SUSPENDED) }');
    assert.equal((await t.app.inject({ url: '/config', headers: pat })).statusCode, 401);
    await ok('mutation { updateUserStatus(urn: "urn:li:corpuser:pat", status: ACTIVE) }');
    assert.equal((await t.app.inject({ url: '/config', headers: pat })).statusCode, 200);
    const users = async () => (await ok('{ listUsers(input: { start: 0, count: 100 }) { users { username } } }')).listUsers.users
      .map((u: { username: string }) => u.username).filter((n: string) => n === 'pat');
    assert.deepEqual(await users(), ['pat']);
    await ok('mutation { removeUser(urn: "urn:li:corpuser:pat") }');
    assert.equal((await t.app.inject({ url: '/config', headers: pat })).statusCode, 401);
    assert.deepEqual(await users(), []);
    await ok('mutation { removeGroup(urn: "urn:li:corpGroup:reviewers") }');
    assert.equal((await t.graphql('{ corpGroup(urn: "urn:li:corpGroup:reviewers") { urn } }')).body.errors[0].extensions.code, 404);
  });
});
