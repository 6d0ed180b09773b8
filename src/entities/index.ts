import { decodeUrnPart, tryParseUrn, type Urn } from '../model/urn.js';
import { lookupTable } from '../model/safe-keys.js';
import { assertion } from './assertion.js';
import { chart } from './chart.js';
import { container } from './container.js';
import { corpGroup } from './corp-group.js';
import { corpuser } from './corp-user.js';
import { dashboard } from './dashboard.js';
import { dataContract } from './data-contract.js';
import { dataFlow } from './data-flow.js';
import { dataHubAccessToken } from './data-hub-access-token.js';
import { dataHubExecutionRequest } from './data-hub-execution-request.js';
import { dataHubIngestionSource } from './data-hub-ingestion-source.js';
import { dataHubPolicy } from './data-hub-policy.js';
import { dataHubRetention } from './data-hub-retention.js';
import { dataHubRole } from './data-hub-role.js';
import { dataHubSecret } from './data-hub-secret.js';
import { dataHubStepState } from './data-hub-step-state.js';
import { dataHubUpgrade } from './data-hub-upgrade.js';
import { dataHubView } from './data-hub-view.js';
import { dataJob } from './data-job.js';
import { dataPlatformInstance } from './data-platform-instance.js';
import { dataPlatform } from './data-platform.js';
import { dataProcessInstance } from './data-process-instance.js';
import { dataProcess } from './data-process.js';
import { dataProduct } from './data-product.js';
import { dataset } from './dataset.js';
import { FABRIC_TYPES, type AnyAspect, type EntityDescriptor, type KeyValues } from './descriptor.js';
import { laterModel } from './later/model.js';
import { domain } from './domain.js';
import { globalSettings } from './global-settings.js';
import { glossaryNode } from './glossary-node.js';
import { glossaryTerm } from './glossary-term.js';
import { inviteTokenEntity } from './invite-token.js';
import { mlFeatureTable } from './ml-feature-table.js';
import { mlFeature } from './ml-feature.js';
import { mlModelDeployment } from './ml-model-deployment.js';
import { mlModelGroup } from './ml-model-group.js';
import { mlModel } from './ml-model.js';
import { mlPrimaryKey } from './ml-primary-key.js';
import { notebook } from './notebook.js';
import { ownershipType } from './ownership-type.js';
import { post } from './post.js';
import { query } from './query.js';
import { role } from './role.js';
import { schemaField } from './schema-field.js';
import { tag } from './tag.js';
import { telemetry } from './telemetry.js';
import { test } from './test.js';

/**
 * The entity types of DataHub 0.12.1's entity registry, one descriptor each (see descriptor.ts for what a descriptor
 * holds); ENTITY_DESCRIPTORS adds the later release's (later/model.ts) and the deployment's own. Everything that depends on an entity type reads it from here.
 *
 * Adding an entity type: write `src/entities/<type>.ts` with its key aspect (`keyAspect`: name, Pegasus class, key
 * fields in urn order), its own aspects (`aspect` with a schema from schema.ts, the relationships they declare and
 * the text they give search; `openAspect` until the fields are modelled), and `defineEntity` listing its aspects in
 * the registry's order with the shared ones from shared-aspects.ts. For GraphQL give `graphql.entityType` (DataHub's
 * EntityType value); to make the type first class add `objectType`, its SDL (`sdl`, with the type's own sub-types),
 * `rootField` if DataHub has one, and `fields`: spread COMMON_FIELDS (graphql-fields.ts) for the shared aspects and
 * map the rest from the aspects through the FieldContext. Give `search` to make it searchable, `browsePath`,
 * `displayName` and `platform` where the urn says them, `edits.description` where updateDescription writes,
 * `privileges.read` when reading it needs more than viewing, and `display` for the web UI to list it (then
 * `npm run build:ui`). Then list it below. Nothing else needs to change: the
 * registry, validation, ingestion, search, relationships and GraphQL pick it up, and test/entities.test.ts checks it
 * against the registry.
 */
