import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog.js';

/**
 * The web app's sign-in, as datahub-frontend keeps it: a signed session cookie (`PLAY_SESSION`, HttpOnly) holding
 * the user's urn and their SESSION access token, and the `actor` cookie (readable by the web app, which checks it to
 * know it is signed in) holding the same urn. A request carries a valid session when the signature holds and both
 * cookies name the same user; the token inside is then checked as any token is (expiry, revocation, user status).
 */
export const SESSION_COOKIE = 'PLAY_SESSION';
export const ACTOR_COOKIE = 'actor';
const PURPOSE = 'session-cookie';

export interface Session {
  actor: string;
  token: string;
}

/** Cookies of a request (the first value of each name); values are percent-decoded when they can be. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // kept as sent
    }
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function encodeSession(catalog: Catalog, session: Session): string {
  const payload = Buffer.from(JSON.stringify({ actor: session.actor, token: session.token })).toString('base64url');
  return `${payload}.${catalog.tokens.mac(PURPOSE, payload)}`;
}

/** The session a request's cookies hold, or null when there is none, its signature fails or the actor cookie disagrees. */
export function readSession(catalog: Catalog, request: FastifyRequest): Session | null {
  const cookies = parseCookies(request.headers.cookie);
  const raw = cookies.get(SESSION_COOKIE);
  if (!raw) return null;
  const dot = raw.lastIndexOf('.');
  if (dot <= 0) return null;
  const payload = raw.slice(0, dot);
  if (!equal(raw.slice(dot + 1), catalog.tokens.mac(PURPOSE, payload))) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  const { actor, token } = (value ?? {}) as Record<string, unknown>;
  if (typeof actor !== 'string' || typeof token !== 'string') return null;
  if (cookies.get(ACTOR_COOKIE) !== actor) return null;
  return { actor, token };
}

/**
 * Whether the request came over HTTPS, so cookies are marked Secure: directly, or as a trusted proxy in front says
 * (X-Forwarded-Proto counts only from the peers ALMANAC_TRUST_PROXY names; anyone else could claim it).
 */
const secure = (request: FastifyRequest) => request.protocol === 'https';

function cookie(name: string, value: string, opts: { maxAgeSeconds: number; httpOnly: boolean; secure: boolean }): string {
  return [`${name}=${encodeURIComponent(value)}`, `Max-Age=${opts.maxAgeSeconds}`, 'Path=/', 'SameSite=Lax',
    ...(opts.httpOnly ? ['HttpOnly'] : []), ...(opts.secure ? ['Secure'] : [])].join('; ');
}

/** Sets both cookies for a new session, for as long as its token lives. */
export function setSessionCookies(catalog: Catalog, request: FastifyRequest, reply: FastifyReply, session: Session, maxAgeMs: number) {
  const maxAgeSeconds = Math.floor(maxAgeMs / 1000);
  const s = secure(request);
  reply.header('set-cookie', [
    cookie(SESSION_COOKIE, encodeSession(catalog, session), { maxAgeSeconds, httpOnly: true, secure: s }),
    cookie(ACTOR_COOKIE, session.actor, { maxAgeSeconds, httpOnly: false, secure: s }),
  ]);
}

export function clearSessionCookies(request: FastifyRequest, reply: FastifyReply) {
  const s = secure(request);
  reply.header('set-cookie', [
    cookie(SESSION_COOKIE, '', { maxAgeSeconds: 0, httpOnly: true, secure: s }),
    cookie(ACTOR_COOKIE, '', { maxAgeSeconds: 0, httpOnly: false, secure: s }),
  ]);
}
