import { unprocessable } from '../errors.js';

/**
 * Keys that must never be followed when a user-given key picks where to read or write in an object.
 * `obj['__proto__']` is the object's prototype (for a plain object, `Object.prototype` itself), and
 * `obj.constructor.prototype` reaches the same place in two steps. Writing through either changes every object in
 * the process. Every place that takes a key from a request, a file or a stored value goes through this module.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const isPrototypeKey = (key: string): boolean => PROTOTYPE_KEYS.has(key);

/**
 * Where in a JSON value a key could reach a prototype, as a path (`customProperties.__proto__`), or undefined.
 * Refused: `__proto__` anywhere, and `constructor` holding an object with `prototype` — the rules fastify's JSON
 * parser applies. A plain `constructor` or `prototype` key is ordinary data (a custom property may be named so);
 * code that walks such values never steps through it.
 */
export function findPrototypeKey(value: unknown): string | undefined {
  // Every write passes here: a quick walk that builds no path strings, and the path only once something is found.
  return holdsPrototypeKey(value, 0) ? find(value, '', 0) : undefined;
}

/** Values are JSON: depth is bounded by the parser, but a hostile in-process value could be cyclic. */
const MAX_DEPTH = 10_000;

function isPrototypeEntry(key: string, child: unknown): boolean {
  if (key === '__proto__') return true;
  return key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype');
}

function holdsPrototypeKey(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsPrototypeKey(value[i], depth + 1)) return true;
    return false;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const child = obj[key];
    if (isPrototypeEntry(key, child) || holdsPrototypeKey(child, depth + 1)) return true;
  }
  return false;
}

function find(value: unknown, path: string, depth: number): string | undefined {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = find(value[i], `${path}[${i}]`, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const here = path ? `${path}.${key}` : key;
    const child = (value as Record<string, unknown>)[key];
    if (isPrototypeEntry(key, child)) return key === '__proto__' ? here : `${here}.prototype`;
    const hit = find(child, here, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/** Throws UNPROCESSABLE (422) naming the path when the value holds a key that could reach a prototype. */
export function assertNoPrototypeKeys(value: unknown, what: string): void {
  const hit = findPrototypeKey(value);
  if (hit !== undefined) {
    throw unprocessable(`${what} holds the key '${hit}', which is not allowed: it names an object's prototype`, { field: hit });
  }
}

const MENTIONS_PROTOTYPE_KEY = /__proto__|constructor/;

/** Fast pre-check on raw JSON text: only text that mentions one of the keys can hold one, so only it needs a walk. */
export const mentionsPrototypeKey = (text: string): boolean => MENTIONS_PROTOTYPE_KEY.test(text);

/**
 * JSON.parse that refuses (422, naming the path) any key that could reach a prototype. A syntax error becomes
 * `malformed(message)` when given (each caller words it for its own field), else is thrown as JSON.parse throws it.
 */
export function parseJsonSafely(text: string, what: string, malformed?: (syntaxMessage: string) => Error): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw malformed ? malformed((e as Error).message) : e;
  }
  if (mentionsPrototypeKey(text)) assertNoPrototypeKeys(value, what);
  return value;
}

/** The object's own value under `key` (never an inherited one), or undefined. */
export function ownValue(obj: unknown, key: string): unknown {
  return obj !== null && typeof obj === 'object' && Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

/**
 * Sets `obj[key] = value` as an own data property, whatever the key: assignment to `__proto__` would instead
 * replace the object's prototype.
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

/**
 * A frozen lookup table with no prototype: looking up a user-given name (`constructor`, `toString`, `__proto__`)
 * finds nothing rather than something inherited, and `name in table` means the table lists it.
 */
export function lookupTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
