import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from './common.js';
import type { UsageResult } from '../../services/timeseries.js';
import { eventFilter, type EventFilter } from '../../services/timeseries-filter.js';

/** Profiles, operations and usage of a dataset, from its time-series tables; and reportOperation. */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;
type Range = { startTimeMillis?: number | null; endTimeMillis?: number | null; limit?: number | null; filter?: EventFilter | null };

/** Events read to find `limit` that pass a filter (time-series are read newest first). */
const FILTERED_READ = 10_000;

async function rows(ctx: Ctx, urn: string, aspect: string, r: Range, dfltLimit: number) {
  const limit = r.limit ?? dfltLimit;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw badRequest(`limit must be between 1 and 10000, got ${limit}`);
  const keep = eventFilter(r.filter);
  const read = await ctx.catalog.timeseries.values({ urn, entityType: 'dataset', aspect, startTimeMillis: r.startTimeMillis ?? undefined,
    endTimeMillis: r.endTimeMillis ?? undefined, limit: keep ? FILTERED_READ : limit });
  return keep ? read.filter((e) => keep(e.value)).slice(0, limit) : read;
}

const partitionOf = (v: Obj) => (v.partitionSpec ? { type: v.partitionSpec.type ?? 'FULL_TABLE', partition: v.partitionSpec.partition ?? '' } : null);

/** The service's usage result with user urns as entity refs. */
function withUserRefs(u: UsageResult) {
  const users = (list: { user: string; count: number; userEmail: string | null }[]) => list.map((x) => ({ ...x, user: ref(x.user) }));
  return {
    buckets: u.buckets.map((b) => ({ ...b, metrics: { ...b.metrics, users: users(b.metrics.users) } })),
    aggregations: { ...u.aggregations, users: users(u.aggregations.users) },
  };
}

export const timeseriesResolvers = {
  Dataset: {
    datasetProfiles: async (r: EntityRef, args: Range, ctx: Ctx) => {
      await ctx.catalog.authorized.reads.admitProfiles(ctx.actor, r.urn);
      return (await rows(ctx, r.urn, 'datasetProfile', args, 100)).map(({ value: v }) => {
        const p = v as Obj;
        return {
          timestampMillis: p.timestampMillis, rowCount: p.rowCount ?? null, columnCount: p.columnCount ?? null,
          sizeInBytes: p.sizeInBytes ?? null, partitionSpec: partitionOf(p),
          fieldProfiles: p.fieldProfiles ? p.fieldProfiles.map((f: Obj) => ({ fieldPath: f.fieldPath, uniqueCount: f.uniqueCount ?? null,
            uniqueProportion: f.uniqueProportion ?? null, nullCount: f.nullCount ?? null, nullProportion: f.nullProportion ?? null,
            min: f.min ?? null, max: f.max ?? null, mean: f.mean ?? null, median: f.median ?? null, stdev: f.stdev ?? null,
            sampleValues: f.sampleValues ?? null })) : null,
        };
      });
    },
    operations: async (r: EntityRef, args: Range, ctx: Ctx) =>
      (await rows(ctx, r.urn, 'operation', args, 100)).map(({ value: v }) => {
        const o = v as Obj;
        return {
          timestampMillis: o.timestampMillis, actor: o.actor ?? null, operationType: o.operationType,
          customOperationType: o.customOperationType ?? null, sourceType: o.sourceType ?? null, numAffectedRows: o.numAffectedRows ?? null,
          affectedDatasets: o.affectedDatasets ?? null, lastUpdatedTimestamp: o.lastUpdatedTimestamp,
          partition: o.partitionSpec?.partition ?? null,
          customProperties: o.customProperties ? Object.entries(o.customProperties).map(([key, value]) => ({ key, value })) : null,
        };
      }),
    usageStats: async (r: EntityRef, args: { range?: string | null; startTimeMillis?: number | null }, ctx: Ctx) => {
      return withUserRefs(await ctx.catalog.authorized.reads.usage(ctx.actor, 'graphql', r.urn,
        () => ({ range: args.range ?? 'ALL', startTimeMillis: args.startTimeMillis ?? undefined })));
    },
    statsSummary: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const u = await ctx.catalog.authorized.reads.usage(ctx.actor, 'graphql', r.urn, () => ({ range: 'MONTH' }));
      return { queryCountLast30Days: u.aggregations.totalSqlQueries, uniqueUserCountLast30Days: u.aggregations.uniqueUserCount,
        topUsersLast30Days: u.aggregations.users.slice(0, 10).map((x) => ref(x.user)) };
    },
  },
  Query: {
    timeseriesIndexSizes: async (_: unknown, _a: unknown, ctx: Ctx) => {
      return ctx.catalog.authorized.operations.indexSizes(ctx.actor, 'graphql');
    },
  },
  Mutation: {
    reportOperation: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const urn = parseUrn(input.urn).raw;
      const now = Date.now();
      const value: Obj = {
        timestampMillis: input.timestampMillis ?? now, lastUpdatedTimestamp: input.timestampMillis ?? now,
        operationType: input.operationType, sourceType: input.sourceType, actor: input.actor ?? ctx.actor.urn,
        ...(input.customOperationType ? { customOperationType: input.customOperationType } : {}),
        ...(input.numAffectedRows != null ? { numAffectedRows: input.numAffectedRows } : {}),
        ...(input.partition ? { partitionSpec: { type: 'PARTITION', partition: input.partition } } : {}),
        ...(input.customProperties ? { customProperties: Object.fromEntries(input.customProperties.map((e: Obj) => [e.key, e.value ?? ''])) } : {}),
      };
      await ctx.catalog.writes.reportOperation(urn, value, ctx.actor);
      // DataHub 0.12.1 declares String and its resolver answers the boolean true, which its String scalar writes "true".
      return 'true';
    },
  },
};
