import type { Operation } from '../model/privileges.js';
import { enumOf, rec, str, urn, type Fields, type Schema } from './schema.js';

/**
 * What the catalog knows about an entity type, in one value: its urn and key aspect, its aspects (each with its
 * schema, its relationships and what it gives search), its GraphQL type and how each field maps from the aspects,
 * its browse path, display name, edits and privileges. Registry, validation, ingest, search, relationships and
 * GraphQL read descriptors (src/entities/index.ts lists them); none of them switches on an entity type's name.
 *
 * Nothing here depends on the transport: GraphQL fields are functions of a FieldContext, which the GraphQL layer
 * implements over its per-request loader.
 */

// ---------------------------------------------------------------------------------------------------------------
// Aspects

/**
 * When and by whom an edge was made and last changed, and whether it was drawn by hand: what DataHub's lineage
 * @Relationship annotations copy onto the edge (createdOn, createdActor, updatedOn, updatedActor, properties).
 */
export interface EdgeMeta {
  createdOn?: number;
  createdActor?: string;
  updatedOn?: number;
  updatedActor?: string;
  /** properties.source === 'UI'. */
  manual?: boolean;
}

/** Receives one relationship: its DataHub name, the urn it points to, and the edge's stamps where the aspect has them. */
export type EdgeSink = (type: string, destination: unknown, meta?: EdgeMeta) => void;

/** The stamps of a DataHub Edge record (created, lastModified, properties). */
export function edgeMeta(e: { created?: { time?: number; actor?: string }; lastModified?: { time?: number; actor?: string };
  properties?: Readonly<Record<string, string>> }): EdgeMeta {
  return { createdOn: e.created?.time, createdActor: e.created?.actor, updatedOn: e.lastModified?.time,
    updatedActor: e.lastModified?.actor, manual: e.properties?.source === 'UI' };
}
/** Receives text for the search document. */
export type TextSink = (text: unknown) => void;

export interface AspectDef<N extends string = string, T = unknown> {
  readonly name: N;
  /** The Pegasus class, without `pegasus2avro`: the key of the aspect union on the wire. */
  readonly className: string;
  readonly timeseries: boolean;
  readonly schema: Schema<T>;
  /** False while Almanac checks only that the value is an object (its fields are kept, not checked). */
  readonly precise: boolean;
  /** The relationships the value declares, named as DataHub's @Relationship annotations name them. */
  readonly edges?: (value: T, add: EdgeSink) => void;
  /** Text the value adds to its entity's search document. */
  readonly searchText?: (value: T, add: TextSink) => void;
  /** Search filter fields (DataHub's names) whose values come from this aspect. */
  readonly facets?: Readonly<Record<string, (value: T) => readonly string[]>>;
}

export type AnyAspect = AspectDef<string, any>;
export type AspectValue<A> = A extends AspectDef<string, infer T> ? T : never;

interface AspectOptions<T> {
  timeseries?: boolean;
  edges?: (value: T, add: EdgeSink) => void;
  searchText?: (value: T, add: TextSink) => void;
  facets?: Readonly<Record<string, (value: T) => readonly string[]>>;
}

/** An aspect with a precise schema. */
export function aspect<const N extends string, T>(name: N, className: string, schema: Schema<T>, options: AspectOptions<T> = {}): AspectDef<N, T> {
  return { name, className, schema, precise: true, timeseries: options.timeseries ?? false, edges: options.edges,
    searchText: options.searchText, facets: options.facets };
}

/** An aspect whose fields Almanac does not check yet: any object is accepted and kept. */
export function openAspect<const N extends string>(name: N, className: string,
  options: AspectOptions<Readonly<Record<string, unknown>>> = {}): AspectDef<N, Readonly<Record<string, unknown>>> {
  return { ...aspect(name, className, rec({}) as Schema<Readonly<Record<string, unknown>>>, options), precise: false };
}

// ---------------------------------------------------------------------------------------------------------------
// Keys and urns

/** How a key field is written in the urn: a string, another entity's urn, or an environment (FabricType). */
export type KeyFieldKind = 'string' | 'urn' | 'fabric';

export interface KeyField {
  readonly name: string;
  readonly kind: KeyFieldKind;
}

/** The key fields of one entity, as written in its urn (tuple parts are not percent-decoded). */
export type KeyValues = Readonly<Record<string, string>>;

/** DataHub 0.12.1's FabricType: the environments a dataset, ML model or data process lives in. */
export const FABRIC_TYPES = ['DEV', 'TEST', 'QA', 'UAT', 'EI', 'PRE', 'STG', 'NON_PROD', 'PROD', 'CORP'] as const;

