import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import { parseJsonSafely } from '../../model/safe-keys.js';
import { splitTopLevel } from '../../model/urn.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A Rest.li action route's resource and action names (the metrics label such a request by its action). */
    restliActions?: { resource: string; names: ReadonlySet<string> };
  }
}

export type ActionHandler = (body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** Every request body: a key that could reach a prototype is refused (422) before any handler sees it. */
export function parseRequestJson(body: string): unknown {
  if (body.trim() === '') return {};
  return parseJsonSafely(body, 'The request body', (m) => badRequest(`Malformed JSON in request body: ${m}`));
}

/**
 * A request body the content parser left as text (src/http/server.ts): a large `ingestProposalBatch`, which its
 * handler has decoded in a worker thread. Any other handler gets it parsed, with the errors parsing gives, first.
 */
export class RawBody {
  constructor(readonly text: string) {}
}

/** `POST …/aspects?action=ingestProposalBatch` (any prefix, with or without the collection's trailing slash). */
const BATCH_INGEST_URL = /\/aspects\/?\?(?:[^#]*&)?action=ingestProposalBatch(?:&|#|$)/;
export const isBatchIngestUrl = (url: string): boolean => BATCH_INGEST_URL.test(url);

/**
 * Rest.li actions: `POST /<resource>?action=<name>` with a JSON object of parameters. A handler's result is
 * wrapped as `{"value": result}`; `undefined` means a void action (200, empty body), as Rest.li does.
 */
export function registerActions(app: FastifyInstance, resource: string, handlers: Record<string, ActionHandler>,
  /** Actions whose handler takes a RawBody as it is. */
  rawActions: ReadonlySet<string> = new Set()) {
  const restliActions = { resource, names: new Set(Object.keys(handlers)) };
  collectionRoute(app, 'POST', resource, async (request, reply) => {
    const action = (request.query as Record<string, string | undefined>).action;
    // Own handlers only: `?action=constructor` or `?action=toString` must not reach Object.prototype's functions.
    const handler = action && Object.hasOwn(handlers, action) ? handlers[action] : undefined;
    if (request.body instanceof RawBody && !(handler && rawActions.has(action!))) request.body = parseRequestJson(request.body.text);
    if (!handler) {
      throw badRequest(action
        ? `Unknown action '${action}' on /${resource}; known: ${Object.keys(handlers).join(', ')}`
        : `POST /${resource} needs ?action=<name> (one of ${Object.keys(handlers).join(', ')})`);
    }
    const body = request.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) throw badRequest('The request body must be a JSON object');
    const value = await handler(body as Record<string, unknown>, request, reply);
    if (value === undefined) return reply.code(200).send();
    return { value };
  }, { restliActions });
}

/**
 * A route on a Rest.li collection itself (`/aspects`, `/entitiesV2`), answered with or without a trailing slash, as
 * Rest.li does: DataHub's CLI posts to `/aspects/?action=ingestProposal`. Only these routes take the slash; the
 * router keeps its strict matching for everything else (the UI's pages, a key that ends in a slash).
 */
export function collectionRoute(app: FastifyInstance, method: 'GET' | 'POST', resource: string,
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>, config?: FastifyContextConfig) {
  for (const url of [`/${resource}`, `/${resource}/`]) app.route({ method, url, handler, ...(config ? { config } : {}) });
}

/** Reads an urn from a Rest.li path key (`/aspects/<urn>`), percent-decoded; slashes may be left raw. */
export function urnFromPath(request: FastifyRequest, resource: string): string {
  const raw = request.raw.url ?? '';
  const path = raw.split('?')[0]!;
  const i = path.indexOf(`/${resource}/`);
  const encoded = path.slice(i + resource.length + 2);
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw badRequest(`The urn in the path is not valid percent-encoding: '${encoded}'`);
  }
}

/** Items one list parameter of a read (`ids=List(…)`, `urns`, `aspects`) may hold. */
export const MAX_LIST_ITEMS = 1_000;
/** Items one ingestion batch may hold: 50 times the Python emitter's default batch of 200 proposals. */
export const MAX_BATCH_ITEMS = 10_000;

/** Refuses a list parameter longer than `max` with a 400 naming it. */
export function boundedList<T>(list: T[], name: string, max: number): T[] {
  if (list.length > max) throw badRequest(`${name} holds ${list.length} items; at most ${max} are allowed`, { field: name });
  return list;
}

/** The raw (still percent-encoded) values of a query-string parameter, in order. */
export function rawQueryValues(request: FastifyRequest, name: string): string[] {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  if (q < 0) return [];
  const out: string[] = [];
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    if ((eq < 0 ? pair : pair.slice(0, eq)) === name) out.push(eq < 0 ? '' : pair.slice(eq + 1));
  }
  return out;
}

/**
 * A Rest.li 2.0 list parameter, `name=List(a,b)`, read the way Rest.li reads it: the structure (`List(`, `,`, `)`)
 * is parsed on the raw query string and each item is percent-decoded exactly once, so a urn holding `%25` or
 * a literal `%` keeps it. Urns sent unencoded keep their commas (split only outside parentheses); plain comma
 * lists and repeated parameters are accepted too. Undefined when the parameter is absent.
 */
export function restliListParam(request: FastifyRequest, name: string, max = MAX_LIST_ITEMS): string[] | undefined {
  const values = rawQueryValues(request, name);
  if (values.length === 0) return undefined;
  const items = values.flatMap((s) => {
    const m = /^List\((.*)\)$/.exec(s);
    // Urns carry commas inside their tuples: split only outside parentheses.
    const parts = splitTopLevel(m ? m[1]! : s);
    if (typeof parts === 'string') throw badRequest(`Malformed list in parameter ${name}: ${parts}`, { field: name });
    return parts;
  }).filter((s) => s.length > 0);
  boundedList(items, name, max);
  return items.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badRequest(`Parameter ${name} holds an item that is not valid percent-encoding: '${s}'`, { field: name });
    }
  });
}

/**
 * A whole-number parameter: a JSON number or a string of decimal digits, a safe integer within [min, max].
 * Anything else (1.5, 1e308, '0x10', 'abc') is a 400, so no parameter reaches SQL as something a column refuses.
 */
export function parseInteger(v: unknown, name: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = min > Number.MIN_SAFE_INTEGER && max < Number.MAX_SAFE_INTEGER ? ` between ${min} and ${max}`
      : min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : max < Number.MAX_SAFE_INTEGER ? ` ≤ ${max}` : '';
    throw badRequest(`${name} must be a whole number${range}, got '${String(v)}'`, { field: name });
  }
  return n;
}

export function optionalInteger(body: Record<string, unknown>, name: string, min?: number, max?: number): number | undefined {
  return parseInteger(body[name], name, min, max);
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`Missing required parameter '${name}'`, { field: name });
  return v;
}

/** A true/false parameter (a JSON boolean or 'true'/'false'); undefined when absent, else a 400. */
export function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw badRequest(`${name} must be true or false, got '${String(v)}'`, { field: name });
}

export function requiredInteger(body: Record<string, unknown>, name: string, min?: number, max?: number): number {
  const n = parseInteger(body[name], name, min, max);
  if (n === undefined) throw badRequest(`Missing required parameter '${name}'`, { field: name });
  return n;
}
