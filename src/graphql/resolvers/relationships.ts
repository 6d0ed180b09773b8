import { badRequest } from '../../errors.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { ref } from '../../entities/descriptor.js';

/** `relationships(input)` on every entity type that declares it: one resolver over the relationship index. */
type Input = { types: string[]; direction: 'INCOMING' | 'OUTGOING'; start?: number | null; count?: number | null };

export async function relationships(r: EntityRef, { input }: { input: Input }, ctx: GraphQLContext) {
  const start = input.start ?? 0;
  const count = input.count ?? 100;
  if (start < 0 || count < 0 || count > 10_000) throw badRequest('start must be ≥ 0 and count between 0 and 10000');
  const res = await ctx.catalog.relationships.list({ urn: r.urn, direction: input.direction, types: input.types, start, count });
  return {
    start, count: res.edges.length, total: res.total,
    relationships: res.edges.map((e) => ({ type: e.type, direction: input.direction, created: null,
      entity: ref(input.direction === 'INCOMING' ? e.source : e.destination) })),
  };
}
