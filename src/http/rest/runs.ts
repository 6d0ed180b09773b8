import type { FastifyInstance } from 'fastify';
import { aspectSpec } from '../../registry/registry.js';
import type { Catalog } from '../../catalog.js';
import type { RunRow } from '../../services/ingestion.js';
import { optionalBoolean, optionalInteger, registerActions, requiredInteger, requiredString } from './actions.js';

/** Most rows one describe page may hold (an Elasticsearch page in DataHub). */
const MAX_PAGE = 10_000;

/** DataHub's AspectRowSummary as its system-metadata index fills it in (no metadata or version). */
function summary(r: RunRow, aspect?: unknown) {
  return { runId: r.runId, aspectName: r.aspect, urn: r.urn, timestamp: r.timestamp, keyAspect: r.keyAspect,
    ...(aspect !== undefined ? { aspect } : {}) };
}

/**
 * DataHub 0.12.1's `/runs` resource (BatchIngestionRunResource), which `datahub ingest list-runs`, `show` and
 * `rollback` call: runs are the runIds in the latest aspect versions' system metadata.
 */
export async function runRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const { ingestion } = catalog;
  registerActions(app, 'runs', {
    // DataHub checks no privilege here; the answer names runs, not metadata.
    async list(body) {
      const runs = await ingestion.listRuns({ start: optionalInteger(body, 'pageOffset', 0) ?? 0,
        count: optionalInteger(body, 'pageSize', 0, MAX_PAGE) ?? 100, includeSoft: optionalBoolean(body, 'includeSoft') ?? false });
      return runs.map((r) => ({ runId: r.runId, timestamp: r.timestamp, rows: r.rows }));
    },
    async describe(body, request) {
      const runId = requiredString(body, 'runId');
      const rows = await catalog.authorized.ingestion.describeRun(request.actor, runId, { start: requiredInteger(body, 'start', 0),
        count: requiredInteger(body, 'count', 0, MAX_PAGE), includeSoft: optionalBoolean(body, 'includeSoft') ?? false },
      () => optionalBoolean(body, 'includeAspect') === true);
      return rows.map((r) => summary(r.row, r.aspect));
    },
    async rollback(body, request) {
      const runId = requiredString(body, 'runId');
      const safe = optionalBoolean(body, 'safe');
      const hardDelete = safe !== undefined ? !safe : optionalBoolean(body, 'hardDelete') ?? false;
      const r = await ingestion.rollbackRun(runId, { dryRun: optionalBoolean(body, 'dryRun') ?? false, hardDelete }, request.actor);
      return { aspectRowSummaries: r.rows.map((x) => summary(x)), entitiesAffected: r.entitiesAffected, aspectsAffected: r.aspectsAffected,
        entitiesDeleted: r.entitiesDeleted, aspectsReverted: r.aspectsReverted, unsafeEntitiesCount: r.unsafeEntities.length,
        unsafeEntities: r.unsafeEntities.map((urn) => ({ urn })) };
    },
  });
}
