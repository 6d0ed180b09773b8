import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { before, describe, test } from 'node:test';
import { REPO } from './support/run-env.js';

/**
 * The lineage graph's bookkeeping (ui/src/features/lineage/state.ts) and the wrapping of long layers (wrap.ts), as
 * plain functions: which "+" an entity shows, what "Expand a level" asks for, which columns are drawn, and where a
 * 200-entity fan-out goes. The browser test (ui-extras.test.ts) checks the same through the page. The modules are
 * loaded by path: they belong to the UI's own TypeScript project, not this one's.
 */
type Any = any;
let S: Any;
let W: Any;
const load = async (file: string) => import(pathToFileURL(path.join(REPO, 'ui/src/features/lineage', file)).href);

const node = (urn: string, upTotal: number | null = null, downTotal: number | null = null) =>
  ({ urn, type: 'DATASET', name: urn, platform: null, subtype: null, upTotal, downTotal });

describe('lineage graph state', () => {
  before(async () => {
    S = await load('state.ts');
    W = await load('wrap.ts');
  });

  test('a hop adds neighbours and edges the right way round, and the totals of the entity expanded', () => {
    let s = S.initialState(node('b', 1, 2));
    s = S.addHops(s, [{ from: 'b', total: 1, neighbours: [node('a', 3, 1)] }], 'UPSTREAM', 0);
    s = S.addHops(s, [{ from: 'b', total: 2, neighbours: [node('c', 1, 0), node('d', 1, 0)] }], 'DOWNSTREAM', 0);
    assert.deepEqual([...s.edges.values()], [{ source: 'a', target: 'b' }, { source: 'b', target: 'c' }, { source: 'b', target: 'd' }]);
    assert.deepEqual(s.order, ['b', 'a', 'c', 'd']);
    // b shows everything both ways; a has 3 upstream (none shown); c and d have nothing more.
    assert.equal(S.remaining(s, 'b', 'UPSTREAM'), null);
    assert.equal(S.remaining(s, 'b', 'DOWNSTREAM'), null);
    assert.deepEqual(S.remaining(s, 'a', 'UPSTREAM'), { hidden: 3, start: 0 });
    assert.equal(S.remaining(s, 'a', 'DOWNSTREAM'), null);
    assert.equal(S.remaining(s, 'c', 'DOWNSTREAM'), null);
    assert.deepEqual(S.frontier(s, 'UPSTREAM'), [{ urn: 'a', start: 0 }]);
    assert.deepEqual(S.frontier(s, 'DOWNSTREAM'), []);
    assert.deepEqual([...S.levels(s)].sort(), [['a', -1], ['b', 0], ['c', 1], ['d', 1]]);
  });

  test('a neighbour already shown gets its edge, not a second node; a partial page continues where it stopped', () => {
    let s = S.initialState(node('x', 0, 3));
    s = S.addHops(s, [{ from: 'x', total: 3, neighbours: [node('y', 2, 0), node('z', 1, 0)] }], 'DOWNSTREAM', 0);
    assert.deepEqual(S.remaining(s, 'x', 'DOWNSTREAM'), { hidden: 1, start: 2 });
    // y's upstream holds x (shown) and z (shown): one new edge, no new node.
    s = S.addHops(s, [{ from: 'y', total: 2, neighbours: [node('x'), node('z')] }], 'UPSTREAM', 0);
    assert.equal(s.nodes.size, 3);
    assert.equal(s.edges.size, 3);
    assert.equal(S.remaining(s, 'y', 'UPSTREAM'), null);
    // The entity keeps the totals it came with.
    assert.equal(s.nodes.get('x').downTotal, 3);
  });

  test('column mode draws the columns that have an edge between entities shown, in schema order', () => {
    let s = S.initialState(node('a'));
    s = S.addHops(s, [{ from: 'a', total: 1, neighbours: [node('b')] }], 'DOWNSTREAM', 0);
    const cols = {
      columns: new Map([['a', ['id', 'name', 'amount']], ['b', ['total', 'key']]]),
      edges: [
        { fromUrn: 'a', fromField: 'amount', toUrn: 'b', toField: 'total' },
        { fromUrn: 'a', fromField: 'id', toUrn: 'b', toField: 'key' },
        { fromUrn: 'elsewhere', fromField: 'x', toUrn: 'b', toField: 'key' },
      ],
    };
    const view = S.columnsToShow(s, cols);
    assert.deepEqual([...view.rows], [['a', ['id', 'amount']], ['b', ['total', 'key']]]);
    assert.equal(view.edges.length, 2);
  });

  test('a layer of 200 entities is wrapped into columns side by side; the layers right of it move right', () => {
    const nodes = [{ id: 'hub', width: 260, height: 62 }, { id: 'end', width: 260, height: 62 }];
    const pos = new Map([['hub', { x: 0, y: 8600 }], ['end', { x: 700, y: 8600 }]]);
    for (let i = 0; i < 200; i++) {
      nodes.push({ id: `n${i}`, width: 260, height: 62 });
      pos.set(`n${i}`, { x: 350, y: i * 86 });
    }
    const out = W.wrapLayers(pos, nodes);
    const xs = new Set([...Array(200).keys()].map((i) => out.get(`n${i}`).x));
    assert.equal(xs.size, 8); // ceil(200 / 25) columns
    const ys = [...Array(200).keys()].map((i) => out.get(`n${i}`).y);
    assert.ok(Math.max(...ys) - Math.min(...ys) < 25 * 80, 'about 25 rows high');
    // No two entities overlap.
    const boxes = [...out].map(([id, p]) => ({ id, ...p }));
    for (const a of boxes) for (const b of boxes) {
      if (a.id < b.id) assert.ok(Math.abs(a.x - b.x) >= 260 || Math.abs(a.y - b.y) >= 62, `${a.id} overlaps ${b.id}`);
    }
    assert.equal(out.get('hub').x, 0);
    assert.equal(out.get('end').x, 700 + 7 * (260 + 60));
    // Small graphs are left as ELK placed them.
    const small = new Map([['a', { x: 0, y: 0 }], ['b', { x: 350, y: 0 }]]);
    assert.equal(W.wrapLayers(small, [{ id: 'a', width: 260, height: 62 }, { id: 'b', width: 260, height: 62 }]), small);
  });
});
