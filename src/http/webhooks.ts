import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.js';
import { requirePrivilege } from '../services/authz.js';
import type { Catalog } from '../catalog.js';
import { REQUIRES } from '../model/privileges.js';
import { parseInteger } from './rest/actions.js';

const MAX_DEAD_LETTERS = 1000;

/**
 * /api/webhooks: administrators register, list and remove webhooks (src/changelog/webhooks.ts) and read what each
 * failed to deliver. Registering needs MANAGE_WEBHOOKS and VIEW_CHANGE_LOG (a webhook subscribes as its creator);
 * the rest MANAGE_WEBHOOKS.
 */
export async function webhookRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const { authz, webhooks } = catalog;

  app.post('/api/webhooks', async (request, reply) => {
    await requirePrivilege(authz, request.actor, REQUIRES['webhooks.register']);
    const body = request.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object');
    const b = body as Record<string, unknown>;
    const created = await webhooks.register({ url: b.url as string, entityTypes: b.entityTypes as string[] | undefined,
      aspects: b.aspects as string[] | undefined, description: b.description as string | undefined }, request.actor);
    // The secret is shown here once; it signs every delivery (X-Almanac-Signature: sha256=<HMAC of the body>).
    return reply.code(201).send({ ...created.webhook, secret: created.secret });
  });

  app.get('/api/webhooks', async (request) => {
    await requirePrivilege(authz, request.actor, REQUIRES['webhooks.manage']);
    return { webhooks: await webhooks.list() };
  });

  app.get('/api/webhooks/:id', async (request) => {
    await requirePrivilege(authz, request.actor, REQUIRES['webhooks.manage']);
    return webhooks.get((request.params as { id: string }).id);
  });

  app.delete('/api/webhooks/:id', async (request, reply) => {
    await requirePrivilege(authz, request.actor, REQUIRES['webhooks.manage']);
    await webhooks.remove((request.params as { id: string }).id);
    return reply.code(204).send();
  });

  app.get('/api/webhooks/:id/dead-letters', async (request) => {
    await requirePrivilege(authz, request.actor, REQUIRES['webhooks.manage']);
    const q = request.query as Record<string, string | undefined>;
    const after = parseInteger(q.after, 'after', 0) ?? 0;
    const limit = parseInteger(q.limit, 'limit', 1, MAX_DEAD_LETTERS) ?? 100;
    const letters = await webhooks.deadLetters((request.params as { id: string }).id, after, limit);
    return {
      deadLetters: letters.map((d) => ({ id: d.id, offset: d.seq, at: d.at, attempts: d.attempts, status: d.status, error: d.error,
        event: JSON.parse(d.event) as unknown })),
      next: letters.length ? letters[letters.length - 1]!.id : after,
    };
  });
}
