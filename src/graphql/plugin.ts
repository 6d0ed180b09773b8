import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AlmanacError, badRequest } from '../errors.js';
import type { DescriptionLayer } from '../entities/descriptor.js';
import type { Catalog } from '../catalog.js';
import { sendError } from '../http/errors.js';
import type { RestFeature } from '../http/server.js';
import { recordingReads } from '../services/read-tracking.js';
import type { GraphQLEngine } from './engine.js';

export { LIMITS } from './limits.js';

/**
 * The two paths and what a description answers on each (DescriptionLayer): DataHub's web app, on /api/v2/graphql,
 * gets DataHub's layers, the ingested text in `properties` and schema fields, and merges the edited layer itself;
 * /api/graphql answers the text users see.
 */
const ENDPOINTS: readonly (readonly [string, DescriptionLayer])[] = [['/api/graphql', 'visible'], ['/api/v2/graphql', 'ingested']];

/**
 * `buildAfterListen`: the schema and its executor (./engine.ts) are built once the server listens, a step at a time,
 * rather than before: `almanac serve` answers /health and REST sooner, and a GraphQL request that comes first waits
 * for them. For a process serving one catalog (the CLI): the schema is built from the entity types known then.
 * Otherwise they are built while the app is (an app built while a descriptor's field is replaced keeps that field).
 */
export async function graphqlFeature({ buildAfterListen = false }: { buildAfterListen?: boolean } = {}): Promise<RestFeature> {
  // Loaded now unless deferred, outside the plugin's start-up time limit (from the sources, through tsx, it is long).
  const loaded = buildAfterListen ? undefined : await import('./engine.js');
  return async (app: FastifyInstance, { catalog }: { catalog: Catalog }) => {
    let building: Promise<GraphQLEngine> | undefined;
    const pause = buildAfterListen ? () => new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
    const engine = () => (building ??= (loaded ? Promise.resolve(loaded) : import('./engine.js'))
      .then((m) => m.createGraphQLEngine(catalog, app.log, pause)));
    if (buildAfterListen) {
      app.addHook('onListen', async () => {
        setImmediate(() => engine().catch((e: unknown) => app.log.error({ err: e }, 'building the GraphQL schema failed')));
      });
    } else {
      await engine();
    }

    const handler = (descriptionLayer: DescriptionLayer) => async (request: FastifyRequest, reply: FastifyReply) => {
      const body = request.body as Record<string, unknown> | undefined;
      if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object with a query');
      const { query, variables, operationName } = body;
      if (typeof query !== 'string' || query.trim() === '') throw badRequest("The request body needs a 'query' string");
      if (variables !== undefined && variables !== null && (typeof variables !== 'object' || Array.isArray(variables))) {
        throw badRequest("'variables' must be a JSON object");
      }
      if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') {
        throw badRequest("'operationName' must be a string");
      }
      reply.type('application/json; charset=utf-8');
      const { execute, isMutation } = await engine();
      // A mutation's answer is never reused: it is run at once, without the bookkeeping of reusable answers.
      if (isMutation(query, operationName)) return execute(request, reply, descriptionLayer, query, variables, operationName);
      const responses = catalog.responses;
      let key: string | undefined;
      if (responses.enabled) {
        // Another process wrote the same SQLite file: read its entries (they drop what they changed) before reusing.
        await catalog.changeLog.heardOtherWriters();
        // Kept per endpoint too: the same query answers differently on each (see ENDPOINTS).
        key = responses.key(`${descriptionLayer}:${request.actor.kind}:${request.actor.urn}`, query, operationName, variables);
        const kept = responses.get(key);
        if (kept) {
          for (const urn of kept.views) await catalog.recommendations.viewed(request.actor, urn);
          return kept.body;
        }
      }
      const mark = responses.mark();
      const { record, result } = recordingReads(() => execute(request, reply, descriptionLayer, query, variables, operationName));
      const response = await result;
      if (key === undefined || response.errors) return response;
      const bytes = Buffer.from(JSON.stringify(response));
      responses.keep(key, bytes, record, mark);
      return bytes;
    };

    for (const [url, descriptionLayer] of ENDPOINTS) {
      app.post(url, handler(descriptionLayer));
      app.route({
        method: ['GET', 'PUT', 'DELETE', 'PATCH'],
        url,
        config: { public: true },
        handler: async (request, reply) => sendError(request, reply,
          new AlmanacError('METHOD_NOT_ALLOWED', `${request.method} is not supported on ${url}; use POST`, { allow: 'POST' })),
      });
    }
  };
}
