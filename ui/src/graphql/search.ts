import { ENTITY_SUMMARY } from './fragments';

export const ENTITY_COUNTS = /* GraphQL */ `
  query uiEntityCounts($input: EntityCountInput) {
    getEntityCounts(input: $input) { counts { entityType count } }
  }
`;

export const SEARCH = /* GraphQL */ `
  query uiSearch($input: SearchAcrossEntitiesInput!) {
    searchAcrossEntities(input: $input) {
      start
      count
      total
      searchResults {
        entity { ...uiEntitySummary }
        matchedFields { name value }
      }
      facets {
        field
        displayName
        aggregations { value count entity { ...uiEntitySummary } }
      }
    }
  }
  ${ENTITY_SUMMARY}
`;
