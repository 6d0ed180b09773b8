import { canonicalJson } from '../model/wire-format.js';
import type { AspectKey, AspectRecord, AspectUpdate, LatestAspects } from './types.js';

/**
 * What both engines share about writing versioned aspects under lock: which names are locked and in what order,
 * how the current values are handed to an update, what an update may write, and when a write changes nothing.
 */

const lockName = (k: AspectKey) => `${k.urn}\n${k.aspect}`;

/**
 * The lock names of these aspects, each once, sorted: every writer takes its locks in this order, so two writers
 * of overlapping sets never wait on each other in a cycle.
 */
export function lockNames(keys: readonly AspectKey[]): string[] {
  return [...new Set(keys.map(lockName))].sort();
}

/** Files a latest record under its urn and aspect. */
export function addLatest(out: LatestAspects, rec: AspectRecord): void {
  let m = out.get(rec.urn);
  if (!m) out.set(rec.urn, (m = new Map()));
  m.set(rec.aspect, rec);
}

/** Checks that an update writes only aspects it locked (a programming error otherwise), and returns it. */
export function checkUpdate(keys: readonly AspectKey[], update: AspectUpdate): AspectUpdate {
  const locked = new Set(keys.map(lockName));
  for (const w of update.writes) {
    if (!locked.has(lockName(w))) throw new Error(`updateAspects: ${w.aspect} of ${w.urn} is written but was not locked`);
  }
  return update;
}

/** Whether a new value equals the stored one (its JSON text): then no version is made. */
export function sameValue(storedJson: string, value: unknown): boolean {
  return canonicalJson(JSON.parse(storedJson)) === canonicalJson(value);
}
