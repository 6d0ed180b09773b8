import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';
import type { RawEntity } from '../entitySummary';

export const ENTITY_COUNTS = typed<{ getEntityCounts: { counts: { entityType: string; count: number }[] | null } | null }, { input: { types: string[] } }>(/* GraphQL */ `
  query uiEntityCounts($input: EntityCountInput) {
    getEntityCounts(input: $input) { counts { entityType count } }
  }
`);

/** A page of results, without facets (asked apart, so that results are on screen as soon as they are found). */
export const SEARCH = typed<SearchData, { input: SearchInput }>(/* GraphQL */ `
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
`);

/** The facets of a search (no results: count 0). */
export const SEARCH_FACETS = typed<SearchData, { input: SearchInput }>(/* GraphQL */ `
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
`);

/** The part of SearchAcrossEntitiesInput the UI sends. */
export interface SearchInput {
  types?: string[];
  query: string;
  start: number;
  count: number;
  orFilters?: { and: { field: string; values: string[] }[] }[];
  searchFlags?: { skipAggregates?: boolean };
}

export interface SearchData {
  searchAcrossEntities: {
    start: number;
    count: number;
    total: number;
    searchResults: { entity: RawEntity; matchedFields: { name: string; value: string }[] }[];
    facets?: { field: string; displayName: string | null; aggregations: { value: string; count: number; entity: RawEntity | null }[] }[] | null;
  } | null;
}
