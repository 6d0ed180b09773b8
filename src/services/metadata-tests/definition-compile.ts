/** Compiling a parsed test definition document into the immutable TestDefinition that evaluate.ts runs. */
import { deepFreeze } from '../../model/deep-freeze.js';
import { badRequest } from '../../errors.js';
import { DefinitionError, fail } from './definition-error.js';
import {
  BINARY, entityTypeKey, OPERATORS,
  type DottedKey, type LeafPredicate, type OperatorName, type Predicate, type PropertyPath, type TestDefinition,
} from './definition-types.js';
import { compileMatcher } from './value-matchers.js';

/** Deepest predicate nesting accepted (DataHub advises one or two levels). */
export const MAX_PREDICATE_DEPTH = 32;

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

export function compileDocument(doc: unknown): TestDefinition {
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
