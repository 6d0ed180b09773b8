import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCircles, importGraph, layerViolations, type Floors } from './support/import-layers.js';

/**
 * The floors of src/, from the top down: a file imports only from its own floor or the floors below it, and no
 * files import each other round a circle. The README's Layout section describes the same folders.
 */
const SRC_FLOORS: Floors = [
  ['cli/'],
  // the server: the transports assembled into one Fastify app
  ['app.ts'],
  // the transports: map requests to service calls and errors to answers
  ['http/', 'graphql/'],
  // the wiring: every service built once over one store
  ['catalog.ts'],
  ['changelog/'],
  ['services/'],
  ['storage/', 'config.ts'],
  // what is derived from the entity descriptors: the registry, aspect schemas, a deployment's own types
  ['registry/'],
  ['entities/'],
  // the vocabulary every floor speaks: urns, wire format, actors, privileges
  ['model/'],
  ['errors.ts', 'version.ts'],
];

const src = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

function writeTree(root: string, files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
}

test('the check finds a planted circle, an import up a floor and a file on no floor', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'almanac-layers-'));
  try {
    writeTree(root, {
      'top/a.ts': "import { g } from '../low/g.js';\nexport const a = g;\n",
      'low/g.ts': "export const g = 1;\n",
      // a circle of three, one of its imports type-only and one through import()
      'low/b.ts': "import type { C } from './c.js';\nexport const b = 1;\nexport type B = C;\n",
      'low/c.ts': "export type C = number;\nexport const load = () => import('./d.js');\n",
      'low/d.ts': "import { b } from './b.js';\n// up a floor:\nimport { a } from '../top/a.js';\nexport const d = [a, b];\n",
      'low/e.ts': "import './e.js';\nimport 'node:fs';\nimport { x } from 'some-package';\nexport { x };\n",
      'elsewhere/f.ts': "export const f = 1;\n",
    });
    const graph = importGraph(root);
    assert.deepEqual(importCircles(graph), [['low/b.ts', 'low/c.ts', 'low/d.ts'], ['low/e.ts']]);
    const floors: Floors = [['top/'], ['low/']];
    assert.deepEqual(layerViolations(graph, floors), ['elsewhere/f.ts: on no floor', 'low/d.ts -> top/a.ts']);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('src/ has no import circle', () => {
  const graph = importGraph(src);
  assert.equal(graph.has('catalog.ts') && graph.has('entities/descriptor.ts'), true, 'the graph covers src/');
  assert.deepEqual(importCircles(graph), []);
});

test('src/ imports only down its floors, and every file stands on one', () => {
  assert.deepEqual(layerViolations(importGraph(src), SRC_FLOORS), []);
});

test('the transports reach storage for its record types only, never a store', () => {
  const graph = importGraph(src);
  const found: string[] = [];
  for (const [from, targets] of graph) {
    if (!from.startsWith('http/') && !from.startsWith('graphql/')) continue;
    if (!targets.some((t) => t.startsWith('storage/'))) continue;
    const text = readFileSync(path.join(src, from), 'utf8');
    for (const line of text.split('\n')) {
      if (/from '(\.\.\/)+storage\//.test(line) && !/^import type \{[^}]*\} from '(\.\.\/)+storage\/types\.js';$/.test(line)) found.push(`${from}: ${line}`);
    }
    if (/\bStore\b/.test(text)) found.push(`${from}: names Store`);
  }
  assert.deepEqual(found, []);
});
