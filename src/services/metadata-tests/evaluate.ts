/**
 * Evaluating compiled metadata tests (definition.ts) against one entity's latest aspects.
 *
 * Semantics (REST fact sheet §1.3–1.4 and §7 point 5):
 * - `on.types` selects by entity type (case-insensitive, underscores ignored), then `on.conditions` must hold;
 *   otherwise the test does not apply to the entity and lands in neither list.
 * - A property resolves to a list of values: `urn`, `entityType`, or a dotted path whose first segment is an
 *   aspect name; lists are flattened at every step and missing aspects/fields resolve to nothing.
 * - Leaves have "any" semantics: true when some resolved value satisfies the operator against some given value.
 * - Nothing here throws on odd data: a value of the wrong type simply does not match.
 *
 * The plain path allocates nothing per value (resolution walks the aspect with the leaf's compiled matcher and
 * stops at the first hit); explanations are built only when asked for.
 */
import { setOwn } from '../../model/safe-keys.js';
import {
  entityTypeKey, valueText,
  type LeafPredicate, type Predicate, type PropertyPath, type TestDefinition, type ValueMatcher,
} from './definition.js';

/** The latest value of each aspect of one entity, by aspect name, already normalised (no Avro wrappers). */
export interface EntityView {
  readonly urn: string;
  readonly entityType: string;
  readonly aspects: Readonly<Record<string, unknown>>;
}

/** One leaf predicate that decided a result. */
export interface Explanation {
  property: string;
  operator: string;
  /** The given values, for operators that take values. */
  values?: string[];
  /** The leaf carries `negate: true`. */
  negated: boolean;
  /** The leaf's result, after its own `negate`. */
  result: boolean;
  /** The values the property resolved to. */
  seen: unknown[];
  text: string;
}

export type TestOutcome = { applies: false } | { applies: true; passed: boolean; explanation?: Explanation[] };

export interface EvaluateOptions {
  /** Build explanations (the leaves that decided each result). */
  explain?: boolean;
}

export interface TestResultEntry<T extends 'SUCCESS' | 'FAILURE'> { test: string; type: T }

/** DataHub's `TestResults` shape, plus explanations by test URN when asked for. */
export interface TestsOutcome {
  passing: TestResultEntry<'SUCCESS'>[];
  failing: TestResultEntry<'FAILURE'>[];
  explanations?: Record<string, Explanation[]>;
}

/** Whether `on.types` names this entity type (the first step of eligibility). */
export function targetsEntityType(def: TestDefinition, entityType: string): boolean {
  return hasTypeKey(def, entityTypeKey(entityType));
}

function hasTypeKey(def: TestDefinition, key: string): boolean {
  const keys = def.typeKeys;
  for (let i = 0; i < keys.length; i++) if (keys[i] === key) return true;
  return false;
}

export function evaluateTest(def: TestDefinition, entity: EntityView, opts?: EvaluateOptions): TestOutcome {
  return evaluateWithKey(def, entity, entityTypeKey(entity.entityType), opts?.explain === true);
}

function evaluateWithKey(def: TestDefinition, entity: EntityView, typeKey: string, explain: boolean): TestOutcome {
  if (!hasTypeKey(def, typeKey)) return { applies: false };
  if (def.conditions && !holds(def.conditions, entity)) return { applies: false };
  if (!explain) return { applies: true, passed: holds(def.rules, entity) };
  const r = explainPredicate(def.rules, entity);
  return { applies: true, passed: r.result, explanation: r.leaves };
}

/**
 * Evaluates several tests against one entity: eligible tests go to `passing` or `failing` (in the order given),
 * the others to neither.
 */
