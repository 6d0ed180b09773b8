import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../catalog.js';

/**
 * Usage events: `POST /track` as DataHub 0.12.1's web app sends them (to the server that serves it), and
 * `POST /auth/track` as DataHub's frontend forwards them to its server with the system client's credentials. Both
 * answer 200 with an empty body once the event is stored.
 */
export async function trackRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  for (const url of ['/track', '/auth/track']) {
    app.post(url, async (request, reply) => {
      await catalog.usageEvents.track(request.actor, request.body);
      return reply.code(200).send();
    });
  }
}
