/**
 * Schemas of aspect values: each one checks a normalised JSON value (Avro wrappers removed, nulls dropped) and
 * carries the TypeScript type of the values it accepts, so an aspect's type and its validation are one definition.
 *
 * Fields are DataHub's (read from its PDL files); unknown extra fields are accepted and kept. A field with a
 * default in DataHub's model is optional here, since DataHub fills it in rather than refusing. The first problem
 * is reported with its path (`owners[1].owner`), in DataHub's field names.
 */

export interface AspectIssue {
  path: string;
  message: string;
}

/**
 * The path to the value is a stack the checks push to and pop from, turned into text only when something is wrong,
 * so a valid value costs no allocation.
 */
export type Path = (string | number)[];
export type Check = (v: unknown, path: Path) => AspectIssue | null;

/** A check, and (as a phantom) the type of what it accepts. */
export interface Schema<T> {
  readonly check: Check;
  /** The smallest value that passes: required fields only, one item per list (tests ingest it for every aspect). */
  readonly example: () => T;
  readonly _type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

const schema = <T>(check: Check, example: () => T): Schema<T> => ({ check, example });

/** Frozen values found to fit a schema, with that schema. */
const fitted = new WeakMap<object, Schema<unknown>>();

/**
 * Whether a stored value still fits its schema (it did when written; a schema may have changed since). The search
 * and relationship indexes ask it three times of every aspect of each entity they compute, at every step that names
 * the entity; values read from the store are deep-frozen and shared between readers, so a frozen value's answer is
 * kept (a value that could still change is checked every time).
 */
export function fitsSchema(s: Schema<unknown>, value: object): boolean {
  if (fitted.get(value) === s) return true;
  if (s.check(value, []) !== null) return false;
  if (Object.isFrozen(value)) fitted.set(value, s);
  return true;
}

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function pathText(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}

export function issue(path: Path, message: string): AspectIssue {
  const p = pathText(path);
  return { path: p, message: p ? `${p}: ${message}` : message };
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str: Schema<string> = schema((v, p) => (typeof v === 'string' ? null : issue(p, `expected a string, got ${describe(v)}`)), () => 'x');
export const bool: Schema<boolean> = schema((v, p) => (typeof v === 'boolean' ? null : issue(p, `expected a boolean, got ${describe(v)}`)), () => false);

/** DataHub's int and long: a whole number within 64 bits (1e308 is refused here, not by a bigint column later). */
const LONG_MIN = -(2 ** 63);
export const int: Schema<number> = schema((v, p) => (typeof v === 'number' && Number.isInteger(v) && v >= LONG_MIN && v < 2 ** 63 ? null
  : issue(p, `expected a whole number${typeof v === 'number' && Number.isInteger(v) ? ' within 64 bits' : ''}, got ${describe(v) === 'number' ? v : describe(v)}`)),
() => 1);

/** DataHub's float and double. */
export const num: Schema<number> = schema((v, p) => (typeof v === 'number' && Number.isFinite(v) ? null : issue(p, `expected a number, got ${describe(v)}`)),
  () => 0.5);

export const urn: Schema<string> = schema((v, p) => (typeof v === 'string' && v.startsWith('urn:') ? null
  : issue(p, typeof v === 'string' ? `expected a urn, got '${v.length > 80 ? v.slice(0, 80) + '…' : v}'` : `expected a urn, got ${describe(v)}`)),
() => 'urn:li:corpuser:example');

/** Anything: for parts DataHub leaves open (bytes, free-form payloads). */
export const any: Schema<unknown> = schema(() => null, () => ({}));

export function enumOf<const V extends readonly string[]>(values: V): Schema<V[number]> {
  const set = new Set<string>(values);
  return schema((v, p) => (typeof v === 'string' && set.has(v) ? null
    : issue(p, typeof v === 'string' ? `'${v}' is not one of ${values.join(', ')}` : `expected a string, got ${describe(v)}`)),
  () => values[0]!);
}

export function arr<T>(item: Schema<T>): Schema<T[]> {
  const check = item.check;
  return schema((v, p) => {
    if (!Array.isArray(v)) return issue(p, `expected a list, got ${describe(v)}`);
    for (let i = 0; i < v.length; i++) {
      p.push(i);
      const r = check(v[i], p);
      p.pop();
      if (r) return r;
    }
    return null;
  }, () => [item.example()]);
}

export function map<T>(value: Schema<T>): Schema<Record<string, T>> {
  const check = value.check;
  return schema((v, p) => {
    if (!isObj(v)) return issue(p, `expected a map, got ${describe(v)}`);
    for (const k in v) {
      if (!Object.prototype.hasOwnProperty.call(v, k)) continue;
      p.push(k);
      const r = check(v[k], p);
      p.pop();
      if (r) return r;
    }
    return null;
  }, () => ({ key: value.example() }));
}

/** Record fields: a name ending in `?` is optional. */
export type Fields = Record<string, Schema<any>>;
type Required<F> = { [K in keyof F as K extends `${string}?` ? never : K]: Infer<F[K]> };
type Optional<F> = { [K in keyof F as K extends `${infer N}?` ? N : never]?: Infer<F[K]> };
type Flat<T> = { [K in keyof T]: T[K] } & {};
export type RecordOf<F> = Flat<Required<F> & Optional<F>>;

export function rec<const F extends Fields>(fields: F): Schema<RecordOf<F>> {
  const names: string[] = [];
  const optional: boolean[] = [];
  const checks: Check[] = [];
  const examples: (() => unknown)[] = [];
  for (const [k, s] of Object.entries(fields)) {
    const opt = k.endsWith('?');
    names.push(opt ? k.slice(0, -1) : k);
    optional.push(opt);
    checks.push(s.check);
    examples.push(s.example);
  }
  return schema((v, p) => {
    if (!isObj(v)) return issue(p, `expected an object, got ${describe(v)}`);
    for (let i = 0; i < names.length; i++) {
      const k = names[i]!;
      // Own fields only: an inherited value is not part of what was sent.
      const x = Object.hasOwn(v, k) ? v[k] : undefined;
      if (x === undefined) {
        if (optional[i]) continue;
        p.push(k);
        const r = issue(p, 'required field is missing');
        p.pop();
        return r;
      }
      p.push(k);
      const r = checks[i]!(x, p);
      p.pop();
      if (r) return r;
    }
    return null;
  }, () => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < names.length; i++) if (!optional[i]) out[names[i]!] = examples[i]!();
    return out as RecordOf<F>;
  });
}

/** What a Pegasus union holds on the wire: a one-key object named after the member's class. */
export type UnionValue = Record<string, unknown>;

/** A Pegasus union of records: a one-key object naming the member; the member itself is not checked. */
export const union: Schema<UnionValue> = schema((v, p) => {
  if (isObj(v)) {
    let n = 0;
    for (const k in v) if (Object.prototype.hasOwnProperty.call(v, k) && ++n > 1) break;
    if (n === 1) return null;
  }
  return issue(p, `expected a one-key object naming the union member, got ${describe(v)}`);
}, () => ({ 'com.linkedin.example.Member': {} }));

/** Either of two shapes (a union with a primitive member, which loses its wrapper when normalised). */
export function oneOf<A, B>(a: Schema<A>, b: Schema<B>): Schema<A | B> {
  return schema((v, p) => (a.check(v, p) === null ? null : b.check(v, p)), a.example);
}
