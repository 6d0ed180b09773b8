import {
  GraphQLError, Kind, SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef, getNamedType, getNullableType,
  getOperationAST, isCompositeType, isInputObjectType, isInterfaceType, isListType, isObjectType,
  type ASTVisitor, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLCompositeType,
  type GraphQLField, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, type ValidationContext,
  type ValueNode,
} from 'graphql';
import { lookupTable } from '../model/safe-keys.js';

/**
 * What one GraphQL request may ask for, measured before anything runs.
 *
 * The cost is the number of times the fields of an operation will be resolved: every field (but `__typename`,
 * answered from the type without running anything) counts once per object it is asked of, that is the product of
 * the sizes of the lists above it. A list's size is the page size it is asked for (a `count`, `limit`, `first` or
 * `size` argument, on the list field or on the field answering the page that holds it, as in
 * `search(input: {count: 10}) { searchResults { … } }`), else the number of items of its list argument
 * (`entities(urns: […])`), else 1 (`DATA_LIST`: lists whose length the stored data decides, such as owners, tags
 * or columns).
 * So a wide selection of one entity is cheap, and what grows the work — a page of pages of pages — grows the cost
 * multiplicatively. The items of list arguments count too, once per object they are passed for.
 *
 * Alongside the cost: the number of field selections once fragments are expanded (which bounds the walk itself and
 * the size of the answer's shape), the items of one list argument, and the names (aliases) one field may take in
 * one selection set. Depth is bounded by mercurius' `queryDepth`.
 */
export interface RequestLimits {
  /** Field selections once fragments are expanded, `__typename` and introspection fields included. */
  fields: number;
  /** The cost, as above. */
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

/** Arguments (or fields of an input object argument) that set how many items a page holds. */
const PAGE_SIZE = new Set(['count', 'limit', 'first', 'size']);

/**
 * The size counted for a list whose length the stored data decides (owners, tags, columns): one. A client cannot
 * grow such a list, and the depth limit bounds how deep they nest; counting them larger would only make the cost
 * track the shape of DataHub's fragments rather than what a request can be made to cost.
 */
const DATA_LIST = 1;

/** Deeper nesting of lists and input objects than any input type of the schema has. */
const MAX_VALUE_DEPTH = 64;

/** Introspection roots whose answer is the whole schema: one copy per operation is all any client needs. */
const ONCE_PER_OPERATION = new Set(['__schema']);

type Variables = Record<string, unknown>;

/** A field's response path, innermost first: built for every field selected, written out only for an error. */
interface Path { name: string; up: Path | undefined }
const pathString = (p: Path | undefined): string => {
  const names: string[] = [];
  for (; p; p = p.up) names.unshift(p.name);
  return names.join('.');
};

export interface Measure {
  /** Field selections once fragments are expanded. */
  fields: number;
  /** The cost (see above), list argument items included. */
  cost: number;
  /** The field path at which the cost went over the limit, if it did. */
  costlyAt?: string;
  errors: GraphQLError[];
}

export interface MeasureOptions {
  /** The request's variables; without them (validation time) a variable counts its default value, if any. */
  variables?: Variables;
  /**
   * The page size (or list argument length) counted for a variable that has no value and no default: 1 at
   * validation time (the request's own check counts the values sent), larger to estimate what clients may send.
   */
  unknownSize?: number;
}

function fieldDef(schema: GraphQLSchema, parent: GraphQLCompositeType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === '__typename') return TypeNameMetaFieldDef;
  if (parent === schema.getQueryType()) {
    if (name === '__schema') return SchemaMetaFieldDef;
    if (name === '__type') return TypeMetaFieldDef;
  }
  return parent && (isObjectType(parent) || isInterfaceType(parent)) ? parent.getFields()[name] : undefined;
}

/**
 * Measures one operation: walks its selections with fragments expanded, counting fields and cost, and checks its
 * list arguments and aliases. Stops as soon as a budget is exceeded, so the walk itself stays bounded.
 */
