import { schemaMetadata } from '../entities/shared-aspects.js';
import { badRequest } from '../errors.js';
import type { AspectRecord } from '../storage/types.js';
import type { EntityService } from './entities.js';

/**
 * A dataset's schema history as DataHub 0.12.1 computes it from the stored versions of schemaMetadata: the change
 * transactions with their semantic versions, each field's blame (the version that last changed it), and the aspects a
 * version stamp names. Existence and privileges are the caller's.
 */

interface FieldLike { fieldPath: string; nativeDataType?: string; description?: string }
interface SchemaLike { fields?: FieldLike[]; primaryKeys?: string[] }
interface ChangeEvent { fieldPath: string; op: 'ADD' | 'MODIFY' | 'REMOVE'; level: number }
interface Transaction { timestamp: number; semver: [number, number, number]; versionStamp: string; events: ChangeEvent[] }

const MINOR = 1;
const MAJOR = 2;

/** DataHub's rename test: same native type, same parent path, and the same description (not blank). */
function isRenamed(from: FieldLike, to: FieldLike): boolean {
  const parent = (p: string) => (p.lastIndexOf('.') > 0 ? p.slice(0, p.lastIndexOf('.')) : p.includes('.') ? null : '');
  const pf = parent(from.fieldPath);
  return (from.nativeDataType ?? '') === (to.nativeDataType ?? '') && pf !== null && pf === parent(to.fieldPath)
    && !!from.description?.trim() && from.description === to.description;
}

/**
 * DataHub 0.12.1's technical-schema diff of two schemaMetadata values, fields matched by path: a field added is MINOR,
 * removed or with a new native type MAJOR, a rename (a removed field and an added one that pass isRenamed) a MINOR
 * MODIFY of the old path, a primary key added or removed a MAJOR MODIFY of that field.
 */
