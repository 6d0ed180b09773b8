import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RequestLog } from '../config.js';

/**
 * One JSON log line per request (ALMANAC_REQUEST_LOG): method, route pattern, path, status, duration, the actor when
 * authenticated, the request id (pino's `reqId`, from the request's child logger), and a GraphQL request's operation
 * name. Never headers, cookies, the query string or the body: a token cannot reach the log through it.
 * `errors` logs 4xx/5xx answers at info and the rest at debug; `all` logs every request at info; `off` none.
 */
export const requestLogPlugin = fp(async (app: FastifyInstance, opts: { mode: RequestLog }) => {
  if (opts.mode === 'off') return;
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const level = opts.mode === 'all' || status >= 400 ? 'info' : 'debug';
    // Most answers log at debug, which a server rarely logs: not even the line is built then.
    if (!levelEnabled(request.log.level, level)) return;
    const route = request.routeOptions.url;
    const operation = route?.endsWith('/graphql') ? operationName(request) : undefined;
    request.log[level]({
      method: request.method,
      route: route ?? null,
      path: request.url.split('?')[0],
      status,
      durationMs: Math.round(reply.elapsedTime * 1000) / 1000,
      ...(request.actor ? { actor: request.actor.urn } : {}),
      ...(operation ? { operation } : {}),
    }, 'request');
  });
});

/** pino's levels by name (a logger at one level logs that level and those above it). */
const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

function levelEnabled(loggerLevel: string, level: 'info' | 'debug'): boolean {
  const at = LEVEL_VALUES[loggerLevel];
  return at === undefined || LEVEL_VALUES[level]! >= at;
}

const NAMED_OPERATION = /^\s*(?:#[^\n]*\n\s*)*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/;

/** The operation name a GraphQL request gives, else the name of its document's first operation (no parsing). */
export function operationName(request: FastifyRequest): string | undefined {
  const params = (request.method === 'GET' ? request.query : request.body) as Record<string, unknown> | undefined;
  if (!params || typeof params !== 'object' || Array.isArray(params)) return undefined;
  if (typeof params.operationName === 'string' && params.operationName) return params.operationName;
  return typeof params.query === 'string' ? NAMED_OPERATION.exec(params.query)?.[1] : undefined;
}
