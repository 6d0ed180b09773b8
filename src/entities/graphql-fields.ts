import { ref, type DescriptionLayer, type EntityDescriptor, type EntityRef, type FieldContext, type FieldResolver } from './descriptor.js';
import { dataPlatformInfo } from './data-platform.js';
import { ownershipTypeOf } from './ownership-types.js';
import * as shared from './shared-aspects.js';

/**
 * DataHub's GraphQL shapes of the shared aspects, defined once. Descriptors spread COMMON_FIELDS into their
 * fields; the GraphQL layer attaches a mapping only where the type's SDL declares the field.
 */
type Stamp = { time?: number; actor?: string } | undefined;

export function auditStamp(s: Stamp) {
  return { time: s?.time ?? 0, actor: s?.actor ?? null };
}

export function customProperties(map: Readonly<Record<string, unknown>> | undefined, associatedUrn: string) {
  if (!map) return null;
  return Object.entries(map).map(([key, value]) => ({ key, value: value == null ? null : String(value), associatedUrn }));
}

/** Where a read answers (a FieldContext, or the request's GraphQL context): which description layer its endpoint serves. */
export type Layered = { readonly descriptionLayer: DescriptionLayer };

/**
 * The `description` of an entity's `properties` (or a column's) on the request's endpoint (see DescriptionLayer): the
 * text users see, where an edited description wins when it has text (as DataHub's own UI decides), else the ingested
 * one; or DataHub's own field, the ingested text alone, as its mappers serve it.
 */
export function descriptionFor(f: Layered, edited: string | undefined | null, ingested: string | undefined | null): string | null {
  return f.descriptionLayer === 'visible' && edited ? edited : (ingested ?? null);
}

/**
 * Whether `properties` exist: DataHub maps them from the ingested aspect alone (null without it); the text users see
 * also has them for an edited description alone.
 */
export function hasProperties(f: Layered, ingested: object | undefined | null, edited: object | undefined | null): boolean {
  return !!ingested || (f.descriptionLayer === 'visible' && !!edited);
}

export function globalTags(aspect: shared.GlobalTags | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return { tags: (aspect.tags ?? []).map((t) => ({ tag: ref(t.tag), associatedUrn })) };
}

export function glossaryTerms(aspect: shared.GlossaryTerms | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return { terms: (aspect.terms ?? []).map((t) => ({ term: ref(t.urn), associatedUrn })) };
}

export function ownership(aspect: shared.Ownership | undefined, associatedUrn: string) {
  if (!aspect) return null;
  return {
    owners: (aspect.owners ?? []).map((o) => ({
      owner: ref(o.owner),
      type: o.type ?? null,
      ownershipType: ref(ownershipTypeOf(o)),
      source: o.source ? { type: o.source.type ?? 'OTHER', url: o.source.url ?? null } : null,
      associatedUrn,
    })),
    lastModified: auditStamp(aspect.lastModified),
  };
}

export function institutionalMemory(aspect: { elements?: { url: string; description?: string; createStamp?: Stamp }[] } | undefined,
  associatedUrn: string) {
  if (!aspect) return null;
  return {
    elements: (aspect.elements ?? []).map((e) => ({
      url: e.url,
      label: e.description ?? '',
      description: e.description ?? '',
      author: ref(e.createStamp?.actor ?? 'urn:li:corpuser:unknown'),
      created: auditStamp(e.createStamp),
      associatedUrn,
    })),
  };
}

type DeprecationLike = { deprecated?: boolean; decommissionTime?: number; note?: string; actor?: string };

/** The deprecation aspect, or a dataset's legacy datasetDeprecation when that is all there is. */
export function deprecation(current: DeprecationLike | undefined, legacy?: DeprecationLike) {
  const d = current ?? legacy;
  if (!d) return null;
  return { deprecated: !!d.deprecated, decommissionTime: d.decommissionTime ?? null, note: d.note ?? null, actor: d.actor ?? null };
}

export const status = (aspect: { removed?: boolean } | undefined) => (aspect ? { removed: !!aspect.removed } : null);
export const subTypes = (aspect: { typeNames?: string[] } | undefined) => (aspect ? { typeNames: aspect.typeNames ?? [] } : null);

export function browsePaths(aspect: { paths?: string[] } | undefined, fallback: string | undefined) {
  const paths = aspect ? aspect.paths ?? [] : fallback !== undefined ? [fallback] : undefined;
  return paths ? paths.map((p) => ({ path: p.split('/').filter(Boolean) })) : null;
}

export function domain(aspect: { domains?: string[] } | undefined, associatedUrn: string) {
  const first = aspect?.domains?.[0];
  return first ? { domain: ref(first), associatedUrn } : null;
}

