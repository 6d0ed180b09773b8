import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normaliseAspectValue, normaliseOwnedAspectValue } from '../src/model/wire-format.js';
import { checkBeforeWrite } from '../src/services/entities.js';
import type { ChangeItem } from '../src/services/ingest-format.js';

/**
 * The shortcuts of the ingest path that skip work when it cannot change the outcome give what the full work gives:
 * a parsed value already normal is kept as it is (otherwise normalised as before), and a urn checked valid for the
 * previous change is not checked again for the next change of the same entity, never for another entity type.
 */

/** A seeded generator of JSON values with what normalisation changes mixed in: null members, Avro wrappers, pegasus2avro names. */
function generatedValues(count: number, seed: number): unknown[] {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const keys = ['name', 'description', 'fields', 'string', 'map', 'array', 'com.linkedin.pegasus2avro.schema.Foo', 'constructor', 'tags', '0', '10'];
  const value = (depth: number): unknown => {
    const r = rnd();
    if (depth > 4 || r < 0.3) return [null, 1.5, 'text', true, 0, ''][Math.floor(rnd() * 6)];
    if (r < 0.5) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    // Mostly objects normalisation leaves alone, so that both outcomes occur often.
    const n = Math.floor(rnd() * 4);
    for (let i = 0; i < n; i++) {
      const v = value(depth + 1);
      out[keys[Math.floor(rnd() * keys.length)]!] = v === null && rnd() < 0.8 ? 'x' : v;
    }
    return out;
  };
  return Array.from({ length: count }, () => value(0));
}

test('normaliseOwnedAspectValue gives what normaliseAspectValue gives, the value itself when nothing changes', () => {
  let kept = 0;
  let copied = 0;
  for (const v of generatedValues(5000, 7)) {
    const text = JSON.stringify(v);
    const expected = normaliseAspectValue(JSON.parse(text));
    const owned = JSON.parse(text);
    const got = normaliseOwnedAspectValue(owned);
    assert.deepStrictEqual(got, expected, text);
    // Same members in the same order.
    assert.equal(JSON.stringify(got), JSON.stringify(expected), text);
    if (got === owned) {
      kept++;
      assert.equal(JSON.stringify(owned), text, 'kept only when normalising changes nothing');
    } else {
      copied++;
    }
  }
  assert.ok(kept > 500 && copied > 500, `both outcomes generated (${kept} kept, ${copied} normalised)`);
  // The cases normalisation exists for, each alone.
  for (const text of ['{"a":null}', '{"string":"s"}', '[{"map":{"k":"v"}}]', '{"com.linkedin.pegasus2avro.x.Y":{}}', '{"a":[1,{"b":null}]}']) {
    const owned = JSON.parse(text);
    assert.notEqual(normaliseOwnedAspectValue(owned), owned, text);
    assert.deepStrictEqual(normaliseOwnedAspectValue(JSON.parse(text)), normaliseAspectValue(JSON.parse(text)), text);
  }
});

test('the urn check of a change is skipped only for the same urn and entity type as the previous one', () => {
  const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
  const item = (entityType: string, u = urn): ChangeItem => ({ urn: u, entityType, aspect: 'status', changeType: 'UPSERT',
    value: { removed: false }, systemMetadata: null });
  checkBeforeWrite(item('dataset'));
  checkBeforeWrite(item('dataset'));
  // The same urn as another entity type: checked, and refused as when checked first.
  const refusal = { status: 400, message: `Invalid urn: '${urn}' is not a valid chart urn: a chart urn has the form urn:li:chart:(<dashboardTool>,<chartId>)` };
  assert.throws(() => checkBeforeWrite(item('chart')), refusal);
  checkBeforeWrite(item('dataset'));
  assert.throws(() => checkBeforeWrite(item('chart')), refusal);
  // A malformed urn right after a valid one.
  assert.throws(() => checkBeforeWrite(item('dataset', 'urn:li:dataset:(urn:li:dataPlatform:hive,x,NOWHERE)')), { status: 400 });
  checkBeforeWrite(item('dataset'));
  assert.throws(() => checkBeforeWrite(item('dataset', `${urn} `)), { status: 400 });
});
