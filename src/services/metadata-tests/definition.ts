/**
 * Metadata test definitions (DataHub's `testInfo.definition.json`): parsing JSON or YAML text into a compiled,
 * immutable structure that `evaluate.ts` runs without re-parsing anything.
 *
 * Language (DataHub's TestDefinitionParser, see the REST fact sheet §1.4):
 *
 *   { on: { types: [entityType, ...], conditions?: <predicate> },   // `match` is a legacy alias of `conditions`
 *     rules: <predicate>,
 *     actions?: { passing?: [...], failing?: [...] } }              // kept, never run
 *
 *   <predicate> = [p, ...]                      implicit and
 *               | {and: [p, ...]} | {or: [p, ...]}   (optional legacy `negate: true`)
 *               | {not: p | [p, ...]}
 *               | {property, operator, values? | value?, negate?}
 *               | {query, operation, params: {values | value}, negate?}   (legacy leaf)
 *
 * Every refusal is a BAD_REQUEST whose message says where: a path such as `rules.and[1].operator`, or the line and
 * column of a JSON/YAML syntax error.
 */
import { createRequire } from 'node:module';
import type { parseDocument as ParseDocument } from 'yaml';
import { deepFreeze } from '../../model/deep-freeze.js';
import { findPrototypeKey } from '../../model/safe-keys.js';
import { badRequest } from '../../errors.js';

// The YAML parser is loaded on first use, not when the catalog opens: most commands and starts never parse a test.
let yamlParse: typeof ParseDocument | undefined;
const parseDocument: typeof ParseDocument = (...args) =>
  (yamlParse ??= (createRequire(import.meta.url)('yaml') as typeof import('yaml')).parseDocument)(...args);

export const OPERATORS = [
  'equals', 'contains_any', 'contains_str', 'starts_with', 'regex_match',
  'greater_than', 'less_than', 'exists', 'is_true', 'is_false',
] as const;
export type OperatorName = (typeof OPERATORS)[number];

/** Operators that compare the property with given values; the others take none. */
const BINARY: ReadonlySet<string> = new Set(['equals', 'contains_any', 'contains_str', 'starts_with', 'regex_match',
  'greater_than', 'less_than']);

/** Deepest predicate nesting accepted (DataHub advises one or two levels). */
export const MAX_PREDICATE_DEPTH = 32;

/** Where a segment sequence `segs[i..j]` joined with dots may also be a single map key (e.g. `spark.app.name`). */
export interface DottedKey {
  readonly key: string;
  /** Index of the first segment after the joined ones. */
  readonly next: number;
}

/** A property path split once at parse time. */
export interface PropertyPath {
  readonly text: string;
  readonly kind: 'urn' | 'entityType' | 'aspect';
  /** Aspect name (the first segment) for `aspect` paths, '' otherwise. */
  readonly aspect: string;
  /** Field names after the aspect. */
  readonly steps: readonly string[];
  /** `dotted[i]`: keys made of steps i..j joined with dots, tried when step i is not a key of the object. */
  readonly dotted: readonly (readonly DottedKey[])[];
}

/** A compiled leaf comparison against one resolved value. */
export type ValueMatcher = (value: unknown) => boolean;

export interface LeafPredicate {
  readonly kind: 'leaf';
  /** Where the leaf sits in the definition, e.g. `rules.and[1]`. */
  readonly path: string;
  readonly property: PropertyPath;
  readonly operator: OperatorName;
  /** Right-hand values as strings, for the binary operators only. */
  readonly values?: readonly string[];
  readonly negate: boolean;
  /** True when one resolved value satisfies the operator (for is_false: when the value is false). */
  readonly match: ValueMatcher;
}
export interface AndPredicate { readonly kind: 'and'; readonly path: string; readonly children: readonly Predicate[] }
export interface OrPredicate { readonly kind: 'or'; readonly path: string; readonly children: readonly Predicate[] }
export interface NotPredicate { readonly kind: 'not'; readonly path: string; readonly child: Predicate }
export type Predicate = LeafPredicate | AndPredicate | OrPredicate | NotPredicate;

