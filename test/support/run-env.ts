import { mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * How this test run is set up, read in one place.
 *
 * CI: any non-empty `CI` other than `0`, `false`, `no` or `off` (any case) is a CI run — `CI=true`, `CI=1`,
 * `CI=yes` alike. In CI the PostgreSQL suites and the Chromium test fail when their service is missing; elsewhere
 * they are reported as skipped (counted in the runner's summary), with a warning saying why.
 */
export function isCi(value: string | undefined): boolean {
  const v = (value ?? '').trim().toLowerCase();
  return v !== '' && !['0', 'false', 'no', 'off'].includes(v);
}

export const IN_CI = isCi(process.env.CI);

/** The repository's root folder. */
export const REPO = path.resolve(import.meta.dirname, '../..');

/**
 * Where tests write files worth a look after a run (screenshots, server logs): `test-artifacts/` at the root,
 * which .gitignore lists, so nothing a test writes ever shows up in `git status`.
 */
export const ARTIFACTS = path.join(REPO, 'test-artifacts');

/** A path under ARTIFACTS, its folder created. */
export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}
