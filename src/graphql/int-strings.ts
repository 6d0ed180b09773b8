import {
  getOperationAST, isInputObjectType, isListType, isNonNullType, isScalarType, parse, typeFromAST,
  type GraphQLInputType, type GraphQLSchema,
} from 'graphql';
import { setOwn } from '../model/safe-keys.js';

/**
 * Numbers sent as strings, read as DataHub's GraphQL server reads them. graphql-java 19 (DataHub 0.12.1) coerces
 * an `Int` variable from a string holding an integral number ("0", "20", "1.0", "1e2") and a `Float` from any
 * numeric string, and DataHub's clients rely on it; graphql-js and graphql-jit accept only JSON numbers. So, before
 * execution, such strings are turned into numbers wherever the operation's variable types put an Int, Long or Float —
 * at the top level, inside input objects and in lists. Anything else is left as sent, so real garbage ("ten", "1.5"
 * for an Int, a number out of range) is still refused with graphql's own error; strings stay strings everywhere
 * else (a String variable sent as 42 is still an error). Only requests whose variables hold a numeric string are
 * looked at, so ordinary requests pay nothing.
 */
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INT_MAX = 2 ** 31 - 1;
const INT_MIN = -(2 ** 31);

/** The number a string stands for at a scalar of this name, or undefined when it does not stand for one. */
function numberFor(scalar: string, s: string): number | undefined {
  if (!NUMERIC.test(s)) return undefined;
  const n = Number(s);
  if (!Number.isFinite(n)) return undefined;
  if (scalar === 'Float') return n;
  if (!Number.isInteger(n)) return undefined;
  if (scalar === 'Int') return n >= INT_MIN && n <= INT_MAX ? n : undefined;
  return Number.isSafeInteger(n) ? n : undefined; // Long
}
const NUMBER_SCALARS = new Set(['Int', 'Long', 'Float']);

/** Whether a value holds a numeric string anywhere (the quick look that lets ordinary requests through untouched). */
function hasNumericString(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v.length <= 32 && NUMERIC.test(v);
  if (v === null || typeof v !== 'object' || depth > 64) return false;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (hasNumericString(x, depth + 1)) return true;
  return false;
}

/** The value with numeric strings at number positions of `type` turned into numbers; the same object if none is. */
function coerce(type: GraphQLInputType, v: unknown, depth: number): unknown {
  if (depth > 64 || v === null || v === undefined) return v;
  if (isNonNullType(type)) return coerce(type.ofType, v, depth);
  if (isListType(type)) {
    if (!Array.isArray(v)) return coerce(type.ofType, v, depth + 1); // one item given for a list
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = coerce(type.ofType, x, depth + 1);
      if (y !== x) (out ??= [...v])[i] = y;
    });
    return out ?? v;
  }
  if (isScalarType(type)) {
    if (typeof v !== 'string' || !NUMBER_SCALARS.has(type.name)) return v;
    return numberFor(type.name, v) ?? v;
  }
  if (isInputObjectType(type) && typeof v === 'object' && !Array.isArray(v)) {
    const fields = type.getFields();
    let out: Record<string, unknown> | undefined;
    for (const k of Object.keys(v)) {
      if (!Object.hasOwn(fields, k)) continue; // an unknown field: graphql says so
      const x = (v as Record<string, unknown>)[k];
      const y = coerce(fields[k]!.type, x, depth + 1);
      if (y !== x) setOwn((out ??= { ...(v as Record<string, unknown>) }), k, y);
    }
    return out ?? v;
  }
  return v;
}

export function coerceNumericStrings(schema: GraphQLSchema, query: string, operationName: string | undefined,
  variables: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!variables || !hasNumericString(variables)) return variables;
  let op;
  try {
    op = getOperationAST(parse(query, { noLocation: true, maxTokens: 50_000 }), operationName);
  } catch {
    return variables; // the syntax error is reported by the normal path
  }
  if (!op) return variables;
  let out: Record<string, unknown> | undefined;
  for (const def of op.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    if (!Object.hasOwn(variables, name)) continue;
    const type = typeFromAST(schema, def.type as never) as GraphQLInputType | undefined;
    if (!type) continue;
    const x = variables[name];
    const y = coerce(type, x, 0);
    if (y !== x) setOwn((out ??= { ...variables }), name, y);
  }
  return out ?? variables;
}
