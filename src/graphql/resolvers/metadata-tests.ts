import { parseUrn } from '../../model/urn.js';
import type { TestsOutcome } from '../../services/metadata-tests/evaluate.js';
import type { TestInput } from '../../services/metadata-tests/runner.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref, requireEntity } from './common.js';

/** Tests' queries and mutations, Dataset.testResults, and runTests (the Test type is in src/entities/test.ts). */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

/** Keeps the results whose test exists, as refs. */
async function existing(list: Obj[] | undefined, ctx: Ctx) {
  const entries = list ?? [];
  const loaded = await Promise.all(entries.map((e) => ctx.loader.load(e.test)));
  return entries.filter((_, i) => loaded[i]!.aspects.has('testInfo')).map((e) => ({ test: ref(e.test), type: e.type }));
}

/** An evaluation as RunTestsResult: the results as refs, the explanations (when asked for) as sentences. */
function outcomeOut(r: TestsOutcome) {
  return {
    passing: r.passing.map((e) => ({ test: ref(e.test), type: e.type })),
    failing: r.failing.map((e) => ({ test: ref(e.test), type: e.type })),
    explanations: r.explanations ? Object.entries(r.explanations).map(([test, leaves]) => ({
      test, passed: r.passing.some((p) => p.test === test), reasons: leaves.map((l) => l.text) })) : null,
  };
}

export const metadataTestResolvers = {
  Dataset: {
    testResults: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const results = await ctx.loader.aspect(r.urn, 'testResults');
      if (!results) return null;
      return { passing: await existing(results.passing, ctx), failing: await existing(results.failing, ctx) };
    },
  },
  Query: {
    test: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.metadataTests.admitViewer(ctx.actor);
      return requireEntity(urn, ctx, 'test');
    },
    listTests: async (_: unknown, { input }: { input: Obj }, ctx: Ctx) => {
      const start = Math.max(0, Number(input.start ?? 0));
      const count = Math.min(1000, Math.max(0, Number(input.count ?? 20)));
      const all = await ctx.catalog.authorized.metadataTests.list(ctx.actor, input.query ?? undefined);
      const page = all.slice(start, start + count);
      return { start, count: page.length, total: all.length, tests: page.map((t) => ref(t.urn)) };
    },
    explainTests: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      return outcomeOut(await ctx.catalog.authorized.metadataTests.explain(ctx.actor, u));
    },
  },
  Mutation: {
    runAllTests: async (_: unknown, _a: unknown, ctx: Ctx) => {
      const r = await ctx.catalog.authorized.metadataTests.runAll(ctx.actor);
      ctx.loader.clear();
      return { entities: r.entities, unstoredTypes: r.unstoredTypes, tests: r.tests.map((t) => ({ urn: t.urn, test: ref(t.urn), passing: t.passing, failing: t.failing })) };
    },
    createTest: async (_: unknown, { input }: { input: TestInput }, ctx: Ctx) => {
      return ctx.catalog.authorized.metadataTests.create(ctx.actor, input);
    },
    updateTest: async (_: unknown, { urn, input }: { urn: string; input: TestInput }, ctx: Ctx) => {
      const u = await ctx.catalog.authorized.metadataTests.update(ctx.actor, urn, input);
      ctx.loader.clear(u);
      return u;
    },
    deleteTest: async (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      await ctx.catalog.authorized.metadataTests.delete(ctx.actor, urn);
      ctx.loader.clear();
      return true;
    },
    runTests: async (_: unknown, { urn, explain }: { urn: string; explain?: boolean | null }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      const r = await ctx.catalog.authorized.metadataTests.run(ctx.actor, u, explain === true);
      ctx.loader.clear(u);
      return outcomeOut(r);
    },
  },
};
