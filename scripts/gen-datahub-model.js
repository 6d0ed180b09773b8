#!/usr/bin/env node
// Writes src/entities/later/datahub-model.generated.ts: the entity types, aspects and value shapes of a DataHub
// release, read from its PDL files and entity-registry.yml, in Almanac's own compact form (see later/model.ts, which
// turns it into validation schemas). Run once per DataHub release Almanac follows; the output is committed.
//
//   node scripts/gen-datahub-model.js <datahub checkout> <release name> <commit>
//
// The checkout needs metadata-models/src/main/pegasus, li-utils/src/main/pegasus and
// metadata-models/src/main/resources/entity-registry.yml. Only facts are kept: names, field types, which fields are
// optional, enum symbols, key fields, @Aspect kinds and @Relationship names. No text of DataHub's is copied.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

const [root, release, commit] = process.argv.slice(2);
if (!root || !release || !commit) {
  console.error('usage: node scripts/gen-datahub-model.js <datahub checkout> <release name> <commit>');
  process.exit(2);
}
const OUT = fileURLToPath(new URL('../src/entities/later/datahub-model.generated.ts', import.meta.url));

// ---------------------------------------------------------------------------------------------------------------
// Tokens: identifiers (dotted), strings, numbers, punctuation; comments dropped; annotations kept as raw text.

