import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { webappText } from './support/webapp.js';
import { PLATFORM_PRIVILEGE_LIST, RESOURCE_PRIVILEGE_LIST } from '../src/services/privilege-catalog.js';
import { inviteTokenUrn } from '../src/services/invite-tokens.js';
import { ALMANAC_VERSION } from '../src/version.js';

/**
 * The web app's shell and settings, with DataHub 0.12.1's own documents (test/fixtures/datahub-webapp-graphql) and
 * the variables the web app sends: appConfig, me and the user's settings, views, posts, roles and invitations,
 * onboarding step states and getGrantedPrivileges, each as the caller's privileges allow.
 */

const ROOT = 'urn:li:corpuser:datahub';
const ALICE = 'urn:li:corpuser:alice';
const BOB = 'urn:li:corpuser:bob';
const HIVE = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.orders,PROD)';
const KAFKA = 'urn:li:dataset:(urn:li:dataPlatform:kafka,orders-topic,PROD)';
const system = { urn: ROOT, kind: 'user' as const };

type Headers = Record<string, string>;

async function run(t: TestApp, op: string, variables: Record<string, unknown> = {}, headers?: Headers, file?: string) {
  const res = await t.graphql(webappText(op, file), variables, headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.errors, undefined, `${op}: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}

/** The error code an operation answers (it must fail). */
async function refused(t: TestApp, op: string, variables: Record<string, unknown>, headers?: Headers, file?: string) {
  const res = await t.graphql(webappText(op, file), variables, headers);
  assert.ok(res.body.errors?.length, `${op} should fail: ${JSON.stringify(res.body)}`);
  return res.body.errors[0].extensions?.code;
}

async function user(t: TestApp, name: string, displayName: string) {
  await t.catalog.entities.ingest([{ urn: `urn:li:corpuser:${name}`, entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
    systemMetadata: null, value: { active: true, displayName, email: `${name}@example.com`, title: 'Analyst' } }], system);
  return { authorization: `Bearer ${await t.tokenFor(name)}` };
}

const meOf = (urn: string, username: string, displayName: string, settings: unknown, privileges: Record<string, boolean>) => ({
  me: {
    corpUser: { urn, username, info: { active: true, displayName, title: 'Analyst', firstName: null, lastName: null, fullName: null,
      email: `${username}@example.com` }, editableProperties: null, settings },
    platformPrivileges: privileges,
  },
});

const PRIVILEGE_FIELDS = ['viewAnalytics', 'managePolicies', 'manageIdentities', 'generatePersonalAccessTokens', 'manageIngestion',
  'manageSecrets', 'manageDomains', 'manageTests', 'manageGlossaries', 'manageUserCredentials', 'manageTags', 'createDomains',
  'createTags', 'manageGlobalViews', 'manageOwnershipTypes', 'manageGlobalAnnouncements'];
const privileges = (granted: string[]) => Object.fromEntries(PRIVILEGE_FIELDS.map((f) => [f, granted.includes(f)]));
/** What the base policy gives every user. */
const BASE = ['viewAnalytics', 'generatePersonalAccessTokens'];

const viewInput = (viewType: string, name: string, operator: string, filters: unknown[], entityTypes = ['DATASET']) =>
  ({ input: { viewType, name, description: `${name} only`, definition: { entityTypes, filter: { operator, filters } } } });

const view = (urn: string, viewType: string, name: string, description: string | null, operator: string, filters: unknown[], entityTypes = ['DATASET']) =>
  ({ urn, type: 'DATAHUB_VIEW', viewType, name, description, definition: { entityTypes, filter: { operator, filters } } });

forEachEngine('the web app shell and settings', (ctx) => {
  let t: TestApp;
  let alice: Headers;
  let bob: Headers;

  before(async () => {
    t = await startApp(ctx);
    await user(t, 'datahub', 'DataHub');
    alice = await user(t, 'alice', 'Alice');
    bob = await user(t, 'bob', 'Bob');
    await t.catalog.entities.ingest([HIVE, KAFKA].map((urn) => ({ urn, entityType: 'dataset', aspect: 'datasetProperties',
      changeType: 'UPSERT' as const, systemMetadata: null, value: { name: urn.includes('hive') ? 'orders' : 'orders-topic', customProperties: {} } })), system);
  });
  after(async () => t.close());

  test('appConfig answers Almanac\'s configuration and the privileges a policy may grant', async () => {
    const data = await run(t, 'appConfig');
    const privilege = (type: string) => {
      const p = PLATFORM_PRIVILEGE_LIST.find((x) => x.type === type) ?? RESOURCE_PRIVILEGE_LIST.at(-1)!.privileges.find((x) => x.type === type)!;
      return { type, displayName: p.displayName, description: p.description };
    };
    const COMMON = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS',
      'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS', 'EDIT_DEPRECATION_PRIVILEGE',
      'EDIT_ENTITY', 'DELETE_ENTITY'];
    const resources: [string, string, string | null, string[]][] = [
      ['dataset', 'Datasets', 'DATASET', [...COMMON, 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'EDIT_DATASET_COL_DESCRIPTION',
        'EDIT_DATASET_COL_TAGS', 'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_LINEAGE', 'EDIT_ENTITY_EMBED', 'EDIT_ENTITY_QUERIES']],
      ['dashboard', 'Dashboards', 'DASHBOARD', [...COMMON, 'EDIT_LINEAGE', 'EDIT_ENTITY_EMBED']],
      ['chart', 'Charts', 'CHART', [...COMMON, 'EDIT_LINEAGE', 'EDIT_ENTITY_EMBED']],
      ['dataFlow', 'Data Pipelines', 'DATA_FLOW', COMMON],
      ['dataJob', 'Data Tasks', 'DATA_JOB', [...COMMON, 'EDIT_LINEAGE']],
      ['tag', 'Tags', 'TAG', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_TAG_COLOR', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY', 'DELETE_ENTITY']],
      ['container', 'Containers', 'CONTAINER', COMMON],
      ['domain', 'Domains', 'DOMAIN', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY',
        'DELETE_ENTITY', 'MANAGE_DATA_PRODUCTS']],
      ['glossaryTerm', 'Glossary Terms', 'GLOSSARY_TERM', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS',
        'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY']],
      ['glossaryNode', 'Glossary Term Groups', 'GLOSSARY_NODE', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS',
        'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN']],
      ['corpGroup', 'Groups', 'CORP_GROUP', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_GROUP_MEMBERS', 'EDIT_CONTACT_INFO', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY']],
      ['corpuser', 'Users', 'CORP_USER', ['VIEW_ENTITY_PAGE', 'EDIT_CONTACT_INFO', 'EDIT_USER_PROFILE', 'EDIT_ENTITY']],
      ['notebook', 'Notebook', 'NOTEBOOK', COMMON],
      ['dataProduct', 'Data Products', 'DATA_PRODUCT', ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS',
        'EDIT_ENTITY', 'DELETE_ENTITY', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_DOMAINS_PRIVILEGE']],
    ];
    const allTypes = [...new Set(resources.flatMap((r) => r[3]))];
    assert.equal(allTypes.length, 28);
    assert.deepEqual(data, { appConfig: {
      appVersion: ALMANAC_VERSION,
      policiesConfig: {
        enabled: true,
        platformPrivileges: ['MANAGE_POLICIES', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS', 'GET_ANALYTICS_PRIVILEGE', 'MANAGE_DOMAINS',
          'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS',
          'MANAGE_TESTS', 'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'CREATE_TAGS', 'CREATE_DOMAINS',
          'CREATE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_GLOBAL_VIEWS', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS', 'VIEW_METRICS'].map(privilege),
        resourcePrivileges: [...resources, ['all', 'All Types', null, allTypes] as const].map(([resourceType, resourceTypeDisplayName, entityType, types]) =>
          ({ resourceType, resourceTypeDisplayName, entityType, privileges: types.map(privilege) })),
      },
      analyticsConfig: { enabled: true },
      authConfig: { tokenAuthEnabled: true },
      identityManagementConfig: { enabled: true },
      lineageConfig: { supportsImpactAnalysis: true },
      managedIngestionConfig: { enabled: false },
      visualConfig: { logoUrl: '/assets/platforms/datahublogo.png', faviconUrl: '/assets/favicon.ico', queriesTab: { queriesTabResultSize: 5 },
        entityProfiles: { domain: { defaultTab: null } }, searchResult: { enableNameHighlight: true } },
      telemetryConfig: { enableThirdPartyLogging: false },
      testsConfig: { enabled: true },
      viewsConfig: { enabled: true },
      featureFlags: { readOnlyModeEnabled: false, showSearchFiltersV2: true, showBrowseV2: true, showAcrylInfo: false,
        showAccessManagement: false, nestedDomainsEnabled: true },
    } });
  });

  test('me: the user, their settings and the platform privileges their policies grant', async () => {
    const noSettings = { appearance: { showSimplifiedHomepage: false }, views: null };
    assert.deepEqual(await run(t, 'getMe'), meOf(ROOT, 'datahub', 'DataHub', noSettings, privileges(PRIVILEGE_FIELDS)));
    assert.deepEqual(await run(t, 'getMe', {}, alice), meOf(ALICE, 'alice', 'Alice', noSettings, privileges(BASE)));

    assert.deepEqual(await run(t, 'updateUserSetting', { input: { name: 'SHOW_SIMPLIFIED_HOMEPAGE', value: true } }, alice), { updateUserSetting: true });
    assert.deepEqual(await run(t, 'getMe', {}, alice), meOf(ALICE, 'alice', 'Alice',
      { appearance: { showSimplifiedHomepage: true }, views: null }, privileges(BASE)));
    // Only the caller's own settings changed.
    assert.deepEqual((await run(t, 'getMe', {}, bob)).me.corpUser.settings, noSettings);
    assert.deepEqual(await run(t, 'updateUserSetting', { input: { name: 'SHOW_SIMPLIFIED_HOMEPAGE', value: false } }, alice), { updateUserSetting: true });

    // A caller whose user was never stored: NOT_FOUND, nothing written.
    const ghost = { authorization: `Bearer ${await t.tokenFor('ghost')}` };
    assert.equal(await refused(t, 'updateUserSetting', { input: { name: 'SHOW_SIMPLIFIED_HOMEPAGE', value: true } }, ghost), 404);
    assert.equal(await t.catalog.entities.exists('urn:li:corpuser:ghost'), false);
  });

  test('getGrantedPrivileges: the caller\'s own privileges, on the platform or on a resource', async () => {
    const platform = await run(t, 'getGrantedPrivileges', { input: { actorUrn: ALICE } }, alice);
    assert.deepEqual(platform, { getGrantedPrivileges: { privileges: ['GENERATE_PERSONAL_ACCESS_TOKENS', 'GET_COUNTS_PRIVILEGE', 'GET_ENTITY_PRIVILEGE',
      'GET_TIMELINE_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'SEARCH_PRIVILEGE', 'VIEW_ANALYTICS', 'VIEW_DATASET_PROFILE', 'VIEW_DATASET_USAGE',
      'VIEW_ENTITY_PAGE'] } });
    // Owning a dataset adds the asset owners' policy on it (not on another dataset).
    const owned = await t.graphql(`mutation { addOwners(input: { owners: [{ ownerUrn: "${ALICE}", type: DATAOWNER }], resourceUrn: "${HIVE}" }) }`);
    assert.equal(owned.body.errors, undefined, JSON.stringify(owned.body));
    const onHive = (await run(t, 'getGrantedPrivileges', { input: { actorUrn: ALICE, resourceSpec: { resourceType: 'DATASET', resourceUrn: HIVE } } }, alice))
      .getGrantedPrivileges.privileges as string[];
    const onKafka = (await run(t, 'getGrantedPrivileges', { input: { actorUrn: ALICE, resourceSpec: { resourceType: 'DATASET', resourceUrn: KAFKA } } }, alice))
      .getGrantedPrivileges.privileges as string[];
    assert.ok(onHive.includes('EDIT_ENTITY') && onHive.includes('EDIT_ENTITY_OWNERS'), onHive.join());
    assert.deepEqual(onKafka.filter((p) => p.startsWith('EDIT_')), []);
    // Nobody asks about someone else.
    assert.equal(await refused(t, 'getGrantedPrivileges', { input: { actorUrn: BOB } }, alice), 403);
  });

  test('views: personal ones for their owner, global ones for those who manage them; the default views', async () => {
    const hiveOnly = [{ field: 'platform', values: ['urn:li:dataPlatform:hive'], negated: false, condition: 'EQUAL' }];
    const created = await run(t, 'createView', viewInput('PERSONAL', 'Hive', 'AND', hiveOnly), alice);
    const mine = created.createView.urn as string;
    assert.match(mine, /^urn:li:dataHubView:[0-9a-f-]{36}$/);
    const mineView = view(mine, 'PERSONAL', 'Hive', 'Hive only', 'AND', hiveOnly);
    assert.deepEqual(created, { createView: mineView });
    // Stored as DataHub stores it: entity names, keyword fields, one conjunction for AND.
    const storedView = (await t.catalog.entities.getLatest(mine)).get('dataHubViewInfo')?.value as { created: { time: number } };
    assert.ok(Math.abs(storedView.created.time - Date.now()) < 60_000, `created at ${storedView.created.time}, now`);
    assert.deepEqual(storedView, {
      name: 'Hive', description: 'Hive only', type: 'PERSONAL',
      definition: { entityTypes: ['dataset'], filter: { or: [{ and: [{ field: 'platform.keyword', value: 'urn:li:dataPlatform:hive',
        values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false }] }] } },
      created: { time: storedView.created.time, actor: ALICE }, lastModified: { time: storedView.created.time, actor: ALICE },
    });
    // The view applies to search.
    const searched = await t.graphql(`{ searchAcrossEntities(input: { query: "*", viewUrn: "${mine}" }) { total searchResults { entity { urn } } } }`, undefined, alice);
    assert.deepEqual(searched.body.data, { searchAcrossEntities: { total: 1, searchResults: [{ entity: { urn: HIVE } }] } });

    // Only those who manage global views create one.
    const either = [{ field: 'platform', values: ['urn:li:dataPlatform:hive'], negated: false, condition: 'EQUAL' },
      { field: 'platform', values: ['urn:li:dataPlatform:kafka'], negated: false, condition: 'EQUAL' }];
    assert.equal(await refused(t, 'createView', viewInput('GLOBAL', 'Both', 'OR', either), alice), 403);
    const global = (await run(t, 'createView', viewInput('GLOBAL', 'Both', 'OR', either, ['DATASET', 'CHART']))).createView.urn as string;
    const globalView = view(global, 'GLOBAL', 'Both', 'Both only', 'OR', either, ['DATASET', 'CHART']);

    const list = (views: unknown[]) => ({ start: 0, count: views.length, total: views.length, views });
    assert.deepEqual(await run(t, 'listMyViews', { start: 0, count: 10 }, alice), { listMyViews: list([mineView]) });
    assert.deepEqual(await run(t, 'listMyViews', { start: 0, count: 10, viewType: 'GLOBAL' }, alice), { listMyViews: list([]) });
    assert.deepEqual(await run(t, 'listMyViews', { start: 0, count: 10 }, bob), { listMyViews: list([]) });
    assert.deepEqual(await run(t, 'listMyViews', { start: 0, count: 10, viewType: 'GLOBAL' }), { listMyViews: list([globalView]) });
    assert.deepEqual(await run(t, 'listGlobalViews', { start: 0, count: 10 }, bob), { listGlobalViews: list([globalView]) });
    assert.deepEqual(await run(t, 'listGlobalViews', { start: 0, count: 10, query: 'nothing' }, bob), { listGlobalViews: list([]) });

    // Someone else's personal view is not theirs to change; a global view is for those who manage global views.
    const rename = { urn: mine, input: { name: 'Hive tables' } };
    assert.equal(await refused(t, 'updateView', rename, bob), 403);
    assert.equal(await refused(t, 'deleteView', { urn: mine }, bob), 403);
    assert.equal(await refused(t, 'updateView', { urn: global, input: { name: 'x' } }, alice), 403);
    assert.deepEqual(await run(t, 'updateView', rename, alice), { updateView: { ...mineView, name: 'Hive tables' } });
    assert.equal(await refused(t, 'updateView', { urn: 'urn:li:dataHubView:none', input: { name: 'x' } }, alice), 404);

    // Defaults: a user's own (or a global one), and the organisation's (a global one).
    assert.deepEqual(await run(t, 'updateCorpUserViewsSettings', { input: { defaultView: mine } }, alice), { updateCorpUserViewsSettings: true });
    assert.equal(await refused(t, 'updateCorpUserViewsSettings', { input: { defaultView: mine } }, bob), 403);
    assert.deepEqual((await run(t, 'getMe', {}, alice)).me.corpUser.settings,
      { appearance: { showSimplifiedHomepage: false }, views: { defaultView: { urn: mine } } });
    assert.deepEqual(await run(t, 'getGlobalViewsSettings', {}, bob), { globalViewsSettings: { defaultView: null } });
    assert.equal(await refused(t, 'updateGlobalViewsSettings', { input: { defaultView: global } }, alice), 403);
    assert.equal(await refused(t, 'updateGlobalViewsSettings', { input: { defaultView: mine } }), 400);
    assert.deepEqual(await run(t, 'updateGlobalViewsSettings', { input: { defaultView: global } }), { updateGlobalViewsSettings: true });
    assert.deepEqual(await run(t, 'getGlobalViewsSettings', {}, bob), { globalViewsSettings: { defaultView: global } });

    // Deleted views are no one's default any more.
    assert.deepEqual(await run(t, 'deleteView', { urn: mine }, alice), { deleteView: true });
    assert.deepEqual(await run(t, 'deleteView', { urn: global }), { deleteView: true });
    assert.deepEqual((await run(t, 'getMe', {}, alice)).me.corpUser.settings,
      { appearance: { showSimplifiedHomepage: false }, views: { defaultView: null } });
    assert.deepEqual(await run(t, 'getGlobalViewsSettings', {}, bob), { globalViewsSettings: { defaultView: null } });
    assert.deepEqual(await run(t, 'updateCorpUserViewsSettings', { input: {} }, alice), { updateCorpUserViewsSettings: true });
    assert.deepEqual(await run(t, 'updateGlobalViewsSettings', { input: {} }), { updateGlobalViewsSettings: true });
    assert.deepEqual(await run(t, 'listMyViews', { start: 0, count: 10 }, alice), { listMyViews: list([]) });
  });

  test('posts: announcements published and removed by those who manage them, read by everyone', async () => {
    const text = { postType: 'HOME_PAGE_ANNOUNCEMENT', content: { contentType: 'TEXT', title: 'Welcome', description: 'Read the **guide**' } };
    const link = { postType: 'HOME_PAGE_ANNOUNCEMENT', content: { contentType: 'LINK', title: 'Guide', link: 'https://example.com/guide',
      media: { type: 'IMAGE', location: 'https://example.com/guide.png' } } };
    assert.equal(await refused(t, 'createPost', { input: text }, alice, 'post.graphql'), 403);
    assert.deepEqual(await run(t, 'createPost', { input: text }, undefined, 'post.graphql'), { createPost: true });
    await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(await run(t, 'createPost', { input: link }, undefined, 'mutations.graphql'), { createPost: true });
    const listed = await run(t, 'listPosts', { input: { start: 0, count: 10 } }, bob);
    const [g, w] = listed.listPosts.posts.map((p: { urn: string }) => p.urn);
    assert.deepEqual(listed, { listPosts: { start: 0, count: 2, total: 2, posts: [
      { urn: g, type: 'POST', postType: 'HOME_PAGE_ANNOUNCEMENT', content: { contentType: 'LINK', title: 'Guide', description: null,
        link: 'https://example.com/guide', media: { type: 'IMAGE', location: 'https://example.com/guide.png' } } },
      { urn: w, type: 'POST', postType: 'HOME_PAGE_ANNOUNCEMENT', content: { contentType: 'TEXT', title: 'Welcome', description: 'Read the **guide**',
        link: null, media: null } },
    ] } });
    assert.deepEqual((await run(t, 'listPosts', { input: { start: 0, count: 10, query: 'welcome' } }, bob)).listPosts.total, 1);
    assert.equal(await refused(t, 'deletePost', { urn: g }, alice), 403);
    assert.deepEqual(await run(t, 'deletePost', { urn: g }), { deletePost: true });
    assert.equal(await refused(t, 'deletePost', { urn: g }), 404);
    assert.deepEqual((await run(t, 'listPosts', { input: { start: 0, count: 10 } }, bob)).listPosts.posts.map((p: { urn: string }) => p.urn), [w]);
    await run(t, 'deletePost', { urn: w });
  });

  test('roles: listed with their members and policies; assigned by those who manage policies; invitations', async () => {
    const member = (urn: string, username: string, displayName: string) => ({ entity: { urn, type: 'CORP_USER', username,
      info: { active: true, displayName, title: 'Analyst', firstName: null, lastName: null, fullName: null }, editableProperties: null } });
    const policy = (urn: string, name: string) => ({ entity: { urn, type: 'DATAHUB_POLICY', name, relationships: { start: 0, count: 1, total: 1 } } });
    const role = (name: string, description: string, users: unknown[], policies: unknown[]) => ({
      urn: `urn:li:dataHubRole:${name}`, type: 'DATAHUB_ROLE', name, description,
      users: { start: 0, count: users.length, total: users.length, relationships: users },
      policies: { start: 0, count: policies.length, total: policies.length, relationships: policies },
    });
    const roles = (admins: unknown[], editors: unknown[], readers: unknown[]) => ({ listRoles: { start: 0, count: 3, total: 3, roles: [
      role('Admin', 'Every platform and metadata privilege.', admins, [policy('urn:li:dataHubPolicy:admin-metadata-policy', 'Admins - Metadata Policy'),
        policy('urn:li:dataHubPolicy:admin-platform-policy', 'Admins - Platform Policy')]),
      role('Editor', 'Reads and edits all metadata; no administration.', editors, [
        policy('urn:li:dataHubPolicy:editor-metadata-policy', 'Editors - Metadata Policy'),
        policy('urn:li:dataHubPolicy:editor-metadata-policy-entities', 'Editors - Edit Metadata Entities'),
        policy('urn:li:dataHubPolicy:editor-platform-policy', 'Editors - Platform Policy')]),
      role('Reader', 'Reads all metadata; edits nothing by default.', readers, [
        policy('urn:li:dataHubPolicy:reader-metadata-policy', 'Readers - Metadata Policy'),
        policy('urn:li:dataHubPolicy:reader-platform-policy', 'Readers - Platform Policy')]),
    ] } });
    const sortPolicies = (d: any) => { for (const r of d.listRoles.roles) r.policies.relationships.sort((a: any, b: any) => a.entity.urn.localeCompare(b.entity.urn)); return d; };
    const input = { input: { start: 0, count: 10, query: '' } };
    assert.deepEqual(sortPolicies(await run(t, 'listRoles', input, bob)), roles([], [], []));

    // Only those who manage policies assign roles; every actor must exist, or nothing is written.
    assert.equal(await refused(t, 'batchAssignRole', { input: { roleUrn: 'urn:li:dataHubRole:Editor', actors: [BOB] } }, alice), 403);
    assert.equal(await refused(t, 'batchAssignRole', { input: { roleUrn: 'urn:li:dataHubRole:Editor', actors: [BOB, 'urn:li:corpuser:nobody'] } }), 404);
    assert.equal(await refused(t, 'batchAssignRole', { input: { roleUrn: 'urn:li:dataHubRole:Owner', actors: [BOB] } }), 404);
    assert.deepEqual(sortPolicies(await run(t, 'listRoles', input, bob)), roles([], [], []));
    assert.deepEqual(await run(t, 'batchAssignRole', { input: { roleUrn: 'urn:li:dataHubRole:Editor', actors: [BOB, ALICE] } }), { batchAssignRole: true });
    assert.deepEqual(sortPolicies(await run(t, 'listRoles', input, bob)),
      roles([], [member(ALICE, 'alice', 'Alice'), member(BOB, 'bob', 'Bob')].sort((a, b) => a.entity.urn.localeCompare(b.entity.urn)), []));
    // The role's privileges apply at once.
    assert.deepEqual((await run(t, 'getMe', {}, bob)).me.platformPrivileges,
      privileges([...BASE, 'manageDomains', 'manageGlobalAnnouncements', 'manageGlossaries', 'manageTags']));
    assert.deepEqual(await run(t, 'batchAssignRole', { input: { roleUrn: null, actors: [ALICE] } }), { batchAssignRole: true });
    assert.deepEqual((await run(t, 'listRoles', { input: { start: 0, count: 10, query: 'editor' } }, bob)).listRoles.roles
      .map((r: any) => [r.name, r.users.relationships.map((x: any) => x.entity.urn)]), [['Editor', [BOB]]]);

    // Invitations: the same link until a new one is asked for; stored under a hash, the token encrypted.
    assert.equal(await refused(t, 'getInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } }, alice), 403);
    assert.equal(await refused(t, 'createInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } }, alice, 'mutations.graphql'), 403);
    const first = (await run(t, 'getInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } })).getInviteToken.inviteToken as string;
    assert.match(first, /^[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(await run(t, 'getInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } }), { getInviteToken: { inviteToken: first } });
    const stored = (await t.catalog.entities.getLatest(inviteTokenUrn(first))).get('inviteToken')?.value as { role?: string; token: string };
    assert.equal(stored.role, 'urn:li:dataHubRole:Reader');
    assert.ok(!JSON.stringify(stored).includes(first), 'the token is not stored in clear');
    const noRole = (await run(t, 'getInviteToken', { input: {} })).getInviteToken.inviteToken as string;
    assert.notEqual(noRole, first);
    const second = (await run(t, 'createInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } }, undefined, 'mutations.graphql')).createInviteToken.inviteToken;
    assert.notEqual(second, first);
    assert.deepEqual(await run(t, 'getInviteToken', { input: { roleUrn: 'urn:li:dataHubRole:Reader' } }), { getInviteToken: { inviteToken: second } });

    // Accepting: the old link no longer works; the new one gives its role to the caller.
    assert.equal(await refused(t, 'acceptRole', { input: { inviteToken: first } }, alice), 400);
    assert.deepEqual(await run(t, 'acceptRole', { input: { inviteToken: second } }, alice), { acceptRole: true });
    assert.deepEqual((await t.catalog.entities.getLatest(ALICE)).get('roleMembership')?.value, { roles: ['urn:li:dataHubRole:Reader'] });
    // One without a role leaves the caller's role as it was.
    assert.deepEqual(await run(t, 'acceptRole', { input: { inviteToken: noRole } }, alice), { acceptRole: true });
    assert.deepEqual((await t.catalog.entities.getLatest(ALICE)).get('roleMembership')?.value, { roles: ['urn:li:dataHubRole:Reader'] });
    await run(t, 'batchAssignRole', { input: { roleUrn: null, actors: [ALICE, BOB] } });
  });

  test('listPolicies: what the policy builder shows, the urns it names resolved', async () => {
    const tagged = await t.graphql('mutation { createTag(input: { id: "pii", name: "PII", description: "Personal data" }) }');
    assert.equal(tagged.body.errors, undefined, JSON.stringify(tagged.body));
    const created = await run(t, 'createPolicy', { input: { type: 'METADATA', name: 'PII stewards', state: 'ACTIVE', description: 'Edit PII tags',
      privileges: ['EDIT_ENTITY_DOCS'], resources: { allResources: false, filter: { criteria: [{ field: 'URN', values: ['urn:li:tag:pii'], condition: 'EQUALS' }] } },
      actors: { users: [ALICE], groups: [], roles: ['urn:li:dataHubRole:Editor'], allUsers: false, allGroups: false, resourceOwners: true,
        resourceOwnersTypes: ['urn:li:ownershipType:__system__technical_owner'] } } });
    const urn = created.createPolicy as string;
    assert.deepEqual(await run(t, 'listPolicies', { input: { start: 0, count: 20, query: 'stewards' } }), { listPolicies: { start: 0, count: 1, total: 1, policies: [{
      urn, type: 'METADATA', name: 'PII stewards', description: 'Edit PII tags', state: 'ACTIVE',
      resources: { type: null, allResources: false, resources: null, filter: { criteria: [{ field: 'URN', condition: 'EQUALS',
        values: [{ value: 'urn:li:tag:pii', entity: { urn: 'urn:li:tag:pii', type: 'TAG', name: 'pii', description: 'Personal data',
          properties: { name: 'PII', colorHex: null } } }] }] } },
      privileges: ['EDIT_ENTITY_DOCS'],
      actors: { users: [ALICE], groups: [], roles: ['urn:li:dataHubRole:Editor'], allUsers: false, allGroups: false, resourceOwners: true,
        resourceOwnersTypes: ['urn:li:ownershipType:__system__technical_owner'],
        resolvedOwnershipTypes: [{ urn: 'urn:li:ownershipType:__system__technical_owner', info: { name: 'Technical Owner' } }],
        resolvedUsers: [{ username: 'alice', urn: ALICE, properties: { active: true, displayName: 'Alice', title: 'Analyst', firstName: null,
          lastName: null, fullName: null, email: 'alice@example.com' }, editableProperties: null }],
        resolvedGroups: [],
        resolvedRoles: [{ urn: 'urn:li:dataHubRole:Editor', type: 'DATAHUB_ROLE', name: 'Editor', description: 'Reads and edits all metadata; no administration.' }] },
      editable: true,
    }] } });
    assert.equal(await refused(t, 'listPolicies', { input: { start: 0, count: 20 } }, alice), 403);
    assert.deepEqual(await run(t, 'deletePolicy', { urn }), { deletePolicy: urn });
  });

  test('onboarding step states: each user records their own steps', async () => {
    const mine = `${ALICE}-search-results-filters-id`;
    const bobs = `${BOB}-search-results-filters-id`;
    assert.deepEqual(await run(t, 'batchGetStepStates', { input: { ids: [mine, bobs] } }, alice), { batchGetStepStates: { results: [] } });
    assert.deepEqual(await run(t, 'batchUpdateStepStates', { input: { states: [
      { id: mine, properties: [{ key: 'state', value: 'COMPLETE' }] }, { id: bobs, properties: [{ key: 'state', value: 'COMPLETE' }] }] } }, alice),
    { batchUpdateStepStates: { results: [{ id: mine, succeeded: true }, { id: bobs, succeeded: false }] } });
    assert.deepEqual(await run(t, 'batchGetStepStates', { input: { ids: [mine, bobs] } }, alice),
      { batchGetStepStates: { results: [{ id: mine, properties: [{ key: 'state', value: 'COMPLETE' }] }] } });
  });
});
