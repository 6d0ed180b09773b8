import { typed } from '../gql';

export const ASPECT_HISTORY = typed<{ aspectHistory: AspectVersion[] }, { urn: string; count: number }>(/* GraphQL */ `
  query uiAspectHistory($urn: String!, $count: Int) {
    aspectHistory(urn: $urn, count: $count) { aspectName version createdAt actor runId payload }
  }
`);

/** One kept version of one of the entity's aspects. */
export interface AspectVersion {
  aspectName: string;
  version: number;
  createdAt: number;
  actor: string;
  runId: string | null;
  payload: string | null;
}