export interface TestDefinition {
  /** `on.types` as written. */
  readonly types: readonly string[];
  /** `on.types` normalised for matching (see `entityTypeKey`). */
  readonly typeKeys: readonly string[];
  readonly conditions?: Predicate;
  readonly rules: Predicate;
  /** The `actions` block, deep-frozen and otherwise untouched (Almanac runs no actions). */
  readonly actions?: Readonly<Record<string, unknown>>;
}

/**
 * Entity types compare case-insensitively and ignoring underscores, so `dataset`, `DATASET`, `dataFlow` and the
 * GraphQL enum spelling `DATA_FLOW` all name the same type.
 */
export function entityTypeKey(entityType: string): string {
  return entityType.toLowerCase().replace(/_/g, '');
}

// ---------------------------------------------------------------------------------------------------------------
// Text → document

const PREFIX = 'Invalid test definition: ';

class DefinitionError extends Error {
  constructor(readonly path: string, readonly problem: string) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

function fail(path: string, problem: string): never {
  throw new DefinitionError(path, problem);
}

/**
 * Parses and compiles a test definition. `format` forces JSON or YAML; without it, text starting with `{` or `[`
 * is read as JSON, anything else as YAML. Throws BAD_REQUEST saying what is wrong and where.
 */
export function parseTestDefinition(text: string, format?: 'JSON' | 'YAML'): TestDefinition {
  if (typeof text !== 'string') throw badRequest(`${PREFIX}the definition must be text`, { path: '' });
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.trim() === '') throw badRequest(`${PREFIX}the definition is empty`, { path: '' });
  try {
    const doc = readDocument(source, format);
    // The compiler reads own keys only; a prototype key is refused anyway, so no definition ever carries one.
    const unsafe = findPrototypeKey(doc);
    if (unsafe !== undefined) fail(unsafe, "this key is not allowed (it names an object's prototype)");
    return compileDocument(doc);
  } catch (e) {
    if (e instanceof DefinitionError) throw badRequest(PREFIX + e.message, { path: e.path });
    if (e instanceof RangeError) throw badRequest(`${PREFIX}the definition is nested too deeply`, { path: '' });
    throw e;
  }
}

function readDocument(source: string, format?: 'JSON' | 'YAML'): unknown {
  const fmt = format?.toUpperCase();
  if (fmt === 'YAML') return readYaml(source);
  if (fmt === 'JSON') return readJson(source);
  if (fmt !== undefined) throw badRequest(`${PREFIX}unknown format '${format}' (expected JSON or YAML)`, { path: '' });
  // DataHub stores JSON; text that starts like JSON is held to JSON (YAML would quietly accept broken JSON such
  // as `{"operator": }`). YAML flow style (`{on: {types: [dataset]}}`) therefore needs format 'YAML'.
  const first = source.trimStart()[0];
  return first === '{' || first === '[' ? readJson(source) : readYaml(source);
}

function syntaxError(format: 'JSON' | 'YAML', source: string, offset: number, message: string) {
  const { line, column } = lineColumn(source, offset);
  return badRequest(`${PREFIX}line ${line}, column ${column}: ${message}`, { format, line, column });
}

function lineColumn(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

function readJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch (e) {
    // Node's JSON.parse messages carry no reliable position; a small recogniser finds and words the error.
    const located = locateJsonError(source);
    if (located) throw syntaxError('JSON', source, located.offset, located.message);
    throw badRequest(`${PREFIX}invalid JSON: ${(e as Error).message}`, { format: 'JSON' });
  }
}

function readYaml(source: string): unknown {
  const doc = parseDocument(source, { prettyErrors: false, uniqueKeys: true, schema: 'core' });
  const err = doc.errors[0];
  if (err) {
    const message = err.code === 'MULTIPLE_DOCS' ? 'a test definition must be a single YAML document' : err.message;
    throw syntaxError('YAML', source, err.pos[0], message);
  }
  return doc.toJS({ maxAliasCount: 100 });
}

