import { assertionRunEvent } from '../../entities/assertion.js';
import { dataProcessInstanceProperties } from '../../entities/data-process-instance.js';
import { datasetProperties, editableDatasetProperties, schemaMetadataOut, viewProperties } from '../../entities/dataset.js';
import { ref } from '../../entities/descriptor.js';
import { globalTags as globalTagsOut, glossaryTerms as glossaryTermsOut, status as statusOut, descriptionFor, customProperties } from '../../entities/graphql-fields.js';
import { aspectsOf, descriptorOfUrn, ENTITY_DESCRIPTORS } from '../../entities/index.js';
import * as shared from '../../entities/shared-aspects.js';
import { badRequest, notFound } from '../../errors.js';
import { datasetKeyOf, decodeUrnPart, parseUrn } from '../../model/urn.js';
import type { AspectRecord } from '../../storage/types.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { relationships } from './relationships.js';

/**
 * What DataHub 0.12.1's dataset, chart and dashboard pages read and send beyond the entity types' own fields
 * (schema/dataset-pages.graphql): health from assertion runs, assertions, runs, raw aspects, access roles, schema
 * history (services/schema-history.ts), query entities (services/queries.ts), and the pages' mutations (renames:
 * services/renames.ts).
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

function pageArgs(start: unknown, count: unknown, defaultCount: number, max = 10_000) {
  const s = start ?? 0;
  const c = count ?? defaultCount;
  if (typeof s !== 'number' || !Number.isInteger(s) || s < 0) throw badRequest(`start must be a whole number ≥ 0, got ${s}`);
  if (typeof c !== 'number' || !Number.isInteger(c) || c < 0 || c > max) throw badRequest(`count must be between 0 and ${max}, got ${c}`);
  return { start: s, count: c };
}

// ---------------------------------------------------------------------------------------------------------------
// Dataset fields

/** Assertions naming the dataset (the Asserts edges of their assertionInfo), in the relationship index's order. */
async function assertionUrnsOf(ctx: Ctx, urn: string, start: number, count: number) {
  const r = await ctx.catalog.relationships.list({ urn, direction: 'INCOMING', types: ['Asserts'], start, count });
  return { total: r.total, urns: [...new Set(r.edges.map((e) => e.source))] };
}

/**
 * DataHub 0.12.1's dataset health: with assertions on the dataset (up to 500) and at least one completed run of any
 * assertion on it, FAIL naming the assertions whose latest completed run did not succeed, else PASS. No assertion,
 * or no completed run: no health.
 */
async function health(r: EntityRef, _a: unknown, ctx: Ctx) {
  const { urns: active } = await assertionUrnsOf(ctx, r.urn, 0, 500);
  if (active.length === 0) return [];
  const latest = await Promise.all(active.map(async (a) => {
    const events = await ctx.catalog.timeseries.values({ urn: a, entityType: 'assertion', aspect: assertionRunEvent.name, limit: 10_000 });
    const done = events.map((e) => e.value as { asserteeUrn?: string; status?: string; result?: { type?: string } })
      .find((e) => e.asserteeUrn === r.urn && e.status === 'COMPLETE');
    return done ? { urn: a, type: done.result?.type ?? null } : null;
  }));
  const ran = latest.filter((x): x is { urn: string; type: string | null } => x !== null);
  if (ran.length === 0) return [];
  const failing = ran.filter((x) => x.type !== 'SUCCESS').map((x) => x.urn);
  return [failing.length > 0
    ? { type: 'ASSERTIONS', status: 'FAIL', message: `${failing.length} of ${active.length} assertions are failing`, causes: failing }
    : { type: 'ASSERTIONS', status: 'PASS', message: 'All assertions are passing', causes: null }];
}

async function assertions(r: EntityRef, args: { start?: number | null; count?: number | null }, ctx: Ctx) {
  const { start, count } = pageArgs(args.start, args.count, 200);
  const { total, urns } = await assertionUrnsOf(ctx, r.urn, start, count);
  const loaded = await Promise.all(urns.map((u) => ctx.loader.load(u)));
  const found = urns.filter((_, i) => loaded[i]!.exists);
  return { start, count: urns.length, total, assertions: found.map(ref) };
}

