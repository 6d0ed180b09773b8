import { descriptorOfGraphQLType, ENTITY_DESCRIPTORS, entityDescriptor, keyValuesOf, urnKeyProblem } from '../entities/index.js';
import type { EntityDescriptor, FieldContext, FieldResolver, KeyValues, RelatedQuery } from '../entities/descriptor.js';
import type { AspectDef } from '../entities/descriptor.js';
import { badRequest } from '../errors.js';
import { DEFAULT_RUN_ID } from '../services/entities.js';
import { parseUrn } from '../model/urn.js';
import type { EntityRef, GraphQLContext } from './context.js';
import { exists, requireEntity } from './resolvers/common.js';
import { entityPrivileges } from './resolvers/privileges.js';
import { lineageField } from './resolvers/lineage.js';
import { relationships } from './resolvers/relationships.js';
import { legacyBrowsePaths } from './resolvers/browse.js';

/**
 * The GraphQL side of the entity descriptors: their SDL, a root query field per type that has one, and resolvers
 * that run each descriptor field over a FieldContext backed by the request's loader. Fields every entity type
 * serves alike (type, exists, relationships, lineage, privileges, browsePaths) are added here, for the types that declare them.
 */
type Resolver = (r: EntityRef, args: Record<string, unknown>, ctx: GraphQLContext) => unknown;

const NO_KEY: KeyValues = Object.freeze({});

class LoaderFieldContext implements FieldContext {
  private keyValues?: KeyValues;

  constructor(readonly urn: string, readonly args: Readonly<Record<string, any>>, private readonly d: EntityDescriptor,
    private readonly ctx: GraphQLContext) {}

  get descriptionLayer() {
    return this.ctx.descriptionLayer;
  }

  get key(): KeyValues {
    this.keyValues ??= keyValuesOf(this.d, parseUrn(this.urn)) ?? NO_KEY;
    return this.keyValues;
  }

  aspect<T>(def: AspectDef<string, T>, of?: string): Promise<T | undefined> {
    return this.ctx.loader.aspect<T>(of ?? this.urn, def.name);
  }

  entityTypeValue(type: string): string | undefined {
    return (entityDescriptor(type) ?? descriptorOfGraphQLType(type))?.graphql.entityType;
  }

  async aspectVersion<T>(def: AspectDef<string, T>, version: number): Promise<T | undefined> {
    if (version === 0) return this.aspect(def);
    return (await this.ctx.catalog.entities.storedVersion(this.urn, def.name, version))?.value as T | undefined;
  }

  async timeseries<T>(def: AspectDef<string, T>, range: { startTimeMillis?: number; endTimeMillis?: number; limit: number }): Promise<T[]> {
    const rows = await this.ctx.catalog.timeseries.values({ urn: this.urn, entityType: this.d.name, aspect: def.name, ...range });
    return rows.map((r) => r.value as T);
  }

  async lastObserved(): Promise<number | null> {
    const loaded = await this.ctx.loader.load(this.urn);
    let last: number | null = null;
    for (const rec of loaded.aspects.values()) {
      // As DataHub's SystemMetadataUtils: only aspects an ingestion run wrote (or last saw) count, not those written
      // without a run id (edits, metadata sent without system metadata: runId no-run-id-provided).
      const sys = rec.systemMetadata;
      const run = sys?.lastRunId !== undefined && sys.lastRunId !== DEFAULT_RUN_ID ? sys.lastRunId : sys?.runId;
      if (run === undefined || run === DEFAULT_RUN_ID) continue;
      const t = sys?.lastObserved;
      if (typeof t === 'number' && t > 0 && (last === null || t > last)) last = t;
    }
    return last;
  }

  related(q: RelatedQuery) {
    return this.ctx.catalog.relationships.list({ urn: this.urn, direction: q.direction, types: [...q.types], start: q.start, count: q.count });
  }
}

function fieldResolver(d: EntityDescriptor, field: FieldResolver): Resolver {
  return (r, args, ctx) => field(new LoaderFieldContext(r.urn, args, d, ctx));
}

/** What every entity type serves the same way, when its SDL declares the field. */
function builtins(d: EntityDescriptor): Record<string, Resolver> {
  return {
    type: () => d.graphql.entityType,
    exists: exists as Resolver,
    relationships: relationships as Resolver,
    // One hop of lineage, from the lineage model of the descriptors (empty for types that take no part in it).
    lineage: lineageField as Resolver,
    privileges: (r, _a, ctx) => entityPrivileges(r.urn, ctx),
    // The stored browse paths, else DataHub's default path for the type (which DataHub writes when it first sees the entity).
    browsePaths: (r, _a, ctx) => legacyBrowsePaths(ctx, d, r.urn),
  };
}

/** `dataset(urn:)` and the like: a malformed urn or one of another type is a 400, an entity never ingested a 404. */
function rootField(d: EntityDescriptor) {
  return (_: unknown, { urn }: { urn: string }, ctx: GraphQLContext) => {
    const u = parseUrn(urn);
    // The check every write makes: an urn no write accepts names nothing to read.
    const problem = u.entityType === d.name ? urnKeyProblem(d, u) : null;
    if (problem !== null) throw badRequest(`Invalid urn: '${urn}' is not a valid ${d.name} urn: ${problem}`, { urn });
    return requireEntity(urn, ctx, d.name);
  };
}

/** The SDL the descriptors contribute: their types, and root fields reading one entity by urn. */
export function descriptorSdl(): string {
  const parts = ENTITY_DESCRIPTORS.flatMap((d) => (d.graphql.sdl ? [d.graphql.sdl] : []));
  const roots = ENTITY_DESCRIPTORS.filter((d) => d.graphql.rootField && d.graphql.objectType)
    .map((d) => `  ${d.graphql.rootField}(urn: String!): ${d.graphql.objectType}`);
  if (roots.length) parts.push(`extend type Query {\n${roots.join('\n')}\n}`);
  // Almanac's addition: the generic `aspects` field DataHub 0.12.1 gives Dataset alone (dataset-pages.graphql), on every
  // entity object type (resolvers/dataset-pages.ts).
  for (const t of new Set(ENTITY_DESCRIPTORS.flatMap((d) => (d.graphql.objectType && d.graphql.objectType !== 'Dataset' ? [d.graphql.objectType] : [])))) {
    parts.push(`extend type ${t} {\n  "Almanac: the entity's stored aspects as JSON (as Dataset.aspects)."\n  aspects(input: AspectParams): [RawAspect!]\n}`);
  }
  return parts.join('\n');
}

/**
 * Resolvers of the descriptors' object types, for the fields their SDL declares (`declared`: object type → field
 * names, from the whole schema, so other areas may extend a type and resolve their own fields).
 */
export function descriptorResolvers(declared: ReadonlyMap<string, ReadonlySet<string>>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = { Query: {} };
  for (const d of ENTITY_DESCRIPTORS) {
    const type = d.graphql.objectType;
    if (!type) continue;
    const fields = declared.get(type) ?? new Set<string>();
    const resolvers: Record<string, unknown> = {};
    for (const [name, resolver] of Object.entries(builtins(d))) if (fields.has(name)) resolvers[name] = resolver;
    for (const [name, field] of Object.entries(d.graphql.fields ?? {})) if (fields.has(name)) resolvers[name] = fieldResolver(d, field);
    out[type] = resolvers;
    if (d.graphql.rootField) out.Query![d.graphql.rootField] = rootField(d);
  }
  return out;
}
