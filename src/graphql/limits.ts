import type { RequestLimits } from './cost-limit.js';

/**
 * Limits that refuse abusive requests before anything runs (src/graphql/cost-limit.ts), derived from what DataHub
 * 0.12.1's web app really sends: every operation of test/fixtures/datahub-webapp-graphql with its fragments and the
 * `__typename` its client (Apollo) adds to every selection set, page sizes sent in variables counted at 1,000 (the
 * largest it sends, and the most Almanac's list resolvers answer). The highest of those operations, and the limit
 * set at about twice that (test/webapp-contract.test.ts measures them all against these limits):
 * - cost 26,558,006 (searchAcrossLineage: 1,000 results, each with up to 1,000 assertions) → 55,000,000;
 * - fields 28,886 (getEntityLineage) → 60,000;
 * - depth 22 (getEntityLineage; getChart 21) → 30;
 * - tokens 2,608 (listDataProductAssets) → 50,000 (bounding the parse itself);
 * - aliases: at most 10 names for one field in a selection set; list arguments: at most 1,000 items.
 */
export const LIMITS: RequestLimits & { depth: number; tokens: number } = {
  depth: 30, tokens: 50_000, fields: 60_000, cost: 55_000_000, listItems: 1_000, namesPerField: 10,
};