export function measureOperation(schema: GraphQLSchema, op: OperationDefinitionNode, fragments: Map<string, FragmentDefinitionNode>,
  limits: RequestLimits, options: MeasureOptions = {}): Measure {
  const { variables } = options;
  const unknownSize = options.unknownSize ?? 1;
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
  let cost = 0;
  let costlyAt: string | undefined;
  const once = new Map<string, number>();
  const over = () => fields > limits.fields || cost > limits.cost;

  /** Adds the items of one list argument to the cost, `times` over; checks its length. */
  const list = (n: number, name: string, path: string, field: string, times: number) => {
    cost += n * times;
    const max = LONG_LISTS[name] ?? limits.listItems;
    if (n > max) report('list', `Argument '${path}' of '${field}' holds ${n} items; at most ${max} are allowed`);
  };
  const tooDeep = (path: string, field: string) =>
    report('depth', `Argument '${path}' of '${field}' nests lists and input objects more than ${MAX_VALUE_DEPTH} levels deep`);

  /** A JSON value given for a variable: arrays are lists, objects input objects. */
  const json = (v: unknown, name: string, path: string, field: string, depth: number, times: number): void => {
    if (v === null || typeof v !== 'object' || over()) return;
    if (depth > MAX_VALUE_DEPTH) return tooDeep(path, field);
    if (Array.isArray(v)) {
      list(v.length, name, path, field, times);
      for (let i = 0; i < v.length && !reported.has('list'); i++) json(v[i], name, `${path}[${i}]`, field, depth + 1, times);
    } else {
      for (const k of Object.keys(v)) json((v as Variables)[k], k, `${path}.${k}`, field, depth + 1, times);
    }
  };
  /** A literal argument value. */
  const literal = (v: ValueNode, name: string, path: string, field: string, depth: number, times: number): void => {
    if (over()) return;
    if (depth > MAX_VALUE_DEPTH) return tooDeep(path, field);
    if (v.kind === Kind.LIST) {
      list(v.values.length, name, path, field, times);
      for (let i = 0; i < v.values.length && !reported.has('list'); i++) literal(v.values[i]!, name, `${path}[${i}]`, field, depth + 1, times);
    } else if (v.kind === Kind.OBJECT) {
      for (const f of v.fields) literal(f.value, f.name.value, `${path}.${f.name.value}`, field, depth + 1, times);
    } else if (v.kind === Kind.VARIABLE) {
      const key = v.name.value;
      if (variables && Object.hasOwn(variables, key)) json(variables[key], name, path, field, depth, times);
      else if (defaults.has(key)) literal(defaults.get(key)!, name, path, field, depth, times);
    }
  };

  /** What a value stands for once variables are read: a JSON-like value, or `unknown` for a variable not given. */
  const UNKNOWN = Symbol('unknown');
  const valueOf = (v: ValueNode): unknown => {
    switch (v.kind) {
      case Kind.VARIABLE: {
        const key = v.name.value;
        if (variables && Object.hasOwn(variables, key)) return variables[key];
        return defaults.has(key) ? valueOf(defaults.get(key)!) : UNKNOWN;
      }
      case Kind.INT: case Kind.FLOAT: return Number(v.value);
      case Kind.STRING: case Kind.ENUM: return v.value;
      case Kind.BOOLEAN: return v.value;
      case Kind.NULL: return null;
      case Kind.LIST: return v.values;
      case Kind.OBJECT: return v;
    }
  };
  const size = (v: unknown): number | undefined => {
    if (v === UNKNOWN) return unknownSize;
    const n = typeof v === 'string' ? Number(v) : v; // numeric strings are accepted for Int (int-strings.ts)
    return typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.floor(n)) : undefined;
  };
  /** The page size a field asks for: a page-size argument, or one in an input object argument. */
  const pageSize = (s: FieldNode, def: GraphQLField<unknown, unknown> | undefined): number | undefined => {
    let found: number | undefined;
    const take = (n: number | undefined) => { if (n !== undefined) found = Math.max(found ?? 0, n); };
    for (const arg of s.arguments ?? []) {
      if (PAGE_SIZE.has(arg.name.value)) {
        take(size(valueOf(arg.value)));
        continue;
      }
      const v = valueOf(arg.value);
      if (v === UNKNOWN) {
        // An input object given as a variable without a value: it may set a page size if its type has one.
        const type = def?.args.find((a) => a.name === arg.name.value)?.type;
        const named = type ? getNamedType(type) : undefined;
        if (isInputObjectType(named) && Object.keys(named.getFields()).some((k) => PAGE_SIZE.has(k))) take(unknownSize);
      } else if (v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === Kind.OBJECT) {
        for (const f of (v as { fields: readonly { name: { value: string }; value: ValueNode }[] }).fields) {
          if (PAGE_SIZE.has(f.name.value)) take(size(valueOf(f.value)));
        }
      } else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        for (const k of Object.keys(v)) if (PAGE_SIZE.has(k)) take(size((v as Variables)[k]));
      }
    }
    return found;
  };
  /** The length of the longest list argument of a field (`entities(urns: […])`). */
  const listArgument = (s: FieldNode): number | undefined => {
    let found: number | undefined;
    for (const arg of s.arguments ?? []) {
      const v = valueOf(arg.value);
      const n = v === UNKNOWN ? unknownSize : Array.isArray(v) ? v.length : undefined;
      if (n !== undefined) found = Math.max(found ?? 0, n);
    }
    return found;
  };

  /**
   * `names`: the response names each field has in this selection set, across the fragments spread into it.
   * `times`: how many objects this selection set is resolved for; `page`: the page size asked of the field that
   * holds it, for the list fields it selects.
   */
  const walk = (set: SelectionSetNode, parent: GraphQLCompositeType | undefined, times: number, page: number | undefined,
    names: Map<string, string | Set<string>>, stack: Set<string>, path: Path | undefined): void => {
    for (const s of set.selections) {
      if (over()) return;
      if (s.kind === Kind.FIELD) {
        fields++;
        const name = s.name.value;
        if (name !== '__typename') cost += times;
        const responseName = s.alias?.value ?? name;
        // One response name is held as a string; a set only once a field has two (aliases are rare).
        const keys = names.get(name);
        if (keys === undefined) names.set(name, responseName);
        else if (typeof keys === 'string') { if (keys !== responseName) names.set(name, new Set([keys, responseName])); }
        else keys.add(responseName);
        if (typeof keys === 'object' && keys.size > limits.namesPerField) {
          report('aliases', `Field '${name}' is selected under more than ${limits.namesPerField} names (aliases) in one selection set; at most ${limits.namesPerField} are allowed`);
        }
        if (ONCE_PER_OPERATION.has(name)) {
          const n = (once.get(name) ?? 0) + 1;
          once.set(name, n);
          if (n > 1) report(`once:${name}`, `'${name}' may be selected only once per operation`);
        }
        for (const arg of s.arguments ?? []) literal(arg.value, arg.name.value, arg.name.value, name, 0, times);
        if (s.selectionSet) {
          const def = fieldDef(schema, parent, name);
          const type = def ? getNamedType(def.type) : undefined;
          const inner = isCompositeType(type) ? type : undefined;
          const own = pageSize(s, def);
          const at: Path = { name: responseName, up: path };
          if (def && isListType(getNullableType(def.type))) {
            walk(s.selectionSet, inner, times * (own ?? page ?? listArgument(s) ?? DATA_LIST), undefined, new Map(), stack, at);
          } else {
            walk(s.selectionSet, inner, times, own, new Map(), stack, at);
          }
        }
        if (cost > limits.cost && costlyAt === undefined) costlyAt = pathString({ name: responseName, up: path });
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const cond = s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent;
        walk(s.selectionSet, isCompositeType(cond) ? cond : undefined, times, page, names, stack, path);
      } else {
        const f = fragments.get(s.name.value);
        if (f && !stack.has(f.name.value)) {
          const cond = schema.getType(f.typeCondition.name.value);
          stack.add(f.name.value);
          walk(f.selectionSet, isCompositeType(cond) ? cond : undefined, times, page, names, stack, path);
          stack.delete(f.name.value);
        }
      }
    }
  };
  const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType()
    : schema.getSubscriptionType();
  walk(op.selectionSet, root ?? undefined, 1, undefined, new Map(), new Set(), undefined);

  if (fields > limits.fields) {
    errors.unshift(new GraphQLError(`Query is too large: it selects more than ${limits.fields} fields once fragments are expanded`, { nodes: [op] }));
  } else if (cost > limits.cost && !reported.has('list')) {
    errors.unshift(new GraphQLError(`Query is too costly: its cost (each field counted once for every item of the lists it is in, `
      + `with the items of its list arguments) comes to more than ${limits.cost}, passed at '${costlyAt}'`, { nodes: [op] }));
  }
  return { fields, cost, costlyAt, errors };
}