const KEY_FIELD_SCHEMAS: Record<KeyFieldKind, Schema<string>> = { string: str, urn, fabric: enumOf(FABRIC_TYPES) };

export interface KeyAspectDef<N extends string = string> extends AspectDef<N, KeyValues> {
  /** The key fields, in urn order. */
  readonly fields: readonly KeyField[];
}

/**
 * The key aspect: the urn's parts as a record. DataHub writes it for every new entity; a client may send it too, and
 * then it must name the same entity as the urn.
 */
export function keyAspect<const N extends string>(name: N, className: string, fields: readonly (readonly [string, KeyFieldKind])[],
  options: AspectOptions<KeyValues> = {}): KeyAspectDef<N> {
  const schemaFields: Fields = {};
  for (const [f, kind] of fields) schemaFields[f] = KEY_FIELD_SCHEMAS[kind];
  return { ...aspect(name, className, rec(schemaFields) as unknown as Schema<KeyValues>, options),
    fields: fields.map(([f, kind]) => ({ name: f, kind })) };
}

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

/** Every entity travels between resolvers as its urn; fields load what they need. */
export interface EntityRef {
  urn: string;
}
export const ref = (u: string): EntityRef => ({ urn: u });

export interface RelatedQuery {
  direction: 'INCOMING' | 'OUTGOING';
  types: readonly string[];
  start: number;
  count: number;
}

/**
 * What a `description` read answers where DataHub keeps an ingested and an edited layer (a dataset's, chart's, …
 * `properties.description`, a column's in `schemaMetadata.fields`): `visible`, the text users see, the edited one where
 * there is one (`/api/graphql`, the seed's contract); or `ingested`, DataHub's stored layers as its 0.12.1 mappers
 * serve them, the ingested text there and the edited one in `editableProperties` / `editableSchemaMetadata` alone
 * (`/api/v2/graphql`, DataHub's web app, which merges the layers itself). A column's tags and terms are the ingested
 * layer either way.
 */
export type DescriptionLayer = 'ingested' | 'visible';

/** What a GraphQL field of an entity can read: implemented by the GraphQL layer, batched per request. */
export interface FieldContext {
  readonly urn: string;
  /** Which description the request's endpoint answers (see DescriptionLayer). */
  readonly descriptionLayer: DescriptionLayer;
  /** The urn's key fields. */
  readonly key: KeyValues;
  /** The field's arguments. */
  readonly args: Readonly<Record<string, any>>;
  /** The latest value of an aspect of this entity, or of the entity named by `of`. */
  aspect<T>(def: AspectDef<string, T>, of?: string): Promise<T | undefined>;
  /** One stored version of an aspect of this entity (0 is the latest). */
  aspectVersion<T>(def: AspectDef<string, T>, version: number): Promise<T | undefined>;
  /** Values of a time-series aspect of this entity, newest first (at most `limit`). */
  timeseries<T>(def: AspectDef<string, T>, range: { startTimeMillis?: number; endTimeMillis?: number; limit: number }): Promise<T[]>;
  /** When any aspect of the entity was last observed by an ingestion run (system metadata), or null. */
  lastObserved(): Promise<number | null>;
  /** DataHub's EntityType value of an entity type named by its name (`dataset`) or that value itself; undefined if unknown. */
  entityTypeValue(type: string): string | undefined;
  /** The relationship index around this entity. */
  related(q: RelatedQuery): Promise<{ total: number; edges: { source: string; type: string; destination: string }[] }>;
}

export type FieldResolver = (f: FieldContext) => unknown;

export interface GraphQLPart {
  /** DataHub's EntityType enum value. */
  readonly entityType: string;
  /** The object type that serves the entity; without one it is served as GenericEntity (urn and type). */
  readonly objectType?: string;
  /** SDL of the object type and the types only it uses; shared types live in src/graphql/schema/*.graphql. */
  readonly sdl?: string;
  /** The root query field that reads one entity of this type by urn (`dataset(urn:)`). */
  readonly rootField?: string;
  /**
   * How each field maps from the stored aspects. Fields not listed are read as plain properties; `type`, `exists`,
   * `relationships`, `lineage` (from the descriptors' `lineage` parts) and `privileges` are served alike for every
   * entity type by the GraphQL layer.
   */
  readonly fields?: Readonly<Record<string, FieldResolver>>;
}

// ---------------------------------------------------------------------------------------------------------------
// Search, edits, privileges

