/**
 * Normalising what DataHub clients and files send into plain aspect JSON.
 *
 * Avro JSON (the file form) wraps optional and union values in a one-key object named after the member type:
 * `{"string": "x"}`, `{"array": [...]}`, `{"com.linkedin.pegasus2avro.schema.StringType": {}}`. Pegasus JSON (the
 * REST form) wraps union members the same way but only for record members, with their class name. We unwrap the
 * Avro primitive wrappers everywhere, and keep record-member union keys with `pegasus2avro` removed, because those
 * are part of the Pegasus value (e.g. `schemaMetadata.platformSchema`, `fields[].type.type`).
 */

import { setOwn } from './safe-keys.js';

const AVRO_PRIMITIVES = new Set(['string', 'int', 'long', 'float', 'double', 'boolean', 'bytes', 'array', 'map', 'null']);

export function normaliseAspectValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normaliseAspectValue);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [k, v] = entries[0]!;
    if (AVRO_PRIMITIVES.has(k)) return normaliseAspectValue(v);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    // Avro writes absent optionals as null; Pegasus omits them. Dropping them keeps stored values canonical.
    if (v === null) continue;
    // setOwn: a `__proto__` key stays a visible own key (for validation to refuse), never the object's prototype.
    setOwn(out, k.includes('.pegasus2avro.') ? k.replace('.pegasus2avro.', '.') : k, normaliseAspectValue(v));
  }
  return out;
}

/**
 * normaliseAspectValue of a value the caller owns (freshly parsed, referenced nowhere else): the value itself when
 * normalising would change nothing, which is what connectors send (no null members, no Avro wrappers or pegasus2avro
 * names), found by a walk that allocates nothing; otherwise the normalised copy. Equal to normaliseAspectValue's
 * result either way (same members, same order).
 */
export function normaliseOwnedAspectValue(value: unknown): unknown {
  return isNormalised(value) ? value : normaliseAspectValue(value);
}

function isNormalised(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!isNormalised(value[i])) return false;
    return true;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && AVRO_PRIMITIVES.has(keys[0]!)) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = obj[k];
    if (v === null || k.includes('.pegasus2avro.') || !isNormalised(v)) return false;
  }
  return true;
}

/** JSON with sorted keys: two values that differ only in key order compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value as object).sort()) setOwn(out, k, sortKeys((value as Record<string, unknown>)[k]));
  return out;
}
