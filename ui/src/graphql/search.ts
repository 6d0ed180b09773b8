import { ENTITY_SUMMARY } from './fragments';

export const ENTITY_COUNTS = /* GraphQL */ `
  query uiEntityCounts($input: EntityCountInput) {
    getEntityCounts(input: $input) { counts { entityType count } }
  }
`;

/** A page of results, without facets (asked apart, so that results are on screen as soon as they are found). */
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
    }
  }
  ${ENTITY_SUMMARY}
`;

/** The facets of a search (no results: count 0). */
export const SEARCH_FACETS = /* GraphQL */ `
  query uiSearchFacets($input: SearchAcrossEntitiesInput!) {
    searchAcrossEntities(input: $input) {
      total
      facets {
        field
        displayName
        aggregations { value count entity { ...uiEntitySummary } }
      }
    }
  }
  ${ENTITY_SUMMARY}
`;
