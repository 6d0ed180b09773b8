import { gql } from '../../gql';
import { platformName, summarize } from '../../entitySummary';
import { LINEAGE_COLUMNS, LINEAGE_HOP, LINEAGE_REACH, LINEAGE_START, type HopEntity, type LineageNode } from '../../graphql/lineage';

/**
 * What the lineage graph reads: one hop at a time through each entity's `lineage(input:)` field (on the
 * EntityWithRelationships interface), for many entities in one request (`entities(urns:)`); each neighbour comes with
 * the number of its own up- and downstream neighbours, so that the graph can show a "+" only where there is more.
 * Column-level lineage is read on demand: the datasets' `fineGrainedLineages` (and jobs' inputOutput ones), with the
 * datasets' columns.
 */
export type Direction = 'UPSTREAM' | 'DOWNSTREAM';

export interface NodeInfo {
  urn: string;
  type: string;
  name: string;
  /** Platform, tool or orchestrator name. */
  platform: string | null;
  subtype: string | null;
  upTotal: number | null;
  downTotal: number | null;
}

/** The most neighbours one "+" adds; more are offered by a second click (the page answers `total`). */
export const HOP_PAGE = 200;

export function nodeOf(e: LineageNode): NodeInfo {
  const sum = summarize(e);
  const platform = platformName(sum.platform) || (typeof e.featureNamespace === 'string' && e.featureNamespace) || null;
  return { urn: e.urn, type: e.type, name: sum.name, platform, subtype: sum.subTypes[0] ?? null,
    upTotal: e.upN?.total ?? null, downTotal: e.downN?.total ?? null };
}

export async function fetchStart(urn: string, signal?: AbortSignal): Promise<NodeInfo | null> {
  const data = await gql(LINEAGE_START, { urn }, { signal });
  return data.entity ? nodeOf(data.entity) : null;
}

export interface Hop {
  /** The entity expanded. */
  from: string;
  total: number;
  neighbours: NodeInfo[];
}

/** One hop from each of the urns, one way. */
export async function fetchHop(urns: string[], direction: Direction, start = 0, count = HOP_PAGE): Promise<Hop[]> {
  if (urns.length === 0) return [];
  const data = await gql(LINEAGE_HOP, { urns, direction, start, count });
  return data.entities.filter((e): e is HopEntity => !!e).map((e) => ({
    from: e.urn,
    total: e.lineage?.total ?? 0,
    neighbours: (e.lineage?.relationships ?? []).flatMap((r) => (r.entity ? [nodeOf(r.entity)] : [])),
  }));
}

/** A column-level edge: a field of one entity feeds a field of another. */
export interface ColumnEdge {
  fromUrn: string;
  fromField: string;
  toUrn: string;
  toField: string;
}

export interface ColumnData {
  /** Dataset urn → its columns, in schema order. */
  columns: Map<string, string[]>;
  edges: ColumnEdge[];
}

/** At most this many urns per request (the API's list bound is 1,000). */
const BATCH = 500;

/**
 * Column lineage among the given entities. A dataset's fineGrainedLineages that name no downstream field feed the
 * dataset's own field of the same path when there is one (nothing is drawn otherwise); a job's map its inputs'
 * fields to its outputs' fields directly (the job itself has no columns).
 */
export async function fetchColumns(urns: string[]): Promise<ColumnData> {
  const columns = new Map<string, string[]>();
  const edges: ColumnEdge[] = [];
  const seen = new Set<string>();
  const push = (e: ColumnEdge) => {
    if (e.fromUrn === e.toUrn && e.fromField === e.toField) return;
    const k = `${e.fromUrn}\u0000${e.fromField}\u0000${e.toUrn}\u0000${e.toField}`;
    if (seen.has(k)) return;
    seen.add(k);
    edges.push(e);
  };
  for (let i = 0; i < urns.length; i += BATCH) {
    const data = await gql(LINEAGE_COLUMNS, { urns: urns.slice(i, i + BATCH) });
    for (const e of data.entities) {
      if (!e) continue;
      if (e.schemaMetadata) columns.set(e.urn, (e.schemaMetadata.fields ?? []).map((f) => f.fieldPath));
      const fgl = e.fineGrainedLineages ?? e.inputOutput?.fineGrainedLineages ?? [];
      for (const l of fgl) {
        const ups = l.upstreams ?? [];
        const downs = l.downstreams?.length ? l.downstreams : [];
        for (const u of ups) {
          if (downs.length) for (const d of downs) push({ fromUrn: u.urn, fromField: u.path, toUrn: d.urn, toField: d.path });
          else if (e.schemaMetadata && u.urn !== e.urn) push({ fromUrn: u.urn, fromField: u.path, toUrn: e.urn, toField: u.path });
        }
      }
    }
  }
  return { columns, edges };
}

/** How many entities are up- and downstream in all (every hop), as searchAcrossLineage counts them. */
export async function fetchReach(urn: string): Promise<{ up: number; down: number }> {
  const data = await gql(LINEAGE_REACH, { urn });
  return { up: data.up?.total ?? 0, down: data.down?.total ?? 0 };
}
