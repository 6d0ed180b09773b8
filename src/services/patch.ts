import { unprocessable } from '../errors.js';
import { assertNoPrototypeKeys, isPrototypeKey, lookupTable, setOwn } from '../model/safe-keys.js';
import { SYSTEM_ACTOR_URN } from '../model/actor.js';

/**
 * DataHub's PATCH proposals: a JSON Patch (RFC 6902 `add`, `remove`, `replace`) against an aspect, where lists of
 * records are addressed by their key rather than their index — `/tags/urn:li:tag:pii`,
 * `/owners/urn:li:corpuser:jdoe/TECHNICAL_OWNER`, `/editableSchemaFieldInfo/<fieldPath>/description`. Each keyed
 * list is turned into a map for the patch and back into a list after it, keeping the order of what was there.
 *
 * Keys come from the request (path segments) and from stored values (list keys such as a column's fieldPath), so
 * the working tree is made of objects without a prototype: no key can step out of it into `Object.prototype`.
 * Path segments naming a prototype are refused outright, and so are such keys in the values patched in.
 */
type Obj = Record<string, any>;

/** Per aspect: path of a keyed list (`*` for a map key on the way) → the fields that key its items. */
const KEYED_LISTS: Readonly<Record<string, Readonly<Record<string, string[]>>>> = lookupTable<Readonly<Record<string, string[]>>>({
  globalTags: { tags: ['tag'] },
  glossaryTerms: { terms: ['urn'] },
  ownership: { owners: ['owner', 'type'] },
  institutionalMemory: { elements: ['url'] },
  upstreamLineage: { upstreams: ['dataset'] },
  editableSchemaMetadata: {
    editableSchemaFieldInfo: ['fieldPath'],
    'editableSchemaFieldInfo/*/globalTags/tags': ['tag'],
    'editableSchemaFieldInfo/*/glossaryTerms/terms': ['urn'],
  },
  schemaMetadata: { fields: ['fieldPath'] },
  dataJobInputOutput: {
    inputDatasetEdges: ['destinationUrn'], outputDatasetEdges: ['destinationUrn'], inputDatajobEdges: ['destinationUrn'],
    inputDatasets: ['.'], outputDatasets: ['.'], inputDatajobs: ['.'], inputDatasetFields: ['.'], outputDatasetFields: ['.'],
  },
  chartInfo: { inputEdges: ['destinationUrn'], inputs: ['.'] },
  dashboardInfo: { chartEdges: ['destinationUrn'], datasetEdges: ['destinationUrn'], charts: ['.'], datasets: ['.'] },
  domains: { domains: ['.'] },
  subTypes: { typeNames: ['.'] },
  browsePaths: { paths: ['.'] },
});

const NO_KEYED_LISTS: Readonly<Record<string, string[]>> = lookupTable<string[]>({});

/** An audit stamp: who and when (ms). */
export interface Stamp {
  time: number;
  actor: string;
}

/**
 * What a patch of an absent aspect applies to: the aspect's empty value, as DataHub's patch templates give it
 * (their getDefault) — lists and maps empty, audit stamps by the system at the time of the patch. A remove on an
 * absent aspect thus stores this value. Aspects not named here start from `{}`.
 */
const EMPTY_ASPECTS: Readonly<Record<string, (stamp: Stamp) => Obj>> = lookupTable<(stamp: Stamp) => Obj>({
  globalTags: () => ({ tags: [] }),
  glossaryTerms: (stamp) => ({ terms: [], auditStamp: stamp }),
  ownership: (stamp) => ({ owners: [], lastModified: stamp }),
  institutionalMemory: () => ({ elements: [] }),
  upstreamLineage: () => ({ upstreams: [], fineGrainedLineages: [] }),
  editableSchemaMetadata: (stamp) => ({ created: stamp, lastModified: stamp, editableSchemaFieldInfo: [] }),
  datasetProperties: () => ({ customProperties: {}, tags: [] }),
  dataJobInfo: () => ({ customProperties: {} }),
  dataFlowInfo: () => ({ customProperties: {} }),
  dataJobInputOutput: () => ({ inputDatajobEdges: [], inputDatasetEdges: [], outputDatasetEdges: [], fineGrainedLineages: [],
    inputDatasetFields: [], outputDatasetFields: [], inputDatajobs: [], inputDatasets: [], outputDatasets: [] }),
  chartInfo: (stamp) => ({ title: '', description: '', lastModified: { created: stamp, lastModified: stamp }, inputEdges: [], inputs: [] }),
  dashboardInfo: (stamp) => ({ title: '', description: '', lastModified: { created: stamp, lastModified: stamp }, chartEdges: [],
    datasetEdges: [], datasets: [], charts: [] }),
  domains: () => ({ domains: [] }),
  subTypes: () => ({ typeNames: [] }),
  browsePaths: () => ({ paths: [] }),
});

