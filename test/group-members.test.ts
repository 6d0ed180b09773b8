import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import type { ChangeItem } from '../src/services/ingest-format.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

/**
 * addGroupMembers / removeGroupMembers as DataHub 0.12.1's resolvers do them (AddGroupMembersResolver,
 * RemoveGroupMembersResolver, GroupService): a group without an origin (ingested by a connector or a sample file)
 * first has its members' `groupMembership` entries moved to `nativeGroupMembership` and is marked NATIVE, then the
 * users are added (or removed) as native members; a NATIVE group gets native members; an EXTERNAL group (from an
 * identity provider) is refused — a user error, not a 500.
 */
const BFOO = 'urn:li:corpGroup:bfoo';
const JDOE = 'urn:li:corpuser:jdoe';
const ROOT = 'urn:li:corpuser:datahub';

const upsert = (urn: string, aspect: string, value: unknown): ChangeItem => ({ urn, entityType: urn.startsWith('urn:li:corpuser:') ? 'corpuser' : 'corpGroup',
  aspect, changeType: 'UPSERT', value, systemMetadata: null });

forEachEngine('group members: native, ingested and external groups', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const ok = async (query: string) => {
    const res = await t.graphql(query);
    assert.equal(res.body.errors, undefined, JSON.stringify(res.body.errors));
    return res.body.data;
  };
  /** The membership aspects of users, and the origin of the group, as stored. */
  const stored = async (urns: string[], aspects: string[]) => Object.fromEntries([...await t.catalog.store.getLatest(urns, aspects)]
    .map(([urn, m]) => [urn, Object.fromEntries([...m].map(([a, r]) => [a, r.value]))]));
  const members = async (group: string) => (await ok(`{ corpGroup(urn: "${group}") { relationships(input: {
    types: ["IsMemberOfGroup", "IsMemberOfNativeGroup"], direction: INCOMING, start: 0, count: 100 }) { total relationships { type entity { urn } } } } }`))
    .corpGroup.relationships;
  const groupsOf = async (user: string) => (await ok(`{ corpUser(urn: "${user}") { relationships(input: {
    types: ["IsMemberOfGroup", "IsMemberOfNativeGroup"], direction: OUTGOING, start: 0, count: 100 }) { total relationships { type entity { urn } } } } }`))
    .corpUser.relationships;
  const byUrn = (a: { entity: { urn: string } }, b: { entity: { urn: string } }) => a.entity.urn.localeCompare(b.entity.urn);

  async function makeUsers(...names: string[]): Promise<string[]> {
    const urns = names.map((n) => `urn:li:corpuser:${n}`);
    await t.catalog.entities.ingest(urns.map((u, i) => upsert(u, 'corpUserInfo', { active: true, displayName: names[i] })), systemActor());
    return urns;
  }

  test('addGroupMembers on an ingested group (no origin): its members move to native membership, the group becomes NATIVE', async () => {
    // As a connector leaves it: the root user a member through groupMembership, of bfoo and of another group.
    await t.catalog.entities.ingest([upsert(ROOT, 'groupMembership', { groups: [BFOO, 'urn:li:corpGroup:jdoe'] })], systemActor());
    assert.deepEqual(await members(BFOO), { total: 1, relationships: [{ type: 'IsMemberOfGroup', entity: { urn: ROOT } }] });

    assert.deepEqual(await ok(`mutation { addGroupMembers(input: { groupUrn: "${BFOO}", userUrns: ["${JDOE}"] }) }`), { addGroupMembers: true });

    assert.deepEqual(await stored([ROOT, JDOE, BFOO], ['groupMembership', 'nativeGroupMembership', 'origin']), {
      [ROOT]: { groupMembership: { groups: ['urn:li:corpGroup:jdoe'] }, nativeGroupMembership: { nativeGroups: [BFOO] } },
      [JDOE]: { nativeGroupMembership: { nativeGroups: [BFOO] } },
      [BFOO]: { origin: { type: 'NATIVE' } },
    });
    const now = await members(BFOO);
    now.relationships.sort(byUrn);
    assert.deepEqual(now, { total: 2, relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: ROOT } },
      { type: 'IsMemberOfNativeGroup', entity: { urn: JDOE } }] });
    assert.deepEqual(await groupsOf(JDOE), { total: 1, relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: BFOO } }] });
    const root = await groupsOf(ROOT);
    root.relationships.sort(byUrn);
    assert.deepEqual(root, { total: 2, relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: BFOO } },
      { type: 'IsMemberOfGroup', entity: { urn: 'urn:li:corpGroup:jdoe' } }] });
  });

  test('removeGroupMembers on an ingested group (no origin): the others stay, as native members', async () => {
    const group = 'urn:li:corpGroup:ldap-readers';
    const [ann, bob] = await makeUsers('ann', 'bob');
    await t.catalog.entities.ingest([upsert(group, 'corpGroupInfo', { displayName: 'LDAP readers', admins: [], members: [], groups: [] }),
      upsert(ann!, 'groupMembership', { groups: [group] }), upsert(bob!, 'groupMembership', { groups: [group] })], systemActor());

    assert.deepEqual(await ok(`mutation { removeGroupMembers(input: { groupUrn: "${group}", userUrns: ["${ann}"] }) }`), { removeGroupMembers: true });

    assert.deepEqual(await stored([ann!, bob!, group], ['groupMembership', 'nativeGroupMembership', 'origin']), {
      [ann!]: { groupMembership: { groups: [] }, nativeGroupMembership: { nativeGroups: [] } },
      [bob!]: { groupMembership: { groups: [] }, nativeGroupMembership: { nativeGroups: [group] } },
      [group]: { origin: { type: 'NATIVE' } },
    });
    assert.deepEqual(await members(group), { total: 1, relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: bob } }] });
    assert.deepEqual(await groupsOf(ann!), { total: 0, relationships: [] });
  });

  test('a NATIVE group gets native members; adding twice keeps one entry; removing takes it out', async () => {
    const [cy] = await makeUsers('cy');
    await ok('mutation { createGroup(input: { id: "natives", name: "Natives" }) }');
    const group = 'urn:li:corpGroup:natives';
    await t.catalog.entities.ingest([upsert(cy!, 'nativeGroupMembership', { nativeGroups: [group, 'urn:li:corpGroup:other'] })], systemActor());
    await ok(`mutation { addGroupMembers(input: { groupUrn: "${group}", userUrns: ["${cy}"] }) }`);
    // As DataHub does it: the group is taken out and appended, so it comes last.
    assert.deepEqual(await stored([cy!, group], ['groupMembership', 'nativeGroupMembership', 'origin']), {
      [cy!]: { nativeGroupMembership: { nativeGroups: ['urn:li:corpGroup:other', group] } },
      [group]: { origin: { type: 'NATIVE' } },
    });
    assert.deepEqual(await members(group), { total: 1, relationships: [{ type: 'IsMemberOfNativeGroup', entity: { urn: cy } }] });
    await ok(`mutation { removeGroupMembers(input: { groupUrn: "${group}", userUrns: ["${cy}"] }) }`);
    assert.deepEqual(await stored([cy!], ['groupMembership', 'nativeGroupMembership']),
      { [cy!]: { nativeGroupMembership: { nativeGroups: ['urn:li:corpGroup:other'] } } });
    assert.deepEqual(await members(group), { total: 0, relationships: [] });
  });

  test('an EXTERNAL group (from an identity provider) is refused with a user error; nothing is written', async () => {
    const group = 'urn:li:corpGroup:okta-staff';
    const [dee, eve] = await makeUsers('dee', 'eve');
    await t.catalog.entities.ingest([upsert(group, 'corpGroupInfo', { displayName: 'Okta staff', admins: [], members: [], groups: [] }),
      upsert(group, 'origin', { type: 'EXTERNAL', externalType: 'OKTA' }), upsert(dee!, 'groupMembership', { groups: [group] })], systemActor());
    const before = await stored([dee!, eve!, group], ['groupMembership', 'nativeGroupMembership', 'origin']);
    assert.deepEqual(before, { [dee!]: { groupMembership: { groups: [group] } }, [group]: { origin: { type: 'EXTERNAL', externalType: 'OKTA' } } });

    const add = await t.graphql(`mutation { addGroupMembers(input: { groupUrn: "${group}", userUrns: ["${eve}"] }) }`);
    assert.deepEqual(add.body, { data: { addGroupMembers: null }, errors: [{ message: `Group ${group} was ingested from an external provider and cannot have members manually added to it`,
      locations: [{ line: 1, column: 12 }], path: ['addGroupMembers'], extensions: { code: 400, type: 'BAD_REQUEST', classification: 'DataFetchingException' } }],
    extensions: {} });
    const remove = await t.graphql(`mutation { removeGroupMembers(input: { groupUrn: "${group}", userUrns: ["${dee}"] }) }`);
    assert.deepEqual(remove.body.errors.map((e: any) => [e.message, e.extensions.code]),
      [[`Group ${group} was ingested from an external provider and cannot have members manually removed from it`, 400]]);
    assert.deepEqual(await stored([dee!, eve!, group], ['groupMembership', 'nativeGroupMembership', 'origin']), before);
    assert.deepEqual(await members(group), { total: 1, relationships: [{ type: 'IsMemberOfGroup', entity: { urn: dee } }] });
  });

  test('a group that does not exist: 404 for both; an unknown user cannot be added', async () => {
    const missing = 'urn:li:corpGroup:no-such-group';
    const add = await t.graphql(`mutation { addGroupMembers(input: { groupUrn: "${missing}", userUrns: ["${JDOE}"] }) }`);
    assert.deepEqual(add.body.errors.map((e: any) => [e.message, e.extensions.code]),
      [[`Failed to add members to group ${missing}. Group does not exist.`, 404]]);
    const remove = await t.graphql(`mutation { removeGroupMembers(input: { groupUrn: "${missing}", userUrns: ["${JDOE}"] }) }`);
    assert.deepEqual(remove.body.errors.map((e: any) => [e.message, e.extensions.code]),
      [[`Failed to remove members from group ${missing}. Group does not exist.`, 404]]);
    await ok('mutation { createGroup(input: { id: "for-ghosts", name: "Ghosts" }) }');
    const ghost = await t.graphql('mutation { addGroupMembers(input: { groupUrn: "urn:li:corpGroup:for-ghosts", userUrns: ["urn:li:corpuser:ghost"] }) }');
    assert.deepEqual(ghost.body.errors.map((e: any) => [e.message, e.extensions.code]), [['Entity urn:li:corpuser:ghost does not exist', 404]]);
  });
});
