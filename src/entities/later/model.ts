import { aspect, defineEntity, edgeMeta, keyAspect, type AnyAspect, type EdgeSink, type EntityDescriptor, type KeyFieldKind } from '../descriptor.js';
import { any, arr, bool, enumOf, int, issue, map, num, rec, str, urn, type Check, type Schema } from '../schema.js';
import { ASPECTS, DATAHUB_RELEASE, ENTITIES, TYPES } from './datahub-model.generated.js';
import type { GenAspect, GenType } from './model-types.js';

/**
 * DataHub's later model (the release named in DATAHUB_RELEASE), on top of the 0.12.1 descriptors: the entity types
 * and aspects 0.12.1 did not have, with validation schemas built from the generated shapes. Aspects already known by
 * name keep Almanac's 0.12.1 definition (schema, edges, search): the later shapes of those aspects only add optional
 * fields or enum symbols, which the 0.12.1 schemas accept or are widened for, so a name means one schema everywhere.
 */
export { DATAHUB_RELEASE };

const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const NAMED = new Map<string, Schema<unknown>>();

/** A reference to a named type, built on first use (named types may refer to themselves). */
function named(fqn: string): Schema<unknown> {
  const built = NAMED.get(fqn);
  if (built) return built;
  let target: Schema<unknown> | undefined;
  let building = false;
  const get = () => (target ??= toSchema(TYPES[fqn] ?? 'any'));
  const lazy: Schema<unknown> = {
    check: (v, p) => get().check(v, p),
    // A recursive required field would never end: its second visit gives an empty record.
    example: () => {
      if (building) return {};
      building = true;
      try { return get().example(); } finally { building = false; }
    },
  };
  NAMED.set(fqn, lazy);
  return lazy;
}

/** A union: a bare value where a member is a primitive, else a one-key object naming the member. */
function unionOf(members: readonly string[]): Schema<unknown> {
  const primitive = members.includes('primitive');
  const check: Check = (v, p) => {
    if (isObj(v)) {
      let n = 0;
      for (const k in v) if (Object.hasOwn(v, k)) n++;
      if (n === 1) return null;
    } else if (primitive && v !== null && typeof v !== 'object') return null;
    return issue(p, `expected a one-key object naming the union member${primitive ? ' or a plain value' : ''}, got ${describe(v)}`);
  };
  return { check, example: () => ({ 'com.linkedin.example.Member': {} }) };
}

export function toSchema(t: GenType): Schema<unknown> {
  if (typeof t === 'string') {
    if (t.startsWith('#')) return named(t.slice(1));
    switch (t) {
      case 'string': return str;
      case 'urn': return urn;
      case 'int': return int;
      case 'number': return num;
      case 'boolean': return bool;
      default: return any;
    }
  }
  if (Array.isArray(t)) {
    const [kind, ...rest] = t as readonly [string, ...unknown[]];
    if (kind === 'enum') return enumOf(rest as string[]);
    if (kind === 'array') return arr(toSchema(rest[0] as GenType));
    if (kind === 'map') return map(toSchema(rest[0] as GenType));
    return unionOf(rest as string[]);
  }
  const fields: Record<string, Schema<unknown>> = {};
  for (const [k, v] of Object.entries(t as Record<string, GenType>)) fields[k] = toSchema(v);
  return rec(fields) as Schema<unknown>;
}

/** The values at a relationship path (`inputEdges/*​/destinationUrn`), each with the record holding it. */
function valuesAt(value: unknown, path: readonly string[], holder: unknown, out: [unknown, unknown][]): void {
  if (path.length === 0) { out.push([value, holder]); return; }
  const [head, ...rest] = path;
  if (head === '*') {
    if (Array.isArray(value)) for (const x of value) valuesAt(x, rest, holder, out);
    else if (isObj(value)) for (const x of Object.values(value)) valuesAt(x, rest, holder, out);
    return;
  }
  if (isObj(value) && Object.hasOwn(value, head!)) valuesAt(value[head!], rest, value, out);
}

/** Edges from DataHub's @Relationship paths; an Edge record's stamps go with its destination. */
export function edgesOf(relationships: readonly (readonly [string, string])[]): (value: unknown, add: EdgeSink) => void {
  const paths = relationships.map(([p, name]) => [p.split('/').filter(Boolean), name] as const);
  return (value, add) => {
    for (const [path, name] of paths) {
      const found: [unknown, unknown][] = [];
      valuesAt(value, path, undefined, found);
      for (const [v, holder] of found) {
        if (typeof v !== 'string') continue;
        if (path[path.length - 1] === 'destinationUrn' && isObj(holder)) add(name, v, edgeMeta(holder as Parameters<typeof edgeMeta>[0]));
        else add(name, v);
      }
    }
  };
}

/** Text for search: the value's top-level name, title and description. */
function nameAndDescription(value: unknown, add: (t: unknown) => void): void {
  if (!isObj(value)) return;
  for (const k of ['name', 'displayName', 'title', 'description']) if (typeof value[k] === 'string') add(value[k]);
}

function laterAspect(name: string, g: GenAspect): AnyAspect {
  return aspect(name, g.className, toSchema(g.type), {
    timeseries: g.timeseries ?? false,
    edges: g.relationships?.length ? edgesOf(g.relationships) : undefined,
    searchText: g.timeseries ? undefined : nameAndDescription,
  });
}

export interface LaterModel {
  /** Entity types the release has and 0.12.1 had not, as descriptors. */
  readonly entities: readonly EntityDescriptor[];
  /** For each 0.12.1 entity type, the aspects the release added to it. */
  readonly added: ReadonlyMap<string, readonly AnyAspect[]>;
}

/**
 * Builds the later model over the 0.12.1 descriptors. `known` finds an aspect Almanac already defines by name (whose
 * definition is kept), `hasAspect` says whether a 0.12.1 type already has it.
 */
export function laterModel(base: readonly EntityDescriptor[], known: (name: string) => AnyAspect | undefined,
  hasAspect: (d: EntityDescriptor, aspect: string) => boolean): LaterModel {
  const made = new Map<string, AnyAspect>();
  const def = (name: string): AnyAspect => {
    const existing = known(name) ?? made.get(name);
    if (existing) return existing;
    const a = laterAspect(name, ASPECTS[name]!);
    made.set(name, a);
    return a;
  };
  const byName = new Map(base.map((d) => [d.name, d]));
  const added = new Map<string, AnyAspect[]>();
  const entities: EntityDescriptor[] = [];
  for (const [name, e] of Object.entries(ENTITIES)) {
    const d = byName.get(name);
    if (d) {
      const extra = e.aspects.filter((a) => a !== e.keyAspect && !hasAspect(d, a)).map(def);
      if (extra.length) added.set(name, extra);
      continue;
    }
    const g = ASPECTS[e.keyAspect]!;
    const key = known(e.keyAspect) as ReturnType<typeof keyAspect> | undefined
      ?? keyAspect(e.keyAspect, g.className, e.keyFields.map(([f, kind]) => [f, kind as KeyFieldKind] as const));
    made.set(e.keyAspect, key);
    entities.push(defineEntity({
      name,
      category: e.category === 'internal' ? 'internal' : 'core',
      key,
      aspects: e.aspects.filter((a) => a !== e.keyAspect).map(def),
      // No GraphQL type of its own in 0.12.1's schema: served as a generic entity (urn, type, aspects).
      graphql: { entityType: 'OTHER' },
      // Searchable when asked for by name: a search over every type keeps 0.12.1's results.
      search: { onlyWhenNamed: true },
    }));
  }
  return { entities, added };
}
