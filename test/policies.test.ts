import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Actor } from '../src/model/actor.js';
import type { PolicyInfo } from '../src/services/policies.js';
import { recordingReads } from '../src/services/read-tracking.js';
import { forEachEngine } from './support/engines.js';
import { ingestSamples, startApp, type TestApp } from './support/app.js';

const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)';
const user = (name: string): Actor => ({ urn: `urn:li:corpuser:${name}`, kind: 'user' });
const ROOT = user('datahub');
const JDOE = user('jdoe');
const ALICE = user('alice');
const CAROL = user('carol');

forEachEngine('policy evaluation', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, 'bootstrap_mce.json');
  });
  after(async () => t.close());

  const allowed = (actor: Actor, privilege: string, urn?: string) => t.catalog.authz.allowed(actor, [[privilege]], urn);
  const policy = (p: Partial<PolicyInfo>): PolicyInfo => ({ displayName: 'test policy', type: 'METADATA', state: 'ACTIVE',
    privileges: [], actors: {}, editable: true, ...p });

  test('the root user holds every platform and metadata privilege', async () => {
    for (const p of ['MANAGE_POLICIES', 'MANAGE_TESTS', 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE', 'CREATE_TAGS']) assert.equal(await allowed(ROOT, p), true, p);
    for (const p of ['EDIT_ENTITY', 'DELETE_ENTITY', 'EDIT_TAG_COLOR']) assert.equal(await allowed(ROOT, p, HIVE), true, p);
  });

  test('every user may view and make their own tokens, and nothing else by default', async () => {
    assert.equal(await allowed(ALICE, 'VIEW_ENTITY_PAGE', HIVE), true);
    assert.equal(await allowed(ALICE, 'GENERATE_PERSONAL_ACCESS_TOKENS'), true);
    for (const p of ['MANAGE_ACCESS_TOKENS', 'MANAGE_POLICIES', 'CREATE_TAGS', 'MANAGE_TESTS']) assert.equal(await allowed(ALICE, p), false, p);
    for (const p of ['EDIT_ENTITY', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_TAGS']) assert.equal(await allowed(ALICE, p, HIVE), false, p);
  });

  test('owners may edit what they own (DataHub\'s asset owners policy), but not delete it, and nothing else', async () => {
    // jdoe owns every sample dataset; the sample tag Legacy is owned by jdoe too.
    for (const p of ['EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS',
      'EDIT_DATASET_COL_DESCRIPTION', 'EDIT_ENTITY', 'EDIT_LINEAGE']) assert.equal(await allowed(JDOE, p, HDFS), true, p);
    assert.equal(await allowed(JDOE, 'DELETE_ENTITY', HDFS), false);
    assert.equal(await allowed(JDOE, 'EDIT_ENTITY_DOCS', 'urn:li:corpuser:datahub'), false);
  });

  test('the resource\'s owners and domains are read only when the rules that need neither do not grant enough', async () => {
    // What a check reads is what an answer built on it depends on (reused answers are dropped when it changes).
    const check = async (actor: Actor, privilege: string) => {
      const { record, result } = recordingReads(() => allowed(actor, privilege, HDFS));
      return { allowed: await result, readResource: record.urns.has(HDFS) };
    };
    assert.deepEqual(await check(ROOT, 'EDIT_ENTITY_DOCS'), { allowed: true, readResource: false });
    assert.deepEqual(await check(ALICE, 'VIEW_ENTITY_PAGE'), { allowed: true, readResource: false });
    assert.deepEqual(await check(JDOE, 'EDIT_ENTITY_DOCS'), { allowed: true, readResource: true }); // as its owner
    assert.deepEqual(await check(ALICE, 'EDIT_ENTITY_DOCS'), { allowed: false, readResource: true });
  });

  test('group owners: members of an owning group get owner rights', async () => {
    await t.catalog.edits.addOwners(HIVE, [{ ownerUrn: 'urn:li:corpGroup:bfoo' }], ROOT);
    // alice joins bfoo through her groupMembership aspect
    await t.catalog.entities.ingest([{ urn: ALICE.urn, entityType: 'corpuser', aspect: 'groupMembership', changeType: 'UPSERT',
      value: { groups: ['urn:li:corpGroup:bfoo'] }, systemMetadata: null }], ROOT);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY_DOCS', HIVE), true);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY_DOCS', HDFS), false);
  });

  test('group actors: members listed in corpGroupInfo count', async () => {
    const urn = await t.catalog.policies.create(policy({ type: 'PLATFORM', privileges: ['CREATE_TAGS'],
      actors: { groups: ['urn:li:corpGroup:jdoe'] } }), ROOT);
    // corpGroup:jdoe lists jdoe and datahub as members in the samples
    assert.equal(await allowed(JDOE, 'CREATE_TAGS'), true);
    assert.equal(await allowed(ALICE, 'CREATE_TAGS'), false);
    await t.catalog.policies.delete(urn);
    assert.equal(await allowed(JDOE, 'CREATE_TAGS'), false);
  });

  test('resource filters: by type, by urn, by domain', async () => {
    const ALICE = CAROL; // a user who owns nothing and belongs to no group
    const byType = await t.catalog.policies.create(policy({ privileges: ['EDIT_ENTITY'], actors: { users: [ALICE.urn] },
      resources: { filter: { criteria: [{ field: 'TYPE', values: ['tag'], condition: 'EQUALS' }] } } }), ROOT);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', 'urn:li:tag:Legacy'), true);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', HIVE), false);
    await t.catalog.policies.delete(byType);

    const byUrn = await t.catalog.policies.create(policy({ privileges: ['EDIT_ENTITY'], actors: { users: [ALICE.urn] },
      resources: { resources: [HDFS] } }), ROOT);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', HDFS), true);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', HIVE), false);
    await t.catalog.policies.delete(byUrn);

    await ingestSamples(t.catalog, 'test_domains.json');
    const inDomain = 'urn:li:dataset:(urn:li:dataPlatform:mysql,information_schema.VIEWS,PROD)';
    const byDomain = await t.catalog.policies.create(policy({ privileges: ['EDIT_ENTITY'], actors: { allUsers: true },
      resources: { filter: { criteria: [{ field: 'DOMAIN', values: ['urn:li:domain:marketing'], condition: 'EQUALS' }] } } }), ROOT);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', inDomain), true);
    assert.equal(await allowed(ALICE, 'EDIT_ENTITY', HIVE), false);
    await t.catalog.policies.delete(byDomain);
  });

  test('inactive policies grant nothing; switching one on or off applies to the next check', async () => {
    const seven = await t.catalog.policies.get('urn:li:dataHubPolicy:7');
    assert.equal(seven.info.displayName, 'All Users - Base Platform Privileges');
    assert.equal(await allowed(CAROL, 'GENERATE_PERSONAL_ACCESS_TOKENS'), true);
    await t.catalog.policies.update(seven.urn, { ...seven.info, state: 'INACTIVE' }, ROOT);
    assert.equal(await allowed(CAROL, 'GENERATE_PERSONAL_ACCESS_TOKENS'), false);
    assert.equal(await allowed(CAROL, 'VIEW_ANALYTICS'), false);
    await t.catalog.policies.update(seven.urn, { ...seven.info, state: 'ACTIVE' }, ROOT);
    assert.equal(await allowed(CAROL, 'GENERATE_PERSONAL_ACCESS_TOKENS'), true);

    const editAll = await t.catalog.policies.create(policy({ state: 'INACTIVE', privileges: ['EDIT_ENTITY'], actors: { allUsers: true } }), ROOT);
    assert.equal(await allowed(CAROL, 'EDIT_ENTITY', HIVE), false);
    await t.catalog.policies.update(editAll, { ...policy({ privileges: ['EDIT_ENTITY'], actors: { allUsers: true } }), state: 'ACTIVE' }, ROOT);
    assert.equal(await allowed(CAROL, 'EDIT_ENTITY', HIVE), true);
    await t.catalog.policies.delete(editAll);
    assert.equal(await allowed(CAROL, 'EDIT_ENTITY', HIVE), false);
  });

  test('DataHub\'s built-in roles: a user\'s roleMembership grants the role policies\' privileges', async () => {
    const dave = user('dave');
    const setRoles = (roles: string[]) => t.catalog.entities.ingest([{ urn: dave.urn, entityType: 'corpuser', aspect: 'roleMembership',
      changeType: 'UPSERT', value: { roles }, systemMetadata: null }], ROOT);
    assert.equal(await allowed(dave, 'EDIT_ENTITY', HIVE), false);
    await setRoles(['urn:li:dataHubRole:Editor']);
    assert.equal(await allowed(dave, 'EDIT_ENTITY', HIVE), true); // editor-metadata-policy-entities: datasets
    assert.equal(await allowed(dave, 'EDIT_ENTITY', 'urn:li:corpuser:jdoe'), false); // but not users
    assert.equal(await allowed(dave, 'MANAGE_TAGS'), true);
    assert.equal(await allowed(dave, 'MANAGE_POLICIES'), false);
    await setRoles(['urn:li:dataHubRole:Admin']);
    assert.equal(await allowed(dave, 'MANAGE_POLICIES'), true);
    assert.equal(await allowed(dave, 'DELETE_ENTITY', HIVE), true);
    await setRoles(['urn:li:dataHubRole:Reader']);
    assert.equal(await allowed(dave, 'MANAGE_POLICIES'), false);
    assert.equal(await allowed(dave, 'EDIT_ENTITY', HIVE), false);
    assert.equal(await allowed(dave, 'VIEW_DATASET_PROFILE', HIVE), true);
  });

  test('the built-in policies and roles are DataHub 0.12.1\'s, by urn, name, type, state and editability', async () => {
    const { policies, total } = await t.catalog.policies.list({ start: 0, count: 100 });
    // Policies created by administrators (here: by other tests) have random uuids.
    const builtIn = policies.filter((p) => !/^urn:li:dataHubPolicy:[0-9a-f]{8}-/.test(p.urn))
      .map((p) => [p.urn, p.info.displayName, p.info.type, p.info.state, p.info.editable]);
    assert.deepEqual(builtIn, [
      ['urn:li:dataHubPolicy:0', 'Root User - All Platform Privileges', 'PLATFORM', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:1', 'Root User - Edit and View All Resources', 'METADATA', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:7', 'All Users - Base Platform Privileges', 'PLATFORM', 'ACTIVE', true],
      ['urn:li:dataHubPolicy:admin-metadata-policy', 'Admins - Metadata Policy', 'METADATA', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:admin-platform-policy', 'Admins - Platform Policy', 'PLATFORM', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:asset-owners-metadata-policy', 'Asset Owners - Metadata Policy', 'METADATA', 'ACTIVE', true],
      ['urn:li:dataHubPolicy:editor-metadata-policy', 'Editors - Metadata Policy', 'METADATA', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:editor-metadata-policy-entities', 'Editors - Edit Metadata Entities', 'METADATA', 'ACTIVE', true],
      ['urn:li:dataHubPolicy:editor-platform-policy', 'Editors - Platform Policy', 'PLATFORM', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:reader-metadata-policy', 'Readers - Metadata Policy', 'METADATA', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:reader-platform-policy', 'Readers - Platform Policy', 'PLATFORM', 'ACTIVE', false],
      ['urn:li:dataHubPolicy:view-dataset-sensitive', 'All Users - View Dataset Sensitive Information', 'METADATA', 'ACTIVE', true],
      ['urn:li:dataHubPolicy:view-entity-page-all', 'All Users - View Entity Page', 'METADATA', 'ACTIVE', true],
    ]);
    assert.equal(total, policies.length);
    const seven = await t.catalog.policies.get('urn:li:dataHubPolicy:7');
    assert.deepEqual(seven.info.privileges, ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS']);
    assert.deepEqual(seven.info.actors, { users: [], groups: [], allUsers: true, allGroups: false, resourceOwners: false });
    const roles = await t.catalog.store.getLatest(['urn:li:dataHubRole:Admin', 'urn:li:dataHubRole:Editor', 'urn:li:dataHubRole:Reader'], ['dataHubRoleInfo']);
    assert.deepEqual([...roles.values()].map((m) => (m.get('dataHubRoleInfo')?.value as { name: string }).name).sort(), ['Admin', 'Editor', 'Reader']);
  });

  test('the root policies cannot be changed or deleted', async () => {
    const zero = await t.catalog.policies.get('urn:li:dataHubPolicy:0');
    await assert.rejects(t.catalog.policies.update(zero.urn, { ...zero.info, state: 'INACTIVE' }, ROOT), /built in and cannot be changed/);
    await assert.rejects(t.catalog.policies.delete('urn:li:dataHubPolicy:1'), /built in and cannot be deleted/);
    assert.equal(await allowed(ROOT, 'MANAGE_POLICIES'), true);
  });

  test('invalid policies are refused', async () => {
    await assert.rejects(t.catalog.policies.create(policy({ privileges: ['FLY'] }), ROOT), /Unknown privilege\(s\): FLY/);
    await assert.rejects(t.catalog.policies.create(policy({ displayName: ' ' }), ROOT), /needs a name/);
    await assert.rejects(t.catalog.policies.create(policy({ actors: { users: ['bob'] } }), ROOT), /Invalid urn/);
  });

  test('the system client holds everything', async () => {
    assert.equal(await t.catalog.authz.allowed({ urn: 'urn:li:corpuser:__datahub_system', kind: 'system' }, [['MANAGE_POLICIES']]), true);
  });
});
