import ELK, { type ELK as ElkApi, type ElkNode } from 'elkjs/lib/elk-api';
import workerUrl from 'elkjs/lib/elk-worker.min.js?url';
import { wrapLayers, type LayoutNode } from './wrap';

/**
 * Automatic layout of the lineage graph with ELK's layered algorithm, left (upstream) to right (downstream). ELK
 * runs in a Web Worker (its script, about 475 KB gzipped, is served as a file of its own and fetched the first time a
 * graph is laid out, never with the first page), so the page stays responsive while 200 nodes are placed. Each call
 * lays out the whole graph; nodes keep their order within a layer from one call to the next as far as ELK's model
 * order allows, so that an expansion moves little of what the reader was looking at.
 */
let elk: ElkApi | null = null;
const instance = () => (elk ??= new ELK({ workerUrl }));

export type { LayoutNode } from './wrap';

export interface LayoutEdge {
  id: string;
  source: string;
  target: string;
}

export async function layoutGraph(nodes: LayoutNode[], edges: LayoutEdge[]): Promise<Map<string, { x: number; y: number }>> {
  const ids = new Set(nodes.map((n) => n.id));
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      // Room for a node's "+n" badge on each side (up to about 40 px each, lineage.css) and the edges between them.
      'elk.layered.spacing.nodeNodeBetweenLayers': '120',
      'elk.spacing.nodeNode': '24',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.crossingMinimization.forceNodeModelOrder': 'false',
      'elk.layered.cycleBreaking.strategy': 'DEPTH_FIRST',
      'elk.separateConnectedComponents': 'false',
    },
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    // Edges between nodes of the graph only, each pair once.
    edges: edges.filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target)
      .map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  };
  const out = await instance().layout(graph);
  const positions = new Map<string, { x: number; y: number }>();
  for (const c of out.children ?? []) positions.set(c.id, { x: c.x ?? 0, y: c.y ?? 0 });
  return wrapLayers(positions, nodes);
}