const BASE_DESCRIPTORS: readonly EntityDescriptor[] = [
  // In the order earlier Almanac versions listed them (listings such as getIndexSizes keep their order), then the rest.
  dataset, schemaField, corpuser, corpGroup, dataJob, dataFlow, chart, dashboard, mlModel, mlModelGroup, mlPrimaryKey, mlFeature,
  mlFeatureTable, tag, dataPlatform, glossaryTerm, glossaryNode, container, domain, test, dataHubAccessToken, dataHubPolicy, dataHubRole,
  ownershipType, assertion, dataProcessInstance, notebook, dataProduct,
  role, dataProcess, dataHubIngestionSource, dataHubSecret, dataHubExecutionRequest, dataHubRetention, dataPlatformInstance,
  mlModelDeployment, telemetry, dataHubUpgrade, inviteTokenEntity, globalSettings, post, dataHubStepState, dataHubView, query,
  dataContract,
];

const baseAspects = (d: EntityDescriptor): AnyAspect[] => [d.key, ...d.aspects, ...(d.almanacAspects ?? [])];
const BASE_ASPECTS = new Map<string, AnyAspect>();
for (const d of BASE_DESCRIPTORS) for (const a of baseAspects(d)) BASE_ASPECTS.set(a.name, a);

/**
 * DataHub's later model (later/model.ts, the release DATAHUB_RELEASE names): its entity types after 0.12.1's, and
 * the aspects it added to 0.12.1's types after theirs. An aspect name 0.12.1 already had keeps its 0.12.1 definition.
 */
const LATER = laterModel(BASE_DESCRIPTORS, (n) => BASE_ASPECTS.get(n),
  (d, a) => baseAspects(d).some((x) => x.name === a));

const BUILTIN = new Map<string, EntityDescriptor>([...BASE_DESCRIPTORS, ...LATER.entities].map((d) => [d.name.toLowerCase(), d]));
const BUILTIN_ASPECTS = new Map<string, AnyAspect>(BASE_ASPECTS);
for (const d of LATER.entities) for (const a of [d.key, ...d.aspects]) BUILTIN_ASPECTS.set(a.name, a);
for (const list of LATER.added.values()) for (const a of list) BUILTIN_ASPECTS.set(a.name, a);

/** An entity type of DataHub's registries (0.12.1's and the later release's), whatever a deployment declares. */
export function builtinEntityDescriptor(name: string): EntityDescriptor | undefined {
  return BUILTIN.get(name.toLowerCase());
}

/** An aspect of DataHub's registries (0.12.1's and the later release's), whatever a deployment declares. */
export function builtinAspect(name: string): AnyAspect | undefined {
  return BUILTIN_ASPECTS.get(name);
}

/** Aspects and entity types a deployment declares itself (ALMANAC_REGISTRY, src/registry/registry-extension.ts). */
export interface RegistryExtension {
  /** Aspects added to existing entity types, by entity type name. */
  readonly aspects: ReadonlyMap<string, readonly AnyAspect[]>;
  readonly entities: readonly EntityDescriptor[];
}
let extension: RegistryExtension = { aspects: new Map(), entities: [] };

/**
 * Every entity type: DataHub 0.12.1's, the later release's, then those the deployment declares. Live: the registry
 * extension is applied at start, after modules have loaded, so readers look it up when they run.
 */
export const ENTITY_DESCRIPTORS: readonly EntityDescriptor[] = [];

const BY_NAME = new Map<string, EntityDescriptor>();
// Entity type names are case-sensitive in urns, but the REST surface sees lower-case forms too.
const BY_LOWER = new Map<string, EntityDescriptor>();
const ASPECTS_OF = new Map<EntityDescriptor, readonly AnyAspect[]>();
const ALL = new Map<string, AnyAspect>();
const ASPECT_NAMES_OF = new Map<EntityDescriptor, ReadonlySet<string>>();
// Wire class name (short or qualified, without pegasus2avro) → aspect name.
const ASPECT_BY_CLASS = new Map<string, string>();
const BY_SNAPSHOT = new Map<string, EntityDescriptor>();
const BY_GRAPHQL_TYPE = new Map<string, EntityDescriptor>();

/** Every aspect, by name. A name means one definition: two different definitions under one name are a mistake. */
export const ALL_ASPECTS: ReadonlyMap<string, AnyAspect> = ALL;

