import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import type { Catalog } from '../../catalog.js';
import { parseInteger, registerActions } from './actions.js';

/**
 * DataHub's `/operations` actions for time-series indices: getIndexSizes, truncateTimeseriesAspect and
 * getEsTaskStatus. Parameters may come in the JSON body or the query string (DataHub's docs use both).
 */
function params(body: Record<string, unknown>, request: FastifyRequest): Record<string, unknown> {
  const { action: _action, ...query } = request.query as Record<string, unknown>;
  return { ...query, ...body };
}

function bool(v: unknown, name: string): boolean | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw badRequest(`${name} must be true or false, got '${String(v)}'`, { field: name });
}

export async function operationsRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const operations = catalog.authorized.operations;
  registerActions(app, 'operations', {
    async getIndexSizes(_body, request) {
      return { indexSizes: await operations.indexSizes(request.actor, 'rest') };
    },
    async truncateTimeseriesAspect(body, request) {
      return operations.truncateTimeseries(request.actor, () => {
        const p = params(body, request);
        const endTimeMillis = parseInteger(p.endTimeMillis, 'endTimeMillis');
        if (endTimeMillis === undefined) throw badRequest("Missing required parameter 'endTimeMillis'", { field: 'endTimeMillis' });
        return {
          entityType: String(p.entityType ?? ''), aspect: String(p.aspect ?? ''), endTimeMillis,
          dryRun: bool(p.dryRun, 'dryRun'), batchSize: parseInteger(p.batchSize, 'batchSize'), timeoutSeconds: parseInteger(p.timeoutSeconds, 'timeoutSeconds', 0),
          forceDeleteByQuery: bool(p.forceDeleteByQuery, 'forceDeleteByQuery'), forceReindex: bool(p.forceReindex, 'forceReindex'),
        };
      });
    },
    async getEsTaskStatus(body, request) {
      return operations.taskStatus(request.actor, () => {
        const p = params(body, request);
        return { task: p.task === undefined ? undefined : String(p.task),
          nodeId: p.nodeId === undefined ? undefined : String(p.nodeId), taskId: parseInteger(p.taskId, 'taskId', 0) };
      });
    },
  });
}
