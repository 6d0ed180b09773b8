import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { decodeJwt } from 'jose';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { encodeSession } from '../src/http/session.js';
import { openCatalog } from '../src/catalog.js';
import { systemActor } from '../src/model/actor.js';
import { forEachEngine } from './support/engines.js';
import { startApp, type TestApp } from './support/app.js';
import { BIN, freePort, runCli } from './support/processes.js';

/**
 * DataHub's sign-in path against Almanac, end to end over HTTP: the metadata service's /auth/* endpoints as a stock
 * datahub-frontend calls them (system client credentials), and Almanac's own /logIn, /logOut, /authenticate,
 * /signUp and /resetNativeUserCredentials with the session cookies, then the web app served from --webapp-dir.
 */

const SECRET = 'frontend-secret-for-tests';
const SYSTEM = { authorization: `Basic __datahub_system:${SECRET}` };
const INVITE = 'invite-token-for-tests';
const DATAHUB_INVITE = 'invite-from-datahub';
const json = (body: string) => (body ? JSON.parse(body) : undefined);

/** The `name=value` pairs a response sets, and the attributes of each. */
function setCookies(res: { headers: Record<string, unknown> }): Map<string, { value: string; attrs: string[] }> {
  const raw = res.headers['set-cookie'];
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw as string[] : [raw as string];
  return new Map(list.map((c) => {
    const [pair, ...attrs] = c.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    return [pair!.slice(0, eq), { value: decodeURIComponent(pair!.slice(eq + 1)), attrs }];
  }));
}

/** The Cookie header a browser sends back after this response. */
function cookieHeader(res: { headers: Record<string, unknown> }): string {
  return [...setCookies(res)].map(([k, v]) => `${k}=${encodeURIComponent(v.value)}`).join('; ');
}