function rebuild(): void {
  const list = ENTITY_DESCRIPTORS as EntityDescriptor[];
  list.length = 0;
  list.push(...BASE_DESCRIPTORS, ...LATER.entities, ...extension.entities);
  for (const m of [BY_NAME, BY_LOWER, ASPECTS_OF, ALL, ASPECT_NAMES_OF, ASPECT_BY_CLASS, BY_SNAPSHOT, BY_GRAPHQL_TYPE]) m.clear();
  for (const d of list) {
    if (BY_NAME.has(d.name)) throw new Error(`entity type ${d.name} is defined twice`);
    BY_NAME.set(d.name, d);
    if (!BY_LOWER.has(d.name.toLowerCase())) BY_LOWER.set(d.name.toLowerCase(), d);
    const aspects = [...baseAspects(d), ...(LATER.added.get(d.name) ?? []), ...(extension.aspects.get(d.name) ?? [])];
    ASPECTS_OF.set(d, aspects);
    ASPECT_NAMES_OF.set(d, new Set(aspects.map((a) => a.name)));
    for (const a of aspects) {
      const seen = ALL.get(a.name);
      if (seen && seen !== a) throw new Error(`aspect ${a.name} is defined twice (${d.name})`);
      ALL.set(a.name, a);
    }
    if (d.snapshotClass) {
      BY_SNAPSHOT.set(d.snapshotClass, d);
      BY_SNAPSHOT.set(d.snapshotClass.split('.').pop()!, d);
    }
    if (d.graphql.entityType !== 'OTHER') BY_GRAPHQL_TYPE.set(d.graphql.entityType, d);
  }
  // 0.12.1's classes first: a later class with the same short name does not take over the short form.
  for (const a of ALL.values()) {
    if (!ASPECT_BY_CLASS.has(a.className)) ASPECT_BY_CLASS.set(a.className, a.name);
    const short = a.className.split('.').pop()!;
    if (!ASPECT_BY_CLASS.has(short)) ASPECT_BY_CLASS.set(short, a.name);
  }
}
rebuild();

/**
 * Applies a deployment's registry extension (replacing any applied before). Throws, leaving the registry as it was,
 * when it names an entity type or aspect twice.
 */
export function applyRegistryExtension(ext: RegistryExtension): void {
  const before = extension;
  extension = ext;
  try {
    rebuild();
  } catch (e) {
    extension = before;
    rebuild();
    throw e;
  }
}

export function entityDescriptor(entityType: string): EntityDescriptor | undefined {
  return BY_NAME.get(entityType) ?? BY_LOWER.get(entityType.toLowerCase());
}

/** All aspects of an entity type: key aspect first, then DataHub 0.12.1's, Almanac's additions, the later release's, the deployment's. */
export function aspectsOf(d: EntityDescriptor): readonly AnyAspect[] {
  return ASPECTS_OF.get(d) ?? baseAspects(d);
}

export function aspectDef(name: string): AnyAspect | undefined {
  return ALL.get(name);
}

export function entityHasAspect(d: EntityDescriptor, aspect: string): boolean {
  return ASPECT_NAMES_OF.get(d)?.has(aspect) ?? false;
}


export function stripPegasus2Avro(className: string): string {
  return className.replace('.pegasus2avro.', '.');
}

/** `com.linkedin.pegasus2avro.dataset.DatasetProperties` → `datasetProperties`. */
export function aspectNameOfClass(cls: string): string | undefined {
  const c = stripPegasus2Avro(cls);
  return ASPECT_BY_CLASS.get(c) ?? ASPECT_BY_CLASS.get(c.split('.').pop()!);
}


/** `com.linkedin.pegasus2avro.metadata.snapshot.DatasetSnapshot` → the dataset descriptor. */
export function descriptorOfSnapshot(cls: string): EntityDescriptor | undefined {
  const c = stripPegasus2Avro(cls);
  return BY_SNAPSHOT.get(c) ?? BY_SNAPSHOT.get(c.split('.').pop()!);
}


