import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STATUS_OF, type ErrorCode } from '../errors.js';
import type { Catalog } from '../catalog.js';
import { authenticate } from './auth.js';
import { operationName } from './request-log.js';

/** One read replica as the catalog reports it. */
type ReplicaState = NonNullable<ReturnType<NonNullable<Catalog['readReplicas']>>>['status'][number];

/**
 * GET /metrics in Prometheus' text format (prom-client). Everything observed lives here, in the HTTP layer: requests
 * are observed by an onResponse hook (by route pattern, never the raw URL, so that the series stay bounded); what the
 * services and the change log know is read from small accessors when Prometheus scrapes (collect callbacks), so that
 * no layer below this one imports prom-client.
 *
 * Each server has its own registry (tests start several apps in one process); the process metrics
 * (collectDefaultMetrics) are one per process, in a registry of their own, and both are written out on each scrape.
 *
 * Readers: a scraper sending `Authorization: Bearer <ALMANAC_METRICS_TOKEN>`, or any authenticated caller holding
 * VIEW_METRICS (the root user and administrators do). Without credentials 401, without the privilege 403.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** Aspects this request ingested (set by the ingestion routes, counted once the answer is sent). */
    ingestedAspects: number;
  }
}

/** Distinct GraphQL operation names a server labels; those seen after are counted as `other`. */
export const MAX_OPERATION_NAMES = 200;
const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/;

/** Seconds: from a cached answer (under a millisecond) to a slow lineage walk. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The Rest.li actions that ingest, by resource (src/http/rest/entities.ts, usage.ts): their refusals are counted. */
const INGEST_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  aspects: ['ingestProposal', 'ingestProposalBatch'],
  entities: ['ingest', 'batchIngest'],
  usageStats: ['batchIngest'],
};

const CODE_OF_STATUS = new Map<number, ErrorCode>(Object.entries(STATUS_OF).map(([code, status]) => [status, code as ErrorCode]));

/** Marks aspects as ingested by this request (counted when it answers with a success). */
export function noteIngested(request: FastifyRequest, aspects: number): void {
  request.ingestedAspects += aspects;
}

/** One per process: the process metrics are the process's, whichever server is scraped. */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The route a request matched, as registered (`/aspects/*`, `/api/graphql`), with the Rest.li action when it names
 * one of the route's own (`/aspects?action=ingestProposal`); `unmatched` for a path no route serves.
 */
function routeOf(request: FastifyRequest): { route: string; resource?: string; action?: string } {
  const url = request.routeOptions.url;
  if (url === undefined) return { route: 'unmatched' };
  const actions = request.routeOptions.config?.restliActions;
  if (actions) {
    const action = (request.query as Record<string, unknown> | undefined)?.action;
    if (typeof action === 'string' && actions.names.has(action)) return { route: `${url}?action=${action}`, resource: actions.resource, action };
  }
  return { route: url };
}

