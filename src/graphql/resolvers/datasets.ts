import { badRequest } from '../../errors.js';
import { datasetKeyOf, parseUrn } from '../../model/urn.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import {
  auditStamp, browsePaths, customProperties, deprecation, domain, exists, globalTags, glossaryTerms, institutionalMemory,
  ownership, parentContainers, ref, requireEntity, status, subTypes,
} from './common.js';
import { entityPrivileges } from './privileges.js';
import { lookupTable } from '../../model/safe-keys.js';

type Obj = Record<string, any>;
type Ctx = GraphQLContext;

/** An edited description wins when it has text (as DataHub's own UI decides); else the ingested one. */
export function visibleDescription(edited: string | undefined | null, ingested: string | undefined | null): string | null {
  return edited ? edited : (ingested ?? null);
}

const SCHEMA_TYPES: Readonly<Record<string, string>> = lookupTable<string>({
  BooleanType: 'BOOLEAN', FixedType: 'FIXED', StringType: 'STRING', BytesType: 'BYTES', NumberType: 'NUMBER',
  DateType: 'DATE', TimeType: 'TIME', EnumType: 'ENUM', NullType: 'NULL', MapType: 'MAP', ArrayType: 'ARRAY',
  UnionType: 'UNION', RecordType: 'STRUCT',
});

function fieldType(t: Obj | undefined): string {
  const cls = t?.type && typeof t.type === 'object' ? Object.keys(t.type)[0] : undefined;
  return SCHEMA_TYPES[cls?.split('.').pop() ?? ''] ?? 'NULL';
}

function platformSchema(ps: Obj | undefined) {
  if (!ps) return null;
  const [cls, body] = Object.entries(ps)[0] ?? [];
  if (!cls || !body) return null;
  const b = body as Obj;
  if (cls.endsWith('KafkaSchema') && b.keySchema) return { __typename: 'KeyValueSchema', keySchema: b.keySchema, valueSchema: b.documentSchema ?? '' };
  if (cls.endsWith('KeyValueSchema')) return { __typename: 'KeyValueSchema', keySchema: b.keySchema ?? '', valueSchema: b.valueSchema ?? '' };
  const schema = b.documentSchema ?? b.tableSchema ?? b.rawSchema ?? b.schema ?? b.sql ?? '';
  return { __typename: 'TableSchema', schema: typeof schema === 'string' ? schema : JSON.stringify(schema) };
}

/** Merges two tag (or term) lists, first occurrence wins, so ingested and edited labels show once each. */
function mergeLabels(key: 'tags' | 'terms', id: 'tag' | 'urn', ...aspects: (Obj | undefined)[]): Obj | undefined {
  const present = aspects.filter(Boolean) as Obj[];
  if (present.length === 0) return undefined;
  const seen = new Set<string>();
  const merged: Obj[] = [];
  for (const a of present) for (const item of a[key] ?? []) if (!seen.has(item[id])) { seen.add(item[id]); merged.push(item); }
  return { [key]: merged };
}

/** schemaMetadata with each field's visible description and both layers of tags and terms. */
function schemaMetadata(urn: string, schema: Obj, editable: Obj | undefined, version: number) {
  const edits = new Map<string, Obj>((editable?.editableSchemaFieldInfo ?? []).map((e: Obj) => [e.fieldPath, e]));
  return {
    aspectVersion: version,
    datasetUrn: urn,
    name: schema.schemaName ?? '',
    platformUrn: schema.platform ?? '',
    version: schema.version ?? 0,
    cluster: schema.cluster ?? null,
    hash: schema.hash ?? '',
    platformSchema: platformSchema(schema.platformSchema),
    primaryKeys: schema.primaryKeys ?? null,
    foreignKeys: null,
    createdAt: schema.created?.time ?? null,
    lastObserved: null,
    fields: (schema.fields ?? []).map((f: Obj) => {
      const e = edits.get(f.fieldPath);
      const tags = globalTags(mergeLabels('tags', 'tag', f.globalTags, e?.globalTags), urn);
      return {
        fieldPath: f.fieldPath,
        jsonPath: f.jsonPath ?? null,
        label: f.label ?? null,
        nullable: !!f.nullable,
        description: visibleDescription(e?.description, f.description),
        type: fieldType(f.type),
        nativeDataType: f.nativeDataType ?? null,
        recursive: !!f.recursive,
        globalTags: tags,
        tags,
        glossaryTerms: glossaryTerms(mergeLabels('terms', 'urn', f.glossaryTerms, e?.glossaryTerms), urn),
        isPartOfKey: f.isPartOfKey ?? null,
        isPartitioningKey: f.isPartitioningKey ?? null,
        jsonProps: f.jsonProps ?? null,
        schemaFieldEntity: { urn: `urn:li:schemaField:(${urn},${f.fieldPath})`, fieldPath: f.fieldPath, parent: ref(urn) },
      };
    }),
  };
}

