import type { ExecutionRecord, SourceInput, SourceRecord } from '../../services/ingestion.js';
import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';

/**
 * Ingestion sources, secrets and execution requests (DataHub 0.12.1's ingestion.graphql) over the ingestion service.
 * Sources and runs need MANAGE_INGESTION, secrets MANAGE_SECRETS, as in DataHub.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const bounds = (input: Obj, defaultCount: number) => ({
  start: Math.max(0, Number(input.start ?? 0)),
  count: Math.min(1000, Math.max(0, Number(input.count ?? defaultCount))),
});

const entries = (m: Obj | undefined | null) => (m ? Object.entries(m).map(([key, value]) => ({ key, value })) : null);

export const executionOut = (r: ExecutionRecord) => ({
  urn: r.urn, id: r.id,
  input: { task: r.input?.task ?? '', source: { type: r.input?.source?.type ?? null }, arguments: entries(r.input?.args),
    requestedAt: r.input?.requestedAt ?? 0 },
  result: r.result ? {
    status: r.result.status, startTimeMs: r.result.startTimeMs ?? null, durationMs: r.result.durationMs ?? null, report: r.result.report ?? null,
    structuredReport: r.result.structuredReport ?? null,
  } : null,
});

const sourceOut = (s: SourceRecord) => ({
  urn: s.urn, name: s.info.name, type: s.info.type,
  schedule: s.info.schedule ? { interval: s.info.schedule.interval, timezone: s.info.schedule.timezone ?? null } : null,
  platform: s.info.platform ? ref(s.info.platform) : null,
  config: { recipe: s.info.config.recipe, version: s.info.config.version ?? null, executorId: s.info.config.executorId ?? 'default',
    debugMode: s.info.config.debugMode ?? null, extraArgs: entries(s.info.config.extraArgs) },
});

const unavailable = (ctx: Ctx) => ctx.catalog.authorized.ingestion.requestExecution(ctx.actor);

export const ingestionResolvers = {
  IngestionSource: {
    executions: async (s: { urn: string }, args: { start?: number | null; count?: number | null }, ctx: Ctx) => {
      const { start, count } = bounds(args, 10);
      const r = await ctx.catalog.ingestion.executions(s.urn, start, count);
      return { start, count: r.requests.length, total: r.total, executionRequests: r.requests.map(executionOut) };
    },
  },
  Query: {
    listIngestionSources: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = bounds(input, 20);
      const r = await ctx.catalog.authorized.ingestion.listSources(ctx.actor, { start, count, query: input.query });
      return { start, count: r.sources.length, total: r.total, ingestionSources: r.sources.map(sourceOut) };
    },
    ingestionSource: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const s = await ctx.catalog.authorized.ingestion.getSource(ctx.actor, urn);
      return s ? sourceOut(s) : null;
    },
    executionRequest: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const r = await ctx.catalog.authorized.ingestion.getExecution(ctx.actor, urn);
      return r ? executionOut(r) : null;
    },
    listSecrets: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const { start, count } = bounds(input, 20);
      const r = await ctx.catalog.authorized.ingestion.listSecrets(ctx.actor, { start, count, query: input.query });
      return { start, count: r.secrets.length, total: r.total, secrets: r.secrets };
    },
  },
  Mutation: {
    createIngestionSource: async (_: unknown, { input }: { input: SourceInput }, ctx: Ctx) => {
      return ctx.catalog.authorized.ingestion.createSource(ctx.actor, input);
    },
    updateIngestionSource: async (_: unknown, { urn, input }: { urn: string; input: SourceInput }, ctx: Ctx) => {
      const u = await ctx.catalog.authorized.ingestion.updateSource(ctx.actor, urn, input);
      ctx.loader.clear(u);
      return u;
    },
    deleteIngestionSource: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = await ctx.catalog.authorized.ingestion.deleteSource(ctx.actor, urn);
      ctx.loader.clear(u);
      return u;
    },
    createSecret: async (_: unknown, { input }: { input: { name: string; value: string; description?: string | null } }, ctx: Ctx) => {
      return ctx.catalog.authorized.ingestion.createSecret(ctx.actor, input);
    },
    deleteSecret: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = await ctx.catalog.authorized.ingestion.deleteSecret(ctx.actor, urn);
      ctx.loader.clear(u);
      return u;
    },
    createIngestionExecutionRequest: (_: unknown, _a: unknown, ctx: Ctx) => unavailable(ctx),
    cancelIngestionExecutionRequest: (_: unknown, _a: unknown, ctx: Ctx) => unavailable(ctx),
    createTestConnectionRequest: (_: unknown, _a: unknown, ctx: Ctx) => unavailable(ctx),
    // DataHub's answer: true once the run is rolled back.
    rollbackIngestion: async (_: unknown, { input }: { input: { runId: string } }, ctx: Ctx) => {
      await ctx.catalog.authorized.ingestion.rollback(ctx.actor, input.runId);
      ctx.loader.clear();
      return 'true';
    },
  },
};