/**
 * Runs reading the dataset (INCOMING: their dataProcessInstanceInput names it) or writing it (OUTGOING: their
 * output names it), newest first by their creation time, as DataHub 0.12.1 pages them.
 */
async function runs(r: EntityRef, args: { start?: number | null; count?: number | null; direction: 'INCOMING' | 'OUTGOING' }, ctx: Ctx) {
  const { start, count } = pageArgs(args.start, args.count, 20, 1000);
  const edge = args.direction === 'OUTGOING' ? 'Produces' : 'Consumes';
  const rel = await ctx.catalog.relationships.list({ urn: r.urn, direction: 'INCOMING', types: [edge], start: 0, count: 10_000 });
  const urns = [...new Set(rel.edges.map((e) => e.source))].filter((u) => u.startsWith('urn:li:dataProcessInstance:'));
  const created = await Promise.all(urns.map(async (u) =>
    (await ctx.loader.aspect<{ created?: { time?: number } }>(u, dataProcessInstanceProperties.name))?.created?.time ?? 0));
  const order = urns.map((u, i) => ({ u, t: created[i]! })).sort((a, b) => b.t - a.t || (a.u < b.u ? -1 : a.u > b.u ? 1 : 0));
  return { start, count, total: order.length, runs: order.slice(start, start + count).map((x) => ref(x.u)) };
}

/**
 * The stored aspects as JSON, in the registry's order. DataHub 0.12.1 marks no aspect for automatic rendering, so
 * autoRenderOnly answers none. Aspects the caller may not read (a user's credentials) are left out.
 */
async function rawAspects(r: EntityRef, args: { input?: { autoRenderOnly?: boolean | null } | null }, ctx: Ctx) {
  if (args.input?.autoRenderOnly) return [];
  const loaded = await ctx.loader.load(r.urn);
  const d = descriptorOfUrn(r.urn);
  const order = new Map((d ? aspectsOf(d) : []).map((a, i) => [a.name, i]));
  const names = [...loaded.aspects.keys()].sort((a, b) => (order.get(a) ?? 1e9) - (order.get(b) ?? 1e9) || (a < b ? -1 : 1));
  const visible = await ctx.catalog.authorized.reads.readableAspects(ctx.actor, names);
  return names.filter((n) => visible.has(n))
    .map((n) => ({ aspectName: n, payload: JSON.stringify(loaded.aspects.get(n)!.value), renderSpec: null }));
}

async function access(r: EntityRef, _a: unknown, ctx: Ctx) {
  const a = await ctx.loader.aspect<{ roles?: { urn: string }[] }>(r.urn, shared.access.name);
  if (!a) return null;
  return { roles: a.roles ? a.roles.map((x) => ({ role: ref(x.urn), associatedUrn: r.urn })) : null };
}

// ---------------------------------------------------------------------------------------------------------------
// Schema history

async function requireDataset(ctx: Ctx, urn: string) {
  const u = parseUrn(urn);
  if (u.entityType !== 'dataset') throw badRequest(`Invalid urn: '${urn}' is not a dataset urn`, { urn });
  await ctx.catalog.authorized.reads.admitEntity(ctx.actor, u.raw);
  if (!(await ctx.loader.load(u.raw)).exists) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
  return u.raw;
}

async function getSchemaVersionList(_: unknown, { input }: { input: { datasetUrn: string } }, ctx: Ctx) {
  return ctx.catalog.schemaHistory.versionList(await requireDataset(ctx, input.datasetUrn));
}

async function getSchemaBlame(_: unknown, { input }: { input: { datasetUrn: string; version?: string | null } }, ctx: Ctx) {
  return ctx.catalog.schemaHistory.blame(await requireDataset(ctx, input.datasetUrn), input.version);
}

// ---------------------------------------------------------------------------------------------------------------
// Versioned dataset

interface Versioned { urn: string; aspects: Map<string, AspectRecord> }

