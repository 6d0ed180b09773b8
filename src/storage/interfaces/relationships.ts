/** Relationships between entities: records and the store's part. */

export interface Relationship {
  source: string;
  /** DataHub's relationship name: DownstreamOf, IsPartOf, OwnedBy, … */
  type: string;
  destination: string;
  /** When and by whom the edge was created and last updated, where the aspect says (lineage edges); absent otherwise. */
  createdOn?: number;
  createdActor?: string;
  updatedOn?: number;
  updatedActor?: string;
  /** Drawn by hand in the UI (the edge's properties.source is 'UI'); absent when false. */
  manual?: boolean;
}

export interface RelationshipStore {
  // Relationships between entities (derived from aspects by the relationship service)
  /** Replaces every outgoing edge of these sources. */
  replaceRelationships(sources: readonly string[], edges: Relationship[]): Promise<void>;
  /** Edges into (or out of) an entity, of the given types (all when empty), ordered by the other end. */
  relationships(q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types?: string[]; start: number; count: number }): Promise<{ total: number; edges: Relationship[] }>;
  /** How many edges there are (`upTo`: counting stops there). */
  countRelationships(upTo?: number): Promise<number>;
  /**
   * Every edge of the given types out of (OUTGOING) or into (INCOMING) any of these entities, unpaged (lineage walks).
   * `stamps: false`: the edges' ends and types only, read from the index alone where the engine can.
   */
  relationshipsOf(q: { urns: readonly string[]; direction: 'INCOMING' | 'OUTGOING'; types: readonly string[]; stamps?: boolean }): Promise<Relationship[]>;
}