/** The containers above an entity, nearest first (at most 50, and never round a cycle). */
export async function parentContainers(f: FieldContext) {
  const containers: EntityRef[] = [];
  const seen = new Set<string>([f.urn]);
  let parent = (await f.aspect(shared.container))?.container;
  while (parent && !seen.has(parent) && containers.length < 50) {
    seen.add(parent);
    containers.push(ref(parent));
    parent = (await f.aspect(shared.container, parent))?.container;
  }
  return { count: containers.length, containers };
}

export function dataPlatformInstance(d: { platform: string; instance?: string } | undefined) {
  return d?.instance ? { urn: d.instance, type: 'DATA_PLATFORM_INSTANCE', platform: ref(d.platform),
    instanceId: String(d.instance).split(',').pop()?.replace(')', '') ?? '' } : null;
}

/** browsePathsV2 as DataHub's BrowsePathV2: each step's id as its name, and its entity when the step names one. */
export function browsePathV2(aspect: { path?: { id: string; urn?: string }[] } | undefined) {
  return aspect ? { path: (aspect.path ?? []).map((p) => ({ name: p.id, entity: p.urn ? ref(p.urn) : null })) } : null;
}

/**
 * The browsePathsV2 DataHub 0.12.1 generates for an entity ingested without one (it stores it on first write;
 * Almanac computes it on read): a dataset's lowercased name split on its platform's delimiter (`.` unless the
 * platform's info names another), its last part left out; a data job's flow; anything else, or a dataset whose
 * name has one part, in a "Default" folder.
 */
export async function defaultBrowsePathV2(f: Pick<FieldContext, 'urn' | 'key' | 'aspect'>): Promise<{ path: { id: string; urn?: string }[] }> {
  const entityType = f.urn.slice('urn:li:'.length).split(':', 1)[0];
  if (entityType === 'dataJob' && typeof f.key.flow === 'string') return { path: [{ id: f.key.flow, urn: f.key.flow }] };
  if (entityType === 'dataset' && typeof f.key.name === 'string') {
    const platform = typeof f.key.platform === 'string' ? f.key.platform : undefined;
    const delimiter = (platform && (await f.aspect(dataPlatformInfo, platform))?.datasetNameDelimiter?.[0]) || '.';
    const parts = f.key.name.includes(delimiter) ? f.key.name.toLowerCase().split(delimiter).filter(Boolean).slice(0, -1) : [];
    if (parts.length) return { path: parts.map((id) => ({ id })) };
  }
  return { path: [{ id: 'Default' }] };
}

/**
 * The legacy browse path DataHub 0.12.1 generates for an entity ingested without one: its descriptor's, given the
 * dataset name delimiter of the platform its urn names (from that platform's dataPlatformInfo, when it gives one).
 */
export async function defaultBrowsePath(d: EntityDescriptor, f: Pick<FieldContext, 'key' | 'aspect'>): Promise<string | undefined> {
  if (!d.browsePath) return undefined;
  const platform = d.platform?.(f.key);
  const delimiter = platform ? (await f.aspect(dataPlatformInfo, platform))?.datasetNameDelimiter?.[0] : undefined;
  return d.browsePath(f.key, delimiter);
}

/** Mappings of the shared aspects to the fields DataHub gives every entity type that has them. */
export const COMMON_FIELDS: Readonly<Record<string, FieldResolver>> = {
  ownership: async (f) => ownership(await f.aspect(shared.ownership), f.urn),
  globalTags: async (f) => globalTags(await f.aspect(shared.globalTags), f.urn),
  tags: async (f) => globalTags(await f.aspect(shared.globalTags), f.urn),
  glossaryTerms: async (f) => glossaryTerms(await f.aspect(shared.glossaryTerms), f.urn),
  institutionalMemory: async (f) => institutionalMemory(await f.aspect(shared.institutionalMemory), f.urn),
  deprecation: async (f) => deprecation(await f.aspect(shared.deprecation)),
  status: async (f) => status(await f.aspect(shared.status)),
  subTypes: async (f) => subTypes(await f.aspect(shared.subTypes)),
  domain: async (f) => domain(await f.aspect(shared.domains), f.urn),
  container: async (f) => {
    const c = await f.aspect(shared.container);
    return c?.container ? ref(c.container) : null;
  },
  parentContainers,
  dataPlatformInstance: async (f) => dataPlatformInstance(await f.aspect(shared.dataPlatformInstance)),
  lastIngested: (f) => f.lastObserved(),
  browsePathV2: async (f) => browsePathV2((await f.aspect(shared.browsePathsV2)) ?? (await defaultBrowsePathV2(f))),
  embed: async (f) => {
    const e = await f.aspect(shared.embed);
    return e ? { renderUrl: e.renderUrl ?? null } : null;
  },
};
