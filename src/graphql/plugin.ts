import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildASTSchema, Kind, parse, type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import mercurius from 'mercurius';
import { AlmanacError, badRequest } from '../errors.js';
import type { DescriptionLayer } from '../entities/descriptor.js';
import type { Catalog } from '../catalog.js';
import { sendError } from '../http/errors.js';
import { EntityLoader, type GraphQLContext } from './context.js';
import { recordingReads } from '../services/read-tracking.js';
import { readContext } from '../model/read-context.js';
import { checkVariables, costLimitRule, fragmentsOf, listItemsIn, measureOperation, type RequestLimits } from './cost-limit.js';
import { formatExecutionError, formatRequestError, unavailableIn } from './errors.js';
import { coerceNumericStrings } from './int-strings.js';
import { resolvers, schemaSdl } from './schema.js';

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

/** Thrown to refuse a request before execution; the handler answers with its errors. */
const refusal = (errors: GraphQLError[]) => Object.assign(new Error('refused'), { errors });

/**
 * The two paths and what a description answers on each (DescriptionLayer): DataHub's web app, on /api/v2/graphql,
 * gets DataHub's layers, the ingested text in `properties` and schema fields, and merges the edited layer itself;
 * /api/graphql answers the text users see.
 */
const ENDPOINTS: readonly (readonly [string, DescriptionLayer])[] = [['/api/graphql', 'visible'], ['/api/v2/graphql', 'ingested']];

/**
 * graphql-jit compiles a query synchronously, in time that grows much faster than its size: measured on DataHub's web
 * app's documents (2 cores), 0.5 s for its search page (5,500 fields), 2.7 s for a chart page (18,600) and 38 s for
 * its lineage query (29,000), during which the server answers nothing. Documents that select more fields than this
 * run on graphql-js's executor instead (compiled: the SDK's and scripts' small queries, where JIT pays).
 */
export const JIT_MAX_FIELDS = 1_000;

const jitVerdicts = new WeakMap<DocumentNode, Map<string, boolean>>();

export function jitWorthy(schema: GraphQLSchema, document: DocumentNode, operationName: string | undefined): boolean {
  let byOperation = jitVerdicts.get(document);
  if (!byOperation) jitVerdicts.set(document, (byOperation = new Map()));
  const key = operationName ?? '';
  let verdict = byOperation.get(key);
  if (verdict === undefined) {
    const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const op = operationName ? ops.find((o) => o.name?.value === operationName) : ops[0];
    verdict = !!op && measureOperation(schema, op, fragmentsOf(document), { ...LIMITS, fields: JIT_MAX_FIELDS, cost: Number.MAX_SAFE_INTEGER }).fields <= JIT_MAX_FIELDS;
    byOperation.set(key, verdict);
  }
  return verdict;
}

/**
 * POST /api/graphql (and the frontend's /api/v2/graphql). Mercurius provides parsing/validation caches and
 * graphql-jit; the HTTP envelope is ours so that it is exactly DataHub's: `{data, extensions: {}}` plus
 * `errors` when there are any, HTTP 200 for every GraphQL-level error.
 */
/** The answer's envelope, as DataHub sends it. */
interface GraphQLResponse {
  data: unknown;
  errors?: unknown[];
  extensions: Record<string, never>;
}

