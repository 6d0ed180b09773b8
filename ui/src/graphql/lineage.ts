import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';
import type { RawEntity } from '../entitySummary';

/**
 * The lineage graph's documents (ui/src/features/lineage). One hop at a time through each entity's `lineage(input:)`
 * (on the EntityWithRelationships interface), for many entities in one request; each neighbour comes with the number
 * of its own up- and downstream neighbours (a page of 0), so that the graph shows a "+" only where there is more.
 */
const TOTALS = /* GraphQL */ `
  fragment uiLineageTotals on EntityWithRelationships {
    upN: lineage(input: { direction: UPSTREAM, start: 0, count: 0 }) { total }
    downN: lineage(input: { direction: DOWNSTREAM, start: 0, count: 0 }) { total }
  }
`;

export const LINEAGE_START = typed<{ entity: LineageNode | null }, { urn: string }>(/* GraphQL */ `
  query uiLineageStart($urn: String!) {
    entity(urn: $urn) { ...uiEntitySummary ...uiLineageTotals }
  }
  ${ENTITY_SUMMARY}
  ${TOTALS}
`);

export const LINEAGE_HOP = typed<{ entities: (HopEntity | null)[] }, { urns: string[]; direction: 'UPSTREAM' | 'DOWNSTREAM'; start: number; count: number }>(/* GraphQL */ `
  query uiLineageHop($urns: [String!]!, $direction: LineageDirection!, $start: Int!, $count: Int!) {
    entities(urns: $urns) {
      urn
      ... on EntityWithRelationships {
        lineage(input: { direction: $direction, start: $start, count: $count }) {
          total
          relationships { type entity { ...uiEntitySummary ...uiLineageTotals } }
        }
      }
    }
  }
  ${ENTITY_SUMMARY}
  ${TOTALS}
`);

/** Column-level lineage of datasets and jobs, with the datasets' columns. */
export const LINEAGE_COLUMNS = typed<{ entities: (ColumnsEntity | null)[] }, { urns: string[] }>(/* GraphQL */ `
  query uiLineageColumns($urns: [String!]!) {
    entities(urns: $urns) {
      urn
      ... on Dataset {
        schemaMetadata { fields { fieldPath } }
        fineGrainedLineages { upstreams { urn path } downstreams { urn path } }
      }
      ... on DataJob { inputOutput { fineGrainedLineages { upstreams { urn path } downstreams { urn path } } } }
    }
  }
`);

/** How many entities are up- and downstream in all, every hop (no facets counted). */
export const LINEAGE_REACH = typed<{ up: { total: number } | null; down: { total: number } | null }, { urn: string }>(/* GraphQL */ `
  query uiLineageReach($urn: String!) {
    up: searchAcrossLineage(input: { urn: $urn, direction: UPSTREAM, query: "*", start: 0, count: 0, searchFlags: { skipAggregates: true } }) { total }
    down: searchAcrossLineage(input: { urn: $urn, direction: DOWNSTREAM, query: "*", start: 0, count: 0, searchFlags: { skipAggregates: true } }) { total }
  }
`);

// Answers, as the documents above select them.

/** An entity's summary with the totals of its up- and downstream neighbours (uiLineageTotals). */
export type LineageNode = RawEntity & { upN?: { total: number } | null; downN?: { total: number } | null };

export interface HopEntity {
  urn: string;
  /** Absent on types without lineage. */
  lineage?: { total: number; relationships: { type: string; entity: LineageNode | null }[] } | null;
}

export interface FineGrainedLineage {
  upstreams: { urn: string; path: string }[] | null;
  downstreams: { urn: string; path: string }[] | null;
}

export interface ColumnsEntity {
  urn: string;
  /** A dataset's. */
  schemaMetadata?: { fields: { fieldPath: string }[] } | null;
  fineGrainedLineages?: FineGrainedLineage[] | null;
  /** A job's. */
  inputOutput?: { fineGrainedLineages: FineGrainedLineage[] | null } | null;
}
