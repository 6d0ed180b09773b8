import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LSN_PATTERN, runWithReadContext, type ReadContext } from '../model/read-context.js';

/** The commit position a write's answer carries, and a later read may present (to any server) to read that write. */
export const COMMIT_LSN_HEADER = 'x-almanac-commit-lsn';
export const MIN_LSN_HEADER = 'x-almanac-min-lsn';

const contexts = new WeakMap<FastifyRequest, ReadContext>();

/**
 * Marks which requests may read from a replica (DATABASE_READ_URL): GET and HEAD, and GraphQL requests until they
 * turn out to be mutations (src/graphql/engine.ts). A request that presents `X-Almanac-Min-Lsn` is served by a
 * replica only once it has replayed that far; a request that wrote answers with `X-Almanac-Commit-Lsn`. Without
 * replicas this changes nothing (no position is ever set).
 */
export const readRoutingPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    const presented = request.headers[MIN_LSN_HEADER];
    const path = request.url.split('?')[0]!;
    const ctx: ReadContext = {
      // /metrics reports the primary's state (the change log's consumers and their lag), not a replica's.
      replicaOk: ((request.method === 'GET' || request.method === 'HEAD') && path !== '/metrics') || (request.method === 'POST' && /\/graphql$/.test(path)),
      // A malformed position is ignored: the read is then as fresh as this server's own view, never an error.
      ...(typeof presented === 'string' && LSN_PATTERN.test(presented.trim()) ? { minLsn: presented.trim() } : {}),
    };
    contexts.set(request, ctx);
    // Callback style, so that the handler and everything it starts run in the context.
    runWithReadContext(ctx, done);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const lsn = contexts.get(request)?.commitLsn;
    if (lsn) reply.header(COMMIT_LSN_HEADER, lsn);
    return payload;
  });
});