/** Finds the first syntax error of a JSON text, or undefined when there is none (or it is too deep to scan). */
function locateJsonError(text: string): { offset: number; message: string } | undefined {
  const n = text.length;
  let pos = 0;
  class Stop {
    constructor(readonly offset: number, readonly message: string) {}
  }
  const ws = () => {
    while (pos < n) {
      const c = text.charCodeAt(pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) pos++;
      else break;
    }
  };
  const unexpected = (expected: string): never => {
    if (pos >= n) throw new Stop(pos, `Unexpected end of input, expected ${expected}`);
    throw new Stop(pos, `Unexpected token ${tokenAt(text, pos)}, expected ${expected}`);
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const string = () => {
    const start = pos;
    pos++;
    for (;;) {
      if (pos >= n) throw new Stop(start, 'Unterminated string');
      const c = text.charCodeAt(pos);
      if (c === 34) {
        pos++;
        return;
      }
      if (c === 92) {
        const e = text[pos + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) pos += 2;
        else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) pos += 6;
        else throw new Stop(pos, 'Bad escape sequence in string');
      } else if (c === 10 || c === 13) {
        throw new Stop(pos, 'Unexpected line break in string');
      } else if (c < 32) {
        throw new Stop(pos, 'Bad control character in string');
      } else pos++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      ws();
      if (text[pos] === '}') {
        pos++;
        return;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') unexpected('a property name in double quotes');
        string();
        ws();
        if (text[pos] !== ':') unexpected("':'");
        pos++;
        value();
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return;
        }
        unexpected("',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      ws();
      if (text[pos] === ']') {
        pos++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return;
        }
        unexpected("',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, pos) && !/[A-Za-z0-9_$]/.test(text[pos + lit.length] ?? '')) {
        pos += lit.length;
        return;
      }
    }
    NUMBER.lastIndex = pos;
    if ((c === '-' || (c !== undefined && c >= '0' && c <= '9')) && NUMBER.test(text)) {
      pos = NUMBER.lastIndex;
      return;
    }
    unexpected('a value');
  };
  try {
    value();
    ws();
    if (pos < n) throw new Stop(pos, `Unexpected token ${tokenAt(text, pos)} after the end of the definition`);
    return undefined;
  } catch (e) {
    if (e instanceof Stop) return { offset: e.offset, message: e.message };
    if (e instanceof RangeError) return undefined;
    throw e;
  }
}

function tokenAt(text: string, pos: number): string {
  const word = /[A-Za-z0-9_$.+-]{1,30}/y;
  word.lastIndex = pos;
  const m = word.exec(text);
  const tok = m ? m[0] : String.fromCodePoint(text.codePointAt(pos)!);
  return `'${JSON.stringify(tok).slice(1, -1)}'`;
}

// ---------------------------------------------------------------------------------------------------------------
// Document → compiled definition

const at = (path: string, key: string) => (path ? `${path}.${key}` : key);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return 'a string';
  if (typeof v === 'number') return 'a number';
  if (typeof v === 'boolean') return 'a boolean';
  return typeof v;
}

function compileDocument(doc: unknown): TestDefinition {
  if (!isObject(doc)) fail('', `expected an object with 'on' and 'rules', got ${describe(doc)}`);
  const missing = ['on', 'rules'].filter((k) => !Object.hasOwn(doc, k));
  if (missing.length > 0) {
    fail('', `a test definition must have an 'on' clause and a 'rules' clause (missing: ${missing.join(', ')})`);
  }
  for (const k of Object.keys(doc)) if (k !== 'on' && k !== 'rules' && k !== 'actions') fail(k, 'unknown key');

  const on = doc.on;
  if (!isObject(on)) fail('on', `must be an object with 'types', got ${describe(on)}`);
  for (const k of Object.keys(on)) if (k !== 'types' && k !== 'conditions' && k !== 'match') fail(at('on', k), 'unknown key');
  if (!Object.hasOwn(on, 'types')) fail('on.types', 'is required');
  const rawTypes = on.types;
  if (!Array.isArray(rawTypes)) fail('on.types', `must be a list of entity types, got ${describe(rawTypes)}`);
  if (rawTypes.length === 0) fail('on.types', 'must name at least one entity type');
  const types = rawTypes.map((t, i) => {
    if (typeof t !== 'string') fail(`on.types[${i}]`, `must be a string, got ${describe(t)}`);
    if (t.trim() === '') fail(`on.types[${i}]`, 'must not be empty');
    return t;
  });
  if (Object.hasOwn(on, 'conditions') && Object.hasOwn(on, 'match')) fail('on', "cannot combine 'conditions' with 'match'");
  const condKey = Object.hasOwn(on, 'conditions') ? 'conditions' : Object.hasOwn(on, 'match') ? 'match' : undefined;
  const conditions = condKey ? compilePredicate(on[condKey], `on.${condKey}`, 1) : undefined;

  const rules = compilePredicate(doc.rules, 'rules', 1);
  const actions = Object.hasOwn(doc, 'actions') ? compileActions(doc.actions) : undefined;

  const def: TestDefinition = {
    types: Object.freeze(types),
    typeKeys: Object.freeze([...new Set(types.map(entityTypeKey))]),
    ...(conditions ? { conditions } : {}),
    rules,
    ...(actions ? { actions } : {}),
  };
  return Object.freeze(def);
}

