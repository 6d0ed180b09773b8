import { unprocessable, badRequest, AlmanacError } from '../errors.js';
import { aspectNameOfClass, aspectSpec, entitySpec, entityTypeOfSnapshot } from '../registry/registry.js';
import { tryParseUrn } from '../model/urn.js';
import { assertNoPrototypeKeys, ownValue, parseJsonSafely } from '../model/safe-keys.js';
import { normaliseAspectValue, normaliseOwnedAspectValue } from '../model/wire-format.js';
import type { SystemMetadata } from '../storage/types.js';

/**
 * Turning DataHub's wire and file records (MCE snapshots, MCPs in both aspect encodings) into change items.
 * Shape checks only; registry and payload validation happen in the entity service.
 */
export type ChangeType = 'UPSERT' | 'CREATE' | 'UPDATE' | 'RESTATE' | 'DELETE' | 'PATCH';

export interface ChangeItem {
  urn: string;
  entityType: string;
  aspect: string;
  changeType: ChangeType;
  value: unknown;
  systemMetadata: SystemMetadata | null;
  /**
   * A conditional write (DataHub's If-Version-Match): the revision the aspect must be at for the change to apply,
   * -1 for "not stored yet". A mismatch refuses the whole batch with 412.
   */
  expectedVersion?: number;
  /**
   * JSON.stringify(value), when it was made already (a record decoded in a worker thread): the write stores it as it
   * is. Only ever set with the value it is the text of (ChangeWithText).
   */
  valueJson?: string;
}

/**
 * A change item decoded in a worker thread, handed over with its value as JSON text (made there, from the value the
 * worker normalised and checked): most of a bulk load's values are only stored, so this thread parses one only if it
 * reads it (a time-series event, a key aspect, a patch's base), and stores the text as it came.
 */
export class ChangeWithText implements ChangeItem {
  urn: string;
  entityType: string;
  aspect: string;
  changeType: ChangeType;
  systemMetadata: SystemMetadata | null;
  expectedVersion?: number;
  valueJson: string | undefined;
  private parsed: unknown;

  constructor(fields: Omit<ChangeItem, 'value' | 'valueJson'>, valueJson: string) {
    this.urn = fields.urn;
    this.entityType = fields.entityType;
    this.aspect = fields.aspect;
    this.changeType = fields.changeType;
    this.systemMetadata = fields.systemMetadata;
    if (fields.expectedVersion !== undefined) this.expectedVersion = fields.expectedVersion;
    this.valueJson = valueJson;
  }

  get value(): unknown {
    if (this.parsed === undefined) this.parsed = JSON.parse(this.valueJson!);
    return this.parsed;
  }

  /** A value set here replaces the text's (which no longer describes it). */
  set value(v: unknown) {
    this.parsed = v;
    this.valueJson = undefined;
  }
}

/** The header (or system-metadata property) naming a proposal's expected version. */
export const IF_VERSION_MATCH = 'If-Version-Match';

/** Reads an expected version given as text or a number: a whole number ≥ -1, or 400. */
export function parseExpectedVersion(raw: unknown, where: string): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = String(raw).trim();
  if (!/^-?\d{1,15}$/.test(text) || Number(text) < -1) {
    throw badRequest(`${where} must be a version number (a whole number, or -1 for an aspect not stored yet), got '${text}'`, { field: where });
  }
  return Number(text);
}

/** A proposal's expected version: its `headers` (DataHub's MCP field), else its system metadata's properties. */
function expectedVersionOf(p: Record<string, unknown>, sys: SystemMetadata | null): number | undefined {
  const headers = isObject(p.headers) ? p.headers : undefined;
  const fromHeaders = headers ? Object.entries(headers).find(([k]) => k.toLowerCase() === IF_VERSION_MATCH.toLowerCase())?.[1] : undefined;
  if (fromHeaders !== undefined) return parseExpectedVersion(fromHeaders, `headers.${IF_VERSION_MATCH}`);
  const props = sys && isObject(sys.properties) ? sys.properties : undefined;
  return parseExpectedVersion(props?.[IF_VERSION_MATCH], `systemMetadata.properties.${IF_VERSION_MATCH}`);
}