function tokenize(src, file) {
  const out = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (/\s|,/.test(c)) { i++; continue; } // commas are optional separators in PDL
    if (src.startsWith('//', i)) { while (i < n && src[i] !== '\n') i++; continue; }
    if (src.startsWith('/*', i)) { const e = src.indexOf('*/', i + 2); i = e < 0 ? n : e + 2; continue; }
    if (c === '@') {
      // @Name [= value]: the value is balanced JSON-ish text.
      let j = i + 1;
      while (j < n && /[\w.$`]/.test(src[j])) j++;
      const name = src.slice(i + 1, j).replace(/`/g, '');
      let k = j;
      while (k < n && /\s/.test(src[k])) k++;
      let value = '';
      if (src[k] === '=') {
        k++;
        while (k < n && /\s/.test(src[k])) k++;
        const start = k;
        if (src[k] === '{' || src[k] === '[') {
          let depth = 0;
          let inStr = false;
          for (; k < n; k++) {
            const ch = src[k];
            if (inStr) { if (ch === '\\') k++; else if (ch === '"') inStr = false; continue; }
            if (ch === '"') inStr = true;
            else if (ch === '{' || ch === '[') depth++;
            else if (ch === '}' || ch === ']') { depth--; if (depth === 0) { k++; break; } }
          }
        } else if (src[k] === '"') {
          k++;
          while (k < n && src[k] !== '"') { if (src[k] === '\\') k++; k++; }
          k++;
        } else {
          while (k < n && /[^\s]/.test(src[k])) k++;
        }
        value = src.slice(start, k);
        j = k;
      }
      out.push({ t: 'ann', name, value });
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < n && src[j] !== '"') { if (src[j] === '\\') j++; j++; }
      out.push({ t: 'str', v: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    if (/[-\d]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\d.eE+-]/.test(src[j])) j++;
      out.push({ t: 'num', v: src.slice(i, j) });
      i = j;
      continue;
    }
    if (/[A-Za-z_$`]/.test(c)) {
      let j = i;
      while (j < n && /[\w.$`]/.test(src[j])) j++;
      out.push({ t: 'id', v: src.slice(i, j).replace(/`/g, '') });
      i = j;
      continue;
    }
    if ('{}[]():=?'.includes(c)) { out.push({ t: c }); i++; continue; }
    throw new Error(`${file}: unexpected '${c}' at offset ${i}`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Parser: a file's named types (records, enums, typerefs, fixed), with inline named types hoisted.

const PRIMITIVES = new Set(['string', 'int', 'long', 'float', 'double', 'boolean', 'bytes', 'null']);
const named = new Map(); // fqn → { kind, ns, imports, ... }

function parseFile(file) {
  const toks = tokenize(readFileSync(file, 'utf8'), file);
  let p = 0;
  let ns = '';
  const imports = new Map();
  const peek = () => toks[p];
  const next = () => toks[p++];
  const expect = (t) => { const x = next(); if (!x || x.t !== t) throw new Error(`${file}: expected ${t} at token ${p - 1}, got ${JSON.stringify(x)}`); return x; };
  const takeAnns = () => { const anns = []; while (peek()?.t === 'ann') anns.push(next()); return anns; };
  const ctx = () => ({ ns, imports });

  function skipValue() {
    const x = next();
    if (x.t === '{' || x.t === '[') {
      let depth = 1;
      while (depth > 0) { const y = next(); if (y.t === '{' || y.t === '[') depth++; else if (y.t === '}' || y.t === ']') depth--; }
    }
  }

  // A type expression: a name, a primitive, array/map/union, or an inline named definition.
  function parseType() {
    takeAnns();
    const x = next();
    if (x.t !== 'id') throw new Error(`${file}: expected a type, got ${JSON.stringify(x)}`);
    if (x.v === 'array') { expect('['); const item = parseType(); expect(']'); return { k: 'array', item }; }
    if (x.v === 'map') { expect('['); parseType(); const value = parseType(); expect(']'); return { k: 'map', value }; }
    if (x.v === 'union') {
      expect('[');
      const members = [];
      while (peek().t !== ']') {
        takeAnns();
        // An aliased member: `alias: Type`.
        if (peek().t === 'id' && toks[p + 1]?.t === ':') { const alias = next().v; next(); members.push({ alias, type: parseType() }); }
        else members.push({ type: parseType() });
      }
      expect(']');
      return { k: 'union', members };
    }
    if (x.v === 'record' || x.v === 'enum' || x.v === 'typeref' || x.v === 'fixed') { p--; const name = parseNamed([]); return { k: 'ref', name, ctx: ctx() }; }
    if (PRIMITIVES.has(x.v)) return { k: 'prim', name: x.v };
    return { k: 'ref', name: x.v, ctx: ctx() };
  }

  function fqnOf(name) { return name.includes('.') ? name : ns ? `${ns}.${name}` : name; }

  function parseNamed(anns) {
    const kw = next().v;
    const nameTok = next();
    if (nameTok?.t !== 'id') throw new Error(`${file}: expected a name after ${kw}, got ${JSON.stringify(nameTok)} at token ${p}`);
    const name = fqnOf(nameTok.v);
    const def = { kind: kw, name, ctx: ctx(), anns };
    if (kw === 'record') {
      def.includes = [];
      if (peek().t === 'id' && peek().v === 'includes') {
        next();
        while (peek().t === 'id' || peek().t === 'ann') { takeAnns(); def.includes.push({ k: 'ref', name: next().v, ctx: ctx() }); }
      }
      expect('{');
      def.fields = [];
      while (peek().t !== '}') {
        const fanns = takeAnns();
        if (peek().t === '}') break;
        const fname = next().v;
        expect(':');
        let optional = false;
        if (peek().t === 'id' && peek().v === 'optional') { next(); optional = true; }
        const type = parseType();
        let hasDefault = false;
        if (peek()?.t === '=') { next(); skipValue(); hasDefault = true; }
        def.fields.push({ name: fname, type, optional: optional || hasDefault, anns: fanns });
      }
      expect('}');
    } else if (kw === 'enum') {
      expect('{');
      def.symbols = [];
      while (peek().t !== '}') { takeAnns(); if (peek().t === '}') break; def.symbols.push(next().v); }
      expect('}');
    } else if (kw === 'typeref') {
      expect('=');
      def.type = parseType();
    } else if (kw === 'fixed') {
      next();
    } else throw new Error(`${file}: unknown definition ${kw}`);
    named.set(name, def);
    return name;
  }

  while (p < toks.length) {
    const anns = takeAnns();
    const x = peek();
    if (!x) break;
    if (x.t === 'id' && x.v === 'namespace') { next(); ns = next().v; continue; }
    if (x.t === 'id' && x.v === 'package') { next(); next(); continue; }
    if (x.t === 'id' && x.v === 'import') { next(); const fq = next().v; imports.set(fq.split('.').pop(), fq); continue; }
    parseNamed(anns);
  }
}

function walk(dir) {
  return readdirSync(dir).flatMap((n) => {
    const f = path.join(dir, n);
    return statSync(f).isDirectory() ? walk(f) : f.endsWith('.pdl') ? [f] : [];
  });
}

for (const sub of ['li-utils/src/main/pegasus', 'metadata-models/src/main/pegasus']) {
  for (const f of walk(path.join(root, sub))) parseFile(f);
}

const byShort = new Map();
for (const fq of named.keys()) {
  const s = fq.split('.').pop();
  byShort.set(s, byShort.has(s) ? null : fq);
}

function resolve(ref) {
  const { name, ctx } = ref;
  if (named.has(name)) return name;
  if (ctx.imports.has(name)) return ctx.imports.get(name);
  if (ctx.ns && named.has(`${ctx.ns}.${name}`)) return `${ctx.ns}.${name}`;
  const s = byShort.get(name);
  if (s) return s;
  throw new Error(`cannot resolve type ${name} (namespace ${ctx.ns})`);
}

// ---------------------------------------------------------------------------------------------------------------
// Output form (read by src/entities/later/model.ts):
//   'string' | 'urn' | 'int' | 'number' | 'boolean' | 'any'
//   ['enum', ...symbols] | ['array', T] | ['map', T] | ['union', ...member kinds] | '#<fqn>' (a named type in TYPES)
//   { field: T, 'optionalField?': T }  (a record)

const TYPES = {};
const pending = [];

/** A typeref to string named …Urn (DataHub's urn typerefs carry a java class Urn). */
function isUrnTyperef(def) {
  return def.kind === 'typeref' && def.type.k === 'prim' && def.type.name === 'string'
    && (def.name.endsWith('Urn') || def.anns.some((a) => a.name === 'java.class' && /urn/i.test(a.value)));
}

function emit(t) {
  if (t.k === 'prim') {
    return { string: 'string', int: 'int', long: 'int', float: 'number', double: 'number', boolean: 'boolean', bytes: 'any', null: 'any' }[t.name];
  }
  if (t.k === 'array') return ['array', emit(t.item)];
  if (t.k === 'map') return ['map', emit(t.value)];
  if (t.k === 'union') {
    // What the check needs: whether a member is a primitive (sent bare once normalised) or a record (a one-key object).
    return ['union', ...t.members.map((m) => (m.type.k === 'prim' || (m.type.k === 'ref' && isPrimitiveRef(m.type)) ? 'primitive' : 'record'))];
  }
  const fq = resolve(t);
  const def = named.get(fq);
  if (def.kind === 'typeref') return isUrnTyperef(def) ? 'urn' : emit(def.type);
  if (def.kind === 'fixed') return 'string';
  if (!(fq in TYPES)) { TYPES[fq] = null; pending.push(fq); }
  return `#${fq}`;
}

function isPrimitiveRef(ref) {
  const def = named.get(resolve(ref));
  if (def.kind === 'fixed' || def.kind === 'enum') return true;
  if (def.kind === 'typeref') return def.type.k === 'prim' || (def.type.k === 'ref' && isPrimitiveRef(def.type));
  return false;
}

function recordFields(def, out = {}) {
  for (const inc of def.includes) recordFields(named.get(resolve(inc)), out);
  for (const f of def.fields) {
    delete out[f.name];
    delete out[`${f.name}?`];
    out[f.optional ? `${f.name}?` : f.name] = emit(f.type);
  }
  return out;
}

function drain() {
  while (pending.length) {
    const fq = pending.shift();
    const def = named.get(fq);
    TYPES[fq] = def.kind === 'enum' ? ['enum', ...def.symbols] : recordFields(def);
  }
}

/** The @Relationship annotations of a record's fields (and of included records'), as [path, name] pairs. */
function relationships(def, prefix = '', seen = new Set()) {
  if (seen.has(def.name)) return [];
  seen.add(def.name);
  const out = [];
  for (const inc of def.includes) out.push(...relationships(named.get(resolve(inc)), prefix, seen));
  for (const f of def.fields) {
    for (const a of f.anns.filter((x) => x.name === 'Relationship')) {
      // Either {"name": …} for the field itself, or {"<sub path>": {"name": …}, …}.
      const direct = /^\{\s*"name"\s*:\s*"(\w+)"/.exec(a.value);
      if (direct) { out.push([`${prefix}${f.name}`, direct[1]]); continue; }
      for (const m of a.value.matchAll(/"(\/[^"]*)"\s*:\s*\{\s*"name"\s*:\s*"(\w+)"/g)) out.push([`${prefix}${f.name}${m[1]}`, m[2]]);
    }
  }
  return out;
}

const registry = parseYaml(readFileSync(path.join(root, 'metadata-models/src/main/resources/entity-registry.yml'), 'utf8'));
const aspectDefs = new Map();
for (const def of named.values()) {
  const a = def.anns?.find((x) => x.name === 'Aspect');
  if (!a || def.kind !== 'record') continue;
  const name = /"name"\s*:\s*"(\w+)"/.exec(a.value)?.[1];
  if (name) aspectDefs.set(name, { def, timeseries: /"type"\s*:\s*"timeseries"/.test(a.value) });
}

const ASPECTS = {};
const ENTITIES = {};
const missing = [];
function addAspect(name) {
  if (name in ASPECTS) return true;
  const found = aspectDefs.get(name);
  if (!found) { missing.push(name); return false; }
  const out = { className: found.def.name, type: recordFields(found.def) };
  if (found.timeseries) out.timeseries = true;
  const rels = relationships(found.def);
  if (rels.length) out.relationships = rels;
  ASPECTS[name] = out;
  return true;
}

for (const e of registry.entities) {
  addAspect(e.keyAspect);
  const keyDef = aspectDefs.get(e.keyAspect).def;
  const keyFields = keyDef.fields.map((f) => {
    const t = emit(f.type);
    return [f.name, t === 'urn' ? 'urn' : t === '#com.linkedin.common.FabricType' ? 'fabric' : 'string'];
  });
  const aspects = (e.aspects ?? []).filter((a) => addAspect(a));
  ENTITIES[e.name] = { category: e.category ?? 'core', keyAspect: e.keyAspect, keyFields, aspects };
}
drain();
if (missing.length) console.error(`aspects listed without a PDL record (left out): ${missing.join(', ')}`);

const line = (k, v) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},`;
const text = `// Generated by scripts/gen-datahub-model.js from DataHub ${release} (commit ${commit}): do not edit.
// The entity registry, aspects and value shapes of that release, in Almanac's own form (read by ./model.ts).
/* eslint-disable */
import type { GenEntity, GenAspect, GenType } from './model-types.js';

export const DATAHUB_RELEASE = ${JSON.stringify({ release, commit })} as const;

export const ENTITIES: Readonly<Record<string, GenEntity>> = {
${Object.entries(ENTITIES).map(([k, v]) => line(k, v)).join('\n')}
};

export const ASPECTS: Readonly<Record<string, GenAspect>> = {
${Object.entries(ASPECTS).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => line(k, v)).join('\n')}
};

export const TYPES: Readonly<Record<string, GenType>> = {
${Object.entries(TYPES).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => line(k, v)).join('\n')}
};
`;
writeFileSync(OUT, text);
console.log(`${OUT}: ${Object.keys(ENTITIES).length} entity types, ${Object.keys(ASPECTS).length} aspects, ${Object.keys(TYPES).length} named types`);
