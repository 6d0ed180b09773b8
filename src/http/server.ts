import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Catalog } from '../catalog.js';
import { authPlugin } from './auth.js';
import { sendError } from './errors.js';
import { metricsPlugin } from './metrics.js';
import { readRoutingPlugin } from './read-routing.js';
import { requestLogPlugin } from './request-log.js';
import { isBatchIngestUrl, parseRequestJson, RawBody } from './rest/actions.js';
import { entityRoutes } from './rest/entities.js';
import { metaRoutes } from './rest/meta.js';

/** The Rest.li surface answers at the root, under /gms (DataHub Cloud's form) and /api/gms (the frontend proxy). */
export const REST_PREFIXES = ['', '/gms', '/api/gms'] as const;

/** A REST feature: a Fastify plugin registered once per prefix. */
export type RestFeature = (app: FastifyInstance, opts: { catalog: Catalog }) => Promise<void>;

export interface ServerOptions {
  logger?: FastifyServerOptions['logger'];
  /** Extra REST features (metadata tests, time series…), mounted like the built-in ones. */
  restFeatures?: RestFeature[];
  /** Features mounted once at the root (GraphQL, the explorer). */
  rootFeatures?: RestFeature[];
}

export async function buildServer(catalog: Catalog, opts: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? { level: catalog.config.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie'] },
    bodyLimit: catalog.config.bodyLimit,
    // X-Forwarded-* from the configured proxies only (request.protocol, request.ip, request.hostname).
    trustProxy: catalog.config.trustProxy,
    // Urns are long: a dataset urn with a deep path easily passes find-my-way's 100-character default.
    routerOptions: { maxParamLength: 4096, ignoreDuplicateSlashes: true },
    // A path the router cannot decode (`%ZZ`) gets the same error body as every other 400.
    frameworkErrors: (err, request, reply) => sendError(request, reply, err),
    // Fastify's own two lines per request are replaced by one (src/http/request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
  });

  // Clients send JSON with, without, or with the wrong content type (curl defaults to form encoding).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (req, body, done) => {
    try {
      // A large ingestProposalBatch is parsed, decoded and checked in a worker thread (EntityService.decodeProposalBatch).
      if (catalog.entities.decodesBatchInWorker((body as string).length) && isBatchIngestUrl(req.url ?? '')) {
        done(null, new RawBody(body as string));
        return;
      }
      done(null, parseRequestJson(body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ status: 404, code: 'NOT_FOUND', message: `No route for ${request.method} ${request.url.split('?')[0]}` }));

  // First: every later hook and handler runs in the request's read context (replica or primary). Only with read
  // replicas: without them every read goes to the primary anyway, and the context (an AsyncLocalStorage) would make
  // every promise of every request pay Node's async hooks.
  if (catalog.readReplicas) await app.register(readRoutingPlugin);
  await app.register(requestLogPlugin, { mode: catalog.config.requestLog });
  await app.register(authPlugin, { catalog });
  // GET /metrics, and every request observed (src/http/metrics.ts).
  await app.register(metricsPlugin, { catalog });
  for (const prefix of REST_PREFIXES) {
    await app.register(async (scope) => {
      await metaRoutes(scope, { catalog });
      await entityRoutes(scope, { catalog });
      for (const feature of opts.restFeatures ?? []) await feature(scope, { catalog });
    }, { prefix });
  }
  for (const feature of opts.rootFeatures ?? []) await app.register(feature, { catalog });
  return app;
}
