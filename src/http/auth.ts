import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { unauthenticated } from '../errors.js';
import type { Actor } from '../model/actor.js';
import type { Catalog } from '../catalog.js';
import { sendError } from './errors.js';
import { readSession } from './session.js';

declare module 'fastify' {
  interface FastifyRequest {
    actor: Actor;
  }
  interface FastifyContextConfig {
    /** Routes anyone may call without credentials (health, the explorer page and its assets). */
    public?: boolean;
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Authenticates every request that is not public: `Bearer <PAT>`, the system client's `Basic id:secret`, or, without
 * an Authorization header, the web app's session cookies (src/http/session.ts).
 */
export async function authenticate(catalog: Catalog, request: FastifyRequest): Promise<Actor> {
  const header = request.headers.authorization;
  if (!header) {
    const session = readSession(catalog, request);
    if (!session) throw unauthenticated();
    const actor = await catalog.tokens.authenticate(session.token);
    if (actor.urn !== session.actor) throw unauthenticated();
    return actor;
  }
  const space = header.indexOf(' ');
  const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
  const credentials = space < 0 ? '' : header.slice(space + 1).trim();
  if (scheme === 'bearer' && credentials) return catalog.tokens.authenticate(credentials);
  if (scheme === 'basic' && credentials && catalog.config.systemClientSecret) {
    // DataHub sends `id:secret` in plain text; accept the standard base64 form too.
    const plain = credentials.includes(':') ? credentials : Buffer.from(credentials, 'base64').toString('utf8');
    const expected = `${catalog.config.systemClientId}:${catalog.config.systemClientSecret}`;
    if (safeEqual(plain, expected)) return { urn: `urn:li:corpuser:${catalog.config.systemClientId}`, kind: 'system' };
  }
  throw unauthenticated();
}

export const authPlugin = fp(async (app: FastifyInstance, opts: { catalog: Catalog }) => {
  app.decorateRequest('actor', null as unknown as Actor);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config?.public) return;
    try {
      request.actor = await authenticate(opts.catalog, request);
    } catch (e) {
      return sendError(request, reply, e);
    }
  });
});