const CHANGE_TYPES = new Set(['UPSERT', 'CREATE', 'UPDATE', 'RESTATE', 'DELETE', 'PATCH', 'CREATE_ENTITY']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function normaliseSystemMetadata(raw: unknown): SystemMetadata | null {
  if (!isObject(raw)) return null;
  const v = normaliseAspectValue(raw) as SystemMetadata;
  return Object.keys(v).length ? v : null;
}

function urnOf(raw: unknown, where: string): { urn: string; entityType: string } {
  const u = tryParseUrn(raw);
  if (typeof u === 'string') throw badRequest(`Invalid urn in ${where}: ${u}`, { field: where });
  return { urn: u.raw, entityType: u.entityType };
}

/** An MCP (REST `proposal` or a file record with `aspect`). */
export function changeFromProposal(p: unknown): ChangeItem {
  if (!isObject(p)) throw badRequest('proposal must be an object');
  const changeType = String(p.changeType ?? 'UPSERT').toUpperCase();
  if (!CHANGE_TYPES.has(changeType)) throw unprocessable(`Unknown changeType '${p.changeType}'`, { field: 'changeType' });
  let urn: string;
  let entityType: string;
  if (p.entityUrn !== undefined && p.entityUrn !== null) {
    ({ urn, entityType } = urnOf(p.entityUrn, 'entityUrn'));
  } else if (isObject(p.entityKeyAspect)) {
    ({ urn, entityType } = urnFromKeyAspect(String(p.entityType ?? ''), p.entityKeyAspect));
  } else {
    throw badRequest('proposal needs entityUrn (or entityKeyAspect)', { field: 'entityUrn' });
  }
  if (p.entityType !== undefined && p.entityType !== null) {
    const declared = entitySpec(String(p.entityType))?.name;
    if (!declared) throw unprocessable(`Unknown entity type '${p.entityType}'`, { field: 'entityType' });
    if (declared !== entityType) {
      throw badRequest(`entityType '${p.entityType}' does not match the urn's entity type '${entityType}'`, { field: 'entityType' });
    }
  }
  if (typeof p.aspectName !== 'string' || !p.aspectName) throw badRequest('proposal needs aspectName', { field: 'aspectName' });
  const aspect = p.aspectName;
  let value: unknown = null;
  if (changeType !== 'DELETE') {
    if (!isObject(p.aspect)) throw badRequest('proposal needs aspect {value, contentType} or {json}', { field: 'aspect' });
    value = decodeGenericAspect(p.aspect);
  }
  const systemMetadata = normaliseSystemMetadata(p.systemMetadata);
  const item: ChangeItem = { urn, entityType, aspect, changeType: changeType === 'CREATE_ENTITY' ? 'CREATE' : changeType as ChangeType,
    value, systemMetadata };
  const expected = expectedVersionOf(p, systemMetadata);
  if (expected !== undefined) item.expectedVersion = expected;
  return item;
}

function decodeGenericAspect(a: Record<string, unknown>): unknown {
  if (Object.hasOwn(a, 'json') && a.json !== undefined) return normaliseAspectValue(a.json);
  const ct = a.contentType === undefined || a.contentType === null ? 'application/json' : String(a.contentType);
  if (ct !== 'application/json' && ct !== 'application/json-patch+json') {
    throw unprocessable(`Unsupported aspect contentType '${ct}'`, { field: 'aspect.contentType' });
  }
  let raw = a.value;
  if (isObject(raw) && Object.keys(raw).length === 1 && Object.hasOwn(raw, 'string')) raw = raw.string; // Avro-wrapped bytes
  if (typeof raw !== 'string') {
    if (isObject(raw) || Array.isArray(raw)) return normaliseAspectValue(raw);
    throw badRequest('aspect.value must be a JSON string', { field: 'aspect.value' });
  }
  // The value parsed here is referenced nowhere else: kept as it is when normalising would change nothing.
  return normaliseOwnedAspectValue(parseJsonSafely(raw, 'aspect.value',
    (m) => badRequest(`aspect.value is not valid JSON: ${m}`, { field: 'aspect.value' })));
}

function urnFromKeyAspect(entityType: string, key: Record<string, unknown>): { urn: string; entityType: string } {
  const spec = entitySpec(entityType);
  if (!spec) throw unprocessable(`Unknown entity type '${entityType}'`, { field: 'entityType' });
  const wrapped = ownValue(key, 'value');
  const k: unknown = typeof wrapped === 'string'
    ? parseJsonSafely(wrapped, 'entityKeyAspect.value',
      (m) => badRequest(`entityKeyAspect.value is not valid JSON: ${m}`, { field: 'entityKeyAspect.value' }))
    : key;
  const parts = spec.keyFields.map((f) => {
    const v = ownValue(k, f);
    if (v === undefined || v === null) throw badRequest(`entityKeyAspect lacks key field '${f}'`, { field: `entityKeyAspect.${f}` });
    return String(v);
  });
  const urn = parts.length === 1 ? `urn:li:${spec.name}:${parts[0]}` : `urn:li:${spec.name}:(${parts.join(',')})`;
  return urnOf(urn, 'entityKeyAspect');
}

/** An MCE snapshot `{"<...>.DatasetSnapshot": {urn, aspects: [{"<class>": {...}}]}}` → one item per aspect. */
export function changesFromSnapshot(snapshot: unknown, systemMetadata: unknown): ChangeItem[] {
  if (!isObject(snapshot) || Object.keys(snapshot).length !== 1) {
    throw badRequest('snapshot must be an object with one key, the snapshot class');
  }
  const [cls, body] = Object.entries(snapshot)[0]!;
  const snapshotEntity = entityTypeOfSnapshot(cls);
  if (!snapshotEntity) throw unprocessable(`Unknown snapshot class '${cls}'`, { field: 'proposedSnapshot' });
  if (!isObject(body)) throw badRequest(`${cls} must be an object with urn and aspects`);
  const { urn, entityType } = urnOf(body.urn, `${cls}.urn`);
  if (entityType !== snapshotEntity) {
    throw badRequest(`urn '${urn}' is not a ${snapshotEntity} urn`, { field: `${cls}.urn` });
  }
  if (!Array.isArray(body.aspects)) throw badRequest(`${cls}.aspects must be a list`, { field: 'aspects' });
  const sys = normaliseSystemMetadata(systemMetadata);
  return body.aspects.map((a, i) => {
    if (!isObject(a) || Object.keys(a).length !== 1) {
      throw badRequest(`aspects[${i}] must be an object with one key, the aspect class`, { field: `aspects[${i}]` });
    }
    const [aCls, value] = Object.entries(a)[0]!;
    const aspect = aspectNameOfClass(aCls);
    if (!aspect) {
      throw unprocessable(`Unknown aspect class '${aCls}' for entity type '${entityType}'`, { field: `aspects[${i}]`, entityType });
    }
    return { urn, entityType, aspect, changeType: 'UPSERT' as const, value: normaliseAspectValue(value), systemMetadata: sys };
  });
}

export type FileRecordKind = 'mce' | 'mcp';

/**
 * A record of DataHub's file format: classified by its keys, as the file source does. Files are parsed whole, so a
 * record holding a prototype key is refused here, alone, like any other bad record; `mayHoldPrototypeKeys: false`
 * (the file's text never mentions one) skips that walk.
 */
export function changesFromFileRecord(rec: unknown, mayHoldPrototypeKeys = true): { kind: FileRecordKind; items: ChangeItem[] } {
  if (!isObject(rec)) throw badRequest('record must be a JSON object');
  if (mayHoldPrototypeKeys) assertNoPrototypeKeys(rec, 'The record');
  if (Object.hasOwn(rec, 'proposedSnapshot')) {
    return { kind: 'mce', items: changesFromSnapshot(rec.proposedSnapshot, rec.systemMetadata) };
  }
  if (Object.hasOwn(rec, 'aspect') || Object.hasOwn(rec, 'aspectName')) return { kind: 'mcp', items: [changeFromProposal(rec)] };
  throw unprocessable('record is neither an MCE (proposedSnapshot) nor an MCP (aspectName, aspect)');
}

/** Describes an ingestion failure for one record in one line. */
export function describeFailure(e: unknown): string {
  if (e instanceof AlmanacError) return e.message;
  return (e as Error)?.message ?? String(e);
}

export function isTimeseriesAspect(aspect: string): boolean {
  return aspectSpec(aspect)?.timeseries ?? false;
}