export function evaluateTests(
  defs: readonly { urn: string; def: TestDefinition }[],
  entity: EntityView,
  opts?: EvaluateOptions,
): TestsOutcome {
  const explain = opts?.explain === true;
  const typeKey = entityTypeKey(entity.entityType);
  const out: TestsOutcome = { passing: [], failing: [] };
  const explanations: Record<string, Explanation[]> = {};
  for (const { urn, def } of defs) {
    const r = evaluateWithKey(def, entity, typeKey, explain);
    if (!r.applies) continue;
    if (r.passed) out.passing.push({ test: urn, type: 'SUCCESS' });
    else out.failing.push({ test: urn, type: 'FAILURE' });
    if (r.explanation) setOwn(explanations, urn, r.explanation);
  }
  if (explain) out.explanations = explanations;
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Plain evaluation

function holds(p: Predicate, entity: EntityView): boolean {
  switch (p.kind) {
    case 'leaf':
      return leafHolds(p, entity);
    case 'and':
      for (let i = 0; i < p.children.length; i++) if (!holds(p.children[i]!, entity)) return false;
      return true;
    case 'or':
      for (let i = 0; i < p.children.length; i++) if (holds(p.children[i]!, entity)) return true;
      return false;
    case 'not':
      return !holds(p.child, entity);
  }
}

function leafHolds(leaf: LeafPredicate, entity: EntityView): boolean {
  let raw: boolean;
  if (leaf.operator === 'is_false') {
    // true when some value is false, or when nothing (but empty strings) resolves: an absent flag is false.
    raw = resolve(entity, leaf.property, leaf.match) || !resolve(entity, leaf.property, isMeaningful);
  } else {
    raw = resolve(entity, leaf.property, leaf.match);
  }
  return leaf.negate ? !raw : raw;
}

function isMeaningful(v: unknown): boolean {
  return v !== '';
}

/**
 * Walks the property path over the entity, calling `visit` with every resolved value until it returns true.
 * Returns whether it did.
 */
function resolve(entity: EntityView, prop: PropertyPath, visit: ValueMatcher): boolean {
  switch (prop.kind) {
    case 'urn':
      return visit(entity.urn);
    case 'entityType':
      return visit(entity.entityType);
    case 'aspect': {
      const aspects = entity.aspects;
      if (!Object.hasOwn(aspects, prop.aspect)) return false;
      return walk(aspects[prop.aspect], prop, 0, visit);
    }
  }
}

function walk(node: unknown, prop: PropertyPath, i: number, visit: ValueMatcher): boolean {
  if (node === null || node === undefined) return false;
  if (Array.isArray(node)) {
    for (let k = 0; k < node.length; k++) if (walk(node[k], prop, i, visit)) return true;
    return false;
  }
  const steps = prop.steps;
  if (i === steps.length) return visit(node);
  if (typeof node !== 'object') return false; // a path that continues past a primitive resolves to nothing
  const obj = node as Record<string, unknown>;
  const key = steps[i]!;
  if (Object.hasOwn(obj, key)) return walk(obj[key], prop, i + 1, visit);
  // A map key containing dots (`customProperties.spark.app.name`): try the following segments joined.
  const dotted = prop.dotted[i]!;
  for (let k = 0; k < dotted.length; k++) {
    const d = dotted[k]!;
    if (Object.hasOwn(obj, d.key)) return walk(obj[d.key], prop, d.next, visit);
  }
  return false;
}

/** The values a property path resolves to on an entity (flattened; missing → []). */
export function resolveProperty(entity: EntityView, prop: PropertyPath): unknown[] {
  const seen: unknown[] = [];
  resolve(entity, prop, (v) => {
    seen.push(v);
    return false;
  });
  return seen;
}

// ---------------------------------------------------------------------------------------------------------------
// Explained evaluation: every child is evaluated (no short cut) so all deciding leaves can be listed.

interface Explained { result: boolean; leaves: Explanation[] }

function explainPredicate(p: Predicate, entity: EntityView): Explained {
  switch (p.kind) {
    case 'leaf': {
      const e = explainLeaf(p, entity);
      return { result: e.result, leaves: [e] };
    }
    case 'and':
    case 'or': {
      // and: true → every child decided; false → the failing children did.
      // or: true → the passing children decided; false → every child did.
      const rs = p.children.map((c) => explainPredicate(c, entity));
      const result = p.kind === 'and' ? rs.every((r) => r.result) : rs.some((r) => r.result);
      const deciding = p.kind === 'and' ? (result ? rs : rs.filter((r) => !r.result)) : (result ? rs.filter((r) => r.result) : rs);
      return { result, leaves: deciding.flatMap((r) => r.leaves) };
    }
    case 'not': {
      const r = explainPredicate(p.child, entity);
      return { result: !r.result, leaves: r.leaves };
    }
  }
}

function explainLeaf(leaf: LeafPredicate, entity: EntityView): Explanation {
  const seen = resolveProperty(entity, leaf.property);
  let raw = false;
  if (leaf.operator === 'is_false') {
    raw = seen.some(leaf.match) || !seen.some(isMeaningful);
  } else {
    raw = seen.some(leaf.match);
  }
  const result = leaf.negate ? !raw : raw;
  const prop = leaf.property.text;
  let text: string;
  if (leaf.operator === 'exists') {
    if (raw) text = `${prop} exists: saw ${showList(seen)}`;
    else text = seen.length === 0 ? `${prop} does not exist` : `${prop} does not exist: saw ${showList(seen)}`;
  } else {
    const predicate = `${prop} ${leaf.negate ? 'not ' : ''}${leaf.operator}${leaf.values ? ` ${showList(leaf.values)}` : ''}`;
    text = `${predicate}: saw ${seen.length === 0 ? 'nothing' : showList(seen)}`;
    // When the list is cut short, name the values that matched so the reader need not search `seen`.
    if (seen.length > SHOWN) {
      const matching = seen.filter(leaf.match);
      if (matching.length > 0) text += `, matching ${showList(matching)}`;
    }
  }
  return {
    property: prop,
    operator: leaf.operator,
    ...(leaf.values ? { values: [...leaf.values] } : {}),
    negated: leaf.negate,
    result,
    seen,
    text,
  };
}

const SHOWN = 10;

function showList(items: readonly unknown[]): string {
  const shown = items.slice(0, SHOWN).map(showValue).join(', ');
  return items.length > SHOWN ? `[${shown}, … (${items.length - SHOWN} more)]` : `[${shown}]`;
}

function showValue(v: unknown): string {
  if (v === '') return '""';
  const s = valueText(v);
  if (s !== undefined) return s;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