export function fragmentsOf(doc: DocumentNode): Map<string, FragmentDefinitionNode> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return fragments;
}

/**
 * The validation rule (its verdict is cached with the document): fields, cost with page sizes given as literals or
 * defaults (a variable without one counts 1), aliases, introspection and literal lists. What variables set is
 * checked per request by `checkVariables`.
 */
export function costLimitRule(limits: RequestLimits) {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node) {
        for (const e of measureOperation(context.getSchema(), node, fragments, limits).errors) context.reportError(e);
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

/** Whether a variables object holds anything the cost depends on: a list, or a number (or numeric string) above 1. */
function mayCost(value: unknown, depth = 0): boolean {
  if (typeof value === 'number') return value > 1;
  if (typeof value === 'string') return value.length > 1 && /^\d+$/.test(value);
  if (value === null || typeof value !== 'object' || depth > MAX_VALUE_DEPTH) return false;
  if (Array.isArray(value)) return true;
  for (const v of Object.values(value)) if (mayCost(v, depth + 1)) return true;
  return false;
}

/**
 * What of a variables object the measure depends on: numbers (numeric strings read as numbers), list lengths and
 * the shape of input objects; other strings and booleans are left out. Two requests with the same shape measure the same.
 */
function shapeOf(value: unknown, depth = 0): unknown {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return /^-?\d+$/.test(value) ? Number(value) : 0;
  if (value === null || typeof value !== 'object' || depth > MAX_VALUE_DEPTH) return 0;
  if (Array.isArray(value)) return value.map((v) => shapeOf(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) out[k] = shapeOf((value as Variables)[k], depth + 1);
  return out;
}

/** Verdicts per parsed document (mercurius caches documents, so a page's repeated request is measured once). */
const verdicts = new WeakMap<DocumentNode, Map<string, GraphQLError[]>>();
const VERDICTS_PER_DOCUMENT = 32;

/**
 * The request's own check, once its variables are known: the operation to run measured with the page sizes and
 * lists its variables hold. An empty answer when the document cannot be measured (a syntax error, an unknown
 * operation): the normal path reports those.
 */
export function checkVariables(schema: GraphQLSchema, doc: DocumentNode, operationName: string | undefined,
  variables: Variables | undefined, limits: RequestLimits): GraphQLError[] {
  if (!variables || !mayCost(variables)) return []; // nothing in them changes the cost: validation said it all
  const op = getOperationAST(doc, operationName);
  if (!op) return [];
  // A verdict is kept only for small variables (a page's counts); big lists are measured each time.
  const key = listItemsIn(variables, 100) <= 100 ? `${operationName ?? ''}\u0000${JSON.stringify(shapeOf(variables))}` : undefined;
  let known = verdicts.get(doc);
  const cached = key === undefined ? undefined : known?.get(key);
  if (cached) return cached;
  const errors = measureOperation(schema, op, fragmentsOf(doc), limits, { variables }).errors;
  if (key !== undefined) {
    if (!known) verdicts.set(doc, (known = new Map()));
    if (known.size >= VERDICTS_PER_DOCUMENT) known.delete(known.keys().next().value!);
    known.set(key, errors);
  }
  return errors;
}