function compileActions(raw: unknown): Readonly<Record<string, unknown>> {
  if (!isObject(raw)) fail('actions', `must be an object, got ${describe(raw)}`);
  for (const k of ['passing', 'failing']) {
    if (!Object.hasOwn(raw, k)) continue;
    const list = raw[k];
    if (!Array.isArray(list)) fail(`actions.${k}`, `must be a list, got ${describe(list)}`);
    list.forEach((a, i) => {
      if (!isObject(a)) fail(`actions.${k}[${i}]`, `must be an object, got ${describe(a)}`);
    });
  }
  return deepFreeze(structuredClone(raw));
}

const LOGICAL = ['and', 'or', 'not'] as const;
const LEAF_KEYS: ReadonlySet<string> = new Set(['property', 'query', 'operator', 'operation', 'values', 'value',
  'params']);

function compilePredicate(raw: unknown, path: string, depth: number): Predicate {
  if (depth > MAX_PREDICATE_DEPTH) fail(path, `predicates are nested too deeply (at most ${MAX_PREDICATE_DEPTH} levels)`);
  if (Array.isArray(raw)) {
    const children = raw.map((p, i) => compilePredicate(p, `${path}[${i}]`, depth + 1));
    return Object.freeze({ kind: 'and', path, children: Object.freeze(children) });
  }
  if (!isObject(raw)) fail(path, `must be a predicate (an object or a list), got ${describe(raw)}`);
  const keys = Object.keys(raw);
  const logical = LOGICAL.filter((k) => Object.hasOwn(raw, k));
  if (logical.length > 1) fail(path, `cannot combine '${logical[0]}' with '${logical[1]}'`);
  const negate = readNegate(raw, path);
  const op = logical[0];
  if (op === undefined) return compileLeaf(raw, keys, path, negate);

  for (const k of keys) {
    if (k === op || k === 'negate') continue;
    if (LEAF_KEYS.has(k)) fail(path, `cannot combine '${op}' with '${k}'`);
    fail(at(path, k), 'unknown key');
  }
  if (op === 'not') {
    if (Object.hasOwn(raw, 'negate')) fail(path, "cannot combine 'not' with 'negate'");
    const child = compilePredicate(raw.not, at(path, 'not'), depth + 1);
    return Object.freeze({ kind: 'not', path, child });
  }
  const list = raw[op];
  if (!Array.isArray(list)) fail(at(path, op), `must be a list of predicates, got ${describe(list)}`);
  const children = list.map((p, i) => compilePredicate(p, `${path}.${op}[${i}]`, depth + 1));
  const node: Predicate = Object.freeze({ kind: op, path, children: Object.freeze(children) });
  return negate ? Object.freeze({ kind: 'not', path, child: node }) : node;
}

function readNegate(raw: Record<string, unknown>, path: string): boolean {
  if (!Object.hasOwn(raw, 'negate')) return false;
  const v = raw.negate;
  if (typeof v !== 'boolean') fail(at(path, 'negate'), `must be true or false, got ${describe(v)}`);
  return v;
}

function pickAlias(raw: Record<string, unknown>, path: string, name: string, legacy: string): string | undefined {
  const hasName = Object.hasOwn(raw, name);
  const hasLegacy = Object.hasOwn(raw, legacy);
  if (hasName && hasLegacy) fail(path, `cannot combine '${name}' with '${legacy}'`);
  return hasName ? name : hasLegacy ? legacy : undefined;
}

