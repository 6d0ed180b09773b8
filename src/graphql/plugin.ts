import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AlmanacError, badRequest } from '../errors.js';
import type { DescriptionLayer } from '../entities/descriptor.js';
import type { Catalog } from '../catalog.js';
import { sendError } from '../http/errors.js';
import type { RestFeature } from '../http/server.js';
import { recordingReads } from '../services/read-tracking.js';
import type { RequestLimits } from './cost-limit.js';
import type { GraphQLEngine } from './engine.js';

/**
 * Limits that refuse abusive requests before anything runs (src/graphql/cost-limit.ts), derived from what DataHub
 * 0.12.1's web app really sends: every operation of test/fixtures/datahub-webapp-graphql with its fragments and the
 * `__typename` its client (Apollo) adds to every selection set, page sizes sent in variables counted at 1,000 (the
 * largest it sends, and the most Almanac's list resolvers answer). The highest of those operations, and the limit
 * set at about twice that (test/webapp-contract.test.ts measures them all against these limits):
 * - cost 26,558,006 (searchAcrossLineage: 1,000 results, each with up to 1,000 assertions) → 55,000,000;
 * - fields 28,886 (getEntityLineage) → 60,000;
 * - depth 22 (getEntityLineage; getChart 21) → 30;
 * - tokens 2,608 (listDataProductAssets) → 50,000 (bounding the parse itself);
 * - aliases: at most 10 names for one field in a selection set; list arguments: at most 1,000 items.
 */
export const LIMITS: RequestLimits & { depth: number; tokens: number } = {
  depth: 30, tokens: 50_000, fields: 60_000, cost: 55_000_000, listItems: 1_000, namesPerField: 10,
};

/**
 * The two paths and what a description answers on each (DescriptionLayer): DataHub's web app, on /api/v2/graphql,
 * gets DataHub's layers, the ingested text in `properties` and schema fields, and merges the edited layer itself;
 * /api/graphql answers the text users see.
 */
const ENDPOINTS: readonly (readonly [string, DescriptionLayer])[] = [['/api/graphql', 'visible'], ['/api/v2/graphql', 'ingested']];

/**
 * POST /api/graphql (and the frontend's /api/v2/graphql). Mercurius provides parsing/validation caches and
 * graphql-jit; the HTTP envelope is ours so that it is exactly DataHub's: `{data, extensions: {}}` plus
 * `errors` when there are any, HTTP 200 for every GraphQL-level error.
 */
/** The answer's envelope, as DataHub sends it. */
export interface GraphQLResponse {
  data: unknown;
  errors?: unknown[];
  extensions: Record<string, never>;
}

/**
 * `buildAfterListen`: the schema and its executor (./engine.ts) are built once the server listens, a step at a time,
 * rather than before: `almanac serve` answers /health and REST sooner, and a GraphQL request that comes first waits
 * for them. For a process serving one catalog (the CLI): the schema is built from the entity types known then.
 * Otherwise they are built while the app is (an app built while a descriptor's field is replaced keeps that field).
 */
export function graphqlFeature({ buildAfterListen = false }: { buildAfterListen?: boolean } = {}): RestFeature {
  return async (app: FastifyInstance, { catalog }: { catalog: Catalog }) => {
    let building: Promise<GraphQLEngine> | undefined;
    const pause = buildAfterListen ? () => new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
    const engine = () => (building ??= import('./engine.js').then((m) => m.createGraphQLEngine(catalog, app.log, pause)));
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
      const { execute } = await engine();
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