/** The empty value of an aspect for a patch to start from (a fresh object each time). */
export function emptyAspect(aspect: string, stamp: Stamp): Obj {
  return Object.hasOwn(EMPTY_ASPECTS, aspect) ? EMPTY_ASPECTS[aspect]!({ ...stamp }) : {};
}

export interface PatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** A node of the working tree: no prototype, so `node['__proto__']` is just a key like any other. */
const node = (): Obj => Object.create(null) as Obj;
/**
 * An item's key in a keyed list. A field given by a patch's own arrayPrimaryKeys (marked `?`) may be nested
 * (`attribution␟source`) and keys an item without it as '' (DataHub 1.x's generic patch).
 */
const keyOf = (item: unknown, field: string) => {
  if (field === '.') return String(item);
  if (field.startsWith('?')) {
    let at: unknown = item;
    for (const f of field.slice(1).split('\u241f')) at = isObj(at) && Object.hasOwn(at, f) ? at[f] : undefined;
    return at === undefined || at === null ? '' : String(at);
  }
  return String(isObj(item) && Object.hasOwn(item, field) ? item[field] : undefined);
};

/**
 * DataHub 1.x connectors may send a patch as `{patch: [...operations], arrayPrimaryKeys: {<list path>: [key fields]}}`:
 * the operations, and how the lists they address are keyed (instead of the server's per-aspect table).
 */