export async function graphqlFeature(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  // The SDL is parsed once, for the resolvers and the schema. Its own validation (the slowest part of building it) is
  // skipped: it is the same text at every start, and the tests build it validated (test/ui.test.ts); the built schema
  // is still checked when the server gets ready (mercurius's validateSchema).
  const document = parse(schemaSdl());
  await app.register(mercurius, {
    schema: buildASTSchema(document, { assumeValidSDL: true }),
    resolvers: resolvers(document) as never,
    routes: false,
    graphiql: false,
    jit: 1,
    cache: 1024,
    queryDepth: LIMITS.depth,
    validationRules: [costLimitRule(LIMITS)],
    graphql: { parseOptions: { maxTokens: LIMITS.tokens } },
    // Errors are formatted by us (below), from the raw GraphQL errors.
    errorFormatter: (execution) => ({ statusCode: 200, response: execution as never }),
  });
  // Lists passed in variables, measured against the operation about to run (its document is parsed and cached).
  const operationNames = new WeakMap<object, string | undefined>();
  app.graphql.addHook('preExecution', async (executableSchema, document, context, variables) => {
    const errors = checkVariables(executableSchema, document, operationNames.get(context), variables as Record<string, unknown> | undefined, LIMITS);
    if (errors.length) throw refusal(errors);
    // A mutation reads what it is about to change: from the primary, not from a replica (src/http/read-routing.ts).
    const name = operationNames.get(context);
    const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION
      && (name === undefined || d.name?.value === name));
    const routing = readContext();
    if (routing && operation?.operation !== 'query') routing.replicaOk = false;
    // Handing the document back as "modified" keeps mercurius from compiling it with graphql-jit (see JIT_MAX_FIELDS).
    if (!jitWorthy(executableSchema, document, operationNames.get(context))) return { document };
    return undefined;
  });

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
    const mark = responses.mark();
    const { record, result } = recordingReads(() => execute(request, reply, descriptionLayer, query, variables, operationName));
    const response = await result;
    if (key === undefined || response.errors) return response;
    const bytes = Buffer.from(JSON.stringify(response));
    responses.keep(key, bytes, record, mark);
    return bytes;
  };

  /**
   * Runs one GraphQL request: DataHub's envelope, errors formatted, a 500 only for what is not the caller's mistake;
   * HTTP 503 with Retry-After when the database was out of reach.
   */
  const execute = async (request: FastifyRequest, reply: FastifyReply, descriptionLayer: DescriptionLayer, query: string, variables: unknown,
    operationName: unknown): Promise<GraphQLResponse> => {
    const context: GraphQLContext = { catalog, actor: request.actor, loader: new EntityLoader(catalog), descriptionLayer };
    const log = (e: unknown) => request.log.error({ err: e }, 'GraphQL resolver failed');
    try {
      const vars = coerceNumericStrings(app.graphql.schema, query, (operationName ?? undefined) as string | undefined,
        (variables ?? undefined) as Record<string, unknown> | undefined);
      // Variables holding big lists are measured before graphql coerces them item by item.
      if (listItemsIn(vars, LIMITS.listItems) > LIMITS.listItems) {
        let doc;
        try {
          doc = parse(query, { maxTokens: LIMITS.tokens });
        } catch {
          doc = undefined; // the syntax error is reported by the normal path
        }
        const errors = doc ? checkVariables(app.graphql.schema, doc, (operationName ?? undefined) as string | undefined, vars, LIMITS) : [];
        if (errors.length) throw refusal(errors);
      }
      operationNames.set(context, (operationName ?? undefined) as string | undefined);
      const result = await app.graphql(query, context as never, vars as never,
        (operationName ?? undefined) as string | undefined);
      // No data at all means the request failed before execution (graphql-jit coerces variables itself).
      if (result.data === undefined && result.errors?.length) {
        return { errors: result.errors.map((e) => formatRequestError(e as GraphQLError)), data: null, extensions: {} };
      }
      const errors = result.errors?.map((e) => formatExecutionError(e as GraphQLError, log));
      const retryAfter = unavailableIn(result.errors as readonly GraphQLError[] | undefined);
      if (retryAfter !== undefined) reply.code(503).header('Retry-After', String(retryAfter));
      return errors?.length
        ? { errors, data: result.data ?? null, extensions: {} }
        : { data: result.data ?? null, extensions: {} };
    } catch (e) {
      const list = (e as { errors?: GraphQLError[] }).errors;
      if (Array.isArray(list) && list.length) return { errors: list.map(formatRequestError), data: null, extensions: {} };
      if (e instanceof AlmanacError) throw e;
      log(e);
      return { errors: [{ message: 'An unknown error occurred.', extensions: { code: 500, type: 'SERVER_ERROR',
        classification: 'DataFetchingException' } }], data: null, extensions: {} };
    }
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
}