async function lineage(r: EntityRef, { input }: { input: Obj }, ctx: Ctx) {
  const start = Math.max(0, Number(input.start ?? 0));
  const count = Math.min(1000, Math.max(0, Number(input.count ?? 100)));
  let rels: Obj[];
  if (input.direction === 'UPSTREAM') {
    const up = await ctx.loader.aspect(r.urn, 'upstreamLineage');
    // One edge per upstream entity, however many times the aspect lists it.
    const seen = new Set<string>();
    const upstreams = ((up?.upstreams ?? []) as Obj[]).filter((u) => !seen.has(u.dataset) && seen.add(u.dataset));
    rels = upstreams.map((u: Obj) => ({
      type: 'DownstreamOf', entity: ref(u.dataset), degree: 1, createdOn: u.created?.time ?? u.auditStamp?.time ?? null,
      createdActor: u.created?.actor ?? u.auditStamp?.actor ? ref(u.created?.actor ?? u.auditStamp?.actor) : null,
      updatedOn: u.auditStamp?.time ?? null, isManual: u.properties?.source === 'UI',
    }));
  } else {
    const downstream = await ctx.catalog.relationships.downstreamOf(r.urn);
    rels = downstream.map((u) => ({ type: 'DownstreamOf', entity: ref(u), degree: 1, createdOn: null, createdActor: null,
      updatedOn: null, isManual: false }));
  }
  return { start, count: Math.min(count, Math.max(0, rels.length - start)), total: rels.length, filtered: 0,
    relationships: rels.slice(start, start + count) };
}

