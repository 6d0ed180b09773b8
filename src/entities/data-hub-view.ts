import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, bool, enumOf, rec, str } from './schema.js';

export const dataHubViewKey = keyAspect('dataHubViewKey', 'com.linkedin.metadata.key.DataHubViewKey', [['id', 'string']]);

const criterion = rec({ field: str, value: str, 'values?': arr(str),
  'condition?': enumOf(['CONTAIN', 'END_WITH', 'EQUAL', 'IS_NULL', 'EXISTS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'IN', 'LESS_THAN',
    'LESS_THAN_OR_EQUAL_TO', 'START_WITH']), 'negated?': bool });

export const dataHubViewInfo = aspect('dataHubViewInfo', 'com.linkedin.view.DataHubViewInfo', rec({
  name: str, 'description?': str, type: enumOf(['PERSONAL', 'GLOBAL']),
  definition: rec({ entityTypes: arr(str), filter: rec({ 'or?': arr(rec({ and: arr(criterion) })), 'criteria?': arr(criterion) }) }),
  created: shared.auditStamp, lastModified: shared.auditStamp,
}));

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

type Criterion = { field: string; value: string; values?: string[]; condition?: string; negated?: boolean };

/** The conditions GraphQL's FilterOperator has; others (IS_NULL, END_WITH) answer no condition. */
const FILTER_OPERATORS = new Set(['CONTAIN', 'EQUAL', 'IEQUAL', 'IN', 'EXISTS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN',
  'LESS_THAN_OR_EQUAL_TO', 'START_WITH']);

function facetFilter(c: Criterion) {
  return { field: c.field.replace(/\.keyword$/, ''), values: c.values ?? (c.value ? [c.value] : []),
    condition: c.condition && FILTER_OPERATORS.has(c.condition) ? c.condition : null,
    negated: c.negated ?? null };
}

/**
 * A view's filter as DataHub's UI edits it: one conjunction is AND over its criteria; several conjunctions of one
 * criterion each are OR over them. Any other shape has no faithful answer and, as in DataHub, answers no filters.
 */
function viewFilter(filter: { or?: { and: Criterion[] }[]; criteria?: Criterion[] }) {
  const or = filter.or ?? (filter.criteria ? [{ and: filter.criteria }] : []);
  if (or.length === 1) return { operator: 'AND', filters: or[0]!.and.map(facetFilter) };
  if (or.some((c) => c.and.length > 1)) return { operator: 'OR', filters: [] };
  return { operator: 'OR', filters: or.filter((c) => c.and.length === 1).map((c) => facetFilter(c.and[0]!)) };
}

const SDL = gql`
type DataHubView implements Entity {
  urn: String!
  type: EntityType!
  viewType: DataHubViewType!
  name: String!
  description: String
  definition: DataHubViewDefinition!
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type DataHubViewDefinition {
  entityTypes: [EntityType!]!
  filter: DataHubViewFilter!
}

type DataHubViewFilter {
  operator: LogicalOperator!
  filters: [FacetFilter!]!
}

"One criterion of a view's filter."
type FacetFilter {
  field: String!
  condition: FilterOperator
  values: [String!]!
  negated: Boolean
}

enum DataHubViewType { PERSONAL GLOBAL }
enum LogicalOperator { AND OR }
`;

/** Saved search views: entity types and filters. */
export const dataHubView = defineEntity({
  name: 'dataHubView',
  category: 'core',
  key: dataHubViewKey,
  aspects: [dataHubViewInfo],
  graphql: {
    entityType: 'DATAHUB_VIEW',
    objectType: 'DataHubView',
    sdl: SDL,
    fields: {
      viewType: async (f) => (await f.aspect(dataHubViewInfo))?.type ?? null,
      name: async (f) => (await f.aspect(dataHubViewInfo))?.name ?? null,
      description: async (f) => (await f.aspect(dataHubViewInfo))?.description ?? null,
      definition: async (f) => {
        const d = (await f.aspect(dataHubViewInfo))?.definition;
        // Stored entity types are entity names (`dataset`) or, as some clients write them, EntityType values.
        return d ? { entityTypes: d.entityTypes.flatMap((t) => f.entityTypeValue(t) ?? []), filter: viewFilter(d.filter) } : null;
      },
    },
  },
});