function schemaDiff(base: SchemaLike | undefined, target: SchemaLike): ChangeEvent[] {
  const before = new Map((base?.fields ?? []).map((f) => [f.fieldPath, f]));
  const after = new Map((target.fields ?? []).map((f) => [f.fieldPath, f]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const added = paths.filter((p) => !before.has(p) && after.has(p));
  const renamedTo = new Set<string>();
  const renamedFrom = new Set<string>();
  for (const p of paths.filter((x) => before.has(x) && !after.has(x))) {
    const to = added.find((a) => !renamedTo.has(a) && isRenamed(before.get(p)!, after.get(a)!));
    if (to) { renamedTo.add(to); renamedFrom.add(p); }
  }
  const events: ChangeEvent[] = [];
  for (const p of paths) {
    const b = before.get(p);
    const t = after.get(p);
    if (b && !t) events.push(renamedFrom.has(p) ? { fieldPath: p, op: 'MODIFY', level: MINOR } : { fieldPath: p, op: 'REMOVE', level: MAJOR });
    else if (!b && t) { if (!renamedTo.has(p)) events.push({ fieldPath: p, op: 'ADD', level: MINOR }); }
    else if (b && t && (b.nativeDataType ?? '') !== (t.nativeDataType ?? '')) events.push({ fieldPath: p, op: 'MODIFY', level: MAJOR });
  }
  const baseKeys = new Set(base?.primaryKeys ?? []);
  const targetKeys = new Set(target.primaryKeys ?? []);
  for (const k of baseKeys) if (!targetKeys.has(k)) events.push({ fieldPath: k, op: 'MODIFY', level: MAJOR });
  for (const k of targetKeys) if (!baseKeys.has(k)) events.push({ fieldPath: k, op: 'MODIFY', level: MAJOR });
  return events;
}

/** Oldest first: the history versions (1 is the oldest kept), then the latest (0). */
const chronological = (records: AspectRecord[]) => [...records].sort((a, b) =>
  (a.version === 0 ? Infinity : a.version) - (b.version === 0 ? Infinity : b.version));

/**
 * DataHub's version stamp at a time: for every versioned aspect of the entity, the version that was current then
 * (aspect:version, by aspect name, joined with ;).
 */
function versionStampAt(histories: Map<string, AspectRecord[]>, time: number): string {
  const parts: string[] = [];
  for (const name of [...histories.keys()].sort()) {
    let current: AspectRecord | undefined;
    for (const rec of histories.get(name)!) if (rec.createdOn <= time) current = rec;
    if (current) parts.push(`${name}:${current.version}`);
  }
  return parts.join(';');
}

const semverText = (v: readonly number[]) => v.join('.');
const semverStruct = (t: Transaction) => ({ semanticVersion: semverText(t.semver), semanticVersionTimestamp: t.timestamp, versionStamp: t.versionStamp });

function parseSemver(text: string): [number, number, number] | null {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-computed)?$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}
const compareSemver = (a: readonly number[], b: readonly number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

export class SchemaHistoryService {
  constructor(private readonly entities: EntityService) {}

  /**
   * The schema's change transactions, oldest first, from the stored versions of schemaMetadata: the oldest kept version
   * against nothing (every field added), then each against the one before; versions that change no field make none.
   * The first transaction is 0.0.0; each later one bumps major, minor or patch by its largest change, as DataHub does.
   */
  async timeline(datasetUrn: string): Promise<Transaction[]> {
    const versions = chronological(await this.entities.versions(datasetUrn, schemaMetadata.name));
    if (versions.length === 0) return [];
    const latest = await this.entities.getLatest(datasetUrn);
    const histories = new Map<string, AspectRecord[]>();
    for (const name of latest.keys()) {
      histories.set(name, name === schemaMetadata.name ? versions : chronological(await this.entities.versions(datasetUrn, name)));
    }
    const out: Transaction[] = [];
    let previous: SchemaLike | undefined;
    let semver: [number, number, number] | undefined;
    for (const rec of versions) {
      const value = rec.value as SchemaLike;
      const events = schemaDiff(previous, value);
      previous = value;
      if (events.length === 0) continue;
      const level = Math.max(...events.map((e) => e.level));
      semver = !semver ? [0, 0, 0] : level === MAJOR ? [semver[0] + 1, 0, 0] : [semver[0], semver[1] + 1, 0];
      out.push({ timestamp: rec.createdOn, semver, versionStamp: versionStampAt(histories, rec.createdOn), events });
    }
    return out;
  }

  /** The semantic versions, newest first, and the latest; null without a schema change. */
  async versionList(datasetUrn: string) {
    const timeline = await this.timeline(datasetUrn);
    if (timeline.length === 0) return null;
    const newestFirst = [...timeline].reverse();
    return { latestVersion: semverStruct(timeline[timeline.length - 1]!), version: null, semanticVersionList: newestFirst.map(semverStruct) };
  }

  /** Each field's last change up to a version (the latest when none is given); removed fields left out. */
  async blame(datasetUrn: string, version: string | null | undefined) {
    const timeline = await this.timeline(datasetUrn);
    const empty = { version: null, schemaFieldBlameList: null };
    if (timeline.length === 0) return empty;
    const cutoff = version != null ? parseSemver(version) : timeline[timeline.length - 1]!.semver;
    if (!cutoff) return empty;
    const upTo = timeline.filter((t) => compareSemver(t.semver, cutoff) <= 0).reverse();
    if (upTo.length === 0) return empty;
    const blame = new Map<string, { fieldPath: string; schemaFieldChange: { changeType: string } & Record<string, unknown> }>();
    for (const t of upTo) {
      for (const e of t.events) {
        if (blame.has(e.fieldPath)) continue;
        const verb = e.op === 'ADD' ? 'Added' : e.op === 'MODIFY' ? 'Modified' : 'Removed';
        blame.set(e.fieldPath, { fieldPath: e.fieldPath, schemaFieldChange: { timestampMillis: t.timestamp, lastSemanticVersion: semverText(t.semver),
          versionStamp: t.versionStamp, changeType: e.op, lastSchemaFieldChange: `${verb} in v${semverText(t.semver)}` } });
      }
    }
    return {
      version: semverStruct(upTo[0]!),
      schemaFieldBlameList: [...blame.values()].filter((b) => b.schemaFieldChange.changeType !== 'REMOVE')
        .sort((a, b) => (a.fieldPath < b.fieldPath ? -1 : a.fieldPath > b.fieldPath ? 1 : 0)),
    };
  }

  /** The aspects a version stamp names, at those versions (and no others, as DataHub reads them). */
  async aspectsAt(urn: string, versionStamp: string): Promise<Map<string, AspectRecord>> {
    const aspects = new Map<string, AspectRecord>();
    for (const pair of versionStamp.split(';')) {
      const [name, v, ...rest] = pair.split(':');
      const version = Number(v);
      if (!name || rest.length || !Number.isInteger(version) || version < 0) throw badRequest(`Invalid version stamp: '${versionStamp}'`);
      const rec = await this.entities.storedVersion(urn, name, version);
      if (rec) aspects.set(name, rec);
    }
    return aspects;
  }
}
