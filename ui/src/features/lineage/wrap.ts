/** Wrapping long layers of the lineage layout (no dependency, so node:test can check it). */
export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}

/** Gap between the columns a long layer is wrapped into, and between wrapped rows. */
const COLUMN_GAP = 60;
const ROW_GAP = 16;

/**
 * ELK puts every entity of a layer in one column: a table read by 200 others would be a column 17,000 px high.
 * Layers longer than a few dozen entities are wrapped here into several columns of about the same height, side by
 * side (the layers to their right move right to make room), so that a large fan-out fills a block that can be read
 * and panned around.
 */
export function wrapLayers(pos: Map<string, { x: number; y: number }>, nodes: LayoutNode[]): Map<string, { x: number; y: number }> {
  const size = new Map(nodes.map((n) => [n.id, n]));
  const layers = new Map<number, string[]>();
  for (const [id, p] of pos) {
    const x = Math.round(p.x);
    layers.set(x, [...(layers.get(x) ?? []), id]);
  }
  const biggest = Math.max(0, ...[...layers.values()].map((l) => l.length));
  // About as many rows as columns overall, never fewer than 12 rows.
  const perColumn = Math.max(12, Math.ceil(Math.sqrt(biggest * 3)));
  if (biggest <= perColumn) return pos;
  const out = new Map<string, { x: number; y: number }>();
  let shift = 0;
  for (const x of [...layers.keys()].sort((a, b) => a - b)) {
    const ids = layers.get(x)!.sort((a, b) => pos.get(a)!.y - pos.get(b)!.y);
    if (ids.length <= perColumn) {
      for (const id of ids) out.set(id, { x: pos.get(id)!.x + shift, y: pos.get(id)!.y });
      continue;
    }
    const width = Math.max(...ids.map((id) => size.get(id)?.width ?? 0));
    const slot = Math.max(...ids.map((id) => size.get(id)?.height ?? 0)) + ROW_GAP;
    const columns = Math.ceil(ids.length / perColumn);
    const rows = Math.ceil(ids.length / columns);
    const ys = ids.map((id) => pos.get(id)!.y);
    const middle = (Math.min(...ys) + Math.max(...ys)) / 2;
    const top = middle - (rows * slot) / 2;
    ids.forEach((id, i) => {
      const col = Math.floor(i / rows);
      out.set(id, { x: x + shift + col * (width + COLUMN_GAP), y: top + (i % rows) * slot });
    });
    shift += (columns - 1) * (width + COLUMN_GAP);
  }
  return out;
}
