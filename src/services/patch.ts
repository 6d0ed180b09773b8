import { unprocessable } from '../errors.js';

/**
 * DataHub's PATCH proposals: a JSON Patch (RFC 6902 `add`, `remove`, `replace`) against an aspect, where lists of
 * records are addressed by their key rather than their index — `/tags/urn:li:tag:pii`,
 * `/owners/urn:li:corpuser:jdoe/TECHNICAL_OWNER`, `/editableSchemaFieldInfo/<fieldPath>/description`. Each keyed
 * list is turned into a map for the patch and back into a list after it, keeping the order of what was there.
 */
type Obj = Record<string, any>;

/** Per aspect: path of a keyed list (`*` for a map key on the way) → the fields that key its items. */
const KEYED_LISTS: Record<string, Record<string, string[]>> = {
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
};

export interface PatchOp {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const keyOf = (item: unknown, field: string) => (field === '.' ? String(item) : String((item as Obj)?.[field]));

function toTree(value: unknown, path: string, lists: Record<string, string[]>): unknown {
  const keys = lists[path];
  if (keys && Array.isArray(value)) {
    const root: Obj = {};
    for (const item of value) {
      let node = root;
      for (let i = 0; i < keys.length - 1; i++) node = (node[keyOf(item, keys[i]!)] ??= {});
      const childPath = `${path}/*`;
      node[keyOf(item, keys[keys.length - 1]!)] = isObj(item) ? toTreeObject(item, childPath, lists) : item;
    }
    return root;
  }
  if (isObj(value)) return toTreeObject(value, path, lists);
  return value;
}

function toTreeObject(o: Obj, path: string, lists: Record<string, string[]>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) out[k] = toTree(v, path ? `${path}/${k}` : k, lists);
  return out;
}

function fromTree(value: unknown, path: string, lists: Record<string, string[]>): unknown {
  const keys = lists[path];
  if (keys && isObj(value)) {
    const items: unknown[] = [];
    const collect = (node: unknown, depth: number) => {
      if (depth === keys.length) { items.push(isObj(node) ? fromTreeObject(node, `${path}/*`, lists) : node); return; }
      if (isObj(node)) for (const v of Object.values(node)) collect(v, depth + 1);
    };
    collect(value, 0);
    return items;
  }
  if (isObj(value)) return fromTreeObject(value, path, lists);
  return value;
}

function fromTreeObject(o: Obj, path: string, lists: Record<string, string[]>): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) out[k] = fromTree(v, path ? `${path}/${k}` : k, lists);
  return out;
}

function segments(pointer: string): string[] {
  if (pointer === '' || pointer === '/') return [];
  if (!pointer.startsWith('/')) throw unprocessable(`Patch path '${pointer}' must start with '/'`);
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Applies the operations to the aspect's current value (undefined when absent) and returns the new value. */
export function applyPatch(aspect: string, current: unknown, ops: unknown): Obj {
  if (!Array.isArray(ops)) throw unprocessable('A PATCH aspect must be a JSON array of operations');
  const lists = KEYED_LISTS[aspect] ?? {};
  const tree = toTree(current ?? {}, '', lists) as Obj;
  ops.forEach((raw, i) => {
    if (!isObj(raw) || !['add', 'remove', 'replace'].includes(raw.op) || typeof raw.path !== 'string') {
      throw unprocessable(`Patch operation ${i} must be {op: add|remove|replace, path, value}`, { field: `aspect[${i}]` });
    }
    const op = raw as PatchOp;
    const segs = segments(op.path);
    if (segs.length === 0) {
      if (op.op === 'remove') throw unprocessable(`Patch operation ${i} cannot remove the whole aspect`);
      if (!isObj(op.value)) throw unprocessable(`Patch operation ${i}: the whole aspect must be an object`);
      for (const k of Object.keys(tree)) delete tree[k];
      Object.assign(tree, toTree(op.value, '', lists));
      return;
    }
    let node: Obj = tree;
    const walked: string[] = [];
    for (const seg of segs.slice(0, -1)) {
      if (!isObj(node[seg])) {
        if (op.op === 'remove') return; // removing under something absent: nothing to do
        node[seg] = {};
        // A new item of a list keyed by one field carries its key (e.g. a new column's fieldPath).
        const keys = lists[templatePath(walked, lists)];
        if (keys?.length === 1 && keys[0] !== '.') node[seg][keys[0]!] = seg;
      }
      node = node[seg];
      walked.push(seg);
    }
    const last = segs[segs.length - 1]!;
    if (op.op === 'remove') delete node[last];
    else node[last] = toTree(op.value, templatePath([...walked, last], lists), lists);
  });
  return fromTree(tree, '', lists) as Obj;
}

/** The template path of a concrete path: keys under keyed lists become `*`. */
function templatePath(segs: string[], lists: Record<string, string[]>): string {
  const out: string[] = [];
  let i = 0;
  while (i < segs.length) {
    out.push(segs[i]!);
    const keys = lists[out.join('/')];
    i++;
    if (keys) {
      i += keys.length;
      if (i <= segs.length) out.push('*');
      else return out.join('/');
    }
  }
  return out.join('/');
}