/** GraphQL EntityType enum value → descriptor (`DATASET` → dataset). */
export function descriptorOfGraphQLType(entityType: string): EntityDescriptor | undefined {
  return BY_GRAPHQL_TYPE.get(entityType);
}

/** The descriptor of an urn's entity type. */
export function descriptorOfUrn(urn: string): EntityDescriptor | undefined {
  const u = tryParseUrn(urn);
  return typeof u === 'string' ? undefined : entityDescriptor(u.entityType);
}

/**
 * The key fields an urn names, as written in it. A one-field key is the whole id (`urn:li:tag:a,b` names the tag
 * `a,b`); a tuple key maps its parts in order, and an urn with the wrong number of parts names no key.
 */
export function keyValuesOf(d: EntityDescriptor, u: Urn): KeyValues | undefined {
  const fields = d.key.fields;
  if (fields.length === 1) return lookupTable({ [fields[0]!.name]: u.key });
  if (u.parts.length !== fields.length) return undefined;
  return lookupTable(Object.fromEntries(fields.map((f, i) => [f.name, u.parts[i]!])));
}

/** The key aspect value DataHub derives from an urn's parts: one value per key field, in order. */
export function keyAspectFromParts(d: EntityDescriptor, parts: readonly string[]): Record<string, string> | undefined {
  if (parts.length !== d.key.fields.length) return undefined;
  return Object.fromEntries(d.key.fields.map((f, i) => [f.name, parts[i]!]));
}

/** The urn an entity's key fields name (the inverse of keyValuesOf for well-formed keys). */
export function urnOfKey(d: EntityDescriptor, values: Readonly<Record<string, unknown>>): string | undefined {
  const parts: string[] = [];
  for (const f of d.key.fields) {
    const v = values[f.name];
    if (v === undefined || v === null) return undefined;
    parts.push(String(v));
  }
  return parts.length === 1 ? `urn:li:${d.name}:${parts[0]}` : `urn:li:${d.name}:(${parts.join(',')})`;
}

/**
 * Where a sent key aspect disagrees with the urn: the first key field that names something else (compared as
 * written in the urn or percent-decoded), or null when it names the urn's entity.
 */
export function keyDisagreement(d: EntityDescriptor, u: Urn, sent: Readonly<Record<string, unknown>>): string | null {
  const expected = keyValuesOf(d, u);
  if (!expected) return d.key.fields[0]?.name ?? null;
  for (const f of d.key.fields) {
    const want = expected[f.name]!;
    const got = sent[f.name];
    if (got !== want && got !== decodeUrnPart(want)) return f.name;
  }
  return null;
}

/**
 * Why an urn cannot name an entity of its type, or null when it can: the check every write makes (and GraphQL's
 * root fields), as DataHub 0.12.1 validates an urn before it writes (EntityUtils.validateUrn): the urn's parts must
 * make the entity's key aspect (as many parts as key fields, a urn where the key holds one, a known environment where
 * it holds a FabricType), with no leading or trailing white space and no '␟'.
 */
export function urnKeyProblem(d: EntityDescriptor, u: Urn): string | null {
  const fields = d.key.fields;
  // Built only for a message: every write checks its urn.
  const shape = () => (fields.length > 1 ? `urn:li:${d.name}:(${fields.map((f) => `<${f.name}>`).join(',')})` : `urn:li:${d.name}:<${fields[0]?.name ?? 'id'}>`);
  if (u.raw.trim() !== u.raw) return 'it has leading or trailing white space';
  if (u.raw.includes('\u241f')) return "it contains '\u241f'";
  const key = keyValuesOf(d, u);
  if (!key) return `a ${d.name} urn has the form ${shape()}`;
  for (const f of fields) {
    const v = key[f.name]!;
    if (f.kind === 'urn' && typeof tryParseUrn(v) === 'string') return `its ${f.name} '${v}' is not a urn (${shape()})`;
    if (f.kind === 'fabric' && !(FABRIC_TYPES as readonly string[]).includes(v)) {
      return `its ${f.name} '${v}' is not an environment (one of ${FABRIC_TYPES.join(', ')})`;
    }
  }
  return null;
}

export type { AnyAspect, EntityDescriptor, KeyValues } from './descriptor.js';
