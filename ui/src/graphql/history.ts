export const ASPECT_HISTORY = /* GraphQL */ `
  query uiAspectHistory($urn: String!, $count: Int) {
    aspectHistory(urn: $urn, count: $count) { aspectName version createdAt actor runId payload }
  }
`;
