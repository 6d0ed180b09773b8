import { aspectKey, planVersion, type VersionPlan } from './aspect-updates.js';
import { LOG_REF_PREVIOUS, LOG_REF_VALUE, upsertChange, type ChangeRow, type StoredLatest } from './change-log.js';
import { valueJsonOf, type AspectWrite, type AspectWriteResult } from './types.js';

/**
 * The one version-planning algorithm: what a batch of versioned aspect writes does to the stored rows, decided in
 * memory before any statement runs, the same way for both engines and for single writes, groups and bulk loads.
 * The engines only read the latest rows of the aspects written (under their locks) and carry out the plan.
 *
 * Writes apply in order: an aspect written twice in a batch sees its first new value as the latest (which then goes
 * straight to history, or nowhere if the history cap leaves no room for it).
 */

/** A row to write: version 0 is the new latest (inserted, or replacing the stored one); above 0 a history row. */
export interface PlannedRow {
  urn: string;
  aspect: string;
  version: number;
  json: string;
  sys: string | null;
  createdOn: number;
  createdBy: string;
  revision: number;
}

/** The latest of an aspect as a plan leaves it; `write` when this plan wrote it, `stored` while it is the stored row. */
export interface PlannedLatest extends StoredLatest {
  stored: boolean;
  write?: AspectWrite;
  createdOn?: number;
}

export interface VersionsPlan {
  results: AspectWriteResult[];
  /** Stored latest rows whose system metadata changes (a value sent again unchanged); carried out before `copies`. */
  touches: { urn: string; aspect: string; sys: string }[];
  /** Stored latest rows copied to history under this version (their revision), those the history cap keeps. */
  copies: { urn: string; aspect: string; version: number }[];
  /** New rows, by aspect in the order first written. */
  rows: PlannedRow[];
  /** History rows of version 1..upto of these aspects go (the cap); never a row this plan copies or writes. */
  trims: { urn: string; aspect: string; upto: number }[];
  /** One log entry per new version, in write order. */
  log: ChangeRow[];
  /** For each log entry, the row of the version it wrote and the version it replaced (a row of this plan, or the stored latest). */
  logVersions: { row: PlannedRow; previous: PlannedRow | 'stored' | null }[];
  /** Every aspect written, as the plan leaves it. */
  latest: Map<string, PlannedLatest>;
  /** The JSON text of each write, as planned (JSON.stringify unless the caller had it). */
  json: Map<AspectWrite, string>;
}

/**
 * `stored`: the latest row of each aspect written that has one (by aspectKey). `jsonOf`: a write's text when the
 * caller has it already (SQLite encodes values ahead of the lock). `decided`: what planVersion gave for a write against
 * the latest this plan leaves it (SQLite's batches of read-modify-writes worked it out as they went).
 */