/** The server's own metrics, in its registry; `render` writes them with the process's. */
function serverMetrics(catalog: Catalog, warn: (message: string) => void) {
  const registry = new Registry();
  const registers = [registry];

  const requests = new Counter({ name: 'almanac_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const, registers });
  const durations = new Histogram({ name: 'almanac_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const, buckets: LATENCY_BUCKETS, registers });

  const operations = new Counter({ name: 'almanac_graphql_operations_total',
    help: `GraphQL requests by operation name (the first ${MAX_OPERATION_NAMES} names seen, then "other"; "anonymous" without one).`,
    labelNames: ['operation'] as const, registers });
  const operationDurations = new Histogram({ name: 'almanac_graphql_operation_duration_seconds',
    help: 'Time to answer a GraphQL request, by operation name (as almanac_graphql_operations_total).',
    labelNames: ['operation'] as const, buckets: LATENCY_BUCKETS, registers });
  const seenOperations = new Set<string>();
  const operationLabel = (name: string | undefined): string => {
    if (name === undefined) return 'anonymous';
    if (seenOperations.has(name)) return name;
    if (!OPERATION_NAME.test(name) || seenOperations.size >= MAX_OPERATION_NAMES) return 'other';
    seenOperations.add(name);
    return name;
  };

  const ingested = new Counter({ name: 'almanac_ingest_aspects_total',
    help: 'Aspects accepted by the ingestion endpoints (Rest.li ingestProposal, ingestProposalBatch, entities ingest and batchIngest, usageStats batchIngest).',
    registers });
  const refusals = new Counter({ name: 'almanac_ingest_refusals_total',
    help: 'Requests to the ingestion endpoints refused, by error code (UNPROCESSABLE, BAD_REQUEST, FORBIDDEN, PAYLOAD_TOO_LARGE, UNAVAILABLE…).',
    labelNames: ['code'] as const, registers });

  const searches = new Histogram({ name: 'almanac_search_duration_seconds', help: 'Time to answer one search (a page with its facets).',
    buckets: LATENCY_BUCKETS, registers });

  // Read when scraped, once for the three (prom-client collects every metric at once): the change log's head and
  // where each durable consumer stands. The database out of reach leaves the head NaN and the consumers out.
  let positions: Promise<void> | undefined;
  const readPositions = () => (positions ??= (async () => {
    offsets.reset();
    lags.reset();
    try {
      const at = await catalog.changeLog.positions();
      head.set(at.head);
      for (const [consumer, offset] of at.consumers) {
        offsets.set({ consumer }, offset);
        lags.set({ consumer }, Math.max(0, at.head - offset));
      }
    } catch (e) {
      head.set(NaN);
      warn(`metrics: the change log's positions could not be read: ${(e as Error).message}`);
    }
  })());
  const head = new Gauge({ name: 'almanac_changelog_head', help: 'Offset of the newest change-log entry.', registers, collect: readPositions });
  const offsets = new Gauge({ name: 'almanac_changelog_consumer_offset',
    help: 'Offset each durable change-log consumer has applied (search, relationships, webhook:<id>).', labelNames: ['consumer'] as const, registers,
    collect: readPositions });
  const lags = new Gauge({ name: 'almanac_changelog_consumer_lag',
    help: 'Change-log entries committed but not yet applied, by durable consumer (0 when caught up).', labelNames: ['consumer'] as const, registers,
    collect: readPositions });

  const pool = catalog.databasePool;
  if (pool) {
    new Gauge({ name: 'almanac_db_pool_connections', help: 'PostgreSQL connections open in the pool (idle or in use).', registers,
      collect() { this.set(pool().total); } });
    new Gauge({ name: 'almanac_db_pool_idle_connections', help: 'PostgreSQL connections open and idle in the pool.', registers,
      collect() { this.set(pool().idle); } });
    new Gauge({ name: 'almanac_db_pool_waiting_requests', help: 'Requests waiting for a PostgreSQL connection of the pool.', registers,
      collect() { this.set(pool().waiting); } });
    new Gauge({ name: 'almanac_db_pool_max_connections', help: 'The pool\'s connection limit.', registers,
      collect() { this.set(pool().max); } });
  }

  const replicas = catalog.readReplicas;
  if (replicas !== undefined) {
    const each = (set: (name: string, r: ReplicaState) => void) => {
      for (const r of replicas()?.status ?? []) set(r.name, r);
    };
    new Gauge({ name: 'almanac_db_replica_up', help: 'Whether a read replica (DATABASE_READ_URL) is in rotation (1) or not (0).',
      labelNames: ['replica'] as const, registers, collect() { this.reset(); each((replica, r) => this.set({ replica }, r.up ? 1 : 0)); } });
    new Gauge({ name: 'almanac_db_replica_lag_bytes', help: 'WAL the primary has written that a read replica has not replayed, at its last check.',
      labelNames: ['replica'] as const, registers, collect() {
        this.reset();
        each((replica, r) => { if (r.lagBytes !== null) this.set({ replica }, r.lagBytes); });
      } });
    new Gauge({ name: 'almanac_db_replica_lag_seconds', help: 'Seconds since a read replica that is behind replayed its last commit (0 when caught up).',
      labelNames: ['replica'] as const, registers, collect() {
        this.reset();
        each((replica, r) => { if (r.lagSeconds !== null) this.set({ replica }, r.lagSeconds); });
      } });
    new Counter({ name: 'almanac_db_reads_total', help: 'Reads that may go to a replica, by where they went: replica, primary (none caught up or '
      + 'in rotation), retried_on_primary (the replica failed them).', labelNames: ['served_by'] as const, registers, collect() {
      this.reset();
      const stats = replicas()?.stats;
      if (!stats) return;
      this.inc({ served_by: 'replica' }, stats.replica);
      this.inc({ served_by: 'primary' }, stats.primaryFallback);
      this.inc({ served_by: 'retried_on_primary' }, stats.retriedOnPrimary);
    } });
  }

  // Caches count their hits and misses as plain numbers; the counters take those totals when scraped.
  const caches = { graphql_responses: catalog.responses.stats, tokens: catalog.tokens.stats, policies: catalog.policies.stats };
  new Counter({ name: 'almanac_cache_hits_total', help: 'Lookups answered from a cache (graphql_responses, tokens, policies).',
    labelNames: ['cache'] as const, registers, collect() {
      this.reset();
      for (const [cache, s] of Object.entries(caches)) this.inc({ cache }, s.hits);
    } });
  new Counter({ name: 'almanac_cache_misses_total', help: 'Lookups a cache could not answer (graphql_responses, tokens, policies).',
    labelNames: ['cache'] as const, registers, collect() {
      this.reset();
      for (const [cache, s] of Object.entries(caches)) this.inc({ cache }, s.misses);
    } });
  new Gauge({ name: 'almanac_graphql_response_cache_bytes', help: 'Memory held by kept GraphQL answers (ALMANAC_RESPONSE_CACHE_MB bounds it).',
    registers, collect() { this.set(catalog.responses.size.bytes); } });
  new Gauge({ name: 'almanac_graphql_response_cache_answers', help: 'GraphQL answers kept for reuse.',
    registers, collect() { this.set(catalog.responses.size.answers); } });

  return {
    registry,
    observeSearch: (seconds: number) => searches.observe(seconds),
    observe(request: FastifyRequest, status: number, seconds: number) {
      const { route, resource, action } = routeOf(request);
      const labels = { method: request.method, route, status: String(status) };
      requests.inc(labels);
      durations.observe(labels, seconds);
      // GraphQL requests of authenticated callers only: anonymous scanners cannot fill the names.
      if (route.endsWith('/graphql') && request.method === 'POST' && request.actor) {
        const operation = operationLabel(operationName(request));
        operations.inc({ operation });
        operationDurations.observe({ operation }, seconds);
      }
      if (resource !== undefined && INGEST_ACTIONS[resource]?.includes(action!)) {
        if (status < 400) {
          if (request.ingestedAspects > 0) ingested.inc(request.ingestedAspects);
        } else {
          refusals.inc({ code: CODE_OF_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL' : 'BAD_REQUEST') });
        }
      }
    },
    async render(): Promise<string> {
      positions = undefined;
      const own = await registry.metrics();
      return `${await processMetrics().metrics()}\n${own}`;
    },
  };
}

export const metricsPlugin = fp(async (app: FastifyInstance, { catalog }: { catalog: Catalog }) => {
  app.decorateRequest('ingestedAspects', 0);
  if (!catalog.config.metrics) return;
  const metrics = serverMetrics(catalog, (m) => app.log.warn(m));
  const stopSearches = catalog.search.onSearched(metrics.observeSearch);
  app.addHook('onClose', async () => stopSearches());
  app.addHook('onResponse', async (request, reply) => {
    metrics.observe(request, reply.statusCode, reply.elapsedTime / 1000);
  });

  const token = catalog.config.metricsToken;
  app.get('/metrics', { config: { public: true } }, async (request, reply) => {
    const header = request.headers.authorization;
    if (!(token !== undefined && header !== undefined && safeEqual(header, `Bearer ${token}`))) {
      request.actor = await authenticate(catalog, request);
      await catalog.authorized.operations.admitMetricsReader(request.actor);
    }
    return reply.type(metrics.registry.contentType).send(await metrics.render());
  });
});
