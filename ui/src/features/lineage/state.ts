import type { ColumnData, Direction, Hop, NodeInfo } from './api';

/**
 * The lineage graph as the page holds it: the entities shown, the edges between them (upstream → downstream), and
 * which entity the page is about. Pure functions, so that expanding is easy to follow (and to test).
 */
export interface GraphState {
  center: string;
  nodes: Map<string, NodeInfo>;
  /** key `${source}\u0000${target}`: source is upstream of target. */
  edges: Map<string, { source: string; target: string }>;
  /** Per entity and direction, how many neighbours were asked for so far (the next page starts there). */
  loaded: Map<string, Partial<Record<Direction, number>>>;
  /** Order in which entities were added (ELK keeps it within a layer). */
  order: string[];
}

export const edgeKey = (source: string, target: string) => `${source}\u0000${target}`;

export function initialState(center: NodeInfo): GraphState {
  return { center: center.urn, nodes: new Map([[center.urn, center]]), edges: new Map(), loaded: new Map(), order: [center.urn] };
}

/** Adds one hop's neighbours and edges; entities already shown keep their place and data. */
export function addHops(s: GraphState, hops: Hop[], direction: Direction, start: number): GraphState {
  const nodes = new Map(s.nodes);
  const edges = new Map(s.edges);
  const loaded = new Map(s.loaded);
  const order = [...s.order];
  for (const h of hops) {
    const from = nodes.get(h.from);
    if (from) {
      const total = h.total;
      nodes.set(h.from, direction === 'UPSTREAM' ? { ...from, upTotal: total } : { ...from, downTotal: total });
    }
    loaded.set(h.from, { ...loaded.get(h.from), [direction]: start + h.neighbours.length });
    for (const n of h.neighbours) {
      if (!nodes.has(n.urn)) {
        nodes.set(n.urn, n);
        order.push(n.urn);
      }
      const [source, target] = direction === 'UPSTREAM' ? [n.urn, h.from] : [h.from, n.urn];
      edges.set(edgeKey(source, target), { source, target });
    }
  }
  return { ...s, nodes, edges, loaded, order };
}

/** How many of the entity's neighbours that way are shown (edges in the graph). */
export function shownNeighbours(s: GraphState, urn: string, direction: Direction): number {
  let n = 0;
  for (const e of s.edges.values()) if ((direction === 'UPSTREAM' ? e.target : e.source) === urn) n++;
  return n;
}

/** The neighbours not shown yet, and where the next page starts; null when every one is shown. */
export function remaining(s: GraphState, urn: string, direction: Direction): { hidden: number; start: number } | null {
  const node = s.nodes.get(urn);
  const total = direction === 'UPSTREAM' ? node?.upTotal : node?.downTotal;
  if (total == null || total === 0) return null;
  const shown = shownNeighbours(s, urn, direction);
  const start = s.loaded.get(urn)?.[direction] ?? 0;
  if (shown >= total || start >= total) return null;
  return { hidden: total - shown, start };
}

/** The entities at the edge of the graph that way: those with neighbours still hidden. */
export function frontier(s: GraphState, direction: Direction): { urn: string; start: number }[] {
  const out: { urn: string; start: number }[] = [];
  for (const urn of s.order) {
    const r = remaining(s, urn, direction);
    if (r) out.push({ urn, start: r.start });
  }
  return out;
}

/** Hops from the center along shown edges (negative upstream, positive downstream); unreachable ones are left out. */
export function levels(s: GraphState): Map<string, number> {
  const out = new Map<string, number>([[s.center, 0]]);
  const walk = (dir: 1 | -1) => {
    let layer = [s.center];
    let d = 0;
    const seen = new Set(layer);
    while (layer.length) {
      d += dir;
      const next: string[] = [];
      for (const e of s.edges.values()) {
        const [from, to] = dir === 1 ? [e.source, e.target] : [e.target, e.source];
        if (layer.includes(from) && !seen.has(to)) {
          seen.add(to);
          next.push(to);
          if (!out.has(to)) out.set(to, d);
        }
      }
      layer = next;
    }
  };
  walk(-1);
  walk(1);
  return out;
}

/** Per dataset, the columns to draw in column mode: those with a drawn column edge, in schema order. */
export function columnsToShow(s: GraphState, cols: ColumnData): { rows: Map<string, string[]>; edges: ColumnData['edges'] } {
  const edges = cols.edges.filter((e) => s.nodes.has(e.fromUrn) && s.nodes.has(e.toUrn) && e.fromUrn !== e.toUrn);
  const used = new Map<string, Set<string>>();
  const use = (urn: string, f: string) => {
    let set = used.get(urn);
    if (!set) used.set(urn, (set = new Set()));
    set.add(f);
  };
  for (const e of edges) {
    use(e.fromUrn, e.fromField);
    use(e.toUrn, e.toField);
  }
  const rows = new Map<string, string[]>();
  for (const [urn, set] of used) {
    const schema = cols.columns.get(urn) ?? [];
    const inSchema = schema.filter((f) => set.has(f));
    const extra = [...set].filter((f) => !schema.includes(f)).sort();
    rows.set(urn, [...inSchema, ...extra]);
  }
  return { rows, edges };
}
