/** Where the tests' pages live: /tests (the list) and /test/<urn> (one test; a test entity's own page). */
export const TESTS_PATH = '/tests';
export const testPath = (urn: string) => `/test/${encodeURIComponent(urn)}`;
