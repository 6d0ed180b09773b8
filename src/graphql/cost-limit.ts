import {
  GraphQLError, Kind, getOperationAST, type ASTVisitor, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode,
  type SelectionSetNode, type ValidationContext, type ValueNode,
} from 'graphql';
import { lookupTable } from '../model/safe-keys.js';

/**
 * What one GraphQL request may ask for. Depth alone does not stop a wide document, fragments that fan out, a list
 * argument of 200,000 urns, or 1,000 aliases of an introspection field; these bounds do, before anything runs.
 * Everything is counted once fragments are expanded, introspection fields and `__typename` included.
 */
export interface RequestLimits {
  /** Field selections. */
  fields: number;
  /** The cost: field selections plus the items of every list passed as an argument (literals and variables). */
  cost: number;
  /** Items in one list argument (or list field of an input object), unless LONG_LISTS names it. */
  listItems: number;
  /** Response names (the field's own and aliases) one field may be selected under in one selection set. */
  namesPerField: number;
}

/**
 * Lists that may be longer than `listItems`, by argument or input field name. DataHub's web app sends a dataset's
 * whole list of edited columns with each schema edit (updateDataset's editableSchemaMetadata).
 */
export const LONG_LISTS: Readonly<Record<string, number>> = lookupTable({ editableSchemaFieldInfo: 5_000 });

/** Deeper nesting of lists and input objects than any input type of the schema has. */
const MAX_VALUE_DEPTH = 64;

/** Introspection roots whose answer is the whole schema: one copy per operation is all any client needs. */
const ONCE_PER_OPERATION = new Set(['__schema']);

type Variables = Record<string, unknown>;

/**
 * Measures one operation: walks its selections with fragments expanded, counting fields and the items of list
 * arguments. Without `variables` (validation time) an argument given as a variable counts its default value, if
 * any; with them, the value sent. Stops as soon as a budget is exceeded, so the walk itself stays bounded.
 */
