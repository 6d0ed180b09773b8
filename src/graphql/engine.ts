import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { buildASTSchema, Kind, parse, type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import mercurius from 'mercurius';
import { AlmanacError } from '../errors.js';
import type { DescriptionLayer } from '../entities/descriptor.js';
import type { Catalog } from '../catalog.js';
import { EntityLoader, type GraphQLContext } from './context.js';
import { readContext } from '../model/read-context.js';
import { checkVariables, costLimitRule, fragmentsOf, listItemsIn, measureOperation } from './cost-limit.js';
import { formatExecutionError, formatRequestError, unavailableIn } from './errors.js';
import { coerceNumericStrings } from './int-strings.js';
import { LIMITS } from './limits.js';
import { resolvers, schemaSdl } from './schema.js';

/**
 * The GraphQL engine behind POST /api/graphql (src/graphql/plugin.ts): the schema with its resolvers, executed by
 * mercurius (parsing and validation caches, graphql-jit), and the envelope of each answer. A module of its own, loaded
 * by a dynamic import: GraphQL, mercurius and the resolvers are most of what the server loads, and `almanac serve`
 * builds them once it listens.
 */

/** Thrown to refuse a request before execution; the handler answers with its errors. */
const refusal = (errors: GraphQLError[]) => Object.assign(new Error('refused'), { errors });

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
 * The answer's envelope, as DataHub sends it (POST /api/graphql and the frontend's /api/v2/graphql; the HTTP envelope
 * is ours, not mercurius's, so that it is exactly DataHub's): `{data, extensions: {}}` plus `errors` when there are
 * any, HTTP 200 for every GraphQL-level error.
 */
export interface GraphQLResponse {
  data: unknown;
  errors?: unknown[];
  extensions: Record<string, never>;
}

export interface GraphQLEngine {
  /**
   * Runs one GraphQL request: DataHub's envelope, errors formatted, a 500 only for what is not the caller's mistake;
   * HTTP 503 with Retry-After when the database was out of reach.
   */
  execute(request: FastifyRequest, reply: FastifyReply, descriptionLayer: DescriptionLayer, query: string, variables: unknown,
    operationName: unknown): Promise<GraphQLResponse>;
  /** Whether the operation the request runs is a mutation (false when the document does not parse: execute says why). */
  isMutation(query: string, operationName: unknown): boolean;
}

/** Documents whose operations' kinds are kept (then forgotten all at once): the same few are sent again and again. */
const KINDS_KEPT = 1_000;

/**
 * Builds the schema and its executor. `pause` runs between the steps (each a few tens of milliseconds of CPU), so
 * that a server building this after it listens answers other requests meanwhile.
 */
export async function createGraphQLEngine(catalog: Catalog, log: FastifyBaseLogger, pause: () => Promise<void> = async () => {}): Promise<GraphQLEngine> {
  // The SDL is parsed once, for the resolvers and the schema. Its own validation (the slowest part of building it) is
  // skipped: it is the same text at every start, and the tests build it validated (test/ui.test.ts); the built schema
  // is still checked before it serves (mercurius's validateSchema, when its instance gets ready).
  const document = parse(schemaSdl());
  await pause();
  const schema = buildASTSchema(document, { assumeValidSDL: true });
  await pause();
  // Mercurius is a Fastify plugin: it runs on an instance of its own, which serves nothing (the routes are ours).
  const executor = Fastify({ loggerInstance: log });
  await executor.register(mercurius, {
    schema,
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
  executor.graphql.addHook('preExecution', async (executableSchema, document, context, variables) => {
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
  await pause();
  await executor.ready();
  const graphql = executor.graphql;

  const execute = async (request: FastifyRequest, reply: FastifyReply, descriptionLayer: DescriptionLayer, query: string, variables: unknown,
    operationName: unknown): Promise<GraphQLResponse> => {
    const context: GraphQLContext = { catalog, actor: request.actor, loader: new EntityLoader(catalog), descriptionLayer };
    const log = (e: unknown) => request.log.error({ err: e }, 'GraphQL resolver failed');
    try {
      const vars = coerceNumericStrings(graphql.schema, query, (operationName ?? undefined) as string | undefined,
        (variables ?? undefined) as Record<string, unknown> | undefined);
      // Variables holding big lists are measured before graphql coerces them item by item.
      if (listItemsIn(vars, LIMITS.listItems) > LIMITS.listItems) {
        let doc;
        try {
          doc = parse(query, { maxTokens: LIMITS.tokens });
        } catch {
          doc = undefined; // the syntax error is reported by the normal path
        }
        const errors = doc ? checkVariables(graphql.schema, doc, (operationName ?? undefined) as string | undefined, vars, LIMITS) : [];
        if (errors.length) throw refusal(errors);
      }
      operationNames.set(context, (operationName ?? undefined) as string | undefined);
      const result = await graphql(query, context as never, vars as never,
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
  const kinds = new Map<string, Map<string, string>>();
  const isMutation = (query: string, operationName: unknown): boolean => {
    let byName = kinds.get(query);
    if (!byName) {
      byName = new Map();
      try {
        const ops = parse(query, { maxTokens: LIMITS.tokens }).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
        for (const op of ops) if (op.name && !byName.has(op.name.value)) byName.set(op.name.value, op.operation);
        // No operation name given: the document's only operation.
        if (ops.length === 1) byName.set('', ops[0]!.operation);
      } catch {
        // Not parsed: not a mutation to us, and execute reports the syntax error.
      }
      if (kinds.size >= KINDS_KEPT) kinds.clear();
      kinds.set(query, byName);
    }
    return byName.get(typeof operationName === 'string' ? operationName : '') === 'mutation';
  };
  return { execute, isMutation };
}
