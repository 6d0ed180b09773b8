import { badRequest } from '../errors.js';
import { descriptorOfGraphQLType, ENTITY_DESCRIPTORS, entityDescriptor } from '../entities/index.js';
import type { FacetSpec, SearchCondition, SearchOp, SearchSort } from '../storage/types.js';
import { FOUND_ONLY_WHEN_NAMED } from './search-documents.js';

/** Search requests and their filters (DataHub's orFilters, views, sorts) as the store's conditions (src/services/search.ts). */

export interface FilterClause {
  field: string;
  values: string[];
  condition?: string | null;
  negated?: boolean | null;
}

export interface SearchRequest {
  /** '' or '*': everything. */
  query: string;
  /** Entity names (`dataset`, `dataJob`); every searchable type when absent or empty. */
  entityTypes?: readonly string[];
  /** DataHub's orFilters: any one group, all of whose clauses hold. */
  filters?: readonly (readonly FilterClause[])[];
  /** Only these entities (lineage search). */
  urns?: readonly string[];
  /** `_entityName` (or `name`) sorts by name; any other field by its numeric value; relevance when absent. */
  sort?: { field: string; order?: string | null } | null;
  start?: number;
  count?: number;
  /** Facet fields to count; DataHub's default facets when absent; none when empty. */
  facets?: readonly string[];
}

/** DataHub's nesting of facets: `_entityType␞typeNames` counts entity types and each type's sub types. */
export const FACET_SEPARATOR = '\u241e';
export const ENTITY_TYPE_FIELDS = new Set(['_entityType', 'entityType', '_index', 'entity']);

const CONDITIONS: Readonly<Record<string, SearchOp>> = {
  EQUAL: 'EQUAL', IN: 'EQUAL', IEQUAL: 'EQUAL', CONTAIN: 'CONTAIN', START_WITH: 'START_WITH', END_WITH: 'END_WITH', EXISTS: 'EXISTS', GREATER_THAN: 'GREATER_THAN',
  GREATER_THAN_OR_EQUAL_TO: 'GREATER_THAN_OR_EQUAL_TO', LESS_THAN: 'LESS_THAN', LESS_THAN_OR_EQUAL_TO: 'LESS_THAN_OR_EQUAL_TO',
};

/** Other names clients use for an indexed field. */
const FIELD_ALIASES: Readonly<Record<string, string>> = { dataPlatformInstance: 'platformInstance', env: 'origin' };

/** A filter field as indexed: DataHub clients may name the keyword sub-field (`platform.keyword`) or an alias. */
export const fieldName = (f: string) => {
  const name = f.replace(/\.keyword$/, '');
  return FIELD_ALIASES[name] ?? name;
};

/** An entity type filter value: DataHub's enum (DATASET, DATASETS as the UI's views send it) or the entity name. */
export function entityNameOf(value: string): string {
  const d = descriptorOfGraphQLType(value) ?? descriptorOfGraphQLType(value.replace(/S$/, '')) ?? entityDescriptor(value)
    ?? ENTITY_DESCRIPTORS.find((x) => x.name.toLowerCase() === value.toLowerCase().replace(/_/g, ''));
  if (!d) throw badRequest(`Unknown entity type '${value}' in a filter`, { field: '_entityType' });
  return d.name;
}

/** Values of fields that hold urns, accepted in the short forms DataHub's UI also sends (a platform's bare name). */
export function normalizeValues(field: string, values: readonly string[]): string[] {
  if (field === 'platform') return values.map((v) => (v.startsWith('urn:') ? v : `urn:li:dataPlatform:${v}`));
  return [...values];
}

export function clauseCondition(c: FilterClause): SearchCondition {
  const field = fieldName(c.field);
  const op = CONDITIONS[(c.condition ?? 'EQUAL').toUpperCase()];
  if (!op) throw badRequest(`Unknown filter condition '${c.condition}' on field ${field}`, { field });
  if (op.startsWith('GREATER') || op.startsWith('LESS')) {
    if (c.values.length !== 1 || !Number.isFinite(Number(c.values[0]))) {
      throw badRequest(`Condition ${op} on field ${field} takes one number, got ${JSON.stringify(c.values)}`, { field });
    }
  }
  let cond: SearchCondition;
  if (ENTITY_TYPE_FIELDS.has(field)) {
    cond = { column: 'entityType', values: c.values.map(entityNameOf) };
  } else if (field === 'urn') {
    cond = { column: 'urn', values: c.values };
  } else if (field === 'removed') {
    cond = { any: c.values.map((v) => ({ column: 'removed' as const, value: v === 'true' })) };
  } else if (field === `_entityType${FACET_SEPARATOR}typeNames`) {
    cond = { any: c.values.map((v) => {
      const [type, sub] = v.split(FACET_SEPARATOR);
      const byType: SearchCondition = { column: 'entityType', values: [entityNameOf(type!)] };
      return sub === undefined ? byType : { all: [byType, { field: 'typeNames', op: 'EQUAL', values: [sub] }] };
    }) };
  } else {
    cond = { field, op, values: normalizeValues(field, c.values) };
  }
  return c.negated ? { not: cond } : cond;
}