function measure(op: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>, limits: RequestLimits,
  variables: Variables | undefined): GraphQLError[] {
  const errors: GraphQLError[] = [];
  const reported = new Set<string>();
  const report = (kind: string, message: string) => {
    if (!reported.has(kind)) {
      reported.add(kind);
      errors.push(new GraphQLError(message, { nodes: [op] }));
    }
  };
  const defaults = new Map<string, ValueNode>();
  for (const v of op.variableDefinitions ?? []) if (v.defaultValue) defaults.set(v.variable.name.value, v.defaultValue);
  let fields = 0;
  let items = 0;
  const once = new Map<string, number>();
  const over = () => fields > limits.fields || fields + items > limits.cost;

  const list = (n: number, name: string, path: string, field: string) => {
    items += n;
    const max = LONG_LISTS[name] ?? limits.listItems;
    if (n > max) report('list', `Argument '${path}' of '${field}' holds ${n} items; at most ${max} are allowed`);
  };
  const tooDeep = (path: string, field: string) =>
    report('depth', `Argument '${path}' of '${field}' nests lists and input objects more than ${MAX_VALUE_DEPTH} levels deep`);

  /** A JSON value given for a variable: arrays are lists, objects input objects. */
  const json = (v: unknown, name: string, path: string, field: string, depth: number): void => {
    if (v === null || typeof v !== 'object' || over()) return;
    if (depth > MAX_VALUE_DEPTH) return tooDeep(path, field);
    if (Array.isArray(v)) {
      list(v.length, name, path, field);
      for (let i = 0; i < v.length && !reported.has('list'); i++) json(v[i], name, `${path}[${i}]`, field, depth + 1);
    } else {
      for (const k of Object.keys(v)) json((v as Variables)[k], k, `${path}.${k}`, field, depth + 1);
    }
  };
  /** A literal argument value. */
  const literal = (v: ValueNode, name: string, path: string, field: string, depth: number): void => {
    if (over()) return;
    if (depth > MAX_VALUE_DEPTH) return tooDeep(path, field);
    if (v.kind === Kind.LIST) {
      list(v.values.length, name, path, field);
      for (let i = 0; i < v.values.length && !reported.has('list'); i++) literal(v.values[i]!, name, `${path}[${i}]`, field, depth + 1);
    } else if (v.kind === Kind.OBJECT) {
      for (const f of v.fields) literal(f.value, f.name.value, `${path}.${f.name.value}`, field, depth + 1);
    } else if (v.kind === Kind.VARIABLE) {
      const key = v.name.value;
      if (variables && Object.hasOwn(variables, key)) json(variables[key], name, path, field, depth);
      else if (defaults.has(key)) literal(defaults.get(key)!, name, path, field, depth);
    }
  };

  /** `names`: the response names each field has in this selection set, across the fragments spread into it. */
  const walk = (set: SelectionSetNode, names: Map<string, Set<string>>, stack: Set<string>): void => {
    for (const s of set.selections) {
      if (over()) return;
      if (s.kind === Kind.FIELD) {
        fields++;
        const name = s.name.value;
        let keys = names.get(name);
        if (!keys) names.set(name, (keys = new Set()));
        keys.add(s.alias?.value ?? name);
        if (keys.size > limits.namesPerField) {
          report('aliases', `Field '${name}' is selected under more than ${limits.namesPerField} names (aliases) in one selection set; at most ${limits.namesPerField} are allowed`);
        }
        if (ONCE_PER_OPERATION.has(name)) {
          const n = (once.get(name) ?? 0) + 1;
          once.set(name, n);
          if (n > 1) report(`once:${name}`, `'${name}' may be selected only once per operation`);
        }
        for (const arg of s.arguments ?? []) literal(arg.value, arg.name.value, arg.name.value, name, 0);
        if (s.selectionSet) walk(s.selectionSet, new Map(), stack);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet, names, stack);
      } else {
        const f = fragments.get(s.name.value);
        if (f && !stack.has(f.name.value)) {
          stack.add(f.name.value);
          walk(f.selectionSet, names, stack);
          stack.delete(f.name.value);
        }
      }
    }
  };
  walk(op.selectionSet, new Map(), new Set());

  if (fields > limits.fields) {
    errors.unshift(new GraphQLError(`Query is too costly: it selects more than ${limits.fields} fields once fragments are expanded`, { nodes: [op] }));
  } else if (fields + items > limits.cost && !reported.has('list')) {
    errors.unshift(new GraphQLError(`Query is too costly: the fields it selects plus the items of its list arguments come to more than ${limits.cost} once fragments are expanded`, { nodes: [op] }));
  }
  return errors;
}

function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/**
 * The validation rule (its verdict is cached with the document): fields, aliases, introspection and literal lists.
 * Arguments given as variables are checked per request by `checkVariables`.
 */
export function costLimitRule(limits: RequestLimits) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node) {
        for (const e of measure(node, fragments, limits, undefined)) context.reportError(e);
      },
    };
  };
}

/** Items in all the arrays of a variables object: a quick look that stops once `stopAt` is passed. */
export function listItemsIn(value: unknown, stopAt = Number.MAX_SAFE_INTEGER): number {
  let n = 0;
  const visit = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== 'object' || n > stopAt) return;
    if (depth > MAX_VALUE_DEPTH) {
      n = Number.MAX_SAFE_INTEGER; // nested deeper than any input type: let the full check say so
      return;
    }
    if (Array.isArray(v)) n += v.length;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (n > stopAt) return;
      visit(child, depth + 1);
    }
  };
  visit(value, 0);
  return n;
}

/**
 * The request's own check, once its variables are known: the operation to run measured with the lists its
 * variables hold. An empty answer when the document cannot be measured (a syntax error, an unknown operation):
 * the normal path reports those.
 */
export function checkVariables(doc: DocumentNode, operationName: string | undefined, variables: Variables | undefined,
  limits: RequestLimits): GraphQLError[] {
  if (!variables || listItemsIn(variables, 0) === 0) return []; // no list in them: validation said it all
  const op = getOperationAST(doc, operationName);
  return op ? measure(op, fragmentsOf(doc), limits, variables) : [];
}