/** With a version stamp, the aspects it names at those versions (and no others, as DataHub reads them); else the latest. */
async function versionedDataset(_: unknown, { urn, versionStamp }: { urn: string; versionStamp?: string | null }, ctx: Ctx): Promise<Versioned> {
  const u = await requireDataset(ctx, urn);
  const aspects = versionStamp ? await ctx.catalog.schemaHistory.aspectsAt(u, versionStamp) : new Map((await ctx.loader.load(u)).aspects);
  return { urn: u, aspects };
}

const val = <T>(v: Versioned, name: string) => v.aspects.get(name)?.value as T | undefined;

const versionedResolvers = {
  type: () => 'DATASET',
  relationships,
  platform: (v: Versioned) => ref(datasetKeyOf(parseUrn(v.urn)).platform),
  name: (v: Versioned) => decodeUrnPart(datasetKeyOf(parseUrn(v.urn)).name),
  origin: (v: Versioned) => datasetKeyOf(parseUrn(v.urn)).origin,
  properties: (v: Versioned, _a: unknown, ctx: Ctx) => {
    const p = val<Obj>(v, datasetProperties.name);
    if (!p) return null;
    const key = datasetKeyOf(parseUrn(v.urn));
    return { name: p.name ?? decodeUrnPart(key.name), qualifiedName: p.qualifiedName ?? null, origin: key.origin,
      description: descriptionFor(ctx, val<Obj>(v, editableDatasetProperties.name)?.description, p.description),
      customProperties: customProperties(p.customProperties, v.urn), externalUrl: p.externalUrl ?? null, created: p.created?.time ?? null,
      createdActor: p.created?.actor ?? null, lastModified: { time: p.lastModified?.time ?? 0, actor: p.lastModified?.actor ?? null },
      lastModifiedActor: p.lastModified?.actor ?? null };
  },
  editableProperties: (v: Versioned) => {
    const e = val<Obj>(v, editableDatasetProperties.name);
    return e ? { description: e.description ?? null, name: e.name ?? null } : null;
  },
  schema: (v: Versioned, _a: unknown, ctx: Ctx) => {
    const rec = v.aspects.get(shared.schemaMetadata.name);
    if (!rec) return null;
    const { aspectVersion: _v, ...schema } = schemaMetadataOut(v.urn, rec.value as shared.SchemaMetadata, rec.version, ctx,
      val(v, shared.editableSchemaMetadata.name));
    return { ...schema, lastObserved: rec.systemMetadata?.lastObserved ?? null };
  },
  editableSchemaMetadata: (v: Versioned) => {
    const e = val<shared.EditableSchemaMetadata>(v, shared.editableSchemaMetadata.name);
    if (!e) return null;
    return { editableSchemaFieldInfo: (e.editableSchemaFieldInfo ?? []).map((c) => {
      const tags = globalTagsOut(c.globalTags, v.urn);
      return { fieldPath: c.fieldPath, description: c.description ?? null, globalTags: tags, tags, glossaryTerms: glossaryTermsOut(c.glossaryTerms, v.urn) };
    }) };
  },
  status: (v: Versioned) => statusOut(val(v, shared.status.name)),
  viewProperties: (v: Versioned) => {
    const p = val<{ materialized: boolean; viewLogic: string; viewLanguage: string }>(v, viewProperties.name);
    return p ? { materialized: p.materialized, logic: p.viewLogic, language: p.viewLanguage } : null;
  },
};

// ---------------------------------------------------------------------------------------------------------------
// Query entities

/** Query entities, newest first, soft-deleted ones left out, narrowed as the input asks. */
async function listQueries(_: unknown, { input }: { input: { start?: number | null; count?: number | null; query?: string | null;
  source?: string | null; datasetUrn?: string | null } }, ctx: Ctx) {
  const { start, count } = pageArgs(input.start, input.count, 100, 1000);
  await ctx.catalog.authorized.reads.admitSearch(ctx.actor, 'graphql');
  const { total, urns } = await ctx.catalog.queries.list({ ...input, start, count });
  return { start, count: urns.length, total, queries: urns.map(ref) };
}

