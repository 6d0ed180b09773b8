import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Rules every test file keeps. An `assert.ok(x)` or `assert(x)` with no message, when it fails, makes node 20 re-read
 * the TypeScript source to build a message from the expression, which has spun a core for minutes: a failure
 * became a hang. Every such assertion carries a message (or is an assert.equal / deepEqual / match).
 */
const root = path.dirname(fileURLToPath(import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return n === 'fixtures' ? [] : sources(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** `file:line: text` of each assert(x) / assert.ok(x) call in the source with fewer than two arguments. */
export function bareAssertions(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if ((callee === 'assert' || callee === 'assert.ok') && node.arguments.length < 2
        && !node.arguments.some((a) => ts.isSpreadElement(a))) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${path.relative(root, file)}:${line + 1}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('the check finds assert(x) and assert.ok(x) without a message, and only those', () => {
  const text = [
    'assert.ok(a === b);',
    'assert(x);',
    'assert.ok(y, "y is set");',
    'assert(z, `z is set`);',
    'assert.equal(a, b);',
    'assert.ok(',
    '  nested(assert.ok(q)),',
    ');',
  ].join('\n');
  assert.deepEqual(bareAssertions(path.join(root, 'sample.ts'), text), [
    'sample.ts:1: assert.ok(a === b)',
    'sample.ts:2: assert(x)',
    'sample.ts:6: assert.ok( nested(assert.ok(q)), )',
    'sample.ts:7: assert.ok(q)',
  ]);
});

test('no test asserts with assert(x) or assert.ok(x) without a message', () => {
  const files = sources(root);
  assert.equal(files.includes(path.join(root, 'test-hygiene.test.ts')), true, 'the scan covers this file too');
  const found = files.flatMap((f) => bareAssertions(f, readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], 'give each a message, or use assert.equal / deepEqual / match');
});
