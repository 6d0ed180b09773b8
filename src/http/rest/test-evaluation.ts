import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { Catalog } from '../../catalog.js';
import type { TestsOutcome } from '../../services/metadata-tests/evaluate.js';
import { MAX_LIST_ITEMS, boundedList, registerActions } from './actions.js';

/**
 * `POST /test?action=evaluate` and `action=batchEvaluate`: run metadata tests for entities. The plain answer is
 * exactly DataHub's `{passing, failing}`; `explain: true` adds the deciding predicates per test.
 */
function flag(v: unknown, name: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
  throw badRequest(`${name} must be true or false`, { field: name });
}

function testUrnsOf(body: Record<string, unknown>): string[] | undefined {
  const v = body.testUrns ?? body.tests;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest('testUrns must be a list of test urns', { field: 'testUrns' });
  return boundedList(v as string[], 'testUrns', MAX_LIST_ITEMS);
}

const shape = (r: TestsOutcome, explain: boolean) =>
  explain ? { passing: r.passing, failing: r.failing, explanations: r.explanations ?? {} } : { passing: r.passing, failing: r.failing };

export async function testEvaluationRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const tests = catalog.authorized.metadataTests;
  const options = (body: Record<string, unknown>) =>
    ({ push: flag(body.push ?? body.shouldPush, 'push') ?? false, explain: flag(body.explain, 'explain') ?? false });
  registerActions(app, 'test', {
    async evaluate(body, request) {
      if (typeof body.urn !== 'string' || !body.urn) throw badRequest("Missing required parameter 'urn'", { field: 'urn' });
      const urn = parseUrn(body.urn).raw;
      const opts = options(body);
      return shape(await tests.evaluate(request.actor, urn, opts, () => testUrnsOf(body)), opts.explain);
    },
    async batchEvaluate(body, request) {
      if (!Array.isArray(body.urns) || body.urns.length === 0) throw badRequest("Missing required parameter 'urns' (a list of urns)", { field: 'urns' });
      const urns = boundedList(body.urns, 'urns', MAX_LIST_ITEMS).map((u) => parseUrn(u).raw);
      const opts = options(body);
      const results = await tests.evaluateMany(request.actor, urns, opts, () => testUrnsOf(body));
      return { results: Object.fromEntries([...results].map(([u, r]) => [u, shape(r, opts.explain)])) };
    },
  });
}
