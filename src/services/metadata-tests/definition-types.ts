/** The compiled form of a metadata test definition (definition.ts parses text into it; evaluate.ts runs it). */

export const OPERATORS = [
  'equals', 'contains_any', 'contains_str', 'starts_with', 'regex_match',
  'greater_than', 'less_than', 'exists', 'is_true', 'is_false',
] as const;
export type OperatorName = (typeof OPERATORS)[number];

/** Operators that compare the property with given values; the others take none. */
export const BINARY: ReadonlySet<string> = new Set(['equals', 'contains_any', 'contains_str', 'starts_with', 'regex_match',
  'greater_than', 'less_than']);

/** Where a segment sequence `segs[i..j]` joined with dots may also be a single map key (e.g. `spark.app.name`). */
export interface DottedKey {
  readonly key: string;
  /** Index of the first segment after the joined ones. */
  readonly next: number;
}

/** A property path split once at parse time. */
export interface PropertyPath {
  readonly text: string;
  readonly kind: 'urn' | 'entityType' | 'aspect';
  /** Aspect name (the first segment) for `aspect` paths, '' otherwise. */
  readonly aspect: string;
  /** Field names after the aspect. */
  readonly steps: readonly string[];
  /** `dotted[i]`: keys made of steps i..j joined with dots, tried when step i is not a key of the object. */
  readonly dotted: readonly (readonly DottedKey[])[];
}

/** A compiled leaf comparison against one resolved value. */
export type ValueMatcher = (value: unknown) => boolean;

export interface LeafPredicate {
  readonly kind: 'leaf';
  /** Where the leaf sits in the definition, e.g. `rules.and[1]`. */
  readonly path: string;
  readonly property: PropertyPath;
  readonly operator: OperatorName;
  /** Right-hand values as strings, for the binary operators only. */
  readonly values?: readonly string[];
  readonly negate: boolean;
  /** True when one resolved value satisfies the operator (for is_false: when the value is false). */
  readonly match: ValueMatcher;
}
export interface AndPredicate { readonly kind: 'and'; readonly path: string; readonly children: readonly Predicate[] }
export interface OrPredicate { readonly kind: 'or'; readonly path: string; readonly children: readonly Predicate[] }
export interface NotPredicate { readonly kind: 'not'; readonly path: string; readonly child: Predicate }
export type Predicate = LeafPredicate | AndPredicate | OrPredicate | NotPredicate;

export interface TestDefinition {
  /** `on.types` as written. */
  readonly types: readonly string[];
  /** `on.types` normalised for matching (see `entityTypeKey`). */
  readonly typeKeys: readonly string[];
  readonly conditions?: Predicate;
  readonly rules: Predicate;
  /** The `actions` block, deep-frozen and otherwise untouched (Almanac runs no actions). */
  readonly actions?: Readonly<Record<string, unknown>>;
}

/**
 * Entity types compare case-insensitively and ignoring underscores, so `dataset`, `DATASET`, `dataFlow` and the
 * GraphQL enum spelling `DATA_FLOW` all name the same type.
 */
export function entityTypeKey(entityType: string): string {
  return entityType.toLowerCase().replace(/_/g, '');
}
