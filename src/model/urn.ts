import { badRequest } from '../errors.js';

/**
 * URNs: `urn:li:<entityType>:<key>`. A key that starts with `(` is a tuple split on commas at depth one
 * (DataHub's TupleKey rules: balanced parentheses, no empty part). Inside a part, `,`, `(` and `)` are
 * percent-encoded as `%2C`, `%28`, `%29` by the writer; we keep parts verbatim and offer encode/decode.
 */
export interface Urn {
  readonly raw: string;
  readonly namespace: string;
  readonly entityType: string;
  /** Everything after the entity type, as written. */
  readonly key: string;
  /** The tuple parts, or one part for a simple key. */
  readonly parts: readonly string[];
}

const PREFIX = /^urn:([A-Za-z0-9][A-Za-z0-9-]{0,31}):([A-Za-z][A-Za-z0-9_]*):/;

export function tryParseUrn(raw: unknown): Urn | string {
  if (typeof raw !== 'string') return 'a URN must be a string';
  if (raw.length > 2000) return 'URN is longer than 2000 characters';
  const m = PREFIX.exec(raw);
  if (!m) return `'${truncate(raw)}' is not a URN of the form urn:li:<entityType>:<id>`;
  const key = raw.slice(m[0].length);
  if (key.length === 0) return `URN '${truncate(raw)}' has an empty key`;
  if (/[\u0000-\u001f]/.test(key)) return `URN '${truncate(raw)}' contains control characters`;
  const parts = splitKey(key);
  if (typeof parts === 'string') return `URN '${truncate(raw)}': ${parts}`;
  return { raw, namespace: m[1]!, entityType: m[2]!, key, parts };
}

export function parseUrn(raw: unknown): Urn {
  const r = tryParseUrn(raw);
  if (typeof r === 'string') throw badRequest(`Invalid urn: ${r}`, { urn: raw });
  return r;
}

export function isUrn(raw: unknown): raw is string {
  return typeof tryParseUrn(raw) !== 'string';
}

function splitKey(key: string): string[] | string {
  if (!key.startsWith('(')) {
    if (!balanced(key)) return 'mismatched paren nesting';
    return [key];
  }
  if (!key.endsWith(')')) return 'mismatched paren nesting';
  const parts = splitTopLevel(key.slice(1, -1));
  if (typeof parts === 'string') return parts;
  if (parts.some((p) => p.length === 0)) return 'empty part disallowed';
  return parts;
}

/** Splits on commas outside parentheses; a string says why the parentheses do not balance. */
export function splitTopLevel(s: string): string[] | string {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth < 0) return 'mismatched paren nesting';
    } else if (c === ',' && depth === 0) {
      parts.push(s.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return 'mismatched paren nesting';
  parts.push(s.slice(start));
  return parts;
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** Percent-encodes the three characters DataHub reserves inside a tuple part. */
export function encodeUrnPart(part: string): string {
  return part.replace(/,/g, '%2C').replace(/\(/g, '%28').replace(/\)/g, '%29');
}

export function decodeUrnPart(part: string): string {
  return part.replace(/%2C/gi, ',').replace(/%28/g, '(').replace(/%29/g, ')');
}

export function makeUrn(entityType: string, ...parts: string[]): string {
  if (parts.length === 1) return `urn:li:${entityType}:${parts[0]}`;
  return `urn:li:${entityType}:(${parts.join(',')})`;
}

export function datasetUrn(platform: string, name: string, env = 'PROD'): string {
  const p = platform.startsWith('urn:li:dataPlatform:') ? platform : `urn:li:dataPlatform:${platform}`;
  return makeUrn('dataset', p, encodeUrnPart(name), env);
}

/** The dataset key fields of a dataset URN: platform urn, name, origin (FabricType). */
export function datasetKeyOf(urn: Urn): { platform: string; name: string; origin: string } {
  if (urn.entityType !== 'dataset' || urn.parts.length !== 3) {
    throw badRequest(`Invalid urn: '${urn.raw}' is not a dataset urn (urn:li:dataset:(<platform urn>,<name>,<env>))`);
  }
  return { platform: urn.parts[0]!, name: decodeUrnPart(urn.parts[1]!), origin: urn.parts[2]! };
}

/** The last part of a simple urn (`urn:li:corpuser:jdoe` → `jdoe`). */
export function urnId(urn: string): string {
  const p = tryParseUrn(urn);
  if (typeof p === 'string') return urn;
  return p.parts.length === 1 ? p.key : p.key;
}