function genericPatch(ops: unknown): { ops: unknown; lists?: Readonly<Record<string, string[]>> } {
  if (!isObj(ops) || !Object.hasOwn(ops, 'patch')) return { ops };
  const keys = ops.arrayPrimaryKeys;
  if (keys === undefined) return { ops: ops.patch };
  if (!isObj(keys) || !Object.values(keys).every((k) => Array.isArray(k) && k.length > 0 && k.every((f) => typeof f === 'string'))) {
    throw unprocessable('A PATCH aspect\'s arrayPrimaryKeys must map list paths to lists of key fields');
  }
  return { ops: ops.patch, lists: lookupTable(Object.fromEntries(Object.entries(keys as Record<string, string[]>)
    .map(([path, fields]) => [path.replace(/^\//, ''), fields.map((f) => `?${f}`)]))) };
}
const listKeysAt = (lists: Readonly<Record<string, string[]>>, path: string) => (Object.hasOwn(lists, path) ? lists[path] : undefined);

function toTree(value: unknown, path: string, lists: Readonly<Record<string, string[]>>): unknown {
  const keys = listKeysAt(lists, path);
  if (keys && Array.isArray(value)) {
    const root = node();
    for (const item of value) {
      let at = root;
      for (let i = 0; i < keys.length - 1; i++) at = (at[keyOf(item, keys[i]!)] ??= node());
      const childPath = `${path}/*`;
      at[keyOf(item, keys[keys.length - 1]!)] = isObj(item) ? toTreeObject(item, childPath, lists) : item;
    }
    return root;
  }
  if (isObj(value)) return toTreeObject(value, path, lists);
  return value;
}

function toTreeObject(o: Obj, path: string, lists: Readonly<Record<string, string[]>>): Obj {
  const out = node();
  for (const [k, v] of Object.entries(o)) out[k] = toTree(v, path ? `${path}/${k}` : k, lists);
  return out;
}

function fromTree(value: unknown, path: string, lists: Readonly<Record<string, string[]>>): unknown {
  const keys = listKeysAt(lists, path);
  if (keys && isObj(value)) {
    const items: unknown[] = [];
    const collect = (at: unknown, depth: number) => {
      if (depth === keys.length) { items.push(isObj(at) ? fromTreeObject(at, `${path}/*`, lists) : at); return; }
      if (isObj(at)) for (const v of Object.values(at)) collect(v, depth + 1);
    };
    collect(value, 0);
    return items;
  }
  if (isObj(value)) return fromTreeObject(value, path, lists);
  return value;
}

/** Back to ordinary objects for storage and validation; every key stays an own property. */
function fromTreeObject(o: Obj, path: string, lists: Readonly<Record<string, string[]>>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) setOwn(out, k, fromTree(v, path ? `${path}/${k}` : k, lists));
  return out;
}

/** RFC 6901: `~1` is `/` and `~0` is `~`, decoded in that order. Segments naming a prototype are refused. */
function segments(pointer: string, i: number): string[] {
  if (pointer === '' || pointer === '/') return [];
  if (!pointer.startsWith('/')) throw unprocessable(`Patch path '${pointer}' must start with '/'`, { field: `aspect[${i}].path` });
  const segs = pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // A decoded `/` (from `~1`) hides nothing: such a segment is refused if any of its parts names a prototype.
  const bad = segs.find((seg) => isPrototypeKey(seg) || (seg.includes('/') && seg.split('/').some(isPrototypeKey)));
  if (bad !== undefined) {
    throw unprocessable(`Patch operation ${i}: path '${pointer}' has the segment '${bad}', which is not allowed: it names an object's prototype`,
      { field: `aspect[${i}].path` });
  }
  return segs;
}

/** Checks every operation before any is applied: a refused patch touches nothing. */
function readOps(ops: unknown): { op: PatchOp; segs: string[] }[] {
  if (!Array.isArray(ops)) throw unprocessable('A PATCH aspect must be a JSON array of operations');
  return ops.map((raw, i) => {
    if (!isObj(raw) || !['add', 'remove', 'replace'].includes(raw.op) || typeof raw.path !== 'string') {
      throw unprocessable(`Patch operation ${i} must be {op: add|remove|replace, path, value}`, { field: `aspect[${i}]` });
    }
    const op = { op: raw.op, path: raw.path, value: raw.value } as PatchOp;
    const segs = segments(op.path, i);
    if (op.op !== 'remove') assertNoPrototypeKeys(op.value, `Patch operation ${i}: the value`);
    return { op, segs };
  });
}

/**
 * Applies the operations to the aspect's current value and returns the new value. An absent aspect (undefined)
 * starts from its empty value, whose audit stamps are `stamp` (by default the system, now).
 */
export function applyPatch(aspect: string, current: unknown, ops: unknown,
  stamp: Stamp = { time: Date.now(), actor: SYSTEM_ACTOR_URN }): Obj {
  const generic = genericPatch(ops);
  const checked = readOps(generic.ops);
  const lists = generic.lists ?? (Object.hasOwn(KEYED_LISTS, aspect) ? KEYED_LISTS[aspect] : undefined) ?? NO_KEYED_LISTS;
  const tree = toTree(current ?? emptyAspect(aspect, stamp), '', lists) as Obj;
  checked.forEach(({ op, segs }, i) => {
    if (segs.length === 0) {
      if (op.op === 'remove') throw unprocessable(`Patch operation ${i} cannot remove the whole aspect`);
      if (!isObj(op.value)) throw unprocessable(`Patch operation ${i}: the whole aspect must be an object`);
      for (const k of Object.keys(tree)) delete tree[k];
      for (const [k, v] of Object.entries(toTree(op.value, '', lists) as Obj)) tree[k] = v;
      return;
    }
    let at: Obj = tree;
    const walked: string[] = [];
    for (const seg of segs.slice(0, -1)) {
      if (!isObj(at[seg])) {
        if (op.op === 'remove') return; // removing under something absent: nothing to do
        at[seg] = node();
        // A new item of a list keyed by one field carries its key (e.g. a new column's fieldPath).
        const keys = listKeysAt(lists, templatePath(walked, lists));
        if (keys?.length === 1 && keys[0] !== '.') at[seg][keys[0]!] = seg;
      }
      at = at[seg];
      walked.push(seg);
    }
    const last = segs[segs.length - 1]!;
    if (op.op === 'remove') delete at[last];
    else at[last] = toTree(op.value, templatePath([...walked, last], lists), lists);
  });
  return fromTree(tree, '', lists) as Obj;
}

/** The template path of a concrete path: keys under keyed lists become `*`. */
function templatePath(segs: string[], lists: Readonly<Record<string, string[]>>): string {
  const out: string[] = [];
  let i = 0;
  while (i < segs.length) {
    out.push(segs[i]!);
    const keys = listKeysAt(lists, out.join('/'));
    i++;
    if (keys) {
      i += keys.length;
      if (i <= segs.length) out.push('*');
      else return out.join('/');
    }
  }
  return out.join('/');
}
