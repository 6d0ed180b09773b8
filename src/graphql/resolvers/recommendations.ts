import type { RecommendationContent, Scenario } from '../../services/recommendations.js';
import type { GraphQLContext } from '../context.js';
import { graphqlEntityType } from '../entity-types.js';
import { ref } from './common.js';

/** listRecommendations over the recommendation service, in DataHub 0.12.1's shapes. */
type Obj = Record<string, any>;

const contentOut = (c: RecommendationContent) => ({
  value: c.value,
  entity: c.entity ? ref(c.entity) : null,
  params: c.params ? {
    searchParams: c.params.searchParams ? {
      types: null, query: c.params.searchParams.query,
      filters: c.params.searchParams.filters?.map((f) => ({ field: f.field, values: f.values, condition: null, negated: null })) ?? null,
    } : null,
    entityProfileParams: c.params.entityProfileParams
      ? { urn: c.params.entityProfileParams.urn, type: graphqlEntityType(c.params.entityProfileParams.urn) } : null,
    contentParams: c.params.contentParams ? { count: c.params.contentParams.count } : null,
  } : null,
});

export const recommendationResolvers = {
  Query: {
    listRecommendations: async (_: unknown, { input }: { input: Obj }, ctx: GraphQLContext) => {
      await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
      const rc = input.requestContext as Obj | null | undefined;
      // DataHub answers a request without a page with no modules.
      if (!rc) return { modules: [] };
      const modules = await ctx.catalog.recommendations.list(ctx.actor, {
        scenario: rc.scenario as Scenario,
        search: rc.searchRequestContext ? { query: String(rc.searchRequestContext.query) } : undefined,
        entityUrn: rc.entityRequestContext?.urn ?? undefined,
      }, input.limit ?? 10);
      return { modules: modules.map((m) => ({ title: m.title, moduleId: m.moduleId, renderType: m.renderType, content: m.content.map(contentOut) })) };
    },
  },
};
