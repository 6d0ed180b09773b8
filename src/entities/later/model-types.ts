/**
 * The compact form scripts/gen-datahub-model.js writes a DataHub release's model in (datahub-model.generated.ts).
 *
 * A value shape (GenType) is one of: a primitive name; `['enum', ...symbols]`; `['array', T]`; `['map', T]`;
 * `['union', ...members]` (each member 'primitive' or 'record': a record member travels as a one-key object);
 * `'#<fqn>'`, a named type of TYPES; or a record, `{ field: T, 'optionalField?': T }`.
 */
export type GenPrimitive = 'string' | 'urn' | 'int' | 'number' | 'boolean' | 'any';
export type GenType =
  | GenPrimitive
  | `#${string}`
  | readonly ['enum', ...string[]]
  | readonly ['array', GenType]
  | readonly ['map', GenType]
  | readonly ['union', ...string[]]
  | { readonly [field: string]: GenType };

export interface GenAspect {
  /** The Pegasus class, without `pegasus2avro`. */
  readonly className: string;
  readonly type: { readonly [field: string]: GenType };
  readonly timeseries?: boolean;
  /** DataHub's @Relationship annotations: [path to the urn (`*` for each item of a list), relationship name]. */
  readonly relationships?: readonly (readonly [string, string])[];
}

export interface GenEntity {
  readonly category: string;
  readonly keyAspect: string;
  /** Key fields in urn order, with how each is written. */
  readonly keyFields: readonly (readonly [string, 'string' | 'urn' | 'fabric'])[];
  readonly aspects: readonly string[];
}
