import type { EdgeMeta } from '../entities/descriptor.js';
import { aspectDef } from '../entities/index.js';
import { fitsSchema } from '../entities/schema.js';
import { tryParseUrn } from '../model/urn.js';
import type { IndexUpdate, LatestAspects, Relationship, Store } from '../storage/types.js';

/**
 * Relationships between entities, with DataHub's names, derived from aspects after every write and kept in an
 * index so that both directions are cheap. Which aspect declares which edge is part of the aspect's definition
 * (src/entities): lineage (`DownstreamOf`), containment (`IsPartOf`, `Contains`), ownership (`OwnedBy`), labels
 * (`TaggedWith`, `TermedWith`), domains (`AssociatedWith`), membership (`IsMemberOfGroup`), inputs and outputs
 * (`Consumes`, `Produces`) and the rest of DataHub's @Relationship annotations.
 */

/** The outgoing edges an entity's aspects declare, each (type, destination) once. */
export function edgesOf(source: string, aspects: ReadonlyMap<string, unknown>): Relationship[] {
  const out: Relationship[] = [];
  const seen = new Map<string, Relationship>();
  const add = (type: string, destination: unknown, meta?: EdgeMeta) => {
    if (typeof destination !== 'string' || !destination.startsWith('urn:')) return;
    const k = `${type}\n${destination}`;
    let edge = seen.get(k);
    if (!edge) {
      edge = { source, type, destination };
      seen.set(k, edge);
      out.push(edge);
    }
    // An edge listed twice (a plain list and its Edge form) keeps the first stamps given for it.
    if (meta) {
      if (edge.createdOn === undefined && meta.createdOn) edge.createdOn = meta.createdOn;
      if (edge.createdActor === undefined && meta.createdActor) edge.createdActor = meta.createdActor;
      if (edge.updatedOn === undefined && meta.updatedOn) edge.updatedOn = meta.updatedOn;
      if (edge.updatedActor === undefined && meta.updatedActor) edge.updatedActor = meta.updatedActor;
      if (meta.manual) edge.manual = true;
    }
  };
  for (const [name, value] of aspects) {
    const def = aspectDef(name);
    // Stored values passed validation when written; a value that no longer fits its schema declares nothing.
    if (!def?.edges || value === null || typeof value !== 'object' || !fitsSchema(def.schema, value)) continue;
    def.edges(value, add);
  }
  return out;
}

export class RelationshipService {
  constructor(private readonly store: Store) {}

  /**
   * The outgoing edges of these entities as their aspects declare them now (none for one that no longer exists):
   * the relationship index's update, applied by its change-log consumer (src/changelog). `latest`: their aspects,
   * already read.
   */
  async edges(sources: readonly string[], latest?: LatestAspects): Promise<IndexUpdate> {
    const list = [...new Set(sources)].filter((u) => typeof tryParseUrn(u) !== 'string');
    if (list.length === 0) return { relationships: { sources: [], edges: [] } };
    const read = latest ?? await this.store.getLatest(list);
    const edges = list.flatMap((urn) => edgesOf(urn, new Map([...(read.get(urn) ?? new Map())].map(([k, r]) => [k, r.value]))));
    return { relationships: { sources: list, edges } };
  }

  list(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start?: number; count?: number }) {
    return this.store.relationships({ ...q, start: q.start ?? 0, count: q.count ?? 100 });
  }

  /** Entities that name this one as an upstream. */
  async downstreamOf(urn: string): Promise<string[]> {
    return (await this.store.relationships({ urn, direction: 'INCOMING', types: ['DownstreamOf'], start: 0, count: 10_000 }))
      .edges.map((e) => e.source);
  }

  /** Entities whose `container` aspect names this container. */
  async containerChildren(containerUrn: string, start: number, count: number): Promise<{ total: number; urns: string[] }> {
    const r = await this.store.relationships({ urn: containerUrn, direction: 'INCOMING', types: ['IsPartOf'], start, count });
    return { total: r.total, urns: r.edges.map((e) => e.source) };
  }
}
