import { randomUUID } from 'node:crypto';
import { assertionInfo, assertionRunEvent } from '../../entities/assertion.js';
import { corpGroupInfo } from '../../entities/corp-group.js';
import { dataProcessInstanceProperties } from '../../entities/data-process-instance.js';
import { dataProductProperties } from '../../entities/data-product.js';
import { datasetProperties, editableDatasetProperties, schemaMetadataOut, viewProperties } from '../../entities/dataset.js';
import { ref } from '../../entities/descriptor.js';
import { domainProperties } from '../../entities/domain.js';
import { globalTags as globalTagsOut, glossaryTerms as glossaryTermsOut, status as statusOut, descriptionFor, customProperties } from '../../entities/graphql-fields.js';
import { glossaryNodeInfo } from '../../entities/glossary-node.js';
import { glossaryTermInfo } from '../../entities/glossary-term.js';
import { aspectsOf, descriptorOfUrn, ENTITY_DESCRIPTORS } from '../../entities/index.js';
import { queryProperties, querySubjects } from '../../entities/query.js';
import * as shared from '../../entities/shared-aspects.js';
import { badRequest, conflict, forbidden, notFound } from '../../errors.js';
import { datasetKeyOf, decodeUrnPart, parseUrn, tryParseUrn } from '../../model/urn.js';
import { visibleAspects } from '../../services/authz.js';
import { REQUIRES, type Operation, type Requirement } from '../../model/privileges.js';
import type { AspectRecord } from '../../storage/types.js';
import type { EntityRef, GraphQLContext } from '../context.js';
import { authorize, authorizeRead } from './privileges.js';
import { relationships } from './relationships.js';

/**
 * What DataHub 0.12.1's dataset, chart and dashboard pages read and send beyond the entity types' own fields
 * (schema/dataset-pages.graphql): health from assertion runs, assertions, runs, raw aspects, access roles, schema
 * history computed from the stored versions of schemaMetadata, query entities, and the pages' mutations.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

const can = (ctx: Ctx, op: Operation, urn?: string) => ctx.catalog.authz.allowed(ctx.actor, REQUIRES[op] as Requirement, urn);

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
  const visible = await visibleAspects(ctx.catalog.authz, ctx.actor, names);
  return names.filter((n) => visible.has(n))
    .map((n) => ({ aspectName: n, payload: JSON.stringify(loaded.aspects.get(n)!.value), renderSpec: null }));
}

async function access(r: EntityRef, _a: unknown, ctx: Ctx) {
  const a = await ctx.loader.aspect<{ roles?: { urn: string }[] }>(r.urn, shared.access.name);
  if (!a) return null;
  return { roles: a.roles ? a.roles.map((x) => ({ role: ref(x.urn), associatedUrn: r.urn })) : null };
}

// ---------------------------------------------------------------------------------------------------------------
// Privileges

/**
 * DataHub's MANAGE_GLOSSARIES, or MANAGE_GLOSSARY_CHILDREN on the node, or MANAGE_ALL_GLOSSARY_CHILDREN on the node or
 * any node above it.
 */
async function canManageGlossaryChildren(ctx: Ctx, nodeUrn: string | undefined): Promise<boolean> {
  if (await can(ctx, 'graphql.manageGlossaries')) return true;
  if (!nodeUrn) return false;
  if (await can(ctx, 'graphql.manageGlossaryChildren', nodeUrn)) return true;
  const seen = new Set<string>();
  for (let cur: string | undefined = nodeUrn; cur && !seen.has(cur);) {
    seen.add(cur);
    if (await can(ctx, 'graphql.manageAllGlossaryChildren', cur)) return true;
    cur = (await ctx.loader.aspect<{ parentNode?: string }>(cur, glossaryNodeInfo.name))?.parentNode;
  }
  return false;
}

async function glossaryParent(ctx: Ctx, urn: string): Promise<string | undefined> {
  const aspect = urn.startsWith('urn:li:glossaryTerm:') ? glossaryTermInfo.name : glossaryNodeInfo.name;
  return (await ctx.loader.aspect<{ parentNode?: string }>(urn, aspect))?.parentNode;
}

