/** Matchers: one resolved value against a test leaf's compiled right-hand side. They never throw. */
import { fail } from './definition-error.js';
import type { OperatorName, ValueMatcher } from './definition-types.js';

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

export function compileMatcher(op: OperatorName, values: string[], vPath: string, single: boolean): ValueMatcher {
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