export function planVersions(stored: ReadonlyMap<string, StoredLatest>, writes: readonly AspectWrite[], historyCap: number,
  jsonOf?: (w: AspectWrite) => string | undefined, decided?: ReadonlyMap<AspectWrite, VersionPlan>): VersionsPlan {
  const latest = new Map<string, PlannedLatest>();
  for (const w of writes) {
    const k = aspectKey(w);
    const s = stored.get(k);
    if (s && !latest.has(k)) latest.set(k, { metadata: s.metadata, systemmetadata: s.systemmetadata, revision: Number(s.revision), stored: true });
  }
  const touches = new Map<string, { urn: string; aspect: string; sys: string }>();
  const moves: { urn: string; aspect: string; version: number; trim: number }[] = [];
  /** Rows written by this batch, by aspect: the last one is the latest, earlier ones become history. */
  const written = new Map<string, PlannedRow[]>();
  const log: ChangeRow[] = [];
  const logVersions: VersionsPlan['logVersions'] = [];
  const json = new Map<AspectWrite, string>();
  const results = writes.map((w): AspectWriteResult => {
    const now = w.time ?? Date.now();
    const text = jsonOf?.(w) ?? valueJsonOf(w);
    json.set(w, text);
    const sys = w.systemMetadata ? JSON.stringify(w.systemMetadata) : null;
    const k = aspectKey(w);
    const cur = latest.get(k);
    const plan = decided?.get(w) ?? planVersion(cur, text, sys, historyCap);
    if (plan.unchanged) {
      if (plan.touch !== null) {
        if (cur!.stored) touches.set(k, { urn: w.urn, aspect: w.aspect, sys: plan.touch });
        else written.get(k)!.at(-1)!.sys = plan.touch; // the value written earlier in this batch takes the newer metadata
        cur!.systemmetadata = plan.touch;
      }
      return { urn: w.urn, aspect: w.aspect, changed: false };
    }
    if (plan.moveToHistory !== null) {
      if (cur!.stored) moves.push({ urn: w.urn, aspect: w.aspect, version: plan.moveToHistory, trim: plan.trimThrough! });
      else written.get(k)!.at(-1)!.version = plan.moveToHistory; // written earlier in this batch: straight to history
    }
    let list = written.get(k);
    if (!list) written.set(k, (list = []));
    const row: PlannedRow = { urn: w.urn, aspect: w.aspect, version: 0, json: text, sys, createdOn: now, createdBy: w.actor, revision: plan.revision };
    logVersions.push({ row, previous: cur === undefined ? null : cur.stored ? 'stored' : list.at(-1)! });
    list.push(row);
    log.push(upsertChange(w, text, sys, cur, plan.revision, now));
    latest.set(k, { metadata: text, systemmetadata: sys, revision: plan.revision, stored: false, write: w, createdOn: now });
    return { urn: w.urn, aspect: w.aspect, changed: true };
  });
  // History at or below `upto` goes (the cap); rows this batch would copy or write there are left out.
  const upto = new Map<string, { urn: string; aspect: string; upto: number }>();
  const trim = (urn: string, aspect: string, version: number) => {
    const k = aspectKey({ urn, aspect });
    upto.set(k, { urn, aspect, upto: Math.max(upto.get(k)?.upto ?? -Infinity, version) });
  };
  for (const m of moves) trim(m.urn, m.aspect, m.trim);
  for (const l of written.values()) if (l.length > 1) trim(l[0]!.urn, l[0]!.aspect, l.at(-1)!.revision - 1 - Math.max(historyCap - 1, 0));
  const kept = (k: string, version: number) => version === 0 || version > (upto.get(k)?.upto ?? -Infinity);
  const rows: PlannedRow[] = [];
  for (const [k, l] of written) for (const r of l) if (kept(k, r.version)) rows.push(r);
  return {
    results, touches: [...touches.values()], log, logVersions, latest, json, rows,
    copies: moves.filter((m) => kept(aspectKey(m), m.version)).map(({ urn, aspect, version }) => ({ urn, aspect, version })),
    trims: [...upto.values()],
  };
}

/**
 * Which values each log entry of a plan can name rather than copy (LOG_REF_* of src/storage/change-log.ts): the value
 * written when the version it wrote is kept as written (not dropped by the cap, its system metadata not changed later
 * in the batch), and the previous value when the version before is kept (the stored latest copied to history, or a
 * version this batch wrote). One number a log entry, in order.
 */
export function logReferences(plan: VersionsPlan): number[] {
  const kept = new Set(plan.rows);
  // Looked up only for a stored latest replaced (most writes of one aspect alone replace none, or are its only copy).
  let copied: Set<string> | undefined;
  const out: number[] = new Array(plan.log.length);
  // Indexed rather than destructured: a per-entry array pattern goes through the iterator protocol, on every write.
  for (let i = 0; i < plan.log.length; i++) {
    const entry = plan.log[i]!;
    const { row, previous: before } = plan.logVersions[i]!;
    const byValue = kept.has(row) && row.json === entry[5] && row.sys === entry[7];
    let byPrevious: boolean;
    if (before === 'stored') byPrevious = (copied ??= new Set(plan.copies.map(aspectKey))).has(aspectKey(row));
    else byPrevious = before !== null && kept.has(before) && before.json === entry[6] && before.sys === entry[8];
    out[i] = (byValue ? LOG_REF_VALUE : 0) | (byPrevious ? LOG_REF_PREVIOUS : 0);
  }
  return out;
}

