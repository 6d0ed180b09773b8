import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';

/**
 * Every way a user's entity goes — REST delete, GraphQL removeUser, a DELETE of its corpUserInfo aspect, a rollback
 * of the run that brought it — revokes the user's tokens (personal and web app sessions) at once: the next request
 * with any of them answers 401 "revoked", and no token of that user is stored any more. (Other servers: see
 * test/multi-server.test.ts.)
 */
const REVOKED = { status: 401, code: 'UNAUTHENTICATED', message: 'Failed to validate DataHub token: Token has been revoked.' };

forEachEngine('removing a user revokes their tokens and sessions', (ctx) => {
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
  });
  after(async () => t.close());

  const me = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/graphql', headers,
    payload: { query: '{ me { corpUser { urn } } }' } });
  const post = (url: string, payload: unknown) => t.app.inject({ method: 'POST', url, headers: { ...t.auth, 'content-type': 'application/json' },
    payload: JSON.stringify(payload) });

  /**
   * A native user (a password, so a web app session too), a personal token and a signed-in session, all working.
   * Returns the request headers of each.
   */
  async function signedIn(name: string): Promise<{ urn: string; credentials: Record<string, string>[] }> {
    const urn = `urn:li:corpuser:${name}`;
    await t.catalog.nativeUsers.create({ userUrn: urn, fullName: `User ${name}`, email: `${name}@example.com`, title: 'Tester',
      password: 'a long enough password' }, systemActor());
    const login = await t.app.inject({ method: 'POST', url: '/logIn', payload: { username: name, password: 'a long enough password' } });
    assert.equal(login.statusCode, 200, login.body);
    const raw = login.headers['set-cookie'] as string[];
    const cookie = raw.map((c) => c.split(';')[0]).join('; ');
    const credentials: Record<string, string>[] = [{ authorization: `Bearer ${await t.tokenFor(name)}` }, { cookie }];
    for (const headers of credentials) {
      const res = await me(headers);
      assert.deepEqual([res.statusCode, res.json()], [200, { data: { me: { corpUser: { urn } } }, extensions: {} }]);
    }
    assert.equal((await t.catalog.tokens.list({ actorUrn: urn, start: 0, count: 100 })).total, 2);
    return { urn, credentials };
  }

  async function assertRevoked(urn: string, credentials: Record<string, string>[]) {
    for (const headers of credentials) {
      const res = await me(headers);
      assert.deepEqual([res.statusCode, res.json()], [401, REVOKED], JSON.stringify(headers));
    }
    assert.deepEqual(await t.catalog.tokens.list({ actorUrn: urn, start: 0, count: 100 }), { total: 0, tokens: [] });
  }

  test('POST /entities?action=delete of the user', async () => {
    const { urn, credentials } = await signedIn('rest-deleted');
    const res = await post('/entities?action=delete', { urn });
    assert.equal(res.statusCode, 200, res.body);
    await assertRevoked(urn, credentials);
    assert.equal((await t.catalog.store.getLatest([urn])).size, 0);
  });

  test('GraphQL removeUser', async () => {
    const { urn, credentials } = await signedIn('gql-removed');
    assert.deepEqual((await t.graphql(`mutation { removeUser(urn: "${urn}") }`)).body, { data: { removeUser: true }, extensions: {} });
    await assertRevoked(urn, credentials);
  });

  test('a DELETE of the user\'s corpUserInfo aspect (ingestProposal)', async () => {
    const { urn, credentials } = await signedIn('info-deleted');
    const res = await post('/aspects?action=ingestProposal', { proposal: { entityType: 'corpuser', entityUrn: urn, changeType: 'DELETE',
      aspectName: 'corpUserInfo' } });
    assert.equal(res.statusCode, 200, res.body);
    await assertRevoked(urn, credentials);
    // The aspect is gone; the user's other aspects stay as they were.
    assert.deepEqual([...(await t.catalog.entities.getLatest(urn)).keys()].sort(), ['corpUserCredentials', 'corpUserStatus']);
  });

  test('the key aspect cannot be deleted on its own (the entity is deleted instead): the user and their tokens stay', async () => {
    const { urn, credentials } = await signedIn('key-kept');
    const res = await post('/aspects?action=ingestProposal', { proposal: { entityType: 'corpuser', entityUrn: urn, changeType: 'DELETE',
      aspectName: 'corpUserKey' } });
    assert.deepEqual([res.statusCode, res.json()], [422, { status: 422, code: 'UNPROCESSABLE',
      message: 'The key aspect cannot be deleted; delete the entity instead', urn, aspect: 'corpUserKey' }]);
    for (const headers of credentials) assert.equal((await me(headers)).statusCode, 200);
  });

  test('a rollback of the run that brought the user', async () => {
    const urn = 'urn:li:corpuser:rolled-back';
    const ingested = await post('/aspects?action=ingestProposal', { proposal: { entityType: 'corpuser', entityUrn: urn, changeType: 'UPSERT',
      aspectName: 'corpUserInfo', aspect: { contentType: 'application/json', value: JSON.stringify({ active: true, displayName: 'Rolled' }) },
      systemMetadata: { runId: 'run-with-a-user', lastObserved: 1 } } });
    assert.equal(ingested.statusCode, 200, ingested.body);
    const headers = { authorization: `Bearer ${await t.tokenFor('rolled-back')}` };
    assert.equal((await me(headers)).statusCode, 200);
    // Almanac has no REST /runs resource: a run is rolled back through GraphQL (the web app's ingestion page).
    const rollback = await t.graphql('mutation { rollbackIngestion(input: { runId: "run-with-a-user" }) }');
    assert.deepEqual(rollback.body, { data: { rollbackIngestion: 'true' }, extensions: {} });
    // The user is soft-deleted (as DataHub's rollback leaves an entity the run brought).
    assert.deepEqual((await t.catalog.entities.getLatest(urn, ['status'])).get('status')?.value, { removed: true });
    await assertRevoked(urn, [headers]);
  });

  test('a user removed and made again: tokens issued after the removal work', async () => {
    const { urn, credentials } = await signedIn('comes-back');
    assert.equal((await post('/entities?action=delete', { urn })).statusCode, 200);
    await assertRevoked(urn, credentials);
    await t.catalog.nativeUsers.create({ userUrn: urn, fullName: 'Back again', email: 'back@example.com', title: 'Tester',
      password: 'a long enough password' }, systemActor());
    const fresh = { authorization: `Bearer ${await t.tokenFor('comes-back')}` };
    const res = await me(fresh);
    assert.deepEqual([res.statusCode, res.json()], [200, { data: { me: { corpUser: { urn } } }, extensions: {} }]);
  });
});
