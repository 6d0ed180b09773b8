/** A dataset's Stats tab (ui/src/features/plots): profiles, usage buckets and operations over time. */
export const STATS_PROFILES = /* GraphQL */ `
  query uiStatsProfiles($urn: String!, $limit: Int!) {
    dataset(urn: $urn) {
      urn
      datasetProfiles(limit: $limit) {
        timestampMillis rowCount columnCount sizeInBytes partitionSpec { type partition }
        fieldProfiles { fieldPath nullCount nullProportion uniqueCount uniqueProportion }
      }
    }
  }
`;

export const STATS_USAGE = /* GraphQL */ `
  query uiStatsUsage($urn: String!) {
    dataset(urn: $urn) {
      urn
      usageStats(range: ALL) {
        buckets { bucket duration metrics { totalSqlQueries uniqueUserCount } }
        aggregations { totalSqlQueries uniqueUserCount }
      }
    }
  }
`;

export const STATS_OPERATIONS = /* GraphQL */ `
  query uiStatsOperations($urn: String!, $limit: Int!) {
    dataset(urn: $urn) {
      urn
      operations(limit: $limit) { timestampMillis operationType customOperationType numAffectedRows actor }
    }
  }
`;