function compileLeaf(raw: Record<string, unknown>, keys: string[], path: string, negate: boolean): LeafPredicate {
  for (const k of keys) if (!LEAF_KEYS.has(k) && k !== 'negate') fail(at(path, k), 'unknown key');
  const propKey = pickAlias(raw, path, 'property', 'query');
  const opKey = pickAlias(raw, path, 'operator', 'operation');
  if (propKey === undefined && opKey === undefined) {
    fail(path, "not a predicate: expected 'and', 'or', 'not', or a 'property' with an 'operator'");
  }
  if (propKey === undefined) fail(at(path, 'property'), 'is required');
  if (opKey === undefined) fail(at(path, 'operator'), 'is required');

  const propText = raw[propKey];
  if (typeof propText !== 'string') fail(at(path, propKey), `must be a string, got ${describe(propText)}`);
  const property = compilePropertyPath(propText, at(path, propKey));

  const opText = raw[opKey];
  if (typeof opText !== 'string') fail(at(path, opKey), `must be a string, got ${describe(opText)}`);
  const operator = opText.toLowerCase() as OperatorName;
  if (!(OPERATORS as readonly string[]).includes(operator)) {
    fail(at(path, opKey), `unknown operator '${opText}' (expected one of ${OPERATORS.join(', ')})`);
  }

  const operands = readOperands(raw, path);
  let values: string[] | undefined;
  if (BINARY.has(operator)) {
    if (!operands) fail(at(path, 'values'), `is required by ${operator}`);
    if (operands.values.length === 0) fail(operands.path, `${operator} needs at least one value`);
    values = operands.values;
  } else if (operands && operands.values.length > 0) {
    fail(operands.path, `${operator} takes no values`);
  }
  const match = compileMatcher(operator, values ?? [], operands?.path ?? '', operands?.single ?? false);
  const leaf: LeafPredicate = {
    kind: 'leaf', path, property, operator,
    ...(values ? { values: Object.freeze(values) } : {}),
    negate, match,
  };
  return Object.freeze(leaf);
}

interface Operands { values: string[]; path: string; /** given as a scalar rather than a list */ single: boolean }

function readOperands(raw: Record<string, unknown>, path: string): Operands | undefined {
  const sources: [string, unknown][] = [];
  if (Object.hasOwn(raw, 'values')) sources.push(['values', raw.values]);
  if (Object.hasOwn(raw, 'value')) sources.push(['value', raw.value]);
  if (Object.hasOwn(raw, 'params')) {
    const params = raw.params;
    const pPath = at(path, 'params');
    if (!isObject(params)) fail(pPath, `must be an object, got ${describe(params)}`);
    for (const k of Object.keys(params)) if (k !== 'values' && k !== 'value') fail(at(pPath, k), 'unknown key');
    if (Object.hasOwn(params, 'values')) sources.push(['params.values', params.values]);
    if (Object.hasOwn(params, 'value')) sources.push(['params.value', params.value]);
  }
  if (sources.length > 1) fail(path, `cannot combine '${sources[0]![0]}' with '${sources[1]![0]}'`);
  const [source] = sources;
  if (!source) return undefined;
  const [key, v] = source;
  const vPath = at(path, key);
  if (!Array.isArray(v)) return { values: [operandString(v, vPath)], path: vPath, single: true };
  return { values: v.map((x, i) => operandString(x, `${vPath}[${i}]`)), path: vPath, single: false };
}