/**
 * The EntityPrivileges fields this area adds, as DataHub 0.12.1 answers them per entity type: canEditEmbed on
 * datasets, charts and dashboards, canEditQueries on datasets, canManageChildren on glossary nodes (null elsewhere).
 */
export async function pagePrivileges(urn: string, ctx: Ctx) {
  const type = tryParseUrn(urn);
  const entityType = typeof type === 'string' ? '' : type.entityType;
  const embed = ['dataset', 'chart', 'dashboard'].includes(entityType);
  return {
    canEditEmbed: embed ? await can(ctx, 'graphql.updateEmbed', urn) : null,
    canEditQueries: entityType === 'dataset' ? await can(ctx, 'graphql.editQueries', urn) : null,
    canManageChildren: entityType === 'glossaryNode' ? await canManageGlossaryChildren(ctx, urn) : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Schema history

interface FieldLike { fieldPath: string; nativeDataType?: string; description?: string }
interface SchemaLike { fields?: FieldLike[]; primaryKeys?: string[] }
interface ChangeEvent { fieldPath: string; op: 'ADD' | 'MODIFY' | 'REMOVE'; level: number }
interface Transaction { timestamp: number; semver: [number, number, number]; versionStamp: string; events: ChangeEvent[] }

const MINOR = 1;
const MAJOR = 2;

/** DataHub's rename test: same native type, same parent path, and the same description (not blank). */
function isRenamed(from: FieldLike, to: FieldLike): boolean {
  const parent = (p: string) => (p.lastIndexOf('.') > 0 ? p.slice(0, p.lastIndexOf('.')) : p.includes('.') ? null : '');
  const pf = parent(from.fieldPath);
  return (from.nativeDataType ?? '') === (to.nativeDataType ?? '') && pf !== null && pf === parent(to.fieldPath)
    && !!from.description?.trim() && from.description === to.description;
}

/**
 * DataHub 0.12.1's technical-schema diff of two schemaMetadata values, fields matched by path: a field added is MINOR,
 * removed or with a new native type MAJOR, a rename (a removed field and an added one that pass isRenamed) a MINOR
 * MODIFY of the old path, a primary key added or removed a MAJOR MODIFY of that field.
 */
function schemaDiff(base: SchemaLike | undefined, target: SchemaLike): ChangeEvent[] {
  const before = new Map((base?.fields ?? []).map((f) => [f.fieldPath, f]));
  const after = new Map((target.fields ?? []).map((f) => [f.fieldPath, f]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const added = paths.filter((p) => !before.has(p) && after.has(p));
  const renamedTo = new Set<string>();
  const renamedFrom = new Set<string>();
  for (const p of paths.filter((x) => before.has(x) && !after.has(x))) {
    const to = added.find((a) => !renamedTo.has(a) && isRenamed(before.get(p)!, after.get(a)!));
    if (to) { renamedTo.add(to); renamedFrom.add(p); }
  }
  const events: ChangeEvent[] = [];
  for (const p of paths) {
    const b = before.get(p);
    const t = after.get(p);
    if (b && !t) events.push(renamedFrom.has(p) ? { fieldPath: p, op: 'MODIFY', level: MINOR } : { fieldPath: p, op: 'REMOVE', level: MAJOR });
    else if (!b && t) { if (!renamedTo.has(p)) events.push({ fieldPath: p, op: 'ADD', level: MINOR }); }
    else if (b && t && (b.nativeDataType ?? '') !== (t.nativeDataType ?? '')) events.push({ fieldPath: p, op: 'MODIFY', level: MAJOR });
  }
  const baseKeys = new Set(base?.primaryKeys ?? []);
  const targetKeys = new Set(target.primaryKeys ?? []);
  for (const k of baseKeys) if (!targetKeys.has(k)) events.push({ fieldPath: k, op: 'MODIFY', level: MAJOR });
  for (const k of targetKeys) if (!baseKeys.has(k)) events.push({ fieldPath: k, op: 'MODIFY', level: MAJOR });
  return events;
}

/** Oldest first: the history versions (1 is the oldest kept), then the latest (0). */
const chronological = (records: AspectRecord[]) => [...records].sort((a, b) =>
  (a.version === 0 ? Infinity : a.version) - (b.version === 0 ? Infinity : b.version));

/**
 * DataHub's version stamp at a time: for every versioned aspect of the entity, the version that was current then
 * (aspect:version, by aspect name, joined with ;).
 */
function versionStampAt(histories: Map<string, AspectRecord[]>, time: number): string {
  const parts: string[] = [];
  for (const name of [...histories.keys()].sort()) {
    let current: AspectRecord | undefined;
    for (const rec of histories.get(name)!) if (rec.createdOn <= time) current = rec;
    if (current) parts.push(`${name}:${current.version}`);
  }
  return parts.join(';');
}

/**
 * The schema's change transactions, oldest first, from the stored versions of schemaMetadata: the oldest kept version
 * against nothing (every field added), then each against the one before; versions that change no field make none.
 * The first transaction is 0.0.0; each later one bumps major, minor or patch by its largest change, as DataHub does.
 */
async function schemaTimeline(ctx: Ctx, datasetUrn: string): Promise<Transaction[]> {
  const versions = chronological(await ctx.catalog.store.listVersions(datasetUrn, shared.schemaMetadata.name));
  if (versions.length === 0) return [];
  const latest = await ctx.catalog.store.getLatest([datasetUrn]);
  const histories = new Map<string, AspectRecord[]>();
  for (const name of (latest.get(datasetUrn) ?? new Map()).keys()) {
    histories.set(name, name === shared.schemaMetadata.name ? versions : chronological(await ctx.catalog.store.listVersions(datasetUrn, name)));
  }
  const out: Transaction[] = [];
  let previous: SchemaLike | undefined;
  let semver: [number, number, number] | undefined;
  for (const rec of versions) {
    const value = rec.value as SchemaLike;
    const events = schemaDiff(previous, value);
    previous = value;
    if (events.length === 0) continue;
    const level = Math.max(...events.map((e) => e.level));
    semver = !semver ? [0, 0, 0] : level === MAJOR ? [semver[0] + 1, 0, 0] : [semver[0], semver[1] + 1, 0];
    out.push({ timestamp: rec.createdOn, semver, versionStamp: versionStampAt(histories, rec.createdOn), events });
  }
  return out;
}

const semverText = (v: readonly number[]) => v.join('.');
const semverStruct = (t: Transaction) => ({ semanticVersion: semverText(t.semver), semanticVersionTimestamp: t.timestamp, versionStamp: t.versionStamp });

function parseSemver(text: string): [number, number, number] | null {
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-computed)?$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : null;
}
const compareSemver = (a: readonly number[], b: readonly number[]) => a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;

async function requireDataset(ctx: Ctx, urn: string) {
  const u = parseUrn(urn);
  if (u.entityType !== 'dataset') throw badRequest(`Invalid urn: '${urn}' is not a dataset urn`, { urn });
  await authorizeRead(ctx, u.raw);
  if (!(await ctx.loader.load(u.raw)).exists) throw notFound(`Entity ${u.raw} does not exist`, { urn: u.raw });
  return u.raw;
}

async function getSchemaVersionList(_: unknown, { input }: { input: { datasetUrn: string } }, ctx: Ctx) {
  const timeline = await schemaTimeline(ctx, await requireDataset(ctx, input.datasetUrn));
  if (timeline.length === 0) return null;
  const newestFirst = [...timeline].reverse();
  return { latestVersion: semverStruct(timeline[timeline.length - 1]!), version: null, semanticVersionList: newestFirst.map(semverStruct) };
}

async function getSchemaBlame(_: unknown, { input }: { input: { datasetUrn: string; version?: string | null } }, ctx: Ctx) {
  const urn = await requireDataset(ctx, input.datasetUrn);
  const timeline = await schemaTimeline(ctx, urn);
  const empty = { version: null, schemaFieldBlameList: null };
  if (timeline.length === 0) return empty;
  const cutoff = input.version != null ? parseSemver(input.version) : timeline[timeline.length - 1]!.semver;
  if (!cutoff) return empty;
  const upTo = timeline.filter((t) => compareSemver(t.semver, cutoff) <= 0).reverse();
  if (upTo.length === 0) return empty;
  const blame = new Map<string, { fieldPath: string; schemaFieldChange: Obj }>();
  for (const t of upTo) {
    for (const e of t.events) {
      if (blame.has(e.fieldPath)) continue;
      const verb = e.op === 'ADD' ? 'Added' : e.op === 'MODIFY' ? 'Modified' : 'Removed';
      blame.set(e.fieldPath, { fieldPath: e.fieldPath, schemaFieldChange: { timestampMillis: t.timestamp, lastSemanticVersion: semverText(t.semver),
        versionStamp: t.versionStamp, changeType: e.op, lastSchemaFieldChange: `${verb} in v${semverText(t.semver)}` } });
    }
  }
  return {
    version: semverStruct(upTo[0]!),
    schemaFieldBlameList: [...blame.values()].filter((b) => b.schemaFieldChange.changeType !== 'REMOVE')
      .sort((a, b) => (a.fieldPath < b.fieldPath ? -1 : a.fieldPath > b.fieldPath ? 1 : 0)),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Versioned dataset

interface Versioned { urn: string; aspects: Map<string, AspectRecord> }

/** With a version stamp, the aspects it names at those versions (and no others, as DataHub reads them); else the latest. */
async function versionedDataset(_: unknown, { urn, versionStamp }: { urn: string; versionStamp?: string | null }, ctx: Ctx): Promise<Versioned> {
  const u = await requireDataset(ctx, urn);
  const aspects = versionStamp ? new Map<string, AspectRecord>() : new Map((await ctx.loader.load(u)).aspects);
  if (versionStamp) {
    for (const pair of versionStamp.split(';')) {
      const [name, v, ...rest] = pair.split(':');
      const version = Number(v);
      if (!name || rest.length || !Number.isInteger(version) || version < 0) throw badRequest(`Invalid version stamp: '${versionStamp}'`);
      const rec = await ctx.catalog.store.getVersion(u, name, version);
      if (rec) aspects.set(name, rec);
    }
  }
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

const loadQueryProps = (ctx: Ctx, urn: string) => ctx.loader.aspect<{ name?: string; description?: string; statement: { value: string };
  source: string; created?: { time?: number } }>(urn, queryProperties.name);

/** Query entities, newest first (queryProperties.created), soft-deleted ones left out, narrowed as the input asks. */
async function listQueries(_: unknown, { input }: { input: { start?: number | null; count?: number | null; query?: string | null;
  source?: string | null; datasetUrn?: string | null } }, ctx: Ctx) {
  const { start, count } = pageArgs(input.start, input.count, 100, 1000);
  await authorize(ctx, 'graphql.search');
  let urns: string[];
  if (input.datasetUrn) {
    const r = await ctx.catalog.relationships.list({ urn: parseUrn(input.datasetUrn).raw, direction: 'INCOMING', types: ['IsAssociatedWith'],
      start: 0, count: 10_000 });
    urns = [...new Set(r.edges.map((e) => e.source))].filter((u) => u.startsWith('urn:li:query:'));
  } else {
    urns = [];
    for (let after: string | undefined; ;) {
      const rows = await ctx.catalog.store.listEntities({ entityType: 'query', count: 1000, after });
      urns.push(...rows.map((r) => r.urn));
      if (rows.length < 1000) break;
      after = rows[rows.length - 1]!.urn;
    }
  }
  const words = (input.query ?? '').toLowerCase().split(/\s+/).filter((w) => w && w !== '*');
  const rows = await Promise.all(urns.map(async (u) => ({ u, p: await loadQueryProps(ctx, u),
    removed: (await ctx.loader.aspect<{ removed?: boolean }>(u, shared.status.name))?.removed === true })));
  const matching = rows.flatMap((r) => (r.p && !r.removed ? [{ u: r.u, p: r.p }] : []))
    .filter((r) => (!input.source || r.p.source === input.source)
      && words.every((w) => [r.p.name, r.p.description, r.p.statement.value].some((t) => t?.toLowerCase().includes(w))));
  matching.sort((a, b) => (b.p.created?.time ?? 0) - (a.p.created?.time ?? 0) || (a.u < b.u ? -1 : 1));
  const page = matching.slice(start, start + count);
  return { start, count: page.length, total: matching.length, queries: page.map((r) => ref(r.u)) };
}

/** DataHub 0.12.1: EDIT_ENTITY or EDIT_ENTITY_QUERIES on every dataset the query is about. */
async function authorizeQuerySubjects(ctx: Ctx, subjects: string[]) {
  for (const s of new Set(subjects)) {
    if (!(await can(ctx, 'graphql.editQueries', s))) throw forbidden('Unauthorized to edit queries of ' + s);
  }
}

async function requireSubjects(ctx: Ctx, subjects: { datasetUrn: string }[]) {
  const urns = subjects.map((s) => {
    const u = parseUrn(s.datasetUrn);
    if (u.entityType !== 'dataset') throw badRequest(`Invalid urn: '${s.datasetUrn}' is not a dataset urn`);
    return u.raw;
  });
  for (const u of new Set(urns)) if (!(await ctx.catalog.entities.exists(u))) throw notFound(`Entity ${u} does not exist`, { urn: u });
  return urns;
}

async function createQuery(_: unknown, { input }: { input: { properties: Obj; subjects: { datasetUrn: string }[] } }, ctx: Ctx) {
  const subjects = await requireSubjects(ctx, input.subjects);
  await authorizeQuerySubjects(ctx, subjects);
  const urn = `urn:li:query:${randomUUID()}`;
  const stamp = { time: Date.now(), actor: ctx.actor.urn };
  const p = input.properties;
  await ctx.catalog.entities.createOnce(urn, [queryProperties, querySubjects], {
    queryProperties: { statement: { value: p.statement.value, language: p.statement.language }, source: 'MANUAL',
      ...(p.name != null ? { name: p.name } : {}), ...(p.description != null ? { description: p.description } : {}), created: stamp, lastModified: stamp },
    querySubjects: { subjects: [...new Set(subjects)].map((entity) => ({ entity })) },
  }, ctx.actor, 'query');
  ctx.loader.clear(urn);
  return ref(urn);
}

async function querySubjectUrns(ctx: Ctx, urn: string) {
  return ((await ctx.catalog.entities.latestValues([urn], [querySubjects])).get(urn)?.get('querySubjects')?.subjects ?? []).map((s) => s.entity);
}

async function updateQuery(_: unknown, { urn, input }: { urn: string; input: { properties?: Obj | null; subjects?: { datasetUrn: string }[] | null } }, ctx: Ctx) {
  const u = parseUrn(urn);
  if (u.entityType !== 'query') throw badRequest(`Invalid urn: '${urn}' is not a query urn`, { urn });
  await ctx.catalog.entities.requireExists(u.raw);
  const next = input.subjects ? await requireSubjects(ctx, input.subjects) : [];
  await authorizeQuerySubjects(ctx, [...(await querySubjectUrns(ctx, u.raw)), ...next]);
  const stamp = { time: Date.now(), actor: ctx.actor.urn };
  const p = input.properties;
  await ctx.catalog.entities.editExisting(u.raw, [queryProperties, querySubjects], (current) => {
    const old = current.get('queryProperties');
    if (!old) throw notFound(`Query ${u.raw} has no properties to update`, { urn: u.raw });
    return {
      queryProperties: { ...old, ...(p?.name != null ? { name: p.name } : {}), ...(p?.description != null ? { description: p.description } : {}),
        ...(p?.statement ? { statement: { value: p.statement.value, language: p.statement.language } } : {}), lastModified: stamp },
      ...(input.subjects ? { querySubjects: { subjects: [...new Set(next)].map((entity) => ({ entity })) } } : {}),
    };
  }, ctx.actor);
  ctx.loader.clear(u.raw);
  return ref(u.raw);
}

async function deleteQuery(_: unknown, { urn }: { urn: string }, ctx: Ctx) {
  const u = parseUrn(urn);
  if (u.entityType !== 'query') throw badRequest(`Invalid urn: '${urn}' is not a query urn`, { urn });
  await ctx.catalog.entities.requireExists(u.raw);
  await authorizeQuerySubjects(ctx, await querySubjectUrns(ctx, u.raw));
  await ctx.catalog.entities.deleteEntity(u.raw);
  ctx.loader.clear();
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Mutations of the entity pages

/** EDIT_ENTITY or EDIT_ENTITY_ASSERTIONS on the dataset the assertion is about (any user, for one about nothing). */
async function deleteAssertion(_: unknown, { urn }: { urn: string }, ctx: Ctx) {
  const u = parseUrn(urn);
  if (u.entityType !== 'assertion') throw badRequest(`Invalid urn: '${urn}' is not an assertion urn`, { urn });
  await ctx.catalog.entities.requireExists(u.raw);
  const info = (await ctx.catalog.entities.latestValues([u.raw], [assertionInfo])).get(u.raw)?.get('assertionInfo');
  if (info) {
    const assertee = info.datasetAssertion?.dataset;
    if (!assertee) throw badRequest(`Unsupported assertion type ${info.type}: only DATASET assertions can be deleted here`);
    await authorize(ctx, 'graphql.deleteAssertion', assertee);
  }
  await ctx.catalog.entities.deleteEntity(u.raw);
  ctx.loader.clear();
  return true;
}

async function updateEmbed(_: unknown, { input }: { input: { urn: string; renderUrl?: string | null } }, ctx: Ctx) {
  const u = parseUrn(input.urn);
  await authorize(ctx, 'graphql.updateEmbed', u.raw);
  const d = descriptorOfUrn(u.raw);
  if (!d?.aspects.some((a) => a.name === shared.embed.name)) throw badRequest(`Entities of type ${u.entityType} have no embed`);
  await ctx.catalog.entities.editExisting(u.raw, [shared.embed], (current) =>
    ({ embed: { ...current.get('embed'), ...(input.renderUrl != null ? { renderUrl: input.renderUrl } : {}) } }), ctx.actor);
  ctx.loader.clear(u.raw);
  return true;
}

/** Marks entities removed (or back); every one must exist and be deletable by the caller, or nothing changes. */
async function batchUpdateSoftDeleted(_: unknown, { input }: { input: { urns: string[]; deleted: boolean } }, ctx: Ctx) {
  const urns = [...new Set(input.urns.map((x) => parseUrn(x).raw))];
  for (const u of urns) {
    await authorize(ctx, 'graphql.softDelete', u);
    if (!descriptorOfUrn(u)?.aspects.some((a) => a.name === shared.status.name)) throw badRequest(`Entities of type ${parseUrn(u).entityType} cannot be soft-deleted`);
    await ctx.catalog.entities.requireExists(u);
  }
  await ctx.catalog.entities.edit(new Map(urns.map((u) => [u, [shared.status]])),
    () => new Map(urns.map((u) => [u, { status: { removed: input.deleted } }])), ctx.actor);
  ctx.loader.clear();
  return true;
}

/** DataHub 0.12.1 renames glossary terms and nodes, domains, groups and data products, each under its own privilege. */
async function updateName(_: unknown, { input }: { input: { urn: string; name: string } }, ctx: Ctx) {
  const u = parseUrn(input.urn);
  const urn = u.raw;
  const name = input.name;
  await ctx.catalog.entities.requireExists(urn);
  const e = ctx.catalog.entities;
  switch (u.entityType) {
    case 'glossaryTerm':
    case 'glossaryNode': {
      if (!(await canManageGlossaryChildren(ctx, await glossaryParent(ctx, urn)))) throw forbidden();
      const def = u.entityType === 'glossaryTerm' ? glossaryTermInfo : glossaryNodeInfo;
      await e.editExisting(urn, [def], (current) => {
        const info = (current as unknown as { get(n: string): Obj | undefined }).get(def.name);
        if (!info) throw notFound(`${u.entityType === 'glossaryTerm' ? 'Glossary Term' : 'Glossary Node'} ${urn} has no info to rename`, { urn });
        return { [def.name]: { ...info, name } } as never;
      }, ctx.actor);
      break;
    }
    case 'domain': {
      await authorize(ctx, 'graphql.manageDomains');
      const props = (await e.latestValues([urn], [domainProperties])).get(urn)?.get('domainProperties');
      if (!props) throw notFound(`Domain ${urn} has no properties to rename`, { urn });
      const siblings = props.parentDomain
        ? (await ctx.catalog.relationships.list({ urn: props.parentDomain, direction: 'INCOMING', types: ['IsPartOf'], start: 0, count: 10_000 })).edges.map((x) => x.source)
        : (await ctx.catalog.store.listEntities({ entityType: 'domain', count: 100_000 })).map((r) => r.urn);
      const others = await e.latestValues(siblings.filter((s) => s !== urn && s.startsWith('urn:li:domain:')), [domainProperties]);
      if ([...others.values()].some((o) => { const d = o.get('domainProperties'); return d?.name === name && (d.parentDomain ?? null) === (props.parentDomain ?? null); })) {
        throw conflict(`"${name}" already exists in this domain. Please pick a unique name.`);
      }
      await e.editExisting(urn, [domainProperties], (current) => {
        if (!current.get('domainProperties')) throw notFound(`Domain ${urn} has no properties to rename`, { urn });
        return { domainProperties: { ...current.get('domainProperties'), name } };
      }, ctx.actor);
      break;
    }
    case 'corpGroup':
      await authorize(ctx, 'graphql.manageUsersAndGroups');
      await e.editExisting(urn, [corpGroupInfo], (current) => {
        if (!current.get('corpGroupInfo')) throw notFound(`Group ${urn} has no info to rename`, { urn });
        return { corpGroupInfo: { ...current.get('corpGroupInfo'), displayName: name } };
      }, ctx.actor);
      break;
    case 'dataProduct': {
      const domains = (await e.latestValues([urn], [shared.domains])).get(urn)?.get('domains')?.domains ?? [];
      const allowed = (domains[0] && await can(ctx, 'graphql.manageDataProducts', domains[0])) || await can(ctx, 'graphql.manageEntity', urn);
      if (!allowed) throw forbidden();
      await e.editExisting(urn, [dataProductProperties], (current) => {
        if (!current.get('dataProductProperties')) throw notFound(`Data product ${urn} has no properties to rename`, { urn });
        return { dataProductProperties: { ...current.get('dataProductProperties'), name } };
      }, ctx.actor);
      break;
    }
    default:
      throw badRequest(`Failed to update name. Unsupported resource type ${u.entityType}`, { urn });
  }
  ctx.loader.clear(urn);
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
        : await ctx.catalog.store.getVersion(r.urn, shared.schemaMetadata.name, v);
      return rec ? schemaMetadataOut(r.urn, rec.value as shared.SchemaMetadata, v, ctx) : null;
    },
  },
  VersionedDataset: versionedResolvers,
  Query: { versionedDataset, getSchemaBlame, getSchemaVersionList, listQueries },
  Mutation: { deleteAssertion, updateName, updateEmbed, batchUpdateSoftDeleted, createQuery, updateQuery, deleteQuery },
};

export const datasetPageResolvers: Record<string, Record<string, unknown>> = { ...rawAspectFields };
for (const [type, fields] of Object.entries(pageResolvers)) datasetPageResolvers[type] = { ...datasetPageResolvers[type], ...fields };
