import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { Catalog } from '../../catalog.js';
import { USAGE_RANGES } from '../../services/timeseries.js';
import { noteIngested } from '../metrics.js';
import { MAX_BATCH_ITEMS, boundedList, optionalInteger, registerActions, requiredString } from './actions.js';

/**
 * DataHub's legacy `/usageStats` resource (deprecated there, still used by older SDKs): `batchIngest` of usage
 * buckets, stored as datasetUsageStatistics, and `query` / `queryRange` answered from them.
 */
type Obj = Record<string, any>;

/** Rest.li leaves absent optional fields out rather than sending null. */
function dropNulls<T>(v: T): T {
  if (Array.isArray(v)) return v.map(dropNulls) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)])) as T;
  return v;
}

export async function usageRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const query = async (request: FastifyRequest, resource: string, read: () => { range: string; startTimeMillis?: number; endTimeMillis?: number }) => {
    const u = await catalog.authorized.reads.usage(request.actor, 'rest', resource, read);
    return dropNulls({ buckets: u.buckets, aggregations: u.aggregations });
  };
  registerActions(app, 'usageStats', {
    async batchIngest(body, request) {
      if (!Array.isArray(body.buckets)) throw badRequest('buckets must be a list of UsageAggregation', { field: 'buckets' });
      const items = boundedList(body.buckets, 'buckets', MAX_BATCH_ITEMS).map((b: Obj, i: number) => {
        const urn = parseUrn(b?.resource).raw;
        if (!Number.isSafeInteger(b.bucket)) throw badRequest(`buckets[${i}].bucket must be a timestamp in milliseconds`);
        const m: Obj = b.metrics ?? {};
        return { urn, entityType: parseUrn(urn).entityType, aspect: 'datasetUsageStatistics', changeType: 'UPSERT' as const, systemMetadata: null,
          value: dropNulls({ timestampMillis: b.bucket, eventGranularity: { unit: b.duration ?? 'DAY', multiple: 1 },
            uniqueUserCount: m.uniqueUserCount ?? null, totalSqlQueries: m.totalSqlQueries ?? null, topSqlQueries: m.topSqlQueries ?? null,
            userCounts: m.users ? m.users.map((x: Obj) => dropNulls({ user: x.user, count: x.count, userEmail: x.userEmail ?? null })) : null,
            fieldCounts: m.fields ? m.fields.map((x: Obj) => ({ fieldPath: x.fieldName, count: x.count })) : null }) };
      });
      await catalog.writes.ingest(items, request.actor);
      noteIngested(request, items.length);
      return undefined;
    },
    async query(body, request) {
      const resource = parseUrn(requiredString(body, 'resource')).raw;
      return query(request, resource, () => ({ range: 'ALL', startTimeMillis: optionalInteger(body, 'startTime'), endTimeMillis: optionalInteger(body, 'endTime') }));
    },
    async queryRange(body, request) {
      const resource = parseUrn(requiredString(body, 'resource')).raw;
      return query(request, resource, () => {
        const range = String(body.rangeFromEnd ?? 'ALL');
        if (!(range in USAGE_RANGES)) throw badRequest(`rangeFromEnd must be one of ${Object.keys(USAGE_RANGES).join(', ')}`, { field: 'rangeFromEnd' });
        return { range };
      });
    },
  });
}
