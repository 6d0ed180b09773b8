import { typed } from '../gql';

/** A dataset's Stats tab (ui/src/features/plots): profiles, usage buckets and operations over time. */
export const STATS_PROFILES = typed<{ dataset: { datasetProfiles: Profile[] | null } | null }, { urn: string; limit: number }>(/* GraphQL */ `
  query uiStatsProfiles($urn: String!, $limit: Int!) {
    dataset(urn: $urn) {
      urn
      datasetProfiles(limit: $limit) {
        timestampMillis rowCount columnCount sizeInBytes partitionSpec { type partition }
        fieldProfiles { fieldPath nullCount nullProportion uniqueCount uniqueProportion }
      }
    }
  }
`);

export const STATS_USAGE = typed<{ dataset: { usageStats: { buckets: (UsageBucket | null)[] | null; aggregations: { totalSqlQueries: number | null; uniqueUserCount: number | null } | null } | null } | null }, { urn: string }>(/* GraphQL */ `
  query uiStatsUsage($urn: String!) {
    dataset(urn: $urn) {
      urn
      usageStats(range: ALL) {
        buckets { bucket duration metrics { totalSqlQueries uniqueUserCount } }
        aggregations { totalSqlQueries uniqueUserCount }
      }
    }
  }
`);

export const STATS_OPERATIONS = typed<{ dataset: { operations: Operation[] | null } | null }, { urn: string; limit: number }>(/* GraphQL */ `
  query uiStatsOperations($urn: String!, $limit: Int!) {
    dataset(urn: $urn) {
      urn
      operations(limit: $limit) { timestampMillis operationType customOperationType numAffectedRows actor }
    }
  }
`);

// Answers, as the documents above select them.

export interface FieldProfile {
  fieldPath: string;
  nullCount: number | null;
  nullProportion: number | null;
  uniqueCount: number | null;
  uniqueProportion: number | null;
}
export interface Profile {
  timestampMillis: number;
  rowCount: number | null;
  columnCount: number | null;
  sizeInBytes: number | null;
  partitionSpec: { type: string; partition: string } | null;
  fieldProfiles: FieldProfile[] | null;
}
export interface UsageBucket {
  bucket: number | null;
  duration: string | null;
  metrics: { totalSqlQueries: number | null; uniqueUserCount: number | null } | null;
}
export interface Operation {
  timestampMillis: number;
  operationType: string;
  customOperationType: string | null;
  numAffectedRows: number | null;
  actor: string | null;
}