forEachEngine('webapp login: /auth endpoints, session cookies and the served web app', (ctx) => {
  let t: TestApp;

  const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });
  const me = (headers: Record<string, string>) => t.app.inject({ method: 'POST', url: '/api/v2/graphql', headers,
    payload: { query: '{ me { corpUser { urn username } } }' } });

  before(async () => {
    t = await startApp(ctx, { systemClientSecret: SECRET });
    // Invitations as stored: one named as Almanac names them (URL-safe hash), one as DataHub does (standard base64).
    const hash = (s: string, e: 'base64' | 'base64url') => createHash('sha256').update(s).digest(e);
    await t.catalog.entities.ingest([
      { urn: `urn:li:inviteToken:${hash(INVITE, 'base64url')}`, entityType: 'inviteToken', aspect: 'inviteToken', changeType: 'UPSERT',
        value: { token: 'stored-encrypted' }, systemMetadata: null },
      { urn: `urn:li:inviteToken:${hash(DATAHUB_INVITE, 'base64')}`, entityType: 'inviteToken', aspect: 'inviteToken', changeType: 'UPSERT',
        value: { token: 'stored-encrypted' }, systemMetadata: null },
    ], systemActor());
  });
  after(async () => t.close());

  test('signUp with an invite token creates a native user; refusals have their true codes', async () => {
    const alice = { userUrn: 'urn:li:corpuser:alice', fullName: 'Alice Liddell', email: 'alice@example.com', title: 'Analyst',
      password: 'correct horse', inviteToken: INVITE };
    let res = await post('/auth/signUp', alice, SYSTEM);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(json(res.body), { isNativeUserCreated: true });

    const user = await t.graphql('{ corpUser(urn: "urn:li:corpuser:alice") { urn username isNativeUser status properties { active displayName fullName email title } } }');
    assert.deepEqual(user.body, { data: { corpUser: { urn: 'urn:li:corpuser:alice', username: 'alice', isNativeUser: true, status: 'ACTIVE',
      properties: { active: true, displayName: 'Alice Liddell', fullName: 'Alice Liddell', email: 'alice@example.com', title: 'Analyst' } } },
    extensions: {} });
    // The password is kept as a salted scrypt hash, never as sent.
    const creds = (await t.catalog.entities.getLatest('urn:li:corpuser:alice', ['corpUserCredentials'])).get('corpUserCredentials')!.value as Record<string, string>;
    assert.deepEqual(Object.keys(creds).sort(), ['hashedPassword', 'salt']);
    assert.match(creds.hashedPassword!, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]+=*$/);
    assert.ok(!JSON.stringify(creds).includes('correct horse'), 'the password is not stored as given');

    // A token named the way DataHub names it works too.
    res = await post('/auth/signUp', { ...alice, userUrn: 'urn:li:corpuser:bob', email: 'bob@example.com', inviteToken: DATAHUB_INVITE }, SYSTEM);
    assert.equal(res.statusCode, 200, res.body);

    res = await post('/auth/signUp', alice, SYSTEM);
    assert.equal(res.statusCode, 409);
    assert.deepEqual(json(res.body), { status: 409, code: 'CONFLICT', message: 'This user already exists: urn:li:corpuser:alice',
      urn: 'urn:li:corpuser:alice' });
    res = await post('/auth/signUp', { ...alice, userUrn: 'urn:li:corpuser:carol', inviteToken: 'not-an-invite' }, SYSTEM);
    assert.deepEqual([res.statusCode, json(res.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'Invalid invite token.', field: 'inviteToken' }]);
    assert.equal(await t.catalog.entities.exists('urn:li:corpuser:carol'), false);
    res = await post('/auth/signUp', { ...alice, userUrn: 'urn:li:corpuser:datahub' }, SYSTEM);
    assert.deepEqual([res.statusCode, json(res.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'Cannot create a native user as urn:li:corpuser:datahub' }]);
    res = await post('/auth/signUp', { ...alice, userUrn: 'urn:li:corpuser:dave', title: undefined }, SYSTEM);
    assert.deepEqual([res.statusCode, json(res.body)], [400, { status: 400, code: 'BAD_REQUEST', message: "Missing field 'title'", field: 'title' }]);
  });

  test('verifyNativeUserCredentials answers as DataHub: a match, or false for a wrong password and an unknown user', async () => {
    const verify = async (userUrn: string, password: string) => {
      const res = await post('/auth/verifyNativeUserCredentials', { userUrn, password }, SYSTEM);
      assert.equal(res.statusCode, 200, res.body);
      return json(res.body);
    };
    assert.deepEqual(await verify('urn:li:corpuser:alice', 'correct horse'), { doesPasswordMatch: true });
    assert.deepEqual(await verify('urn:li:corpuser:alice', 'wrong'), { doesPasswordMatch: false });
    assert.deepEqual(await verify('urn:li:corpuser:nobody', 'correct horse'), { doesPasswordMatch: false });
    // datahub exists only through its policies, without a password: not a native user.
    assert.deepEqual(await verify('urn:li:corpuser:datahub', ''), { doesPasswordMatch: false });
  });

  test('only the system client may call /auth: a user token is refused (403), no credentials 401', async () => {
    const alices = await t.tokenFor('alice');
    for (const url of ['/auth/generateSessionTokenForUser', '/auth/verifyNativeUserCredentials', '/auth/signUp', '/auth/resetNativeUserCredentials']) {
      let res = await post(url, { userId: 'alice', userUrn: 'urn:li:corpuser:alice', password: 'x' }, { authorization: `Bearer ${alices}` });
      assert.deepEqual([res.statusCode, json(res.body)], [403, { status: 403, code: 'FORBIDDEN', message: 'Only the system client may call this endpoint.' }], url);
      res = await post(url, { userId: 'alice' });
      assert.equal(res.statusCode, 401, url);
      res = await post(url, { userId: 'alice' }, { authorization: 'Basic __datahub_system:wrong' });
      assert.equal(res.statusCode, 401, url);
    }
  });

  test('generateSessionTokenForUser issues a SESSION token that authenticates as the user', async () => {
    const res = await post('/auth/generateSessionTokenForUser', { userId: 'alice' }, SYSTEM);
    assert.equal(res.statusCode, 200, res.body);
    const { accessToken } = json(res.body);
    assert.deepEqual(Object.keys(json(res.body)), ['accessToken']);
    const claims = decodeJwt(accessToken);
    assert.deepEqual({ type: claims.type, actorType: claims.actorType, actorId: claims.actorId, sub: claims.sub },
      { type: 'SESSION', actorType: 'USER', actorId: 'alice', sub: 'alice' });
    assert.equal(claims.exp! - claims.iat!, 86_400);
    const who = await me({ authorization: `Bearer ${accessToken}` });
    assert.deepEqual(json(who.body), { data: { me: { corpUser: { urn: 'urn:li:corpuser:alice', username: 'alice' } } }, extensions: {} });
    // Sessions are issued by the system for the user: not listed among the user's own personal tokens.
    const mine = await t.graphql('{ listAccessTokens(input: {start: 0, count: 100, filters: [{field: "ownerUrn", values: ["urn:li:corpuser:alice"]}]}) { total tokens { name } } }');
    assert.deepEqual(mine.body.data, { listAccessTokens: { total: 1, tokens: [{ name: 'test alice' }] } }); // the earlier test's personal token
    const unknown = await post('/auth/generateSessionTokenForUser', { userId: 'nobody' }, SYSTEM);
    assert.deepEqual([unknown.statusCode, json(unknown.body)], [404, { status: 404, code: 'NOT_FOUND', message: 'User urn:li:corpuser:nobody does not exist',
      urn: 'urn:li:corpuser:nobody' }]);
    const missing = await post('/auth/generateSessionTokenForUser', {}, SYSTEM);
    assert.equal(missing.statusCode, 400);
  });

  test('POST /logIn: wrong password and unknown user get the same 401; the right one sets the session cookies', async () => {
    const wrong = await post('/logIn', { username: 'alice', password: 'wrong' });
    const unknown = await post('/logIn', { username: 'nobody', password: 'correct horse' });
    for (const res of [wrong, unknown]) {
      assert.deepEqual([res.statusCode, json(res.body)], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Invalid Credentials' }]);
      assert.equal(res.headers['set-cookie'], undefined);
    }
    const blank = await post('/logIn', { username: ' ', password: 'x' });
    assert.deepEqual([blank.statusCode, json(blank.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'User name must not be empty.', field: 'username' }]);

    const ok = await post('/logIn', { username: 'alice', password: 'correct horse' });
    assert.equal(ok.statusCode, 200, ok.body);
    const cookies = setCookies(ok);
    assert.deepEqual([...cookies.keys()].sort(), ['PLAY_SESSION', 'actor']);
    assert.deepEqual(cookies.get('actor'), { value: 'urn:li:corpuser:alice', attrs: ['Max-Age=86400', 'Path=/', 'SameSite=Lax'] });
    assert.deepEqual(cookies.get('PLAY_SESSION')!.attrs, ['Max-Age=86400', 'Path=/', 'SameSite=Lax', 'HttpOnly']);

    // The web app's GraphQL requests carry the cookies only.
    const cookie = cookieHeader(ok);
    const who = await me({ cookie });
    assert.deepEqual([who.statusCode, json(who.body)], [200, { data: { me: { corpUser: { urn: 'urn:li:corpuser:alice', username: 'alice' } } }, extensions: {} }]);
    // REST too, as the frontend proxies /api/gms.
    const rest = await t.app.inject({ method: 'GET', url: '/api/gms/config', headers: { cookie } });
    assert.equal(rest.statusCode, 200);

    // /authenticate sends a signed-in browser where it was going, others to the login page; never off-site.
    const go = async (query: string, headers: Record<string, string> = {}) => {
      const res = await t.app.inject({ method: 'GET', url: `/authenticate${query}`, headers });
      assert.equal(res.statusCode, 302);
      return res.headers.location;
    };
    assert.equal(await go('?redirect_uri=%2Fsearch%3Fquery%3Dx', { cookie }), '/search?query=x');
    assert.equal(await go('', { cookie }), '/');
    assert.equal(await go('?redirect_uri=%2F%2Fevil.example.com', { cookie }), '/');
    assert.equal(await go('?redirect_uri=https%3A%2F%2Fevil.example.com', { cookie }), '/');
    assert.equal(await go('?redirect_uri=%2Fsearch'), '/login?redirect_uri=%2Fsearch');
  });

  test('a forged, mismatched or expired session is 401', async () => {
    const ok = await post('/logIn', { username: 'alice', password: 'correct horse' });
    const session = setCookies(ok).get('PLAY_SESSION')!.value;
    const [payload, mac] = session.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ actor: 'urn:li:corpuser:datahub', token: JSON.parse(Buffer.from(payload!, 'base64url').toString()).token }))
      .toString('base64url');
    for (const cookie of [
      `PLAY_SESSION=${forgedPayload}.${mac}; actor=urn:li:corpuser:datahub`,
      `PLAY_SESSION=${session}; actor=urn:li:corpuser:datahub`,
      `PLAY_SESSION=${session}`,
      `actor=urn:li:corpuser:alice`,
    ]) {
      const res = await me({ cookie });
      assert.deepEqual([res.statusCode, json(res.body)], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Unauthorized to perform this action.' }], cookie);
    }

    const { accessToken } = await t.catalog.nativeUsers.sessionToken('alice', 1);
    await new Promise((r) => setTimeout(r, 5));
    const expired = `PLAY_SESSION=${encodeSession(t.catalog, { actor: 'urn:li:corpuser:alice', token: accessToken })}; actor=urn:li:corpuser:alice`;
    const res = await me({ cookie: expired });
    assert.deepEqual([res.statusCode, json(res.body)], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Failed to validate DataHub token. Token has expired.' }]);
    const back = await t.app.inject({ method: 'GET', url: '/authenticate?redirect_uri=%2F', headers: { cookie: expired } });
    assert.equal(back.headers.location, '/login?redirect_uri=%2F');
  });

  test('GET /logOut ends the session: its cookie stops working at once', async () => {
    const ok = await post('/logIn', { username: 'alice', password: 'correct horse' });
    const cookie = cookieHeader(ok);
    assert.equal((await me({ cookie })).statusCode, 200);
    const out = await t.app.inject({ method: 'GET', url: '/logOut', headers: { cookie } });
    assert.equal(out.statusCode, 302);
    assert.equal(out.headers.location, '/login');
    const cleared = setCookies(out);
    assert.deepEqual([...cleared].map(([k, v]) => [k, v.value, v.attrs[0]]), [['PLAY_SESSION', '', 'Max-Age=0'], ['actor', '', 'Max-Age=0']]);
    const after = await me({ cookie });
    assert.deepEqual([after.statusCode, json(after.body)], [401, { status: 401, code: 'UNAUTHENTICATED',
      message: 'Failed to validate DataHub token: Token has been revoked.' }]);
    // Logging out without a session is harmless.
    assert.equal((await t.app.inject({ method: 'GET', url: '/logOut' })).statusCode, 302);
  });

  test('password reset: createNativeUserResetToken, then /auth/resetNativeUserCredentials and /resetNativeUserCredentials', async () => {
    const create = (userUrn: string, headers?: Record<string, string>) => t.graphql(
      'mutation createNativeUserResetToken($input: CreateNativeUserResetTokenInput!) { createNativeUserResetToken(input: $input) { resetToken } }',
      { input: { userUrn } }, headers);
    // Only holders of MANAGE_USER_CREDENTIALS.
    const denied = await create('urn:li:corpuser:alice', { authorization: `Bearer ${await t.tokenFor('bob')}` });
    assert.equal(denied.body.errors[0].extensions.code, 403);
    assert.equal(denied.body.data.createNativeUserResetToken, null);
    const nobody = await create('urn:li:corpuser:nobody');
    assert.equal(nobody.body.errors[0].extensions.code, 404);
    const nonNative = await t.graphql('mutation { createNativeUserResetToken(input: { userUrn: "urn:li:corpuser:datahub" }) { resetToken } }');
    assert.equal(nonNative.body.errors?.[0]?.extensions.code, 404); // the root user is no entity here
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpuser:frank', entityType: 'corpuser', aspect: 'corpUserInfo', changeType: 'UPSERT',
      value: { active: true, fullName: 'Frank from LDAP' }, systemMetadata: null }], systemActor());
    const ldap = await create('urn:li:corpuser:frank');
    assert.deepEqual([ldap.body.errors[0].message, ldap.body.errors[0].extensions.code],
      ['urn:li:corpuser:frank is not a native user (it has no password to reset)', 400]);

    const first = await create('urn:li:corpuser:alice');
    const resetToken: string = first.body.data.createNativeUserResetToken.resetToken;
    assert.deepEqual(first.body, { data: { createNativeUserResetToken: { resetToken } }, extensions: {} });
    const stored = (await t.catalog.entities.getLatest('urn:li:corpuser:alice', ['corpUserCredentials'])).get('corpUserCredentials')!.value as Record<string, unknown>;
    assert.notEqual(stored.passwordResetToken, resetToken); // kept as a hash
    assert.ok(Math.abs((stored.passwordResetTokenExpirationTimeMillis as number) - Date.now() - 86_400_000) < 60_000, 'expires in a day');

    const reset = (body: unknown) => post('/auth/resetNativeUserCredentials', body, SYSTEM);
    const refused = { status: 401, code: 'UNAUTHENTICATED', message: 'Invalid or expired reset token. Please ask your administrator for a new link.' };
    let res = await reset({ userUrn: 'urn:li:corpuser:alice', password: 'new secret', resetToken: 'guess' });
    assert.deepEqual([res.statusCode, json(res.body)], [401, refused]);
    res = await reset({ userUrn: 'urn:li:corpuser:nobody', password: 'new secret', resetToken });
    assert.deepEqual([res.statusCode, json(res.body)], [401, refused]);
    res = await reset({ userUrn: 'urn:li:corpuser:alice', password: 'new secret', resetToken });
    assert.deepEqual([res.statusCode, json(res.body)], [200, { areNativeUserCredentialsReset: true }]);
    assert.equal((await post('/logIn', { username: 'alice', password: 'correct horse' })).statusCode, 401);
    assert.equal((await post('/logIn', { username: 'alice', password: 'new secret' })).statusCode, 200);
    // One use only.
    res = await reset({ userUrn: 'urn:li:corpuser:alice', password: 'again', resetToken });
    assert.deepEqual([res.statusCode, json(res.body)], [401, refused]);

    // The web app's reset page, served by Almanac: resets and signs in.
    const second = (await create('urn:li:corpuser:alice')).body.data.createNativeUserResetToken.resetToken;
    const page = await post('/resetNativeUserCredentials', { email: 'alice', password: 'correct horse', resetToken: second });
    assert.equal(page.statusCode, 200, page.body);
    assert.equal(setCookies(page).get('actor')?.value, 'urn:li:corpuser:alice');
    assert.equal((await me({ cookie: cookieHeader(page) })).statusCode, 200);
    const blank = await post('/resetNativeUserCredentials', { email: 'alice', password: 'x', resetToken: '' });
    assert.deepEqual([blank.statusCode, json(blank.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'Reset token must not be empty.', field: 'resetToken' }]);
    const expired = (await create('urn:li:corpuser:alice')).body.data.createNativeUserResetToken.resetToken;
    const creds = (await t.catalog.entities.getLatest('urn:li:corpuser:alice', ['corpUserCredentials'])).get('corpUserCredentials')!.value as Record<string, unknown>;
    await t.catalog.entities.ingest([{ urn: 'urn:li:corpuser:alice', entityType: 'corpuser', aspect: 'corpUserCredentials', changeType: 'UPSERT',
      value: { ...creds, passwordResetTokenExpirationTimeMillis: Date.now() - 1 }, systemMetadata: null }], systemActor());
    res = await reset({ userUrn: 'urn:li:corpuser:alice', password: 'late', resetToken: expired });
    assert.deepEqual([res.statusCode, json(res.body)], [401, refused]);
  });

  test('POST /signUp (the web app page served by Almanac) signs the new user in', async () => {
    const res = await post('/signUp', { fullName: 'Erin Example', email: 'erin@example.com', password: 'pw erin', title: 'Engineer', inviteToken: INVITE });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(setCookies(res).get('actor')?.value, 'urn:li:corpuser:erin@example.com');
    const who = await me({ cookie: cookieHeader(res) });
    assert.deepEqual(json(who.body), { data: { me: { corpUser: { urn: 'urn:li:corpuser:erin@example.com', username: 'erin@example.com' } } },
      extensions: {} });
    const bad = await post('/signUp', { fullName: 'F', email: 'f@example.com', password: 'p', title: 'T', inviteToken: 'nope' });
    assert.deepEqual([bad.statusCode, json(bad.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'Invalid invite token.', field: 'inviteToken' }]);
    const blank = await post('/signUp', { fullName: '', email: 'f@example.com', password: 'p', title: 'T', inviteToken: INVITE });
    assert.deepEqual([blank.statusCode, json(blank.body)], [400, { status: 400, code: 'BAD_REQUEST', message: 'Full name must not be empty.', field: 'fullName' }]);
  });

  test('a removed user: their session stops at once, they cannot sign in again, nor get a session', async () => {
    const ok = await post('/logIn', { username: 'bob', password: 'correct horse' });
    assert.equal(ok.statusCode, 200, ok.body);
    const cookie = cookieHeader(ok);
    const viaFrontend = json((await post('/auth/generateSessionTokenForUser', { userId: 'bob' }, SYSTEM)).body).accessToken as string;
    assert.equal((await me({ cookie })).statusCode, 200);

    const removed = await t.graphql('mutation { removeUser(urn: "urn:li:corpuser:bob") }');
    assert.deepEqual(removed.body, { data: { removeUser: true }, extensions: {} });
    for (const headers of [{ cookie }, { authorization: `Bearer ${viaFrontend}` }] as Record<string, string>[]) {
      const res = await me(headers);
      assert.deepEqual([res.statusCode, json(res.body)], [401, { status: 401, code: 'UNAUTHENTICATED',
        message: 'Failed to validate DataHub token: Token has been revoked.' }]);
    }
    const again = await post('/logIn', { username: 'bob', password: 'correct horse' });
    assert.deepEqual([again.statusCode, json(again.body)], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Invalid Credentials' }]);
    const verify = await post('/auth/verifyNativeUserCredentials', { userUrn: 'urn:li:corpuser:bob', password: 'correct horse' }, SYSTEM);
    assert.deepEqual(json(verify.body), { doesPasswordMatch: false });
    const session = await post('/auth/generateSessionTokenForUser', { userId: 'bob' }, SYSTEM);
    assert.equal(session.statusCode, 404);
  });

  test('a suspended user cannot start a session; their open session stops', async () => {
    const ok = await post('/logIn', { username: 'erin@example.com', password: 'pw erin' });
    const cookie = cookieHeader(ok);
    await t.graphql('mutation { updateUserStatus(urn: "urn:li:corpuser:erin@example.com", status: SUSPENDED) }');
    const res = await me({ cookie });
    assert.deepEqual([res.statusCode, json(res.body)], [401, { status: 401, code: 'UNAUTHENTICATED',
      message: "The token's user urn:li:corpuser:erin@example.com is suspended." }]);
    const again = await post('/logIn', { username: 'erin@example.com', password: 'pw erin' });
    assert.deepEqual([again.statusCode, json(again.body)], [403, { status: 403, code: 'FORBIDDEN', message: 'User urn:li:corpuser:erin@example.com is suspended.' }]);
  });

  test('--webapp-dir: the web app is served by Almanac alone, API paths keep their answers', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-webapp-'));
    let app: FastifyInstance | undefined;
    try {
      const index = '<!doctype html><html><body><div id="root"></div><script src="/static/js/main.0a1b2c3d.js"></script></body></html>';
      writeFileSync(path.join(dir, 'index.html'), index);
      mkdirSync(path.join(dir, 'static', 'js'), { recursive: true });
      writeFileSync(path.join(dir, 'static', 'js', 'main.0a1b2c3d.js'), 'console.log("app")');
      writeFileSync(path.join(dir, 'manifest.json'), '{"name":"DataHub"}');
      writeFileSync(path.join(dir, '.env'), 'SECRET=1');
      writeFileSync(path.join(path.dirname(dir), 'outside.txt'), 'outside');
      app = await createApp(t.catalog, { logger: false, webappDir: dir });
      await app.ready();
      const get = (url: string, headers: Record<string, string> = {}) => app!.inject({ method: 'GET', url, headers });

      for (const url of ['/', '/login', '/search?query=users', '/dataset/urn:li:dataset:(urn:li:dataPlatform:hive,x,PROD)/Schema', '/.env',
        '/..%2foutside.txt', '/static/../../outside.txt', '/index.html']) {
        const res = await get(url);
        assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [200, 'text/html; charset=utf-8', index], url);
        assert.equal(res.headers['cache-control'], 'no-cache', url);
      }
      let res = await get('/static/js/main.0a1b2c3d.js');
      assert.deepEqual([res.statusCode, res.headers['content-type'], res.body, res.headers['cache-control']],
        [200, 'text/javascript; charset=utf-8', 'console.log("app")', 'public, max-age=31536000, immutable']);
      res = await get('/manifest.json');
      assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [200, 'application/json; charset=utf-8', '{"name":"DataHub"}']);
      // DataHub's build (datahub-web-react/dist) asks for its files under /assets, where datahub-frontend serves them.
      res = await get('/assets/static/js/main.0a1b2c3d.js');
      assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [200, 'text/javascript; charset=utf-8', 'console.log("app")']);
      res = await get('/assets/missing.js');
      assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [200, 'text/html; charset=utf-8', index]);
      // API paths: unknown ones are JSON 404s, known ones answer as ever (and still need credentials).
      res = await get('/api/nothing-here');
      assert.deepEqual([res.statusCode, json(res.body)], [404, { status: 404, code: 'NOT_FOUND', message: 'No route for GET /api/nothing-here' }]);
      assert.equal((await get('/health')).statusCode, 200);
      assert.equal((await get('/config')).statusCode, 401);
      assert.equal((await app.inject({ method: 'POST', url: '/api/v2/graphql', payload: { query: '{ me { corpUser { urn } } }' } })).statusCode, 401);
      // The whole sign-in round trip on the served app (alice's password set here too, so the test stands alone).
      await t.catalog.nativeUsers.setPassword('urn:li:corpuser:alice', 'correct horse', systemActor());
      const login = await app.inject({ method: 'POST', url: '/logIn', payload: { username: 'alice', password: 'correct horse' } });
      assert.equal(login.statusCode, 200, login.body);
      const who = await app.inject({ method: 'POST', url: '/api/v2/graphql', headers: { cookie: cookieHeader(login) },
        payload: { query: '{ me { corpUser { urn } } }' } });
      assert.deepEqual(json(who.body), { data: { me: { corpUser: { urn: 'urn:li:corpuser:alice' } } }, extensions: {} });
    } finally {
      await app?.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(path.join(path.dirname(dir), 'outside.txt'), { force: true });
    }
  });
});

