import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importCircles, importGraph, layerViolations, transportPrivilegeChecks, type Floors } from './support/import-layers.js';

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

/**
 * The transports' refusals that are not privilege decisions, each with its reason. Every other access decision is made
 * by the service that performs the operation or an Authorized* wrapper of it (src/services/authorized-*.ts,
 * src/changelog/authorized-webhooks.ts, ChangeFeed.admit), which throws the typed error the transport maps.
 */
const TRANSPORT_REFUSALS = [
  // The /auth endpoints are datahub-frontend's server-to-server calls: which client calls is a matter of how the caller
  // authenticated (the system client's credentials), not of a privilege any policy could grant.
  { file: 'http/login.ts', text: "throw forbidden('Only the system client may call this endpoint.')" },
];

test('the check finds a transport that decides access itself', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'almanac-authz-'));
  try {
    writeTree(root, {
      'http/a.ts': "import { requirePrivilege } from '../services/authz.js';\nexport const a = 1;\n",
      'http/b.ts': "export const b = (c: any, a: any) => c.authz.allowed(a, REQUIRES['rest.search']);\n",
      'graphql/c.ts': "export const c = async () => { await authorize(ctx, 'x'); };\nexport const d = () => requireRead(z, a, r, u);\n",
      'graphql/d.ts': "import { REQUIRES } from '../model/privileges.js';\nif (x) throw forbidden('no');\n",
      'graphql/e.ts': "export const e = (ctx: any) => ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');\n",
      'http/kept.ts': "if (x) throw forbidden('kept');\n",
      'services/f.ts': "import { requirePrivilege } from './authz.js';\n",
    });
    assert.deepEqual(transportPrivilegeChecks(root, [{ file: 'http/kept.ts', text: "forbidden('kept')" }]), [
      "graphql/c.ts:1: export const c = async () => { await authorize(ctx, 'x'); };",
      'graphql/c.ts:2: export const d = () => requireRead(z, a, r, u);',
      "graphql/d.ts:1: import { REQUIRES } from '../model/privileges.js';",
      "graphql/d.ts:2: if (x) throw forbidden('no');",
      "http/a.ts:1: import { requirePrivilege } from '../services/authz.js';",
      "http/b.ts:1: export const b = (c: any, a: any) => c.authz.allowed(a, REQUIRES['rest.search']);",
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('the transports decide no access themselves: the services do, and the transports map their errors', () => {
  assert.deepEqual(transportPrivilegeChecks(src, TRANSPORT_REFUSALS), []);
});
