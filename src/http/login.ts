import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, forbidden, unauthenticated } from '../errors.js';
import { systemActor } from '../model/actor.js';
import type { Catalog } from '../catalog.js';
import { SESSION_DURATION_MS } from '../services/native-users.js';
import { TokenService } from '../services/tokens.js';
import { clearSessionCookies, readSession, setSessionCookies } from './session.js';

/**
 * DataHub's sign-in path, both halves:
 * - the metadata service's `/auth/*` endpoints, which a stock datahub-frontend calls with the system client's
 *   credentials (same JSON fields and answers as DataHub 0.12.1's AuthServiceController);
 * - the frontend's own `POST /logIn`, `GET /logOut`, `GET /authenticate`, `POST /signUp` and
 *   `POST /resetNativeUserCredentials`, so the web app can be served by Almanac alone (`serve --webapp-dir`),
 *   signed in with the session cookies of src/http/session.ts.
 */

type Body = Record<string, unknown>;
const bodyOf = (request: FastifyRequest): Body => {
  const b = request.body;
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('The request body must be a JSON object');
  return b as Body;
};

/** The fields must be present (as DataHub's controller requires); their content is checked by the service. */
function fields<const K extends string>(body: Body, ...names: K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  for (const n of names) {
    const v = body[n];
    if (v === undefined || v === null) throw badRequest(`Missing field '${n}'`, { field: n });
    if (typeof v !== 'string') throw badRequest(`Field '${n}' must be a string`, { field: n });
    out[n] = v;
  }
  return out;
}

/** The frontend's checks, with its messages: a blank value is refused before anything else happens. */
function required(body: Body, name: string, label: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${label} must not be empty.`, { field: name });
  return v;
}

/** Only the system client (datahub-frontend) may call the /auth endpoints. */
function requireSystem(request: FastifyRequest) {
  if (request.actor.kind !== 'system') throw forbidden('Only the system client may call this endpoint.');
}

/** A same-site path to go back to after signing in: anything else (another host, `//evil`) becomes `/`. */
function localPath(raw: unknown): string {
  if (typeof raw !== 'string' || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || /[\r\n]/.test(raw)) return '/';
  return raw;
}

export async function loginRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const users = catalog.nativeUsers;

  // The metadata service's endpoints (called by datahub-frontend).
  app.post('/auth/generateSessionTokenForUser', async (request) => {
    requireSystem(request);
    const { userId } = fields(bodyOf(request), 'userId');
    const { accessToken } = await users.sessionToken(userId);
    return { accessToken };
  });
  app.post('/auth/verifyNativeUserCredentials', async (request) => {
    requireSystem(request);
    const { userUrn, password } = fields(bodyOf(request), 'userUrn', 'password');
    return { doesPasswordMatch: await users.verifyPassword(userUrn, password) };
  });
  app.post('/auth/signUp', async (request) => {
    requireSystem(request);
    const f = fields(bodyOf(request), 'userUrn', 'fullName', 'email', 'title', 'password', 'inviteToken');
    await users.signUp(f, request.actor);
    return { isNativeUserCreated: true };
  });
  app.post('/auth/resetNativeUserCredentials', async (request) => {
    requireSystem(request);
    const { userUrn, password, resetToken } = fields(bodyOf(request), 'userUrn', 'password', 'resetToken');
    await users.resetPassword(userUrn, password, resetToken, request.actor);
    return { areNativeUserCredentialsReset: true };
  });

  // The frontend's endpoints (called by the web app's pages).
  const startSession = async (request: FastifyRequest, reply: FastifyReply, userId: string) => {
    const { accessToken, actorUrn } = await users.sessionToken(userId);
    setSessionCookies(catalog, request, reply, { actor: actorUrn, token: accessToken }, SESSION_DURATION_MS);
    return {};
  };

  app.post('/logIn', { config: { public: true } }, async (request, reply) => {
    const body = bodyOf(request);
    const username = required(body, 'username', 'User name');
    const password = typeof body.password === 'string' ? body.password : '';
    // The same answer for an unknown user, a removed one, a user without a password and a wrong password.
    if (!(await users.verifyPassword(`urn:li:corpuser:${username}`, password))) throw unauthenticated('Invalid Credentials');
    return startSession(request, reply, username);
  });

  app.post('/signUp', { config: { public: true } }, async (request, reply) => {
    const body = bodyOf(request);
    const fullName = required(body, 'fullName', 'Full name');
    const email = required(body, 'email', 'Email');
    const password = required(body, 'password', 'Password');
    const title = required(body, 'title', 'Title');
    const inviteToken = required(body, 'inviteToken', 'Invite token');
    await users.signUp({ userUrn: `urn:li:corpuser:${email}`, fullName, email, title, password, inviteToken }, systemActor());
    return startSession(request, reply, email);
  });

  app.post('/resetNativeUserCredentials', { config: { public: true } }, async (request, reply) => {
    const body = bodyOf(request);
    const email = required(body, 'email', 'Email');
    const password = required(body, 'password', 'Password');
    const resetToken = required(body, 'resetToken', 'Reset token');
    await users.resetPassword(`urn:li:corpuser:${email}`, password, resetToken, systemActor());
    return startSession(request, reply, email);
  });

  app.get('/logOut', { config: { public: true } }, async (request, reply) => {
    const session = readSession(catalog, request);
    if (session) await users.endSession(TokenService.hash(session.token));
    clearSessionCookies(request, reply);
    return reply.redirect('/login', 302);
  });

  app.get('/authenticate', { config: { public: true } }, async (request, reply) => {
    const target = localPath((request.query as Record<string, unknown>).redirect_uri);
    const session = readSession(catalog, request);
    const valid = session !== null && await catalog.tokens.authenticate(session.token).then((a) => a.urn === session.actor, () => false);
    return reply.redirect(valid ? target : `/login?redirect_uri=${encodeURIComponent(target)}`, 302);
  });
}