// The CLI and the server as real processes: a password set with the CLI, then the web app served by `serve
// --webapp-dir` over a real socket, signed in with fetch as a browser would.

forEachEngine('webapp login: `almanac password set` and `almanac serve --webapp-dir` as processes', (ctx) => {
  let dir: string;
  let env: Record<string, string>;
  let child: ChildProcess | undefined;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-webapp-cli-'));
    mkdirSync(path.join(dir, 'build'));
    writeFileSync(path.join(dir, 'build', 'index.html'), '<!doctype html><title>DataHub</title>');
    env = { DATABASE_URL: ctx.engine === 'sqlite' ? `sqlite:${path.join(dir, 'almanac.db')}` : ctx.url, LOG_LEVEL: 'warn' };
  });
  after(() => {
    child?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('a folder without index.html is refused with one line', async () => {
    const res = await runCli(['serve', '--webapp-dir', path.join(dir, 'missing')], env);
    assert.deepEqual([res.code, res.stderr], [1, `almanac: --webapp-dir ${path.join(dir, 'missing')}: not a folder holding the web app's index.html\n`]);
  });

  /** The stored credentials of a user (null when none). */
  const credentialsOf = async (userUrn: string) => {
    const catalog = await openCatalog(loadConfig({ DATABASE_URL: env.DATABASE_URL! }));
    try {
      return (await catalog.entities.getLatest(userUrn, ['corpUserCredentials'])).get('corpUserCredentials')?.value ?? null;
    } finally {
      await catalog.close();
    }
  };

  test('password set: --help says it is how one signs in to Almanac\'s UI; fewer than 12 characters are refused, nothing stored', async () => {
    const help = await runCli(['password', 'set', '--help'], env);
    assert.equal(help.code, 0);
    assert.match(help.stdout.replace(/\s+/g, ' '), /signs in with, to Almanac's own web UI \(user name and password\) and to DataHub's web app/);
    assert.match(help.stdout.replace(/\s+/g, ' '), /At least 12 characters\./);
    for (const short of ['abc', 'elevenchars']) {
      const res = await runCli(['password', 'set', '--user', 'shorty'], env, `${short}\n`);
      assert.deepEqual([res.code, res.stdout, res.stderr], [1, '', 'almanac: the password must be at least 12 characters long\n']);
    }
    assert.equal(await credentialsOf('urn:li:corpuser:shorty'), null);
    const twelve = await runCli(['password', 'set', '--user', 'shorty'], env, 'twelve chars\n');
    assert.deepEqual([twelve.code, twelve.stdout, twelve.stderr], [0, '', 'Password set for urn:li:corpuser:shorty\n']);
    assert.deepEqual(Object.keys((await credentialsOf('urn:li:corpuser:shorty'))!).sort(), ['hashedPassword', 'salt']);
  });

  test('password set at a terminal (a pseudo-terminal through script(1)): the password typed is not echoed', async () => {
    // `script` runs the CLI on a pseudo-terminal of its own and passes on what is written to it, as typed keys.
    const child = spawn('script', ['-qfec', `exec "${process.execPath}" "${BIN}" password set --user typist`, '/dev/null'], {
      env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    let typed = false;
    child.stdout.on('data', (c) => {
      screen += c;
      // Typed once the prompt shows (echo is off by then): a Backspace takes back the 'x'.
      if (!typed && screen.includes('Password: ')) {
        typed = true;
        child.stdin.write('typed at a terminalx\u007f\r');
      }
    });
    child.stderr.on('data', (c) => (screen += c));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    child.stdin.end();
    assert.deepEqual([code, screen], [0, 'Password: \r\nPassword set for urn:li:corpuser:typist\r\n']);
    const catalog = await openCatalog(loadConfig({ DATABASE_URL: env.DATABASE_URL! }));
    try {
      assert.equal(await catalog.nativeUsers.verifyPassword('urn:li:corpuser:typist', 'typed at a terminal'), true);
    } finally {
      await catalog.close();
    }
  });

  test('the root user signs in to the served web app with the password set by the CLI', async () => {
    const set = await runCli(['password', 'set', '--user', 'datahub'], env, 'root passphrase\n');
    assert.deepEqual([set.code, set.stdout, set.stderr], [0, '', 'Password set for urn:li:corpuser:datahub\n']);
    const port = await freePort();
    child = spawn(process.execPath, [BIN, 'serve', '--webapp-dir', path.join(dir, 'build')], {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'ignore'] });
    const base = `http://127.0.0.1:${port}`;
    // A generous bound: a loaded machine may take many seconds to start a server.
    let up = false;
    for (let i = 0; i < 1200 && !up; i++) {
      try {
        up = (await fetch(`${base}/health`)).ok;
      } catch { /* not up yet */ }
      if (!up) await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(up, true, 'the server answered /health within 60 s');
    const page = await fetch(`${base}/login?redirect_uri=%2F`);
    assert.deepEqual([page.status, await page.text()], [200, '<!doctype html><title>DataHub</title>']);
    const wrong = await fetch(`${base}/logIn`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'datahub', password: 'nope' }) });
    assert.deepEqual([wrong.status, await wrong.json()], [401, { status: 401, code: 'UNAUTHENTICATED', message: 'Invalid Credentials' }]);
    const login = await fetch(`${base}/logIn`, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'datahub', password: 'root passphrase' }) });
    assert.equal(login.status, 200);
    const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const who = await fetch(`${base}/api/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) });
    assert.deepEqual(await who.json(), { data: { me: { corpUser: { urn: 'urn:li:corpuser:datahub' } } }, extensions: {} });
    const out = await fetch(`${base}/logOut`, { headers: { cookie }, redirect: 'manual' });
    assert.deepEqual([out.status, out.headers.get('location')], [302, '/login']);
    const gone = await fetch(`${base}/api/v2/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ query: '{ me { corpUser { urn } } }' }) });
    assert.equal(gone.status, 401);
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
    child = undefined;
  });
});
