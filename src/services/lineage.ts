import { chartInfo } from '../entities/chart.js';
import { dashboardInfo } from '../entities/dashboard.js';
import { dataJobInputOutput } from '../entities/data-job.js';
import { upstreamLineage } from '../entities/dataset.js';
import type { EntityDescriptor } from '../entities/descriptor.js';
import { ENTITY_DESCRIPTORS } from '../entities/index.js';
import { badRequest } from '../errors.js';
import type { Relationship, Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';

/**
 * Lineage over the relationship index. Which edges are lineage, and which way each points, comes from the entity
 * descriptors' `lineage` part (DataHub 0.12.1's @Relationship `isLineage` / `isUpstream` annotations): an entity's
 * upstream neighbours are the destinations of its upstream-typed outgoing edges, and the sources of incoming edges
 * whose source type declares that edge downstream (a job that Produces a dataset is upstream of it); downstream alike.
 * As in DataHub, an edge counts only between the entity types its annotation names (a dataset's DownstreamOf edges to
 * schema fields are not lineage), and each entity is reached once, at its smallest degree, by one path.
 */
export type LineageDirection = 'UPSTREAM' | 'DOWNSTREAM';

/** Both ends given: only edges stamped inside the window, or not stamped at all, or drawn by hand, count. */
export interface TimeWindow {
  startTimeMillis?: number | null;
  endTimeMillis?: number | null;
}

export interface LineageHit {
  urn: string;
  /** The relationship type of the edge the entity was reached by. */
  type: string;
  /** Hops from the start (1: a direct neighbour). */
  degree: number;
  /** The edge it was reached by, with its stamps. */
  edge: Relationship;
  /** The start, the entities in between, and this entity. */
  path: string[];
}

/** DataHub 0.12.1's default for searchAcrossLineage without a degree filter (LineageSearchService: 1000 hops). */
export const DEFAULT_MAX_HOPS = 1000;
/** Almanac's bound on how many entities one walk reaches; the walk stops there (`truncated`). */
export const DEFAULT_MAX_ENTITIES = 20_000;

interface EdgeSpec {
  type: string;
  /** OUTGOING: the edge leaves the entity; INCOMING: it arrives at the entity. */
  direction: 'OUTGOING' | 'INCOMING';
  /** Entity types the other end may have. */
  others: Set<string>;
}

type Registry = Map<string, Record<LineageDirection, EdgeSpec[]>>;

const opposite = (d: LineageDirection): LineageDirection => (d === 'UPSTREAM' ? 'DOWNSTREAM' : 'UPSTREAM');

/** Per entity type and direction, the edges that lead there: each descriptor's declarations and their mirror images. */
export function lineageRegistry(descriptors: readonly EntityDescriptor[] = ENTITY_DESCRIPTORS): Registry {
  const reg: Registry = new Map();
  const add = (entityType: string, dir: LineageDirection, type: string, direction: EdgeSpec['direction'], others: readonly string[]) => {
    let r = reg.get(entityType);
    if (!r) reg.set(entityType, (r = { UPSTREAM: [], DOWNSTREAM: [] }));
    const spec = r[dir].find((s) => s.type === type && s.direction === direction);
    if (spec) for (const o of others) spec.others.add(o);
    else r[dir].push({ type, direction, others: new Set(others) });
  };
  for (const d of descriptors) {
    for (const dir of ['UPSTREAM', 'DOWNSTREAM'] as const) {
      for (const e of (dir === 'UPSTREAM' ? d.lineage?.upstream : d.lineage?.downstream) ?? []) {
        add(d.name, dir, e.type, 'OUTGOING', e.entityTypes);
        for (const other of e.entityTypes) add(other, opposite(dir), e.type, 'INCOMING', [d.name]);
      }
    }
  }
  return reg;
}

/** `urn:li:dataset:(…)` → `dataset`. */
export function entityTypeOfUrn(urn: string): string {
  const end = urn.indexOf(':', 7);
  return urn.startsWith('urn:li:') && end > 7 ? urn.slice(7, end) : '';
}

/**
 * DataHub 0.12.1's edge time filter (TimeFilterUtils), applied only when both ends of the window are given: an edge
 * counts when its createdOn or its updatedOn falls inside [start, end] (each a point, not the span between them), when
 * it has neither (missing or 0), or when it was drawn by hand in the UI.
 */
export function edgeInWindow(e: Relationship, w: TimeWindow | undefined): boolean {
  const start = w?.startTimeMillis;
  const end = w?.endTimeMillis;
  if (start == null || end == null || e.manual) return true;
  const created = e.createdOn || 0;
  const updated = e.updatedOn || 0;
  if (!created && !updated) return true;
  return (!!created && created >= start && created <= end) || (!!updated && updated >= start && updated <= end);
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export class LineageService {
  private readonly registry: Registry;

  constructor(private readonly store: Store, descriptors: readonly EntityDescriptor[] = ENTITY_DESCRIPTORS) {
    this.registry = lineageRegistry(descriptors);
  }

  /** Whether entities of this type take part in lineage at all. */
  hasLineage(entityType: string): boolean {
    return this.registry.has(entityType);
  }

  /** The direct neighbours one way, each once (by the first of its edges in (urn, type) order). */
  async neighbours(urn: string, direction: LineageDirection, window?: TimeWindow): Promise<LineageHit[]> {
    return (await this.walk(urn, direction, { maxHops: 1, window })).hits;
  }

  /**
   * Breadth-first from `urn`, at most `maxHops` hops and `maxEntities` entities: each entity at its smallest degree,
   * with one shortest path (among equals, through the parent whose urn sorts first). The start is never a result;
   * cycles end where they meet an entity already reached. `stamps: false`: the hits' edges without their stamps (who
   * drew them and when), which a walk reads from the edge indexes alone unless its time window needs them.
   */
  async walk(urn: string, direction: LineageDirection, options: { maxHops?: number; maxEntities?: number; window?: TimeWindow; stamps?: boolean } = {}):
    Promise<{ hits: LineageHit[]; truncated: boolean }> {
    const maxHops = options.maxHops ?? DEFAULT_MAX_HOPS;
    const maxEntities = options.maxEntities ?? DEFAULT_MAX_ENTITIES;
    const paths = new Map<string, string[]>([[urn, [urn]]]);
    const hits: LineageHit[] = [];
    let frontier = [urn];
    const w = options.window;
    const stamps = options.stamps !== false || (w?.startTimeMillis != null && w.endTimeMillis != null);
    for (let degree = 1; degree <= maxHops && frontier.length > 0; degree++) {
      const found = await this.step(frontier, direction, w, stamps);
      // For each entity not reached yet, the candidate first in (parent, type) order (the first found among equals);
      // then the entities in urn order: one sort of the entities rather than of every candidate by all three.
      const best = new Map<string, (typeof found)[number]>();
      for (const c of found) {
        if (paths.has(c.other)) continue;
        const cur = best.get(c.other);
        if (!cur || cmp(c.parent, cur.parent) < 0 || (c.parent === cur.parent && cmp(c.edge.type, cur.edge.type) < 0)) best.set(c.other, c);
      }
      const next: string[] = [];
      for (const other of [...best.keys()].sort(cmp)) {
        const c = best.get(other)!;
        if (hits.length >= maxEntities) return { hits, truncated: true };
        const path = [...paths.get(c.parent)!, c.other];
        paths.set(c.other, path);
        hits.push({ urn: c.other, type: c.edge.type, degree, edge: c.edge, path });
        next.push(c.other);
      }
      frontier = next;
    }
    return { hits, truncated: false };
  }

  /** The lineage edges one way out of a set of entities: each with the entity it leaves from and the one it leads to. */
  private async step(frontier: readonly string[], direction: LineageDirection, window: TimeWindow | undefined, stamps: boolean) {
    const outTypes = new Set<string>();
    const inTypes = new Set<string>();
    for (const u of frontier) {
      for (const s of this.registry.get(entityTypeOfUrn(u))?.[direction] ?? []) (s.direction === 'OUTGOING' ? outTypes : inTypes).add(s.type);
    }
    const [outgoing, incoming] = await Promise.all([
      this.store.relationshipsOf({ urns: frontier, direction: 'OUTGOING', types: [...outTypes], stamps }),
      this.store.relationshipsOf({ urns: frontier, direction: 'INCOMING', types: [...inTypes], stamps }),
    ]);
    const valid = (self: string, edgeDirection: EdgeSpec['direction'], type: string, other: string) =>
      (this.registry.get(entityTypeOfUrn(self))?.[direction] ?? [])
        .some((s) => s.direction === edgeDirection && s.type === type && s.others.has(entityTypeOfUrn(other)));
    const found: { parent: string; other: string; edge: Relationship }[] = [];
    for (const e of outgoing) {
      if (e.source !== e.destination && valid(e.source, 'OUTGOING', e.type, e.destination) && edgeInWindow(e, window)) {
        found.push({ parent: e.source, other: e.destination, edge: e });
      }
    }
    for (const e of incoming) {
      if (e.source !== e.destination && valid(e.destination, 'INCOMING', e.type, e.source) && edgeInWindow(e, window)) {
        found.push({ parent: e.destination, other: e.source, edge: e });
      }
    }
    return found;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Lineage edits (updateLineage)

/** One edge the UI draws or erases: the downstream entity and its upstream. */
export interface LineageEdit {
  upstreamUrn: string;
  downstreamUrn: string;
}

type Stamp = { time: number; actor: string };
type EdgeRecord = { destinationUrn: string; sourceUrn?: string; created?: Stamp; lastModified?: Stamp; properties?: Record<string, string> };

const UI = { source: 'UI' } as const;

/** A new Edge record drawn in the UI: stamped with its author and time, its properties saying so. */
const newEdge = (destinationUrn: string, sourceUrn: string, s: Stamp): EdgeRecord =>
  ({ destinationUrn, sourceUrn, created: s, lastModified: s, properties: { ...UI } });

/** A plain list and its Edge form after the edit: removals from both, additions (not already in either) as edges. */
function editEdges(plain: readonly string[] | undefined, edges: readonly EdgeRecord[] | undefined, add: readonly string[],
  remove: readonly string[], source: string, s: Stamp) {
  const gone = new Set(remove);
  const keptPlain = (plain ?? []).filter((u) => !gone.has(u));
  const keptEdges = (edges ?? []).filter((e) => !gone.has(e.destinationUrn));
  const present = new Set([...keptPlain, ...keptEdges.map((e) => e.destinationUrn)]);
  const added = [...new Set(add)].filter((u) => !present.has(u) && !gone.has(u)).map((u) => newEdge(u, source, s));
  return { plain: keptPlain, edges: [...keptEdges, ...added] };
}

function group(edits: readonly LineageEdit[], by: 'downstreamUrn' | 'upstreamUrn'): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of edits) {
    const key = e[by];
    const other = by === 'downstreamUrn' ? e.upstreamUrn : e.downstreamUrn;
    out.set(key, [...(out.get(key) ?? []), other]);
  }
  return out;
}

/**
 * DataHub 0.12.1's updateLineage: each edge is written into the aspect of the entity that owns it, as a UI edge
 * (created and last modified by the actor now, properties.source = UI): a dataset's upstreamLineage, a chart's
 * chartInfo.inputEdges, a dashboard's dashboardInfo.chartEdges / datasetEdges, a job's dataJobInputOutput
 * (inputDatasetEdges, inputDatajobEdges, and outputDatasetEdges for a dataset the job feeds). Removals take the
 * upstream out of both the plain list and its Edge form. Edges into other entity types are ignored, as DataHub does.
 */
export async function updateLineage(entities: EntityService, add: readonly LineageEdit[], remove: readonly LineageEdit[], actor: Actor) {
  const s: Stamp = { time: Date.now(), actor: actor.urn };
  const require = async (urns: readonly string[], allowed: readonly string[], what: string) => {
    const wrong = urns.filter((u) => !allowed.includes(entityTypeOfUrn(u)));
    if (wrong.length) throw badRequest(`${what} must be ${allowed.join(' or ')} urns, got ${wrong.join(', ')}`);
    const existing = await entities.existing([...new Set(urns)]);
    const missing = urns.filter((u) => !existing.has(u));
    if (missing.length) throw badRequest(`Cannot upsert lineage as urn ${missing.join(', ')} doesn't exist`);
  };
  const adds = group(add, 'downstreamUrn');
  const removes = group(remove, 'downstreamUrn');
  for (const down of new Set([...adds.keys(), ...removes.keys()])) {
    const ups = adds.get(down) ?? [];
    const rms = removes.get(down) ?? [];
    switch (entityTypeOfUrn(down)) {
      case 'dataset': {
        // A job upstream of a dataset is the job's output: written on the job, below.
        const up = ups.filter((u) => entityTypeOfUrn(u) !== 'dataJob');
        const gone = new Set(rms.filter((u) => entityTypeOfUrn(u) !== 'dataJob'));
        await require(up, ['dataset'], `Upstreams of dataset ${down}`);
        await entities.editExisting(down, [upstreamLineage], (cur) => {
          const prev = cur.get('upstreamLineage');
          const upstreams = (prev?.upstreams ?? []).filter((u) => !gone.has(u.dataset));
          const present = new Set(upstreams.map((u) => u.dataset));
          for (const u of new Set(up)) {
            if (!present.has(u) && !gone.has(u)) upstreams.push({ dataset: u, type: 'TRANSFORMED', created: s, auditStamp: s, properties: { ...UI } });
          }
          return { upstreamLineage: { ...prev, upstreams } };
        }, actor);
        break;
      }
      case 'chart': {
        await require(ups, ['dataset'], `Upstreams of chart ${down}`);
        await entities.editExisting(down, [chartInfo], (cur) => {
          const info = cur.get('chartInfo');
          if (!info) throw badRequest(`Cannot update the lineage of chart ${down}: it has no chartInfo`);
          const e = editEdges(info.inputs, info.inputEdges, ups, rms, down, s);
          return { chartInfo: { ...info, ...(info.inputs ? { inputs: e.plain } : {}), inputEdges: e.edges } };
        }, actor);
        break;
      }
      case 'dashboard': {
        await require(ups, ['chart', 'dataset'], `Upstreams of dashboard ${down}`);
        await entities.editExisting(down, [dashboardInfo], (cur) => {
          const info = cur.get('dashboardInfo');
          if (!info) throw badRequest(`Cannot update the lineage of dashboard ${down}: it has no dashboardInfo`);
          const charts = editEdges(info.charts, info.chartEdges, ups.filter((u) => entityTypeOfUrn(u) === 'chart'), rms, down, s);
          const datasets = editEdges(info.datasets, info.datasetEdges, ups.filter((u) => entityTypeOfUrn(u) === 'dataset'), rms, down, s);
          return { dashboardInfo: { ...info, ...(info.charts ? { charts: charts.plain } : {}), chartEdges: charts.edges,
            ...(info.datasets ? { datasets: datasets.plain } : {}), datasetEdges: datasets.edges } };
        }, actor);
        break;
      }
      case 'dataJob': {
        await require(ups, ['dataset', 'dataJob'], `Upstreams of data job ${down}`);
        await entities.editExisting(down, [dataJobInputOutput], (cur) => {
          const io = cur.get('dataJobInputOutput') ?? { inputDatasets: [], outputDatasets: [] };
          const datasets = editEdges(io.inputDatasets, io.inputDatasetEdges, ups.filter((u) => entityTypeOfUrn(u) === 'dataset'), rms, down, s);
          const jobs = editEdges(io.inputDatajobs, io.inputDatajobEdges, ups.filter((u) => entityTypeOfUrn(u) === 'dataJob'), rms, down, s);
          return { dataJobInputOutput: { ...io, ...(io.inputDatasets ? { inputDatasets: datasets.plain } : {}), inputDatasetEdges: datasets.edges,
            ...(io.inputDatajobs ? { inputDatajobs: jobs.plain } : {}), inputDatajobEdges: jobs.edges } };
        }, actor);
        break;
      }
      default:
    }
  }
  // A job's outputs: edges whose upstream is a job and whose downstream is not.
  const outAdds = group(add.filter((e) => entityTypeOfUrn(e.upstreamUrn) === 'dataJob' && entityTypeOfUrn(e.downstreamUrn) !== 'dataJob'), 'upstreamUrn');
  const outRemoves = group(remove.filter((e) => entityTypeOfUrn(e.upstreamUrn) === 'dataJob' && entityTypeOfUrn(e.downstreamUrn) !== 'dataJob'), 'upstreamUrn');
  for (const job of new Set([...outAdds.keys(), ...outRemoves.keys()])) {
    const downs = outAdds.get(job) ?? [];
    const rms = outRemoves.get(job) ?? [];
    await require(downs, ['dataset'], `Downstreams of data job ${job}`);
    await entities.editExisting(job, [dataJobInputOutput], (cur) => {
      const io = cur.get('dataJobInputOutput') ?? { inputDatasets: [], outputDatasets: [] };
      const out = editEdges(io.outputDatasets, io.outputDatasetEdges, downs, rms, job, s);
      return { dataJobInputOutput: { ...io, ...(io.outputDatasets ? { outputDatasets: out.plain } : {}), outputDatasetEdges: out.edges } };
    }, actor);
  }
}
