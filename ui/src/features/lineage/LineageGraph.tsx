import { createContext, memo, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import {
  Background, Controls, Handle, MiniMap, Position, ReactFlow, ReactFlowProvider, useReactFlow,
  type Edge, type Node, type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import './lineage.css';
import { Link } from '../../router';
import { entityPath, typeInfo } from '../../entityTypes';
import { fetchColumns, fetchHop, fetchReach, fetchStart, HOP_PAGE, type ColumnData, type Direction, type NodeInfo } from './api';
import { layoutGraph } from './layout';
import { addHops, columnsToShow, edgeKey, frontier, initialState, levels, remaining, type GraphState } from './state';

/**
 * The lineage graph (its own chunk, with @xyflow/react and ELK): the entity in the middle, its upstream to the left
 * and downstream to the right, one hop each way to start with. A "+" on either side of an entity shows its next hop
 * that way; "Expand a level" does it for every entity at the edge of the graph. "Columns" draws column-level
 * lineage between the datasets shown. Below the graph, the same edges as a table (for keyboard and screen-reader
 * users, and for copying).
 */
export interface LineageGraphProps {
  urn: string;
  /** Height of the canvas (CSS length). */
  height?: string;
}

type NodeData = {
  info: NodeInfo;
  center: boolean;
  up: { hidden: number } | null;
  down: { hidden: number } | null;
  columns: string[] | null;
  /** Column mode is on but this dataset has no column edge among those shown. */
  noColumns: boolean;
  level: number | undefined;
  /** The entity "Find" went to. */
  found?: boolean;
};
type LNode = Node<NodeData, 'lineage'>;

const NODE_W = 260;
const NODE_H = 62;
const ROW_H = 22;
/** Below this zoom names cannot be read: the view then centres on one entity instead of fitting the whole graph. */
const READABLE_ZOOM = 0.55;

interface Ctx {
  expand: (urn: string, direction: Direction) => void;
  busy: boolean;
  /** Traces a column's lineage (or stops, when it is the column traced). */
  trace: (urn: string, field: string) => void;
  /** `${urn}\u0000${field}` of the columns on the traced column's paths; null when none is traced. */
  traced: Set<string> | null;
}
const GraphContext = createContext<Ctx>({ expand: () => {}, busy: false, trace: () => {}, traced: null });
const colKey = (urn: string, field: string) => `${urn}\u0000${field}`;

const LineageNode = memo(function LineageNode({ data }: NodeProps<LNode>) {
  const { expand, busy, trace, traced } = useContext(GraphContext);
  const { info, center, up, down, columns } = data;
  const kind = [info.platform, info.subtype ?? typeInfo(info.type).label].filter(Boolean).join(' · ');
  return (
    <div className={`lin-node${center ? ' lin-center' : ''}${data.found ? ' lin-found' : ''}`} data-urn={info.urn} data-testid="lineage-node">
      <Handle type="target" position={Position.Left} id="in" isConnectable={false} />
      {up && (
        <button type="button" className="lin-expand lin-up nodrag nopan" disabled={busy} onClick={() => expand(info.urn, 'UPSTREAM')}
          aria-label={`Show ${Math.min(up.hidden, HOP_PAGE)} more upstream of ${info.name}`} title={`${up.hidden} upstream not shown`}>
          +{up.hidden}
        </button>
      )}
      <div className="lin-body">
        <div className="lin-kind" title={kind}>{kind}</div>
        <Link to={entityPath(info.urn)} className="lin-name nodrag nopan" title={info.urn}>{info.name}</Link>
      </div>
      {columns && columns.length > 0 && (
        <ul className="lin-cols" aria-label={`Columns of ${info.name} with column-level lineage`}>
          {columns.map((c) => (
            <li key={c} className={`lin-col${traced?.has(colKey(info.urn, c)) ? ' lin-col-traced' : ''}`} title={c}>
              <Handle type="target" position={Position.Left} id={`in:${c}`} isConnectable={false} />
              <button type="button" className="lin-col-btn nodrag nopan" aria-pressed={!!traced?.has(colKey(info.urn, c))}
                aria-label={`Trace column ${c} of ${info.name}`} onClick={() => trace(info.urn, c)}>{c}</button>
              <Handle type="source" position={Position.Right} id={`out:${c}`} isConnectable={false} />
            </li>
          ))}
        </ul>
      )}
      {data.noColumns && <div className="lin-nocols">no column lineage shown</div>}
      {down && (
        <button type="button" className="lin-expand lin-down nodrag nopan" disabled={busy} onClick={() => expand(info.urn, 'DOWNSTREAM')}
          aria-label={`Show ${Math.min(down.hidden, HOP_PAGE)} more downstream of ${info.name}`} title={`${down.hidden} downstream not shown`}>
          +{down.hidden}
        </button>
      )}
      <Handle type="source" position={Position.Right} id="out" isConnectable={false} />
    </div>
  );
});

const NODE_TYPES = { lineage: LineageNode };

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "Expand all" stops once the graph holds this many entities (the rest stays behind "+"). */
const EXPAND_ALL_LIMIT = 300;

/** One hop from each of the entities, one way; entities starting at the same offset go in one request. */
async function loadLevel(s: GraphState, items: { urn: string; start: number }[], direction: Direction): Promise<GraphState> {
  const byStart = new Map<number, string[]>();
  for (const i of items) byStart.set(i.start, [...(byStart.get(i.start) ?? []), i.urn]);
  for (const [start, urns] of byStart) {
    for (let i = 0; i < urns.length; i += 100) {
      s = addHops(s, await fetchHop(urns.slice(i, i + 100), direction, start), direction, start);
    }
  }
  return s;
}

export default function LineageGraph(props: LineageGraphProps) {
  return (
    <ReactFlowProvider>
      <Graph {...props} />
    </ReactFlowProvider>
  );
}

function Graph({ urn, height = '70vh' }: LineageGraphProps) {
  const [state, setState] = useState<GraphState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>('Loading lineage…');
  const [showColumns, setShowColumns] = useState(false);
  const [colData, setColData] = useState<ColumnData | null>(null);
  const colFetched = useRef(new Set<string>());
  const [reach, setReach] = useState<{ up: number; down: number } | null>(null);
  const [rfNodes, setRfNodes] = useState<LNode[]>([]);
  const [laidOut, setLaidOut] = useState(0);
  const [layingOut, setLayingOut] = useState(false);
  const stateRef = useRef<GraphState | null>(null);
  stateRef.current = state;
  const canvasRef = useRef<HTMLDivElement>(null);
  /** The entity the view centres on when the whole graph is too large to read at once. */
  const focus = useRef<string>(urn);
  const flow = useReactFlow();

  const run = useCallback(async (label: string, work: () => Promise<void>) => {
    setBusy(label);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(null);
    }
  }, []);

  // Start: the entity, then one hop each way.
  useEffect(() => {
    let cancelled = false;
    setState(null);
    setColData(null);
    colFetched.current = new Set();
    setReach(null);
    focus.current = urn;
    void run('Loading lineage…', async () => {
      const start = await fetchStart(urn);
      if (cancelled) return;
      if (!start) throw new Error('This entity was not found.');
      let s = initialState(start);
      const [up, down] = await Promise.all([fetchHop([urn], 'UPSTREAM'), fetchHop([urn], 'DOWNSTREAM')]);
      if (cancelled) return;
      s = addHops(addHops(s, up, 'UPSTREAM', 0), down, 'DOWNSTREAM', 0);
      setState(s);
    });
    fetchReach(urn).then((r) => { if (!cancelled) setReach(r); }, () => {});
    return () => { cancelled = true; };
  }, [urn, run]);

  const expandMany = useCallback((items: { urn: string; start: number }[], direction: Direction) => {
    if (items.length === 0) return;
    void run(direction === 'UPSTREAM' ? 'Loading upstream…' : 'Loading downstream…', async () => {
      setState(await loadLevel(stateRef.current!, items, direction));
    });
  }, [run]);

  /** Every level both ways, until nothing is hidden or the graph holds about EXPAND_ALL_LIMIT entities. */
  const expandAll = useCallback(() => {
    void run('Loading the whole lineage…', async () => {
      let s = stateRef.current!;
      for (let round = 0; round < 50 && s.nodes.size < EXPAND_ALL_LIMIT; round++) {
        const up = frontier(s, 'UPSTREAM');
        const down = frontier(s, 'DOWNSTREAM');
        if (up.length === 0 && down.length === 0) break;
        s = await loadLevel(await loadLevel(s, up, 'UPSTREAM'), down, 'DOWNSTREAM');
        setState(s);
      }
    });
  }, [run]);

  const expand = useCallback((u: string, direction: Direction) => {
    const s = stateRef.current;
    const r = s && remaining(s, u, direction);
    if (r) {
      focus.current = u;
      expandMany([{ urn: u, start: r.start }], direction);
    }
  }, [expandMany]);

  // Column lineage: fetched for the datasets and jobs not fetched yet, whenever column mode is on.
  useEffect(() => {
    if (!showColumns || !state) return;
    const missing = [...state.nodes.values()].filter((n) => (n.type === 'DATASET' || n.type === 'DATA_JOB') && !colFetched.current.has(n.urn))
      .map((n) => n.urn);
    if (missing.length === 0) return;
    for (const u of missing) colFetched.current.add(u);
    void run('Loading column lineage…', async () => {
      const got = await fetchColumns(missing);
      setColData((prev) => {
        const columns = new Map(prev?.columns);
        for (const [k, v] of got.columns) columns.set(k, v);
        return { columns, edges: [...(prev?.edges ?? []), ...got.edges] };
      });
    });
  }, [showColumns, state, run]);

  const columnView = useMemo(() => (showColumns && state && colData ? columnsToShow(state, colData) : null), [showColumns, state, colData]);

  // Tracing a column: every column edge on a path through it, up and down, is drawn bold; the rest fade.
  const [tracedCol, setTracedCol] = useState<string | null>(null);
  const trace = useCallback((u: string, field: string) => setTracedCol((cur) => (cur === colKey(u, field) ? null : colKey(u, field))), []);
  const traced = useMemo(() => {
    if (!tracedCol || !columnView) return null;
    const cols = new Set([tracedCol]);
    const edges = new Set<number>();
    for (const dir of ['up', 'down'] as const) {
      let frontier = [tracedCol];
      const seen = new Set(frontier);
      while (frontier.length) {
        const next: string[] = [];
        columnView.edges.forEach((e, i) => {
          const from = colKey(e.fromUrn, e.fromField);
          const to = colKey(e.toUrn, e.toField);
          const [here, there] = dir === 'down' ? [from, to] : [to, from];
          if (frontier.includes(here)) {
            edges.add(i);
            if (!seen.has(there)) { seen.add(there); cols.add(there); next.push(there); }
          }
        });
        frontier = next;
      }
    }
    return { cols, edges };
  }, [tracedCol, columnView]);

  // Layout whenever the graph or the column mode changes.
  useEffect(() => {
    if (!state) return;
    let stale = false;
    const lv = levels(state);
    const data = new Map<string, NodeData>();
    for (const urn of state.order) {
      const info = state.nodes.get(urn)!;
      const cols = columnView?.rows.get(urn) ?? null;
      data.set(urn, {
        info, center: urn === state.center, up: remaining(state, urn, 'UPSTREAM'), down: remaining(state, urn, 'DOWNSTREAM'),
        columns: cols, noColumns: !!columnView && info.type === 'DATASET' && !cols, level: lv.get(urn),
      });
    }
    const sizes = state.order.map((id) => {
      const d = data.get(id)!;
      const rows = d.columns?.length ?? 0;
      return { id, width: NODE_W, height: NODE_H + (rows ? rows * ROW_H + 8 : 0) + (d.noColumns ? 18 : 0) };
    });
    const edgeList = [...state.edges.entries()].map(([id, e]) => ({ id, ...e }));
    setLayingOut(true);
    layoutGraph(sizes, edgeList).then((pos) => {
      if (stale) return;
      setLayingOut(false);
      setRfNodes(sizes.map((sz) => ({
        id: sz.id, type: 'lineage', position: pos.get(sz.id) ?? { x: 0, y: 0 }, data: data.get(sz.id)!,
        width: sz.width, height: sz.height, draggable: true, selectable: false, connectable: false,
      })));
      setLaidOut((n) => n + 1);
    }, (e: Error) => { setLayingOut(false); setError(`Layout failed: ${e.message}`); });
    return () => { stale = true; };
  }, [state, columnView]);

  const rfEdges = useMemo<Edge[]>(() => {
    if (!state) return [];
    const out: Edge[] = [...state.edges.entries()].map(([id, e]) => ({
      id, source: e.source, target: e.target, sourceHandle: 'out', targetHandle: 'in',
      // Faint under column edges, and in large graphs, where many cross behind the entities.
      className: columnView || state.edges.size > 80 ? 'lin-edge lin-edge-faint' : 'lin-edge', focusable: false,
    }));
    if (columnView) {
      columnView.edges.forEach((e, i) => {
        const cls = !traced ? '' : traced.edges.has(i) ? ' lin-col-edge-traced' : ' lin-col-edge-faint';
        out.push({ id: `col:${e.fromUrn}:${e.fromField}->${e.toUrn}:${e.toField}`, source: e.fromUrn, target: e.toUrn,
          sourceHandle: `out:${e.fromField}`, targetHandle: `in:${e.toField}`, className: `lin-edge lin-col-edge${cls}`, focusable: false,
          zIndex: traced?.edges.has(i) ? 1 : 0 });
      });
    }
    return out;
  }, [state, columnView, traced]);

  // After each layout: the whole graph when it can be read that way; else the entity last expanded (at first, the
  // one the page is about) at a readable zoom, the minimap showing where it is in the whole.
  useEffect(() => {
    if (laidOut === 0) return;
    const id = window.requestAnimationFrame(() => {
      const box = canvasRef.current;
      if (!box || rfNodes.length === 0) return;
      const minX = Math.min(...rfNodes.map((n) => n.position.x));
      const minY = Math.min(...rfNodes.map((n) => n.position.y));
      const maxX = Math.max(...rfNodes.map((n) => n.position.x + (n.width ?? NODE_W)));
      const maxY = Math.max(...rfNodes.map((n) => n.position.y + (n.height ?? NODE_H)));
      const fitZoom = Math.min(box.clientWidth / (maxX - minX), box.clientHeight / (maxY - minY)) * 0.88;
      const duration = laidOut > 1 ? 200 : 0;
      const target = rfNodes.find((n) => n.id === focus.current) ?? rfNodes.find((n) => n.data.center);
      if (fitZoom >= READABLE_ZOOM || !target) {
        void flow.fitView({ padding: 0.12, maxZoom: 1.1, duration });
      } else {
        void flow.setCenter(target.position.x + (target.width ?? NODE_W) / 2 + NODE_W * 0.6, target.position.y + (target.height ?? NODE_H) / 2,
          { zoom: 0.8, duration });
      }
    });
    return () => window.cancelAnimationFrame(id);
  }, [laidOut]);

  // Find: the next entity whose name holds the text, centred and outlined.
  const [findText, setFindText] = useState('');
  const [findNote, setFindNote] = useState('');
  const findAt = useRef(-1);
  const findNext = () => {
    const text = findText.trim().toLowerCase();
    if (!text) return;
    const hits = rfNodes.filter((n) => n.data.info.name.toLowerCase().includes(text) || n.id.toLowerCase().includes(text));
    if (hits.length === 0) {
      setFindNote('Not in the graph');
      return;
    }
    findAt.current = (findAt.current + 1) % hits.length;
    const hit = hits[findAt.current]!;
    setFindNote(`${findAt.current + 1} of ${hits.length}`);
    setRfNodes((ns) => ns.map((n) => (n.data.found === (n.id === hit.id) ? n : { ...n, data: { ...n.data, found: n.id === hit.id } })));
    void flow.setCenter(hit.position.x + (hit.width ?? NODE_W) / 2, hit.position.y + (hit.height ?? NODE_H) / 2,
      { zoom: Math.max(flow.getZoom(), 0.8), duration: 200 });
  };

  const ctx = useMemo<Ctx>(() => ({ expand, busy: !!busy, trace, traced: traced?.cols ?? null }), [expand, busy, trace, traced]);
  const upFrontier = state ? frontier(state, 'UPSTREAM') : [];
  const downFrontier = state ? frontier(state, 'DOWNSTREAM') : [];

  return (
    <GraphContext.Provider value={ctx}>
      <div className="lin-wrap">
        <div className="lin-toolbar" role="toolbar" aria-label="Lineage">
          <button type="button" className="btn small" disabled={!!busy || upFrontier.length === 0}
            onClick={() => expandMany(upFrontier, 'UPSTREAM')}>Expand a level upstream</button>
          <button type="button" className="btn small" disabled={!!busy || downFrontier.length === 0}
            onClick={() => expandMany(downFrontier, 'DOWNSTREAM')}>Expand a level downstream</button>
          <button type="button" className="btn small" disabled={!!busy || (upFrontier.length === 0 && downFrontier.length === 0)}
            onClick={expandAll} title={`Every level both ways, up to about ${EXPAND_ALL_LIMIT} entities`}>Expand all</button>
          <button type="button" className="btn small" aria-pressed={showColumns} onClick={() => setShowColumns((v) => !v)}>
            {showColumns ? 'Hide columns' : 'Show columns'}
          </button>
          <button type="button" className="btn small" onClick={() => void flow.fitView({ padding: 0.12, duration: 200 })}>Fit</button>
          <form className="lin-find" role="search" onSubmit={(e) => { e.preventDefault(); findNext(); }}>
            <label htmlFor="lin-find" className="visually-hidden">Find an entity in the graph</label>
            <input id="lin-find" type="search" placeholder="Find in graph" value={findText} autoComplete="off"
              onChange={(e) => { setFindText(e.target.value); findAt.current = -1; setFindNote(''); }} />
            <button type="submit" className="btn small">Find</button>
            <span className="muted small" aria-live="polite">{findNote}</span>
          </form>
          <span className="lin-stats muted small" data-testid="lineage-stats">
            {state ? `${count(state.nodes.size, 'entity', 'entities')}, ${count(state.edges.size, 'edge', 'edges')} shown` : ''}
            {reach ? ` · ${reach.up} upstream and ${reach.down} downstream in all` : ''}
            {columnView ? ` · ${count(columnView.edges.length, 'column edge', 'column edges')}` : ''}
          </span>
          <span className="lin-busy small" role="status" aria-live="polite">{busy ?? (layingOut ? 'Laying out…' : '')}</span>
        </div>
        {error && <p className="error" role="alert">{error}</p>}
        <div className="lin-canvas" style={{ height }} ref={canvasRef}>
          <ReactFlow
            nodes={rfNodes}
            edges={rfEdges}
            nodeTypes={NODE_TYPES}
            onNodesChange={(changes) => {
              // Dragging moves a node; nothing else changes them.
              const moved = changes.filter((c) => c.type === 'position' && c.position);
              if (moved.length === 0) return;
              setRfNodes((ns) => ns.map((n) => {
                const c = moved.find((m) => m.type === 'position' && m.id === n.id);
                return c && c.type === 'position' && c.position ? { ...n, position: c.position } : n;
              }));
            }}
            nodesConnectable={false}
            nodesFocusable={false}
            edgesFocusable={false}
            elementsSelectable={false}
            onlyRenderVisibleElements
            minZoom={0.05}
            maxZoom={2}
            proOptions={{ hideAttribution: true }}
            aria-label="Lineage graph"
          >
            <Background gap={24} size={1} />
            <Controls showInteractive={false} />
            {rfNodes.length > 30 && <MiniMap pannable zoomable ariaLabel="Overview of the lineage graph" />}
          </ReactFlow>
        </div>
        {state && <EdgeTable state={state} />}
      </div>
    </GraphContext.Provider>
  );
}

/** The graph's edges as a table, nearest first. */
function EdgeTable({ state }: { state: GraphState }) {
  const lv = levels(state);
  const name = (u: string) => state.nodes.get(u)?.name ?? u;
  const rows = [...state.edges.values()].sort((a, b) => Math.abs(lv.get(a.source) ?? 99) + Math.abs(lv.get(a.target) ?? 99)
    - (Math.abs(lv.get(b.source) ?? 99) + Math.abs(lv.get(b.target) ?? 99)));
  return (
    <details className="lin-table">
      <summary>Lineage as a table ({count(rows.length, 'edge', 'edges')})</summary>
      <table>
        <thead><tr><th scope="col">Upstream</th><th scope="col">Downstream</th></tr></thead>
        <tbody>
          {rows.map((e) => (
            <tr key={edgeKey(e.source, e.target)}>
              <td><Link to={entityPath(e.source)}>{name(e.source)}</Link></td>
              <td><Link to={entityPath(e.target)}>{name(e.target)}</Link></td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
