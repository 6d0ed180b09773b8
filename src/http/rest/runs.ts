import type { FastifyInstance } from 'fastify';
import { aspectSpec } from '../../registry/registry.js';
import { visibleAspects } from '../../services/authz.js';
import type { Catalog } from '../../catalog.js';
import type { RunRow } from '../../services/ingestion.js';
import { REQUIRES } from '../../model/privileges.js';
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
  const { authz, ingestion, entities } = catalog;
  registerActions(app, 'runs', {
    // DataHub checks no privilege here; the answer names runs, not metadata.
    async list(body) {
      const runs = await ingestion.listRuns({ start: optionalInteger(body, 'pageOffset', 0) ?? 0,
        count: optionalInteger(body, 'pageSize', 0, MAX_PAGE) ?? 100, includeSoft: optionalBoolean(body, 'includeSoft') ?? false });
      return runs.map((r) => ({ runId: r.runId, timestamp: r.timestamp, rows: r.rows }));
    },
    async describe(body, request) {
      const runId = requiredString(body, 'runId');
      const rows = await ingestion.describeRun(runId, { start: requiredInteger(body, 'start', 0),
        count: requiredInteger(body, 'count', 0, MAX_PAGE), includeSoft: optionalBoolean(body, 'includeSoft') ?? false });
      if (optionalBoolean(body, 'includeAspect') !== true) return rows.map((r) => summary(r));
      // The aspects themselves only where the caller may read them (as GET /aspects would answer).
      const latest = await entities.getLatestOf([...new Set(rows.map((r) => r.urn))]);
      const visible = await visibleAspects(authz, request.actor, [...new Set(rows.map((r) => r.aspect))]);
      const readable = new Map<string, boolean>();
      for (const urn of new Set(rows.map((r) => r.urn))) readable.set(urn, await authz.allowed(request.actor, REQUIRES['rest.getAspect'], urn));
      return rows.map((r) => {
        const rec = latest.get(r.urn)?.get(r.aspect);
        return summary(r, rec && readable.get(r.urn) && visible.has(r.aspect) && aspectSpec(r.aspect) ? rec.value : undefined);
      });
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
