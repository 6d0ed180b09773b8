import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import { visibleAspects } from '../../services/authz.js';
import type { GraphQLContext } from '../context.js';
import { authorizeRead } from './privileges.js';

/**
 * Query.aspectHistory (schema/history.graphql): every kept version of the entity's aspects (or of the named ones),
 * newest first, as the web UI's history of changes shows them. Time-series aspects are not versioned and never listed.
 */
async function aspectHistory(_: unknown, args: { urn: string; aspectNames?: string[] | null; count?: number | null }, ctx: GraphQLContext) {
  const count = args.count ?? 50;
  if (!Number.isInteger(count) || count < 0 || count > 500) throw badRequest(`count must be a whole number from 0 to 500, got ${count}`);
  const u = parseUrn(args.urn);
  await authorizeRead(ctx, u.raw);
  const latest = (await ctx.catalog.entities.getLatestOf([u.raw])).get(u.raw) ?? new Map();
  const names = args.aspectNames?.length ? args.aspectNames.filter((n) => latest.has(n)) : [...latest.keys()];
  const visible = await visibleAspects(ctx.catalog.authz, ctx.actor, names);
  const versions = (await Promise.all(names.filter((n) => visible.has(n)).map((n) => ctx.catalog.entities.versions(u.raw, n)))).flat();
  versions.sort((a, b) => b.createdOn - a.createdOn || b.revision - a.revision || (a.aspect < b.aspect ? -1 : a.aspect > b.aspect ? 1 : 0));
  return versions.slice(0, count).map((r) => ({
    aspectName: r.aspect,
    version: r.version,
    createdAt: r.createdOn,
    actor: r.createdBy,
    runId: r.systemMetadata?.runId ?? null,
    payload: JSON.stringify(r.value),
  }));
}

export const historyResolvers = { Query: { aspectHistory } };
