import { Kind, parse, type TypeNode } from 'graphql';
import { setOwn } from '../model/safe-keys.js';

/**
 * DataHub's GraphQL server (graphql-java) accepts numeric strings ("0", "20") for Int variables, and some
 * clients rely on it. graphql-js does not, so such values are converted before execution. Only documents whose
 * variables hold numeric strings are looked at, so ordinary requests pay nothing.
 */
const NUMERIC = /^-?\d+$/;

function namedType(t: TypeNode): string {
  return t.kind === Kind.NAMED_TYPE ? t.name.value : namedType(t.type);
}

export function coerceIntStrings(query: string, variables: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!variables) return variables;
  const candidates = Object.keys(variables).filter((k) => typeof variables[k] === 'string' && NUMERIC.test(variables[k] as string));
  if (candidates.length === 0) return variables;
  let intVars: Set<string>;
  try {
    const doc = parse(query, { noLocation: true });
    intVars = new Set(doc.definitions.flatMap((d) => d.kind === Kind.OPERATION_DEFINITION
      ? (d.variableDefinitions ?? []).filter((v) => ['Int', 'Long'].includes(namedType(v.type))).map((v) => v.variable.name.value)
      : []));
  } catch {
    return variables; // the syntax error is reported by the normal path
  }
  const out = { ...variables };
  for (const k of candidates) if (intVars.has(k)) setOwn(out, k, Number(variables[k]));
  return out;
}
