import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog.js';
import { parseInteger } from './rest/actions.js';

const MAX_DEAD_LETTERS = 1000;

/**
 * /api/webhooks: administrators register, list and remove webhooks (src/changelog/webhooks.ts) and read what each
 * failed to deliver; who may is decided in src/changelog/authorized-webhooks.ts.
 */
export async function webhookRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const webhooks = catalog.authorized.webhooks;

  app.post('/api/webhooks', async (request, reply) => {
    const created = await webhooks.register(request.actor, request.body);
    // The secret is shown here once; it signs every delivery (X-Almanac-Signature: sha256=<HMAC of the body>).
    return reply.code(201).send({ ...created.webhook, secret: created.secret });
  });

  app.get('/api/webhooks', async (request) => {
    return { webhooks: await webhooks.list(request.actor) };
  });

  app.get('/api/webhooks/:id', async (request) => {
    return webhooks.get(request.actor, (request.params as { id: string }).id);
  });

  app.delete('/api/webhooks/:id', async (request, reply) => {
    await webhooks.remove(request.actor, (request.params as { id: string }).id);
    return reply.code(204).send();
  });

  app.get('/api/webhooks/:id/dead-letters', async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const { after, letters } = await webhooks.deadLetters(request.actor, (request.params as { id: string }).id, () =>
      ({ after: parseInteger(q.after, 'after', 0) ?? 0, limit: parseInteger(q.limit, 'limit', 1, MAX_DEAD_LETTERS) ?? 100 }));
    return {
      deadLetters: letters.map((d) => ({ id: d.id, offset: d.seq, at: d.at, attempts: d.attempts, status: d.status, error: d.error,
        event: JSON.parse(d.event) as unknown })),
      next: letters.length ? letters[letters.length - 1]!.id : after,
    };
  });
}
