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
 * column of a JSON/YAML syntax error. *
 * This file is the entry (what evaluate.ts, the runner and tests import); the steps live beside it: the text is read
 * by definition-syntax.ts, compiled by definition-compile.ts into definition-types.ts's shapes, with each leaf's
 * comparison built by value-matchers.ts.
 */
import { findPrototypeKey } from '../../model/safe-keys.js';
import { badRequest } from '../../errors.js';
import { compileDocument } from './definition-compile.js';
import { DefinitionError, fail, PREFIX } from './definition-error.js';
import { readDocument } from './definition-syntax.js';
import type { TestDefinition } from './definition-types.js';

export * from './definition-types.js';
export { MAX_PREDICATE_DEPTH, parsePropertyPath } from './definition-compile.js';
export { valueText } from './value-matchers.js';

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
