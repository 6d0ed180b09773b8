import { unprocessable } from '../errors.js';
import { aspectDef } from '../entities/index.js';
import type { AspectIssue } from '../entities/schema.js';
import { findPrototypeKey } from '../model/safe-keys.js';

/**
 * Validation of aspect values at ingest, by name. Each aspect's schema lives with its definition (src/entities);
 * this is the one entry point every write goes through.
 */
export type { AspectIssue };

export function hasSchema(aspect: string): boolean {
  return aspectDef(aspect) !== undefined;
}

/**
 * The first problem with the value, or null when it fits the aspect's schema (unknown aspects: null). Whatever the
 * aspect, a key that could reach a prototype (`__proto__`, `constructor.prototype`) is a problem: every write is
 * validated here, so no such key is ever stored.
 */
export function validateAspect(aspect: string, value: unknown): AspectIssue | null {
  const unsafe = findPrototypeKey(value);
  if (unsafe !== undefined) return { path: unsafe, message: `${unsafe}: this key is not allowed (it names an object's prototype)` };
  const def = aspectDef(aspect);
  return def ? def.schema.check(value, []) : null;
}

export function validateOrThrow(aspect: string, value: unknown): void {
  const found = validateAspect(aspect, value);
  if (found) throw unprocessable(`Invalid aspect ${aspect}: ${found.message}`, { aspect, field: found.path });
}
