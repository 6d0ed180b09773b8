import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Document, LineCounter } from 'yaml';
import { aspect, defineEntity, keyAspect, type AnyAspect, type EntityDescriptor, type KeyFieldKind } from '../entities/descriptor.js';
import { builtinAspect, builtinEntityDescriptor, type RegistryExtension } from '../entities/index.js';
import { edgesOf } from '../entities/later/model.js';
import { issue, urn as urnSchema, type Check, type Schema } from '../entities/schema.js';

// The YAML parser is loaded when a registry file is read, not by every command and start (most have none).
let yamlModule: typeof import('yaml') | undefined;
const yaml = () => (yamlModule ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

/**
 * A deployment's own aspects and entity types (ALMANAC_REGISTRY=path.yml), read and checked at start: a mistake stops
 * the start with the file's line. Nothing is compiled: a changed file takes effect on the next start, and values of
 * an aspect taken out of the file stay stored (REST reads them back).
 *
 * ```yaml
 * entities:                      # new entity types (urn:li:<name>:<key>)
 *   - name: service
 *     key: [id]                  # key fields in urn order; `{name: owner, kind: urn}` for a urn part
 * aspects:
 *   - name: serviceInfo
 *     entityTypes: [service]     # existing or new entity types
 *     schema: {type: object, required: [name], properties: {name: {type: string}, team: {type: string, format: urn}}}
 *     search: {text: [name], facets: {team: team}}   # words searched; filter field → value path
 *     relationships: [{name: OwnedBy, path: team}]   # paths use `/`, `*` for each item of a list
 * ```
 */

export class RegistryFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryFileError';
  }
}

type Path = (string | number)[];
type Json = unknown;

const NAME = /^[a-z][A-Za-z0-9]*$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

class Reader {
  constructor(private readonly file: string, private readonly doc: Document, private readonly lines: LineCounter) {}

  /** The line of the node at the path (or of the nearest node above it that exists). */
  line(path: Path): number {
    for (let p = [...path]; ; p = p.slice(0, -1)) {
      const node = p.length ? this.doc.getIn(p, true) as { range?: [number, number, number] } | undefined : this.doc.contents as { range?: [number, number, number] } | null;
      if (node && typeof node === 'object' && node.range) return this.lines.linePos(node.range[0]).line;
      if (p.length === 0) return 1;
    }
  }

