import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { GraphQLContext } from '../context.js';

/**
 * Query.aspectHistory (schema/history.graphql): every kept version of the entity's aspects (or of the named ones),
 * newest first, as the web UI's history of changes shows them. Time-series aspects are not versioned and never listed.
 */
async function aspectHistory(_: unknown, args: { urn: string; aspectNames?: string[] | null; count?: number | null }, ctx: GraphQLContext) {
  const count = args.count ?? 50;
  if (!Number.isInteger(count) || count < 0 || count > 500) throw badRequest(`count must be a whole number from 0 to 500, got ${count}`);
  const u = parseUrn(args.urn);
  const versions = await ctx.catalog.authorized.reads.aspectHistory(ctx.actor, u.raw, args.aspectNames ?? undefined, count);
  return versions.map((r) => ({
    aspectName: r.aspect,
    version: r.version,
    createdAt: r.createdOn,
    actor: r.createdBy,
    runId: r.systemMetadata?.runId ?? null,
    payload: JSON.stringify(r.value),
  }));
}

export const historyResolvers = { Query: { aspectHistory } };