export interface SearchPart {
  /** The entity's name as words from its urn (the start of its search document). Default: every part that is not a urn. */
  readonly name?: (key: KeyValues) => string;
  /** Filter fields whose values come from the urn (aspects add theirs through `facets`). */
  readonly facets?: Readonly<Record<string, (key: KeyValues) => readonly string[]>>;
  /**
   * Found only by a search that names this type: a search across entities without types leaves it out, as DataHub's
   * SEARCHABLE_ENTITY_TYPES does (its web app cannot show such results).
   */
  readonly onlyWhenNamed?: boolean;
}

/** Where updateDescription writes an entity's documentation. */
export interface DescriptionTarget {
  readonly aspect: AnyAspect;
  readonly field: string;
  /** When set, the aspect must exist already (DataHub refuses otherwise), and this names the entity in the refusal. */
  readonly requiresExisting?: string;
  /** Created and last-modified stamps are kept up to date (the editable* aspects). */
  readonly stamped?: boolean;
  /** Required fields of the aspect a first edit must fill in, from the urn. */
  readonly defaults?: (key: KeyValues) => Record<string, unknown>;
}

export interface EditsPart {
  readonly description?: DescriptionTarget;
}

/** Operations of the privilege table that guard reads of an entity type beyond the plain read privilege. */
export type ReadOperation = Extract<Operation, `read.${string}`>;

// ---------------------------------------------------------------------------------------------------------------
// Lineage

/** A kind of lineage edge: a relationship type, and the entity types (urn names) it may point to. */
export interface LineageEdge {
  readonly type: string;
  readonly entityTypes: readonly string[];
}

/**
 * The entity type's part in the lineage graph, from DataHub 0.12.1's @Relationship annotations with `isLineage`:
 * the OUTGOING edges that point at an upstream (`isUpstream`, the default) or at a downstream (`isUpstream: false`).
 * The other side of each edge sees it INCOMING, in the opposite direction (a dataset a job Produces has the job upstream).
 */
export interface LineagePart {
  readonly upstream?: readonly LineageEdge[];
  readonly downstream?: readonly LineageEdge[];
}

// ---------------------------------------------------------------------------------------------------------------
// The web UI

/**
 * How people call an entity of this type: the web UI's badges, the home page's totals and the search page's type
 * filter. The UI's list of types is generated from these (scripts/ui-entity-types.ts → ui/src/generated/); a type
 * without one is named from its GraphQL EntityType there.
 */
export interface DisplayPart {
  readonly label: string;
  /** Default: the label and an s. */
  readonly plural?: string;
  /** Place in the UI's lists (the home page's totals), lowest first. */
  readonly rank: number;
}

// ---------------------------------------------------------------------------------------------------------------
// The descriptor

export interface EntityDescriptor {
  /** DataHub's entity name, as written in urns (`dataset`, `corpuser`, `mlModel`). */
  readonly name: string;
  /** core: catalog entities; internal: platform records (tokens, secrets, settings). */
  readonly category: 'core' | 'internal';
  /** Present when the web UI lists the entity type. */
  readonly display?: DisplayPart;
  readonly key: KeyAspectDef;
  /** The entity type's aspects in DataHub 0.12.1's registry (a later release's type: that release's), key aspect excluded. */
  readonly aspects: readonly AnyAspect[];
  /** Aspects Almanac accepts beyond DataHub 0.12.1's registry for this type; the descriptor says why. */
  readonly almanacAspects?: readonly AnyAspect[];
  /** Snapshot class of the legacy MCE form, when the entity has one (without `pegasus2avro`). */
  readonly snapshotClass?: string;
  readonly graphql: GraphQLPart;
  /** Present when the entity type is searchable. */
  readonly search?: SearchPart;
  /**
   * DataHub's default browse path for an entity of this type without a browsePaths aspect; `delimiter` is the
   * dataset name delimiter of the platform the urn names, when its dataPlatformInfo gives one.
   */
  readonly browsePath?: (key: KeyValues, delimiter?: string) => string;
  /** A short human name from the urn (autocomplete suggestions). Default: the last urn part. */
  readonly displayName?: (key: KeyValues) => string;
  /** The platform urn the urn names, if it names one (datasets, ML models, charts by their tool): the `platform` search filter. */
  readonly platform?: (key: KeyValues) => string | undefined;
  readonly edits?: EditsPart;
  readonly privileges?: { readonly read?: ReadOperation };
  /** Present when the entity type's own aspects declare lineage edges. */
  readonly lineage?: LineagePart;
}

export function defineEntity<const D extends EntityDescriptor>(d: D): D {
  return d;
}

/** Tags GraphQL SDL in descriptors (editors highlight `gql` templates); the text is used as written. */
export const gql = (text: TemplateStringsArray, ...values: unknown[]): string => String.raw(text, ...values);
