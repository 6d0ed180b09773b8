import { tryParseUrn } from '../model/urn.js';
import type { Relationship, Store } from '../storage/types.js';
import { rebuildIfEmpty } from './derived-index.js';
import type { EntityService } from './entities.js';

/**
 * Relationships between entities, with DataHub's names, derived from aspects after every write and kept in an
 * index so that both directions are cheap: lineage (`DownstreamOf`), containment (`IsPartOf`), ownership
 * (`OwnedBy`), labels (`TaggedWith`, `TermedWith`), domains (`AssociatedWith`), membership (`IsMemberOfGroup`),
 * and job/chart inputs and outputs (`Consumes`, `Produces`).
 */
type Obj = Record<string, any>;

const urns = (list: unknown): string[] => (Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : []);

/** The outgoing edges an entity's aspects declare. */
export function edgesOf(source: string, aspects: Map<string, Obj>): Relationship[] {
  const out: Relationship[] = [];
  const add = (type: string, destination: unknown) => {
    if (typeof destination === 'string' && destination.startsWith('urn:')) out.push({ source, type, destination });
  };
  for (const u of aspects.get('upstreamLineage')?.upstreams ?? []) add('DownstreamOf', u.dataset);
  add('IsPartOf', aspects.get('container')?.container);
  for (const o of aspects.get('ownership')?.owners ?? []) add('OwnedBy', o.owner);
  for (const t of aspects.get('globalTags')?.tags ?? []) add('TaggedWith', t.tag);
  for (const t of aspects.get('glossaryTerms')?.terms ?? []) add('TermedWith', t.urn);
  for (const d of urns(aspects.get('domains')?.domains)) add('AssociatedWith', d);
  for (const g of urns(aspects.get('groupMembership')?.groups)) add('IsMemberOfGroup', g);
  for (const g of urns(aspects.get('nativeGroupMembership')?.nativeGroups)) add('IsMemberOfNativeGroup', g);
  const io = aspects.get('dataJobInputOutput');
  for (const d of [...urns(io?.inputDatasets), ...(io?.inputDatasetEdges ?? []).map((e: Obj) => e.destinationUrn)]) add('Consumes', d);
  for (const d of [...urns(io?.outputDatasets), ...(io?.outputDatasetEdges ?? []).map((e: Obj) => e.destinationUrn)]) add('Produces', d);
  for (const j of [...urns(io?.inputDatajobs), ...(io?.inputDatajobEdges ?? []).map((e: Obj) => e.destinationUrn)]) add('DownstreamOf', j);
  const chart = aspects.get('chartInfo');
  for (const d of [...urns(chart?.inputs), ...(chart?.inputEdges ?? []).map((e: Obj) => e.destinationUrn)]) add('Consumes', d);
  const dash = aspects.get('dashboardInfo');
  for (const c of [...urns(dash?.charts), ...(dash?.chartEdges ?? []).map((e: Obj) => e.destinationUrn)]) add('Contains', c);
  const seen = new Set<string>();
  return out.filter((e) => {
    const k = `${e.type}\n${e.destination}`;
    return !seen.has(k) && !!seen.add(k);
  });
}

export class RelationshipService {
  constructor(private readonly store: Store, entities: EntityService) {
    entities.afterWrite((written) => this.index(written));
  }

  async index(sources: readonly string[]): Promise<void> {
    const list = [...new Set(sources)].filter((u) => typeof tryParseUrn(u) !== 'string');
    if (list.length === 0) return;
    const latest = await this.store.getLatest(list);
    const edges = list.flatMap((urn) => edgesOf(urn, new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value as Obj]))));
    await this.store.replaceRelationships(list, edges);
  }

  /** Builds the index from scratch when it is empty but entities exist (first start after an upgrade). */
  async rebuildIfEmpty(): Promise<void> {
    await rebuildIfEmpty(this.store, await this.store.countRelationships(), (urns) => this.index(urns));
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
