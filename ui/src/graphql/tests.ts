import { ENTITY_SUMMARY } from './fragments';

/**
 * Metadata tests in the UI (ui/src/features/tests): an entity's results with why each test passed or failed
 * (`explainTests`, evaluated when asked, nothing stored), the tests' list, and a test's page with the entities whose
 * stored results pass or fail it (the IsPassing / IsFailing relationships `testResults` draws).
 */
export const EXPLAIN_TESTS = /* GraphQL */ `
  query uiExplainTests($urn: String!) {
    explainTests(urn: $urn) {
      passing { type test { urn name category description } }
      failing { type test { urn name category description } }
      explanations { test passed reasons }
    }
  }
`;

export const RUN_TESTS = /* GraphQL */ `
  mutation uiRunTests($urn: String!) {
    runTests(urn: $urn) { passing { type } failing { type } }
  }
`;

export const TEST_PRIVILEGES = /* GraphQL */ `
  query uiTestPrivileges {
    me { corpUser { urn } platformPrivileges { viewTests manageTests } }
  }
`;

export const LIST_TESTS = /* GraphQL */ `
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
`;

export const TEST_PAGE = /* GraphQL */ `
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
`;

/** Every test over the whole catalog, results stored (as `almanac tests run --push`): the tests page's "Run all tests". */
export const RUN_ALL_TESTS = /* GraphQL */ `
  mutation uiRunAllTests {
    runAllTests { entities unstoredTypes tests { urn passing failing } }
  }
`;
