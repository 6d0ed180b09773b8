import type { AnalyticsChart, Cell, ChartGroup } from '../../services/analytics.js';
import type { GraphQLContext } from '../context.js';
import { entityTypeOfEnum, graphqlEntityType } from '../entity-types.js';
import { ref } from './common.js';

/** The analytics page (DataHub 0.12.1's analytics.graphql) over the analytics service; VIEW_ANALYTICS. */
type Obj = Record<string, any>;

const cellOut = (c: Cell) => ({
  value: c.value,
  entity: c.entity ? ref(c.entity) : null,
  linkParams: c.linkParams ? {
    searchParams: c.linkParams.searchParams ? { types: null, query: c.linkParams.searchParams.query, filters: null } : null,
    entityProfileParams: c.linkParams.entityProfileParams
      ? { urn: c.linkParams.entityProfileParams.urn, type: graphqlEntityType(c.linkParams.entityProfileParams.urn) } : null,
  } : null,
});

const chartOut = (c: AnalyticsChart) => (c.__typename === 'TableChart'
  ? { ...c, rows: c.rows.map((r) => ({ values: r.values, cells: r.cells.map(cellOut) })) } : c);
const groupsOut = (groups: ChartGroup[]) => groups.map((g) => ({ ...g, charts: g.charts.map(chartOut) }));

export const analyticsResolvers = {
  Query: {
    isAnalyticsEnabled: () => true,
    getAnalyticsCharts: async (_: unknown, _a: unknown, ctx: GraphQLContext) => {
      return groupsOut(await ctx.catalog.authorized.operations.analyticsCharts(ctx.actor));
    },
    getMetadataAnalyticsCharts: async (_: unknown, { input }: { input: Obj }, ctx: GraphQLContext) => {
      return groupsOut(await ctx.catalog.authorized.operations.metadataAnalyticsCharts(ctx.actor, {
        entityType: input.entityType ? entityTypeOfEnum(input.entityType) ?? input.entityType : undefined,
        domain: input.domain ?? null, query: input.query ?? null,
      }));
    },
    getHighlights: async (_: unknown, _a: unknown, ctx: GraphQLContext) => {
      return ctx.catalog.authorized.operations.analyticsHighlights(ctx.actor);
    },
  },
};