/** Strings as given; numbers and booleans become their text, as DataHub's parser does; anything else is refused. */
function operandString(v: unknown, path: string): string {
  if (typeof v === 'string') return v;
  if ((typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean') return String(v);
  fail(path, `must be a string, got ${describe(v)}`);
}

/** A property path: `urn`, `entityType`, or `<aspect>.<field>...`. Throws BAD_REQUEST when malformed. */
export function parsePropertyPath(text: string): PropertyPath {
  try {
    return compilePropertyPath(text, 'property');
  } catch (e) {
    if (e instanceof DefinitionError) throw badRequest(`Invalid property path: ${e.problem}`, { path: e.path });
    throw e;
  }
}

function compilePropertyPath(text: string, path: string): PropertyPath {
  if (text === '') fail(path, 'must not be empty');
  const segs = text.split('.');
  if (segs.some((s) => s === '')) fail(path, `'${text}' is not a valid property path (empty segment)`);
  if (segs.length === 1 && (text === 'urn' || text === 'entityType')) {
    return Object.freeze({ text, kind: text, aspect: '', steps: Object.freeze([]), dotted: Object.freeze([]) });
  }
  const [aspect, ...steps] = segs as [string, ...string[]];
  const dotted = steps.map((_, i) => {
    const alts: DottedKey[] = [];
    for (let j = i + 1; j < steps.length; j++) {
      alts.push(Object.freeze({ key: steps.slice(i, j + 1).join('.'), next: j + 1 }));
    }
    return Object.freeze(alts);
  });
  return Object.freeze({ text, kind: 'aspect', aspect, steps: Object.freeze(steps), dotted: Object.freeze(dotted) });
}

// ---------------------------------------------------------------------------------------------------------------
// Matchers: one resolved value against the compiled right-hand side. They never throw.

/** The text a resolved value compares as: strings as is, finite numbers and booleans as their text. */
export function valueText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return undefined;
}

const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

/** The integer a value compares as in greater_than/less_than (truncated toward zero), or NaN. */
function valueInteger(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : NaN;
  if (typeof v === 'string' && DECIMAL.test(v)) {
    const n = Number(v);
    return Number.isFinite(n) ? Math.trunc(n) : NaN;
  }
  return NaN;
}

function isTrueValue(v: unknown): boolean {
  return v === true || (typeof v === 'string' && v.length === 4 && v.toLowerCase() === 'true');
}
function isFalseValue(v: unknown): boolean {
  return v === false || (typeof v === 'string' && v.length === 5 && v.toLowerCase() === 'false');
}

/** exists: a non-empty string, any number or boolean, or an object with at least one key. */
function valueExists(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'object') {
    for (const k in v) if (Object.hasOwn(v, k)) return true;
    return false;
  }
  return true;
}

function compileMatcher(op: OperatorName, values: string[], vPath: string, single: boolean): ValueMatcher {
  const at = (i: number) => (single ? vPath : `${vPath}[${i}]`);
  switch (op) {
    case 'equals':
    case 'contains_any': {
      if (values.length === 1) {
        const only = values[0]!;
        return (v) => valueText(v) === only;
      }
      const set = new Set(values);
      return (v) => {
        const s = valueText(v);
        return s !== undefined && set.has(s);
      };
    }
    case 'contains_str':
      return (v) => {
        const s = valueText(v);
        if (s === undefined) return false;
        for (let i = 0; i < values.length; i++) if (s.includes(values[i]!)) return true;
        return false;
      };
    case 'starts_with':
      return (v) => {
        const s = valueText(v);
        if (s === undefined) return false;
        for (let i = 0; i < values.length; i++) if (s.startsWith(values[i]!)) return true;
        return false;
      };
    case 'regex_match': {
      const res = values.map((src, i) => compileWholeRegex(src, at(i)));
      return (v) => {
        const s = valueText(v);
        if (s === undefined) return false;
        for (let i = 0; i < res.length; i++) if (res[i]!.test(s)) return true;
        return false;
      };
    }
    case 'greater_than':
    case 'less_than': {
      const nums = values.map((s, i) => {
        const n = valueInteger(s);
        if (Number.isNaN(n)) fail(at(i), `${op} needs a number, got '${s}'`);
        return n;
      });
      // "any left value vs any right value": greater than the smallest bound, less than the largest.
      if (op === 'greater_than') {
        const bound = Math.min(...nums);
        return (v) => valueInteger(v) > bound;
      }
      const bound = Math.max(...nums);
      return (v) => valueInteger(v) < bound;
    }
    case 'exists':
      return valueExists;
    case 'is_true':
      return isTrueValue;
    case 'is_false':
      return isFalseValue;
  }
}

/**
 * Java's `matches()`: the pattern must match the whole string. Compiled with the `u` flag when the pattern allows
 * it (so `\p{L}` and astral characters behave as in Java), else without flags (lenient escapes such as `\_`).
 */
function compileWholeRegex(src: string, path: string): RegExp {
  try {
    new RegExp(src);
  } catch (e) {
    const msg = (e as Error).message;
    const reason = msg.startsWith('Invalid regular expression: ') ? msg.slice(msg.lastIndexOf(': ') + 2) : msg;
    fail(path, `invalid regular expression '${src}': ${reason}`);
  }
  try {
    return new RegExp(`^(?:${src})$`, 'u');
  } catch {
    return new RegExp(`^(?:${src})$`);
  }
}