  fail(path: Path, message: string): never {
    const where = path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '');
    throw new RegistryFileError(`${this.file} line ${this.line(path)}: ${where ? `${where}: ` : ''}${message}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// JSON Schema: the subset a catalog's aspects need, turned into the schema.ts form (check + example).

const KEYWORDS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'format', 'minimum',
  'maximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems', 'description', 'title', 'default', 'examples', '$comment']);
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

function jsonSchema(r: Reader, s: Json, at: Path): Schema<unknown> {
  if (s === true) return { check: () => null, example: () => ({}) };
  if (!isObj(s)) r.fail(at, `a JSON Schema must be an object, got ${describe(s)}`);
  for (const k of Object.keys(s)) if (!KEYWORDS.has(k)) r.fail([...at, k], `JSON Schema keyword '${k}' is not supported (supported: ${[...KEYWORDS].join(', ')})`);
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  for (const [i, t] of types.entries()) if (typeof t !== 'string' || !TYPES.has(t)) r.fail([...at, 'type', ...(Array.isArray(s.type) ? [i] : [])], `unknown type '${String(t)}' (one of ${[...TYPES].join(', ')})`);
  const checks: Check[] = [];
  const num = (k: string) => {
    if (s[k] !== undefined && typeof s[k] !== 'number') r.fail([...at, k], `${k} must be a number`);
    return s[k] as number | undefined;
  };
  if (types.length) {
    checks.push((v, p) => (types.some((t) => fits(t as string, v)) ? null : issue(p, `expected ${types.join(' or ')}, got ${describe(v)}`)));
  }
  if (s.enum !== undefined) {
    if (!Array.isArray(s.enum) || s.enum.length === 0) r.fail([...at, 'enum'], 'enum must be a non-empty list');
    const values = s.enum as unknown[];
    checks.push((v, p) => (values.some((x) => JSON.stringify(x) === JSON.stringify(v)) ? null : issue(p, `${JSON.stringify(v)} is not one of ${values.map((x) => JSON.stringify(x)).join(', ')}`)));
  }
  if (s.const !== undefined) checks.push((v, p) => (JSON.stringify(v) === JSON.stringify(s.const) ? null : issue(p, `expected ${JSON.stringify(s.const)}`)));
  if (s.format !== undefined) {
    if (s.format !== 'urn') r.fail([...at, 'format'], `format '${String(s.format)}' is not supported (only 'urn')`);
    checks.push((v, p) => (typeof v === 'string' ? urnSchema.check(v, p) : null));
  }
  const min = num('minimum');
  const max = num('maximum');
  if (min !== undefined) checks.push((v, p) => (typeof v === 'number' && v < min ? issue(p, `must be at least ${min}`) : null));
  if (max !== undefined) checks.push((v, p) => (typeof v === 'number' && v > max ? issue(p, `must be at most ${max}`) : null));
  const minLength = num('minLength');
  const maxLength = num('maxLength');
  if (minLength !== undefined) checks.push((v, p) => (typeof v === 'string' && v.length < minLength ? issue(p, `must be at least ${minLength} characters`) : null));
  if (maxLength !== undefined) checks.push((v, p) => (typeof v === 'string' && v.length > maxLength ? issue(p, `must be at most ${maxLength} characters`) : null));
  if (s.pattern !== undefined) {
    let re: RegExp;
    try { re = new RegExp(String(s.pattern), 'u'); } catch (e) { r.fail([...at, 'pattern'], `not a regular expression: ${(e as Error).message}`); }
    checks.push((v, p) => (typeof v === 'string' && !re.test(v) ? issue(p, `does not match ${String(s.pattern)}`) : null));
  }
  const minItems = num('minItems');
  const maxItems = num('maxItems');
  if (minItems !== undefined) checks.push((v, p) => (Array.isArray(v) && v.length < minItems ? issue(p, `must hold at least ${minItems} items`) : null));
  if (maxItems !== undefined) checks.push((v, p) => (Array.isArray(v) && v.length > maxItems ? issue(p, `must hold at most ${maxItems} items`) : null));
  let itemExample: (() => unknown) | undefined;
  if (s.items !== undefined) {
    const item = jsonSchema(r, s.items, [...at, 'items']);
    itemExample = item.example;
    checks.push((v, p) => {
      if (!Array.isArray(v)) return null;
      for (let i = 0; i < v.length; i++) {
        p.push(i);
        const found = item.check(v[i], p);
        p.pop();
        if (found) return found;
      }
      return null;
    });
  }
  const props = new Map<string, Schema<unknown>>();
  if (s.properties !== undefined) {
    if (!isObj(s.properties)) r.fail([...at, 'properties'], 'properties must be a map of field → JSON Schema');
    for (const [k, sub] of Object.entries(s.properties)) props.set(k, jsonSchema(r, sub, [...at, 'properties', k]));
  }
  const required = s.required === undefined ? [] : s.required;
  if (!Array.isArray(required) || !required.every((x) => typeof x === 'string')) r.fail([...at, 'required'], 'required must be a list of field names');
  const extra = s.additionalProperties;
  const extraSchema = isObj(extra) ? jsonSchema(r, extra, [...at, 'additionalProperties']) : undefined;
  if (extra !== undefined && typeof extra !== 'boolean' && !extraSchema) r.fail([...at, 'additionalProperties'], 'additionalProperties must be true, false or a JSON Schema');
  if (props.size || required.length || extra !== undefined) {
    checks.push((v, p) => {
      if (!isObj(v)) return null;
      for (const f of required as string[]) {
        if (!Object.hasOwn(v, f)) {
          p.push(f);
          const found = issue(p, 'required field is missing');
          p.pop();
          return found;
        }
      }
      for (const [k, x] of Object.entries(v)) {
        const sub = props.get(k) ?? extraSchema;
        p.push(k);
        const found = sub ? sub.check(x, p) : extra === false ? issue(p, 'field is not allowed') : null;
        p.pop();
        if (found) return found;
      }
      return null;
    });
  }
  const example = (): unknown => {
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum)) return s.enum[0];
    const t = types[0] ?? (props.size ? 'object' : undefined);
    if (t === 'object') {
      return Object.fromEntries((required as string[]).map((f) => [f, props.get(f)?.example() ?? 'x']));
    }
    if (t === 'array') return itemExample ? [itemExample()] : [];
    if (t === 'integer' || t === 'number') return min ?? 1;
    if (t === 'boolean') return false;
    if (t === 'null') return null;
    if (s.format === 'urn') return 'urn:li:corpuser:example';
    return 'x'.repeat(Math.max(1, minLength ?? 1));
  };
  return {
    check: (v, p) => {
      for (const c of checks) {
        const found = c(v, p);
        if (found) return found;
      }
      return null;
    },
    example,
  };
}

function fits(type: string, v: unknown): boolean {
  switch (type) {
    case 'object': return isObj(v);
    case 'array': return Array.isArray(v);
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    default: return v === null;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The file

/** The strings at a value path (`a/b`, `*` for each item of a list or map), lists of strings flattened. */
function stringsAt(value: unknown, path: readonly string[]): string[] {
  if (path.length === 0) {
    if (typeof value === 'string') return [value];
    if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
    if (Array.isArray(value)) return value.flatMap((x) => stringsAt(x, []));
    return [];
  }
  const [head, ...rest] = path;
  if (head === '*') return Array.isArray(value) ? value.flatMap((x) => stringsAt(x, rest)) : isObj(value) ? Object.values(value).flatMap((x) => stringsAt(x, rest)) : [];
  return isObj(value) && Object.hasOwn(value, head!) ? stringsAt(value[head!], rest) : [];
}

function valuePath(r: Reader, v: unknown, at: Path): string[] {
  if (typeof v !== 'string' || v.trim() === '') r.fail(at, 'expected a value path such as `team` or `reviewers/*/urn`');
  const segs = v.split('/').filter(Boolean);
  for (const seg of segs) if (seg !== '*' && !FIELD.test(seg)) r.fail(at, `'${seg}' is not a field name`);
  return segs;
}

function list(r: Reader, v: unknown, at: Path, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) r.fail(at, `${what} must be a list`);
  return v;
}

function keysOf(r: Reader, v: Record<string, unknown>, at: Path, allowed: readonly string[]): void {
  for (const k of Object.keys(v)) if (!allowed.includes(k)) r.fail([...at, k], `unknown key '${k}' (expected one of ${allowed.join(', ')})`);
}

const className = (name: string) => `almanac.custom.${name[0]!.toUpperCase()}${name.slice(1)}`;

/** Reads and checks a registry extension file; throws RegistryFileError naming the file and line of the first mistake. */
export function loadRegistryExtension(file: string): RegistryExtension {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new RegistryFileError(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseRegistryExtension(text, file);
}

export function parseRegistryExtension(text: string, file = 'registry.yml'): RegistryExtension {
  const { isMap, LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    throw new RegistryFileError(`${file} line ${e.linePos?.[0].line ?? '?'}: not valid YAML: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  }
  const r: Reader = new Reader(file, doc, lines);
  const root = doc.toJS() as unknown;
  if (root === null || root === undefined) return { aspects: new Map(), entities: [] };
  if (!isObj(root) || !isMap(doc.contents)) r.fail([], 'the file must be a map with `entities` and/or `aspects`');
  keysOf(r, root, [], ['entities', 'aspects']);

  // Entity types first: aspects may name them.
  const newTypes = new Map<string, { key: ReturnType<typeof keyAspect>; search: boolean; aspects: AnyAspect[]; at: Path }>();
  for (const [i, e] of list(r, root.entities, ['entities'], 'entities').entries()) {
    const at: Path = ['entities', i];
    if (!isObj(e)) r.fail(at, 'an entity type is a map with name and key');
    keysOf(r, e, at, ['name', 'key', 'searchable']);
    const name = e.name;
    if (typeof name !== 'string' || !NAME.test(name)) r.fail([...at, 'name'], 'name must be a word starting with a lower-case letter (letters and digits)');
    if (builtinEntityDescriptor(name)) r.fail([...at, 'name'], `entity type '${name}' exists already (DataHub's registry has it)`);
    if (newTypes.has(name)) r.fail([...at, 'name'], `entity type '${name}' is declared twice`);
    const keyList = list(r, e.key ?? ['id'], [...at, 'key'], 'key');
    if (keyList.length === 0) r.fail([...at, 'key'], 'key needs at least one field');
    const fields = keyList.map((k, j): [string, KeyFieldKind] => {
      const kat: Path = [...at, 'key', j];
      const f = typeof k === 'string' ? { name: k, kind: 'string' } : k;
      if (!isObj(f)) r.fail(kat, 'a key field is a name, or {name, kind: string|urn}');
      keysOf(r, f, kat, ['name', 'kind']);
      if (typeof f.name !== 'string' || !FIELD.test(f.name)) r.fail(kat, 'a key field needs a name (letters, digits, _)');
      if (f.kind !== undefined && f.kind !== 'string' && f.kind !== 'urn') r.fail([...kat, 'kind'], "kind must be 'string' or 'urn'");
      return [f.name, (f.kind ?? 'string') as KeyFieldKind];
    });
    const keyName = `${name}Key`;
    if (builtinAspect(keyName)) r.fail([...at, 'name'], `its key aspect '${keyName}' exists already`);
    if (e.searchable !== undefined && typeof e.searchable !== 'boolean') r.fail([...at, 'searchable'], 'searchable must be true or false');
    newTypes.set(name, { key: keyAspect(keyName, className(keyName), fields), search: e.searchable !== false, aspects: [], at });
  }

  const added = new Map<string, AnyAspect[]>();
  const seen = new Set<string>();
  for (const [i, a] of list(r, root.aspects, ['aspects'], 'aspects').entries()) {
    const at: Path = ['aspects', i];
    if (!isObj(a)) r.fail(at, 'an aspect is a map with name, entityTypes and schema');
    keysOf(r, a, at, ['name', 'entityTypes', 'schema', 'search', 'relationships', 'class']);
    const name = a.name;
    if (typeof name !== 'string' || !NAME.test(name)) r.fail([...at, 'name'], 'name must be a word starting with a lower-case letter (letters and digits)');
    if (builtinAspect(name)) r.fail([...at, 'name'], `aspect '${name}' exists already (DataHub's registry has it); choose another name`);
    if (seen.has(name) || [...newTypes.values()].some((t) => t.key.name === name)) r.fail([...at, 'name'], `aspect '${name}' is declared twice`);
    seen.add(name);
    if (a.class !== undefined && (typeof a.class !== 'string' || !/^[A-Za-z_][\w]*(\.[A-Za-z_]\w*)+$/.test(a.class))) {
      r.fail([...at, 'class'], 'class must be a qualified class name such as com.example.ServiceInfo');
    }
    const types = list(r, a.entityTypes, [...at, 'entityTypes'], 'entityTypes');
    if (types.length === 0) r.fail([...at, 'entityTypes'], 'entityTypes must name at least one entity type');
    if (a.schema === undefined) r.fail(at, 'schema (a JSON Schema of the aspect\'s value) is required');
    const schema = jsonSchema(r, a.schema, [...at, 'schema']);
    const example = schema.example();
    const objectSchema: Schema<unknown> = {
      check: (v, p) => (isObj(v) ? schema.check(v, p) : issue(p, `expected an object, got ${describe(v)}`)),
      example: () => (isObj(example) ? schema.example() : {}),
    };

    let searchText: ((v: unknown, add: (t: unknown) => void) => void) | undefined;
    let facets: Record<string, (v: unknown) => readonly string[]> | undefined;
    if (a.search !== undefined) {
      if (!isObj(a.search)) r.fail([...at, 'search'], 'search is a map with text and/or facets');
      keysOf(r, a.search, [...at, 'search'], ['text', 'facets']);
      const text = list(r, a.search.text, [...at, 'search', 'text'], 'search.text').map((p, j) => valuePath(r, p, [...at, 'search', 'text', j]));
      if (text.length) searchText = (v, add) => { for (const p of text) for (const s of stringsAt(v, p)) add(s); };
      if (a.search.facets !== undefined) {
        if (!isObj(a.search.facets)) r.fail([...at, 'search', 'facets'], 'facets maps a filter field name to a value path');
        facets = {};
        for (const [f, p] of Object.entries(a.search.facets)) {
          if (!FIELD.test(f)) r.fail([...at, 'search', 'facets', f], `'${f}' is not a field name`);
          const segs = valuePath(r, p, [...at, 'search', 'facets', f]);
          facets[f] = (v) => stringsAt(v, segs);
        }
      }
    }
    const rels = list(r, a.relationships, [...at, 'relationships'], 'relationships').map((x, j): [string, string] => {
      const rat: Path = [...at, 'relationships', j];
      if (!isObj(x)) r.fail(rat, 'a relationship is {name, path}');
      keysOf(r, x, rat, ['name', 'path']);
      if (typeof x.name !== 'string' || !/^[A-Za-z]\w*$/.test(x.name)) r.fail([...rat, 'name'], 'name must be a word (the relationship type, e.g. OwnedBy)');
      return [valuePath(r, x.path, [...rat, 'path']).join('/'), x.name];
    });

    const def = aspect(name, typeof a.class === 'string' ? a.class : className(name), objectSchema, {
      searchText, facets, edges: rels.length ? edgesOf(rels) : undefined,
    });
    for (const [j, t] of types.entries()) {
      if (typeof t !== 'string') r.fail([...at, 'entityTypes', j], 'an entity type name');
      const fresh = newTypes.get(t);
      if (fresh) { fresh.aspects.push(def); continue; }
      const d = builtinEntityDescriptor(t);
      if (!d || d.name !== t) r.fail([...at, 'entityTypes', j], `unknown entity type '${t}'${d ? ` (did you mean '${d.name}'?)` : ''}`);
      added.set(t, [...(added.get(t) ?? []), def]);
    }
  }

  const entities: EntityDescriptor[] = [...newTypes].map(([name, t]) => defineEntity({
    name, category: 'core', key: t.key, aspects: t.aspects,
    // No GraphQL type of its own: served as a GenericEntity (urn, type, aspects, relationships).
    graphql: { entityType: 'OTHER' },
    search: t.search ? {} : undefined,
  }));
  return { aspects: added, entities };
}
