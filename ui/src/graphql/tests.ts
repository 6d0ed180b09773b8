import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';
import type { RawEntity } from '../entitySummary';

/**
 * Metadata tests in the UI (ui/src/features/tests): an entity's results with why each test passed or failed
 * (`explainTests`, evaluated when asked, nothing stored), the tests' list, and a test's page with the entities whose
 * stored results pass or fail it (the IsPassing / IsFailing relationships `testResults` draws).
 */
export const EXPLAIN_TESTS = typed<Explained, { urn: string }>(/* GraphQL */ `
  query uiExplainTests($urn: String!) {
    explainTests(urn: $urn) {
      passing { type test { urn name category description } }
      failing { type test { urn name category description } }
      explanations { test passed reasons }
    }
  }
`);

export const RUN_TESTS = typed<{ runTests: { passing: { type: string }[]; failing: { type: string }[] } | null }, { urn: string }>(/* GraphQL */ `
  mutation uiRunTests($urn: String!) {
    runTests(urn: $urn) { passing { type } failing { type } }
  }
`);

export const TEST_PRIVILEGES = typed<{ me: { corpUser: { urn: string }; platformPrivileges: { viewTests: boolean; manageTests: boolean } | null } }>(/* GraphQL */ `
  query uiTestPrivileges {
    me { corpUser { urn } platformPrivileges { viewTests manageTests } }
  }
`);

export const LIST_TESTS = typed<ListData, { input: { start: number; count: number; query?: string } }>(/* GraphQL */ `
  query uiListTests($input: ListTestsInput!) {
    listTests(input: $input) {
      start count total
      tests {
        urn name category description
        failing: relationships(input: { types: ["IsFailing"], direction: INCOMING, start: 0, count: 0 }) { total }
        passing: relationships(input: { types: ["IsPassing"], direction: INCOMING, start: 0, count: 0 }) { total }
      }
    }
  }
`);

export const TEST_PAGE = typed<TestData, { urn: string; failingStart: number; passingStart: number; count: number }>(/* GraphQL */ `
  query uiTestPage($urn: String!, $failingStart: Int!, $passingStart: Int!, $count: Int!) {
    test(urn: $urn) {
      urn name category description definition { json }
      failing: relationships(input: { types: ["IsFailing"], direction: INCOMING, start: $failingStart, count: $count }) {
        start count total relationships { entity { ...uiEntitySummary } }
      }
      passing: relationships(input: { types: ["IsPassing"], direction: INCOMING, start: $passingStart, count: $count }) {
        start count total relationships { entity { ...uiEntitySummary } }
      }
    }
  }
  ${ENTITY_SUMMARY}
`);

/** Every test over the whole catalog, results stored (as `almanac tests run --push`): the tests page's "Run all tests". */
export const RUN_ALL_TESTS = typed<{ runAllTests: RunAllResult | null }>(/* GraphQL */ `
  mutation uiRunAllTests {
    runAllTests { entities unstoredTypes tests { urn passing failing } }
  }
`);

// Answers, as the documents above select them.

export interface TestRef { urn: string; name: string; category: string; description: string | null }
export interface Explained {
  explainTests: {
    passing: { type: string; test: TestRef | null }[];
    failing: { type: string; test: TestRef | null }[];
    explanations: { test: string; passed: boolean; reasons: string[] }[] | null;
  } | null;
}

export interface ListData {
  listTests: { start: number; count: number; total: number; tests: {
    urn: string; name: string; category: string; description: string | null;
    failing: { total: number | null } | null; passing: { total: number | null } | null;
  }[] } | null;
}

/** A page of the entities passing or failing a test. */
export interface TestEntities { start: number; count: number; total: number; relationships: { entity: RawEntity | null }[] }
export interface TestData {
  test: { urn: string; name: string; category: string; description: string | null; definition: { json: string | null };
    failing: TestEntities | null; passing: TestEntities | null } | null;
}

export interface RunAllResult {
  entities: number;
  unstoredTypes: string[];
  tests: { urn: string; passing: number; failing: number }[];
}
