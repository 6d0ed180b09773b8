import { GENERATED_ENTITY_TYPES } from './generated/entity-types';

/**
 * Entity types as the UI names them: the GraphQL EntityType, the urn's type segment (which is also the first
 * segment of an entity page's path: /dataset/<urn>), and a label.
 */
export interface EntityTypeInfo {
  type: string;
  segment: string;
  label: string;
  plural: string;
  /** The type's GraphQL object has `lineage(input:)`: its page has a Lineage tab. */
  lineage: boolean;
}

/** The types the UI lists, in order: generated from the server's entity descriptors (their `display` parts). */
export const ENTITY_TYPES: readonly EntityTypeInfo[] = GENERATED_ENTITY_TYPES;

const byType = new Map(ENTITY_TYPES.map((t) => [t.type, t]));
const bySegment = new Map(ENTITY_TYPES.map((t) => [t.segment.toLowerCase(), t]));

export const typeInfo = (type: string): EntityTypeInfo =>
  byType.get(type) ?? { type, segment: type.toLowerCase(), label: type.charAt(0) + type.slice(1).toLowerCase().replace(/_/g, ' '), plural: type, lineage: false };

/** The urn's entity type segment: urn:li:dataset:(…) → dataset. */
export const urnSegment = (urn: string) => /^urn:li:([A-Za-z]+):/.exec(urn)?.[1] ?? 'entity';

export const typeOfUrn = (urn: string): EntityTypeInfo | undefined => bySegment.get(urnSegment(urn).toLowerCase());

/** The in-app path of an entity's page. */
export const entityPath = (urn: string, tab?: string) =>
  `/${urnSegment(urn)}/${encodeURIComponent(urn)}${tab ? `/${encodeURIComponent(tab)}` : ''}`;
