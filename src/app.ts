import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { buildServer, type RestFeature } from './http/server.js';
import { graphqlFeature } from './graphql/plugin.js';
import { graphiqlFeature } from './http/graphiql.js';
import { trackRoutes } from './http/track.js';
import { loginRoutes } from './http/login.js';
import { webappFeature } from './http/webapp.js';
import { UI_PREFIX_WITH_WEBAPP, uiFeature } from './http/ui.js';
import { operationsRoutes } from './http/rest/operations.js';
import { testEvaluationRoutes } from './http/rest/test-evaluation.js';
import { usageRoutes } from './http/rest/usage.js';
import { relationshipRoutes } from './http/rest/relationships.js';
import { runRoutes } from './http/rest/runs.js';
import { changeRoutes } from './http/changes.js';
import { webhookRoutes } from './http/webhooks.js';
import type { Catalog } from './catalog.js';

/**
 * The whole Almanac server: the Foundation's REST surface plus every feature. Features are plugins; adding one
 * means adding it to these lists, nothing else.
 */
const REST_FEATURES: RestFeature[] = [operationsRoutes, usageRoutes, testEvaluationRoutes, relationshipRoutes, runRoutes];
const ROOT_FEATURES: RestFeature[] = [graphiqlFeature, trackRoutes, loginRoutes, changeRoutes, webhookRoutes];

/**
 * `graphqlAfterListen`: build the GraphQL schema once the server listens (src/graphql/plugin.ts), for a process that
 * serves this one catalog (`almanac serve`).
 */
export async function createApp(catalog: Catalog, opts: { logger?: FastifyServerOptions['logger']; webappDir?: string; uiDir?: string;
  graphqlAfterListen?: boolean; } = {}): Promise<FastifyInstance> {
  const graphql = await graphqlFeature({ buildAfterListen: opts.graphqlAfterListen });
  // Almanac's own UI at `/`, or under /almanac/ when DataHub's web app takes `/`.
  const rootFeatures = opts.webappDir
    ? [graphql, ...ROOT_FEATURES, uiFeature({ prefix: UI_PREFIX_WITH_WEBAPP, dir: opts.uiDir }), webappFeature(opts.webappDir)]
    : [graphql, ...ROOT_FEATURES, uiFeature({ dir: opts.uiDir })];
  const app = await buildServer(catalog, { logger: opts.logger, restFeatures: REST_FEATURES, rootFeatures });
  // The catalog's warnings become the server's JSON log lines, their subject as fields.
  catalog.metadataTests.warn = (message, fields) => app.log.warn(fields, message);
  catalog.entities.warn = (message, fields) => app.log.warn(fields, message);
  catalog.search.warn = (message, fields) => app.log.warn(fields, message);
  catalog.changeLog.warn = (message, fields) => app.log.warn(fields, message);
  return app;
}
