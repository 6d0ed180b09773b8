import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import { splitTopLevel } from '../../model/urn.js';

export type ActionHandler = (body: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * Rest.li actions: `POST /<resource>?action=<name>` with a JSON object of parameters. A handler's result is
 * wrapped as `{"value": result}`; `undefined` means a void action (200, empty body), as Rest.li does.
 */
export function registerActions(app: FastifyInstance, resource: string, handlers: Record<string, ActionHandler>) {
  app.post(`/${resource}`, async (request, reply) => {
    const action = (request.query as Record<string, string | undefined>).action;
    // Own handlers only: `?action=constructor` or `?action=toString` must not reach Object.prototype's functions.
    const handler = action && Object.hasOwn(handlers, action) ? handlers[action] : undefined;
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
  });
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

/** Rest.li 2.0 list syntax in query strings: `List(a,b)`; also accepts plain comma lists and repeats. */
export function restliList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  const values = Array.isArray(v) ? v.map(String) : [String(v)];
  return values.flatMap((s) => {
    const m = /^List\((.*)\)$/.exec(s);
    // Urns carry commas inside their tuples: split only outside parentheses.
    const parts = splitTopLevel(m ? m[1]! : s);
    if (typeof parts === 'string') throw badRequest(`Malformed list '${s}': ${parts}`);
    return parts;
  }).map((s) => decodeURIComponent(s)).filter((s) => s.length > 0);
}

export function optionalNumber(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null || v === '') return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isFinite(n)) throw badRequest(`${name} must be a number, got '${String(v)}'`, { field: name });
  return n;
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v.length === 0) throw badRequest(`Missing required parameter '${name}'`, { field: name });
  return v;
}
