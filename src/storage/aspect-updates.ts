import { notFound, preconditionFailed } from '../errors.js';
import type { StoredLatest } from './change-log.js';
import type { AspectKey, AspectRecord, AspectUpdate, LatestAspects } from './types.js';

/**
 * What both engines share about writing versioned aspects under lock: which names are locked and in what order,
 * how the current values are handed to an update, what an update may write, and when a write changes nothing.
 */

/** An aspect as one string (urns hold no newline): its lock's name, and its key in maps of aspects. */
export const aspectKey = (k: AspectKey) => `${k.urn}\n${k.aspect}`;

/**
 * The lock names of these aspects, each once, sorted: every writer takes its locks in this order, so two writers
 * of overlapping sets never wait on each other in a cycle.
 */
export function lockNames(keys: readonly AspectKey[]): string[] {
  return [...new Set(keys.map(aspectKey))].sort();
}

/** Files a latest record under its urn and aspect. */
export function addLatest(out: LatestAspects, rec: AspectRecord): void {
  let m = out.get(rec.urn);
  if (!m) out.set(rec.urn, (m = new Map()));
  m.set(rec.aspect, rec);
}

/** The error of an update whose entity must exist and does not (updateAspects' `mustExist`). */
export const entityMissing = (urn: string) => notFound(`Entity ${urn} does not exist`, { urn });

/** Checks that an update writes only aspects it locked (a programming error otherwise), and returns it. */
export function checkUpdate(keys: readonly AspectKey[], update: AspectUpdate): AspectUpdate {
  const locked = new Set(keys.map(aspectKey));
  for (const w of update.writes) {
    if (!locked.has(aspectKey(w))) throw new Error(`updateAspects: ${w.aspect} of ${w.urn} is written but was not locked`);
  }
  return update;
}

/**
 * Whether a new value equals the stored one (its JSON text): then no version is made. `json`, the new value as
 * written (JSON.stringify), settles it without parsing when the texts are equal, as they are when a source sends the
 * same metadata again (every scheduled ingestion run); otherwise key order must not matter, so both texts are parsed
 * and compared member by member whatever the order of keys, stopping at the first difference (an edit changes one
 * description of a large aspect: sorting and printing both whole, as before, cost several times more).
 */
export function sameValue(storedJson: string, json: string): boolean {
  if (json === storedJson) return true;
  return sameJson(JSON.parse(storedJson), JSON.parse(json));
}

/** Whether two parsed JSON values are equal, objects compared by their own keys in any order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  for (const k of keys) if (!Object.hasOwn(y, k) || !sameJson(x[k], y[k])) return false;
  return true;
}

/**
 * What writing one aspect does to its stored versions, decided the same way by both engines. Unchanged: the value
 * equals the latest (only newer system metadata is kept). Otherwise the latest (if any) becomes history row number
 * `cur.revision`, history rows up to `trimThrough` go (historyCap versions are kept in all, the latest included), and
 * the new latest gets `revision`.
 */
export type VersionPlan =
  | { unchanged: true; touch: string | null }
  | { unchanged: false; moveToHistory: number | null; trimThrough: number | null; revision: number };

export function planVersion(cur: StoredLatest | undefined, json: string, sys: string | null, historyCap: number): VersionPlan {
  if (cur && sameValue(cur.metadata, json)) {
    const touched = unchangedSystemMetadata(cur.systemmetadata, sys);
    return { unchanged: true, touch: touched !== cur.systemmetadata ? touched : null };
  }
  if (!cur) return { unchanged: false, moveToHistory: null, trimThrough: null, revision: 1 };
  const revision = Number(cur.revision);
  return { unchanged: false, moveToHistory: revision, trimThrough: revision - Math.max(historyCap - 1, 0), revision: revision + 1 };
}

/**
 * The system metadata kept when a value is written again unchanged (`touch` of an unchanged plan), as DataHub 0.12.1
 * keeps it: the stored one, its `lastObserved` and `lastRunId` taken from the new write; its `runId` stays the run that
 * wrote the value (so rolling back a later run that only saw the value again leaves it). Stored without any (written
 * before system metadata was always filled): the new one.
 */
export function unchangedSystemMetadata(stored: string | null, sys: string | null): string | null {
  if (sys === null) return stored;
  if (stored === null) return sys;
  const next = JSON.parse(sys) as Record<string, unknown>;
  const kept = JSON.parse(stored) as Record<string, unknown>;
  if (next.lastObserved !== undefined) kept.lastObserved = next.lastObserved;
  if (next.lastRunId !== undefined) kept.lastRunId = next.lastRunId;
  return JSON.stringify(kept);
}

/** The expected-version check of a conditional write: -1 expects no stored value; throws 412 on a mismatch. */
export function checkExpectedRevision(urn: string, aspect: string, expected: number, current: AspectRecord | undefined): void {
  const actual = current ? current.revision : -1;
  if (actual === expected) return;
  throw preconditionFailed(current
    ? `Aspect ${aspect} of ${urn} is at version ${actual}, not the expected ${expected === -1 ? 'absent (-1)' : expected}`
    : `Aspect ${aspect} of ${urn} does not exist (version -1), not at the expected version ${expected}`,
  { urn, aspect, expectedVersion: String(expected), actualVersion: String(actual) });
}
