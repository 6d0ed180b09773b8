/**
 * The entity registry as the storage and REST layers see it: names, key fields, aspect lists, Pegasus classes,
 * time-series tables. Derived from the entity descriptors (src/entities), which hold everything about each type.
 */

import {
  ALL_ASPECTS, aspectNameOfClass, aspectsOf, descriptorOfSnapshot, ENTITY_DESCRIPTORS, entityDescriptor, entityHasAspect as hasAspect,
  keyAspectFromParts, stripPegasus2Avro,
} from '../entities/index.js';

export { aspectNameOfClass, stripPegasus2Avro };

export interface AspectSpec {
  readonly name: string;
  /** Fully qualified Pegasus class, without `pegasus2avro`: the key of the aspect union on the wire. */
  readonly className: string;
  readonly timeseries: boolean;
}

export interface EntitySpec {
  readonly name: string;
  readonly keyAspect: string;
  /** Key aspect fields, in URN order. */
  readonly keyFields: readonly string[];
  /** Every aspect the type accepts, key aspect first. */
  readonly aspects: readonly string[];
  /** Snapshot class of the legacy MCE form, when the entity has one. */
  readonly snapshotClass?: string;
}

// Specs are made on first use and kept per definition: the registry extension (ALMANAC_REGISTRY) is applied at start,
// after this module loads, and a definition it replaces is simply not looked up again.
const ASPECT_SPECS = new WeakMap<object, AspectSpec>();
const ENTITY_SPECS = new WeakMap<object, { aspects: readonly unknown[]; spec: EntitySpec }>();

export function entitySpec(entityType: string): EntitySpec | undefined {
  const d = entityDescriptor(entityType);
  if (!d) return undefined;
  const aspects = aspectsOf(d);
  const kept = ENTITY_SPECS.get(d);
  if (kept && kept.aspects === aspects) return kept.spec;
  const spec: EntitySpec = { name: d.name, keyAspect: d.key.name, keyFields: d.key.fields.map((f) => f.name), aspects: aspects.map((a) => a.name),
    snapshotClass: d.snapshotClass };
  ENTITY_SPECS.set(d, { aspects, spec });
  return spec;
}

export function aspectSpec(aspect: string): AspectSpec | undefined {
  const a = ALL_ASPECTS.get(aspect);
  if (!a) return undefined;
  let spec = ASPECT_SPECS.get(a);
  if (!spec) ASPECT_SPECS.set(a, spec = { name: a.name, className: a.className, timeseries: a.timeseries });
  return spec;
}

export function entityHasAspect(entityType: string, aspect: string): boolean {
  const d = entityDescriptor(entityType);
  return d ? hasAspect(d, aspect) : false;
}

/** `com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot` → `dataset`. */
export function entityTypeOfSnapshot(cls: string): string | undefined {
  return descriptorOfSnapshot(cls)?.name;
}

/** DataHub's index name for a time-series aspect: `dataset_datasetprofileaspect_v1`. */
export function timeseriesIndexName(entityType: string, aspect: string): string {
  return `${entityType.toLowerCase()}_${aspect.toLowerCase()}aspect_v1`;
}

export interface TimeseriesIndex {
  readonly entityType: string;
  readonly aspect: string;
  readonly indexName: string;
}

/** Every (entity type, time-series aspect) pair: one table each. */
export const TIMESERIES_INDICES: readonly TimeseriesIndex[] = ENTITY_DESCRIPTORS.flatMap((d) =>
  aspectsOf(d).filter((a) => a.timeseries).map((a) => ({ entityType: d.name, aspect: a.name, indexName: timeseriesIndexName(d.name, a.name) })));

/** Finds a time-series index by entity type and aspect, accepting DataHub's lower-case aspect spelling. */
export function findTimeseriesIndex(entityType: string, aspect: string): TimeseriesIndex | undefined {
  const et = entityDescriptor(entityType)?.name;
  if (!et) return undefined;
  const a = aspect.toLowerCase();
  return TIMESERIES_INDICES.find((i) => i.entityType === et && i.aspect.toLowerCase() === a);
}

/** The key aspect value DataHub derives from an entity's URN parts. */
export function keyAspectValue(entityType: string, parts: readonly string[]): Record<string, string> | undefined {
  const d = entityDescriptor(entityType);
  return d ? keyAspectFromParts(d, parts) : undefined;
}