/** The field a clause constrains, as facets name it (a facet's own clauses do not narrow its own counts). */
export const facetFieldOf = (c: FilterClause) => {
  const f = fieldName(c.field);
  return ENTITY_TYPE_FIELDS.has(f) ? '_entityType' : f;
};

export function facetSpec(field: string): FacetSpec {
  if (ENTITY_TYPE_FIELDS.has(field)) return { kind: 'entityType' };
  const [first, second, ...rest] = field.split(FACET_SEPARATOR);
  if (second !== undefined && rest.length === 0 && ENTITY_TYPE_FIELDS.has(first!)) return { kind: 'entityTypeThen', field: second };
  if (second !== undefined) throw badRequest(`Facet ${field}: only the entity type can have a facet nested under it`, { field });
  return { kind: 'field', field: first! };
}

/**
 * The condition of a request: its entity types, its filter groups, the urns it is limited to, and — unless a
 * clause asks about removal — only entities that are not soft-deleted. `skipFacet` leaves out the clauses on one
 * facet field (how that facet's own counts are taken).
 */
export function requestCondition(req: SearchRequest, skipFacet?: string): SearchCondition {
  const all: SearchCondition[] = [];
  all.push(req.entityTypes?.length ? { column: 'entityType', values: [...req.entityTypes] } : { not: { column: 'entityType', values: FOUND_ONLY_WHEN_NAMED } });
  if (req.urns) all.push({ column: 'urn', values: req.urns });
  const groups = (req.filters ?? []).filter((g) => g.length > 0);
  if (!groups.some((g) => g.some((c) => fieldName(c.field) === 'removed'))) all.push({ column: 'removed', value: false });
  const kept = groups.map((g) => g.filter((c) => skipFacet === undefined || !sameFacet(facetFieldOf(c), skipFacet)));
  // A group left empty by skipping its clauses holds for every document: the whole OR then holds.
  if (kept.length && !kept.some((g) => g.length === 0)) all.push({ any: kept.map((g) => ({ all: g.map(clauseCondition) })) });
  return { all };
}

/** A facet's own clauses: its field, or for the nested type facet, the type and sub-type clauses too. */
function sameFacet(clauseField: string, facet: string): boolean {
  if (clauseField === facet || (ENTITY_TYPE_FIELDS.has(facet) && clauseField === '_entityType')) return true;
  const parts = facet.split(FACET_SEPARATOR).map((p) => (ENTITY_TYPE_FIELDS.has(p) ? '_entityType' : p));
  return parts.length > 1 && (parts.includes(clauseField) || clauseField === parts.join(FACET_SEPARATOR));
}

export type ViewCriterion = { field: string; value?: string; values?: string[]; condition?: string; negated?: boolean };

/** A stored view criterion as a clause: IS_NULL is the negation of EXISTS. */
export function viewClause(c: ViewCriterion): FilterClause {
  const values = c.values?.length ? c.values : c.value !== undefined && c.value !== '' ? [c.value] : [];
  if (c.condition === 'IS_NULL') return { field: c.field, values, condition: 'EXISTS', negated: !c.negated };
  return { field: c.field, values, condition: c.condition ?? 'EQUAL', negated: c.negated ?? false };
}

export function sortOf(s: SearchRequest['sort']): SearchSort {
  if (!s?.field) return { by: 'relevance' };
  const order = (s.order ?? 'ASCENDING').toUpperCase();
  if (order !== 'ASCENDING' && order !== 'DESCENDING') throw badRequest(`sortOrder must be ASCENDING or DESCENDING, got ${s.order}`);
  const descending = order === 'DESCENDING';
  if (s.field === '_entityName' || s.field === 'name' || s.field === '_name') return { by: 'name', descending };
  return { by: 'field', field: fieldName(s.field), descending };
}
