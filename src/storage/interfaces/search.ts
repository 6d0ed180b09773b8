/** Search documents and their queries: records and the store's part. */

export interface SearchDoc {
  urn: string;
  entityType: string;
  /** Lower-case words of the entity's name: ranked above the rest of the text. */
  name: string;
  /** Lower-case words of everything else the entity says about itself (descriptions, columns, tags, terms). */
  text: string;
  /** How the entity sorts by name (its display name, lower case). */
  sortName: string;
  /**
   * The display name's words, lower case, one space apart (`Payments_Daily` → `payments daily`): searches put the
   * documents whose key equals or starts with the query's first. Without it, derived from sortName.
   */
  nameKey?: string;
  /** The urn's own name as a key where it differs from nameKey (`db.schema.payments`): an exact match comes first too. */
  qualifiedKey?: string;
  /** Soft-deleted (`status.removed`): left out of searches unless a condition asks about removal. */
  removed: boolean;
  /** Keyword values of the filter fields, in DataHub's field names: each [field, value] once. */
  values: readonly (readonly [string, string])[];
}

/**
 * Which documents a search keeps, as a small tree the engines render to SQL. Columns are the document's own
 * (entity type, urn, removal); `field` conditions test the keyword values of one filter field.
 */
export type SearchCondition =
  | { all: readonly SearchCondition[] }
  | { any: readonly SearchCondition[] }
  | { not: SearchCondition }
  | { column: 'entityType' | 'urn'; values: readonly string[] }
  | { column: 'removed'; value: boolean }
  | { field: string; op: SearchOp; values: readonly string[] };

/** EQUAL: any value equals one given; CONTAIN / START_WITH / END_WITH: as text; GT…LTE: as numbers; EXISTS: any value at all. */
export type SearchOp = 'EQUAL' | 'CONTAIN' | 'START_WITH' | 'END_WITH' | 'GREATER_THAN' | 'GREATER_THAN_OR_EQUAL_TO' | 'LESS_THAN'
  | 'LESS_THAN_OR_EQUAL_TO' | 'EXISTS';

export interface SearchDocQuery {
  /** Every term must match the start of a word of the name or text; none: every document. */
  terms: readonly string[];
  /** The query as a name key (see SearchDoc.nameKey), when it differs from the terms joined by spaces. */
  nameKey?: string;
  where: SearchCondition;
}

/** Relevance (then name), name, or a field's numeric value (documents without one last). */
export type SearchSort = { by: 'relevance' } | { by: 'name'; descending: boolean } | { by: 'field'; field: string; descending: boolean };

/** A facet to count: values of one field, entity types, or entity types each with a field's values under it. */
export type FacetSpec = { kind: 'field'; field: string } | { kind: 'entityType' } | { kind: 'entityTypeThen'; field: string };

/** One count: `value` is the field's value, the entity type, or [entity type, value] for entityTypeThen. */
export interface FacetCount {
  value: string;
  /** The nested value under an entity type (entityTypeThen only); absent on the entity type's own row. */
  sub?: string;
  count: number;
}

export interface SearchStore {
  // Search documents (prepared by the search service; the engine indexes them)
  upsertSearchDocs(docs: SearchDoc[]): Promise<void>;
  deleteSearchDocs(urns: readonly string[]): Promise<void>;
  /**
   * The matching documents' urns in the given order, paged, and how many match in all (exactly). `facetsFollow`: the
   * same query's facets are counted next (the engine may then keep the match set it counted for them).
   */
  searchDocs(q: SearchDocQuery & { sort: SearchSort; start: number; count: number; facetsFollow?: boolean }): Promise<{ total: number; urns: string[] }>;
  /** Counts per value of each facet over the matching documents, exact; `matches`: how many match, when known. */
  searchFacets(q: SearchDocQuery, facets: readonly FacetSpec[], matches?: number): Promise<FacetCount[][]>;
  /** How many documents there are (`upTo`: counting stops there). */
  countSearchDocs(upTo?: number): Promise<number>;
}