async function createQuery(_: unknown, { input }: { input: { properties: Obj; subjects: { datasetUrn: string }[] } }, ctx: Ctx) {
  const urn = await ctx.catalog.queries.create(input as never, ctx.actor);
  ctx.loader.clear(urn);
  return ref(urn);
}

async function updateQuery(_: unknown, { urn, input }: { urn: string; input: { properties?: Obj | null; subjects?: { datasetUrn: string }[] | null } }, ctx: Ctx) {
  const u = await ctx.catalog.queries.update(urn, input, ctx.actor);
  ctx.loader.clear(u);
  return ref(u);
}

async function deleteQuery(_: unknown, { urn }: { urn: string }, ctx: Ctx) {
  await ctx.catalog.queries.delete(urn, ctx.actor);
  ctx.loader.clear();
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations of the entity pages

/** The pages' entity writes, each deciding who may (services/authorized-writes.ts). */
async function deleteAssertion(_: unknown, { urn }: { urn: string }, ctx: Ctx) {
  await ctx.catalog.writes.deleteAssertion(urn, ctx.actor);
  ctx.loader.clear();
  return true;
}

async function updateEmbed(_: unknown, { input }: { input: { urn: string; renderUrl?: string | null } }, ctx: Ctx) {
  ctx.loader.clear(await ctx.catalog.writes.updateEmbed(input.urn, input.renderUrl, ctx.actor));
  return true;
}

async function batchUpdateSoftDeleted(_: unknown, { input }: { input: { urns: string[]; deleted: boolean } }, ctx: Ctx) {
  await ctx.catalog.writes.setSoftDeleted(input.urns, input.deleted, ctx.actor);
  ctx.loader.clear();
  return true;
}

/** DataHub 0.12.1 renames glossary terms and nodes, domains, groups and data products (services/renames.ts). */
async function updateName(_: unknown, { input }: { input: { urn: string; name: string } }, ctx: Ctx) {
  ctx.loader.clear(await ctx.catalog.renames.rename(input.urn, input.name, ctx.actor));
  return true;
}

/**
 * Every entity's stored aspects as JSON: DataHub 0.12.1 has `aspects` on Dataset only; Almanac adds the same field to
 * every entity object type and to GenericEntity (additive: no 0.12.1 operation changes), so that aspects without a
 * GraphQL field of their own (a later DataHub release's, a deployment's own) read back.
 */
const rawAspectFields = Object.fromEntries([...new Set(ENTITY_DESCRIPTORS.flatMap((d) => (d.graphql.objectType ? [d.graphql.objectType] : []))), 'GenericEntity']
  .map((t) => [t, { aspects: rawAspects }]));

const pageResolvers: Record<string, Record<string, unknown>> = {
  Dataset: { health, assertions, runs, aspects: rawAspects, access },
  GlossaryTerm: {
    schemaMetadata: async (r: EntityRef, args: { version?: number | null }, ctx: Ctx) => {
      const v = args.version ?? 0;
      if (!Number.isInteger(v) || v < 0) throw badRequest(`version must be a whole number ≥ 0, got ${v}`);
      const rec = v === 0 ? (await ctx.loader.load(r.urn)).aspects.get(shared.schemaMetadata.name)
        : await ctx.catalog.entities.storedVersion(r.urn, shared.schemaMetadata.name, v);
      return rec ? schemaMetadataOut(r.urn, rec.value as shared.SchemaMetadata, v, ctx) : null;
    },
  },
  VersionedDataset: versionedResolvers,
  Query: { versionedDataset, getSchemaBlame, getSchemaVersionList, listQueries },
  Mutation: { deleteAssertion, updateName, updateEmbed, batchUpdateSoftDeleted, createQuery, updateQuery, deleteQuery },
};

export const datasetPageResolvers: Record<string, Record<string, unknown>> = { ...rawAspectFields };
for (const [type, fields] of Object.entries(pageResolvers)) datasetPageResolvers[type] = { ...datasetPageResolvers[type], ...fields };
