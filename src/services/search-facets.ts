import { entityDescriptor } from '../entities/index.js';
import type { FacetCount, FacetSpec } from '../storage/types.js';
import { entityNameOf, FACET_SEPARATOR, facetFieldOf, normalizeValues, type FilterClause } from './search-filters.js';

/** Search facets in DataHub's form: which are counted by default, their display names, their buckets (src/services/search.ts). */

export interface Aggregation {
  value: string;
  count: number;
  /** The value's entity, when the value is a urn. */
  entity: string | null;
}

export interface Facet {
  field: string;
  displayName: string;
  aggregations: Aggregation[];
}

/**
 * The facets DataHub 0.12.1 returns when none are asked for: the fields its models add to filters, and the type —
 * twice, as `_entityType` and as the legacy `entity` its web app's tag and term pages read.
 */
export const DEFAULT_FACETS: readonly string[] = ['_entityType', 'entity', 'platform', 'origin', 'typeNames', 'tags', 'glossaryTerms', 'owners',
  'domains', 'container', 'platformInstance'];

/** DataHub's display names of filter fields (its models' filterNameOverride). */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  _entityType: 'Type', entity: 'Type', platform: 'Platform', origin: 'Environment', env: 'Environment', typeNames: 'Sub Type', tags: 'Tag',
  glossaryTerms: 'Glossary Term', owners: 'Owned By', domains: 'Domain', container: 'Container', platformInstance: 'Platform Instance',
  deprecated: 'Deprecated', hasDescription: 'Has Description', degree: 'Degree',
};
export const displayNameOfField = (field: string) =>
  field.split(FACET_SEPARATOR).map((f) => DISPLAY_NAMES[f] ?? f).join(FACET_SEPARATOR);

/** DataHub's terms aggregations return this many values per facet (values a filter selects are added). */
export const FACET_BUCKETS = 20;

/** The enum DataHub's facets show for an entity type. */
export const entityTypeEnum = (name: string) => entityDescriptor(name)?.graphql.entityType ?? name;

/** The values each facet field's clauses select (shown with their count even when not among the top ones). */
export function selectedValues(groups: readonly (readonly FilterClause[])[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of groups) {
    for (const c of g) {
      if (c.negated || (c.condition && !['EQUAL', 'IN'].includes(c.condition.toUpperCase()))) continue;
      const f = facetFieldOf(c);
      const values = f === '_entityType' ? c.values.map((v) => entityTypeEnum(entityNameOf(v))) : normalizeValues(f, c.values);
      out.set(f, [...new Set([...(out.get(f) ?? []), ...values])]);
    }
  }
  return out;
}

export const byCountThenValue = (a: { value: string; count: number }, b: { value: string; count: number }) =>
  b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** One facet's aggregations in DataHub's form: most frequent first, at most FACET_BUCKETS, selected values kept. */
export function formatFacet(field: string, spec: FacetSpec, rows: readonly FacetCount[], selected: readonly string[]): Aggregation[] {
  let values: { value: string; count: number }[];
  if (spec.kind === 'entityType') {
    values = rows.map((r) => ({ value: entityTypeEnum(r.value), count: r.count }));
  } else if (spec.kind === 'entityTypeThen') {
    values = rows.map((r) => ({ value: r.sub === undefined ? entityTypeEnum(r.value) : `${entityTypeEnum(r.value)}${FACET_SEPARATOR}${r.sub}`, count: r.count }));
  } else {
    values = [...rows];
  }
  values = values.filter((v) => v.count > 0).sort(byCountThenValue);
  const top = values.slice(0, FACET_BUCKETS);
  for (const s of selected) {
    if (top.some((v) => v.value === s)) continue;
    top.push(values.find((v) => v.value === s) ?? { value: s, count: 0 });
  }
  return top.map((v) => ({ value: v.value, count: v.count, entity: v.value.startsWith('urn:li:') ? v.value : null }));
}
