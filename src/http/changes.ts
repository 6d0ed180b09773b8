import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { once } from 'node:events';
import { changeFilter, type ChangeFilter, type ReadGate } from '../changelog/feed.js';
import { badRequest } from '../errors.js';
import type { Catalog } from '../catalog.js';
import { authenticate } from './auth.js';
import { parseInteger } from './rest/actions.js';

/** How often an idle stream sends a comment line (proxies and clients drop silent connections). */
const HEARTBEAT_MS = 15_000;
/** How often a stream looks at the log without being woken (a fallback: commits wake it at once). */
const POLL_MS = 500;
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Events written per step of a stream. */
const STREAM_BATCH = 200;
/** How often an open stream checks its credentials again (a revoked token, a suspended user end it). */
const REAUTHENTICATE_MS = 30_000;

type Query = Record<string, string | string[] | undefined>;

/** A repeatable parameter (`aspect=a&aspect=b`, or `aspect=a,b`) as a list. */
function listParam(q: Query, name: string): string[] {
  const v = q[name];
  const all = v === undefined ? [] : Array.isArray(v) ? v : [v];
  return all.flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '');
}

function single(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) throw badRequest(`${name} may be given once`, { field: name });
  return v;
}

function wantsStream(request: FastifyRequest, format: string | undefined): boolean {
  if (format !== undefined) {
    if (format !== 'json' && format !== 'sse') throw badRequest(`format must be json or sse, got '${format}'`, { field: 'format' });
    return format === 'sse';
  }
  return (request.headers.accept ?? '').includes('text/event-stream');
}

/**
 * GET /api/changes: the change log for subscribers, as a paged JSON read or as Server-Sent Events. Each event is a
 * MetadataChangeLog; the subscriber needs VIEW_CHANGE_LOG and receives only what a REST aspect read would show them.
 */
export async function changeRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const feed = catalog.changeFeed;
  const streams = new Set<AbortController>();
  // Open streams end when the server closes (else closing would wait for every subscriber to leave).
  app.addHook('preClose', async () => {
    for (const s of streams) s.abort();
  });

  app.get('/api/changes', async (request, reply) => {
    const gate = await feed.admit(request.actor);
    const q = request.query as Query;
    const stream = wantsStream(request, single(q, 'format'));
    const filter = changeFilter(listParam(q, 'entityType'), listParam(q, 'aspect'));
    let since = parseInteger(single(q, 'since'), 'since', 0);
    const lastEventId = request.headers['last-event-id'];
    if (stream && typeof lastEventId === 'string' && lastEventId.trim() !== '') {
      since = parseInteger(lastEventId.trim(), 'Last-Event-ID', 0); // a reconnecting client resumes where it was
    }
    const after = await feed.startAfter(since);
    if (stream) return sendStream(request, reply, after, filter, gate);
    const limit = parseInteger(single(q, 'limit'), 'limit', 1, MAX_LIMIT) ?? DEFAULT_LIMIT;
    const page = await feed.page(gate, { after, limit, filter });
    return { events: page.events, next: page.next, head: Math.max(await feed.head(), page.next) };
  });

  async function sendStream(request: FastifyRequest, reply: FastifyReply, start: number, filter: ChangeFilter, gate: ReadGate) {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' });
    res.write(`: Almanac change log after offset ${start}\n\n`);
    const ctl = new AbortController();
    const { signal } = ctl;
    streams.add(ctl);
    res.on('close', () => ctl.abort());
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
    let after = start;
    let authenticated = Date.now();
    try {
      while (!signal.aborted) {
        const seen = feed.seen;
        if (Date.now() - authenticated > REAUTHENTICATE_MS) {
          const still = await authenticate(catalog, request).then((a) => a.urn === request.actor.urn, () => false);
          if (!still) {
            res.write('event: error\ndata: {"status":401,"code":"UNAUTHENTICATED","message":"The credentials no longer hold"}\n\n');
            break;
          }
          authenticated = Date.now();
        }
        if (!(await gate.subscribed())) {
          res.write('event: error\ndata: {"status":403,"code":"FORBIDDEN","message":"The change log privilege was withdrawn"}\n\n');
          break;
        }
        const page = await feed.page(gate, { after, limit: STREAM_BATCH, filter });
        let flowing = true;
        for (const { offset, ...event } of page.events) {
          flowing = res.write(`id: ${offset}\nevent: MetadataChangeLog\ndata: ${JSON.stringify(event)}\n\n`);
        }
        if (!flowing && !signal.aborted) await once(res, 'drain', { signal }).catch(() => {});
        const progressed = page.next !== after;
        after = page.next;
        if (!progressed) await feed.waitForChange(POLL_MS, seen, signal);
      }
    } catch (e) {
      if (!signal.aborted) {
        request.log.error({ err: e }, 'change stream failed');
        res.write('event: error\ndata: {"status":500,"code":"INTERNAL","message":"The change stream failed; reconnect to resume"}\n\n');
      }
    } finally {
      clearInterval(heartbeat);
      streams.delete(ctl);
      res.end();
    }
  }
}