export const datasetResolvers = {
  Query: {
    dataset: (_: unknown, { urn }: { urn: string }, ctx: Ctx) => {
      datasetKeyOf(parseUrn(urn));
      return requireEntity(urn, ctx, 'dataset');
    },
  },
  Dataset: {
    type: () => 'DATASET',
    platform: (r: EntityRef) => ref(datasetKeyOf(parseUrn(r.urn)).platform),
    name: (r: EntityRef) => datasetKeyOf(parseUrn(r.urn)).name,
    origin: (r: EntityRef) => datasetKeyOf(parseUrn(r.urn)).origin,
    properties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const [p, e] = await Promise.all([ctx.loader.aspect(r.urn, 'datasetProperties'), ctx.loader.aspect(r.urn, 'editableDatasetProperties')]);
      if (!p && !e) return null;
      const key = datasetKeyOf(parseUrn(r.urn));
      return {
        name: p?.name ?? key.name,
        qualifiedName: p?.qualifiedName ?? null,
        origin: key.origin,
        description: visibleDescription(e?.description, p?.description),
        customProperties: customProperties(p?.customProperties, r.urn),
        externalUrl: p?.externalUrl ?? null,
        created: p?.created?.time ?? null,
        createdActor: p?.created?.actor ?? null,
        lastModified: auditStamp(p?.lastModified),
        lastModifiedActor: p?.lastModified?.actor ?? null,
      };
    },
    editableProperties: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const e = await ctx.loader.aspect(r.urn, 'editableDatasetProperties');
      return e ? { description: e.description ?? null, name: e.name ?? null } : null;
    },
    schemaMetadata: async (r: EntityRef, { version }: { version?: number | null }, ctx: Ctx) => {
      const v = version ?? 0;
      if (!Number.isInteger(v) || v < 0) throw badRequest(`version must be a whole number ≥ 0, got ${v}`);
      const editable = await ctx.loader.aspect(r.urn, 'editableSchemaMetadata');
      const schema = v === 0
        ? await ctx.loader.aspect(r.urn, 'schemaMetadata')
        : (await ctx.catalog.store.getVersion(r.urn, 'schemaMetadata', v))?.value as Obj | undefined;
      return schema ? schemaMetadata(r.urn, schema, editable, v) : null;
    },
    editableSchemaMetadata: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const e = await ctx.loader.aspect(r.urn, 'editableSchemaMetadata');
      if (!e) return null;
      return {
        editableSchemaFieldInfo: (e.editableSchemaFieldInfo ?? []).map((f: Obj) => {
          const tags = globalTags(f.globalTags, r.urn);
          return { fieldPath: f.fieldPath, description: f.description ?? null, globalTags: tags, tags,
            glossaryTerms: glossaryTerms(f.glossaryTerms, r.urn) };
        }),
      };
    },
    institutionalMemory: async (r: EntityRef, _a: unknown, ctx: Ctx) => institutionalMemory(await ctx.loader.aspect(r.urn, 'institutionalMemory'), r.urn),
    globalTags: async (r: EntityRef, _a: unknown, ctx: Ctx) => globalTags(await ctx.loader.aspect(r.urn, 'globalTags'), r.urn),
    tags: async (r: EntityRef, _a: unknown, ctx: Ctx) => globalTags(await ctx.loader.aspect(r.urn, 'globalTags'), r.urn),
    glossaryTerms: async (r: EntityRef, _a: unknown, ctx: Ctx) => glossaryTerms(await ctx.loader.aspect(r.urn, 'glossaryTerms'), r.urn),
    ownership: async (r: EntityRef, _a: unknown, ctx: Ctx) => ownership(await ctx.loader.aspect(r.urn, 'ownership'), r.urn),
    deprecation: async (r: EntityRef, _a: unknown, ctx: Ctx) =>
      deprecation(await ctx.loader.aspect(r.urn, 'deprecation'), await ctx.loader.aspect(r.urn, 'datasetDeprecation')),
    status: async (r: EntityRef, _a: unknown, ctx: Ctx) => status(await ctx.loader.aspect(r.urn, 'status')),
    container: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const c = await ctx.loader.aspect(r.urn, 'container');
      return c?.container ? ref(c.container) : null;
    },
    parentContainers: (r: EntityRef, _a: unknown, ctx: Ctx) => parentContainers(r.urn, ctx),
    subTypes: async (r: EntityRef, _a: unknown, ctx: Ctx) => subTypes(await ctx.loader.aspect(r.urn, 'subTypes')),
    domain: async (r: EntityRef, _a: unknown, ctx: Ctx) => domain(await ctx.loader.aspect(r.urn, 'domains'), r.urn),
    dataPlatformInstance: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const d = await ctx.loader.aspect(r.urn, 'dataPlatformInstance');
      return d?.instance ? { urn: d.instance, type: 'DATA_PLATFORM_INSTANCE', platform: ref(d.platform), instanceId: String(d.instance).split(',').pop()?.replace(')', '') ?? '' } : null;
    },
    browsePaths: async (r: EntityRef, _a: unknown, ctx: Ctx) => browsePaths(await ctx.loader.aspect(r.urn, 'browsePaths')),
    lastIngested: async (r: EntityRef, _a: unknown, ctx: Ctx) => {
      const loaded = await ctx.loader.load(r.urn);
      let last: number | null = null;
      for (const rec of loaded.aspects.values()) {
        const t = rec.systemMetadata?.lastObserved;
        if (typeof t === 'number' && t > 0 && (last === null || t > last)) last = t;
      }
      return last;
    },
    exists,
    privileges: (r: EntityRef, _a: unknown, ctx: Ctx) => entityPrivileges(r.urn, ctx),
    lineage,
    description: async (r: EntityRef, _a: unknown, ctx: Ctx) => (await ctx.loader.aspect(r.urn, 'datasetProperties'))?.description ?? null,
    externalUrl: async (r: EntityRef, _a: unknown, ctx: Ctx) => (await ctx.loader.aspect(r.urn, 'datasetProperties'))?.externalUrl ?? null,
    platformNativeType: () => null,
  },
  PlatformSchema: { resolveType: (o: Obj) => o.__typename },
  SchemaFieldEntity: { type: () => 'SCHEMA_FIELD' },
};
