import { badRequest, conflict, notFound } from '../errors.js';
import { corpUserEditableInfo } from '../entities/corp-user.js';
import { editableDatasetProperties } from '../entities/dataset.js';
import { tagProperties } from '../entities/tag.js';
import type { AspectDef, AspectValue } from '../entities/descriptor.js';
import { entityDescriptor, keyValuesOf } from '../entities/index.js';
import { ownerEntry, ownershipTypeOf } from '../entities/ownership-types.js';
import {
  deprecation, domains, editableSchemaMetadata, globalTags, glossaryTerms, institutionalMemory, ownership, schemaMetadata,
  type AuditStamp, type EditableSchemaMetadata, type GlobalTags, type GlossaryTerms, type SchemaMetadata,
} from '../entities/shared-aspects.js';
import { parseUrn, tryParseUrn } from '../model/urn.js';
import type { Actor } from '../model/actor.js';
import type { AspectWrites, EntityService } from './entities.js';

/**
 * The catalog's edit rules: descriptions, tags, terms, links, owners and deprecation, on the "editable"
 * aspects that ingestion never overwrites. Every operation checks that what it touches exists (Almanac writes
 * nothing for an entity that was never ingested), then reads, changes and writes its aspects in one transaction
 * under lock (EntityService.editExisting / edit): the change functions below are synchronous and work only on the
 * values they are handed, so concurrent edits of one aspect run one after another and none is lost.
 */

/** The editable properties aspect of a type that DataHub's per-type update writes the description to. */
export type EditablePropertiesAspect = AspectDef<`editable${string}Properties`, { description?: string; created?: AuditStamp; lastModified?: AuditStamp; deleted?: AuditStamp }>;

type Owner = AspectValue<typeof ownership>['owners'][number];
type CorpUserEditableInfo = AspectValue<typeof corpUserEditableInfo>;

export interface ResourceRef {
  resourceUrn: string;
  subResourceType?: 'DATASET_FIELD' | null;
  subResource?: string | null;
}

export interface OwnerInput {
  ownerUrn: string;
  type?: string | null;
  ownershipTypeUrn?: string | null;
}

export interface DatasetUpdate {
  editableProperties?: { description: string; name?: string | null } | null;
  institutionalMemory?: { elements: { url: string; description?: string | null; author: string; createdAt?: number | null }[] } | null;
  ownership?: { owners: { owner: string; type?: string | null; ownershipTypeUrn?: string | null }[] } | null;
  tags?: { tags?: { tag: { urn: string } }[] | null } | null;
  globalTags?: { tags?: { tag: { urn: string } }[] | null } | null;
  deprecation?: { deprecated: boolean; decommissionTime?: number | null; note: string } | null;
  editableSchemaMetadata?: { editableSchemaFieldInfo: { fieldPath: string; description?: string | null;
    globalTags?: { tags?: { tag: { urn: string } }[] | null } | null }[] } | null;
}

/** The input of DataHub's per-type updates (ChartUpdateInput, DashboardUpdateInput, …), which share this shape. */
export interface EntityUpdate {
  ownership?: DatasetUpdate['ownership'];
  globalTags?: DatasetUpdate['globalTags'];
  tags?: DatasetUpdate['tags'];
  editableProperties?: { description: string } | null;
}

function checkUrn(urn: string, entityType: string | string[], what: string): string {
  const u = tryParseUrn(urn);
  const types = Array.isArray(entityType) ? entityType : [entityType];
  if (typeof u === 'string' || !types.includes(u.entityType)) {
    throw badRequest(`${what} '${urn}' is not a valid ${types.join(' or ')} urn`, { urn });
  }
  return u.raw;
}

const stamp = (actor: Actor, time = Date.now()) => ({ time, actor: actor.urn });

/**
 * The owners and tags of an update input (updateDataset and the per-type updates), replacing the stored lists as
 * DataHub does; the urns they name are collected in `referenced` for one existence check.
 */
function ownershipAndTags(input: Pick<DatasetUpdate, 'ownership' | 'globalTags' | 'tags'>, actor: Actor, now: number,
  writes: AspectWrites<typeof ownership | typeof globalTags>, referenced: string[]): void {
  if (input.ownership) {
    writes.ownership = {
      owners: input.ownership.owners.map((o) => {
        const owner = checkUrn(o.owner, ['corpuser', 'corpGroup'], 'owner');
        referenced.push(owner);
        return ownerEntry(owner, o.type, o.ownershipTypeUrn);
      }),
      lastModified: stamp(actor, now),
    };
  }
  // DataHub takes the deprecated `globalTags` when both are given; so do we.
  const tagInput = input.globalTags ?? input.tags;
  if (tagInput) {
    const tags = (tagInput.tags ?? []).map((t) => checkUrn(t.tag.urn, 'tag', 'tag'));
    referenced.push(...tags);
    writes.globalTags = { tags: [...new Set(tags)].map((tag) => ({ tag })) };
  }
}

export class EditService {
  constructor(private readonly entities: EntityService) {}

  /** Throws NOT_FOUND naming every urn that does not exist. */
  private async requireAll(urns: string[], what: string) {
    const unique = [...new Set(urns)];
    const existing = await this.entities.existing(unique);
    const missing = unique.filter((u) => !existing.has(u));
    if (missing.length) throw notFound(`${what} ${missing.join(', ')} ${missing.length > 1 ? 'do' : 'does'} not exist`, { urns: missing });
  }

  private requireField(urn: string, fieldPath: string, schema: SchemaMetadata | undefined) {
    if (!schema) throw notFound(`Failed to update ${urn} & field ${fieldPath}. ${urn} has no schema.`, { urn, fieldPath });
    if (!schema.fields.some((f) => f.fieldPath === fieldPath)) {
      throw notFound(`Failed to update ${urn} & field ${fieldPath}. Field ${fieldPath} does not exist in the datasets schema.`, { urn, fieldPath });
    }
  }

  async updateDataset(urn: string, input: DatasetUpdate, actor: Actor): Promise<void> {
    const u = parseUrn(urn);
    if (u.entityType !== 'dataset') throw badRequest(`Invalid urn: '${urn}' is not a dataset urn`);
    await this.entities.requireExists(u.raw);
    const now = Date.now();
    // What the input alone decides; what merges with stored values is done under lock, below.
    const writes: AspectWrites<typeof institutionalMemory | typeof ownership | typeof globalTags | typeof deprecation> = {};
    const referenced: string[] = [];

    if (input.institutionalMemory) {
      writes.institutionalMemory = {
        elements: input.institutionalMemory.elements.map((e) => ({
          url: checkUrl(e.url),
          description: e.description ?? '',
          createStamp: { time: e.createdAt ?? now, actor: checkUrn(e.author, ['corpuser', 'corpGroup'], 'author') },
        })),
      };
    }
    ownershipAndTags(input, actor, now, writes, referenced);
    if (input.deprecation) {
      writes.deprecation = {
        deprecated: input.deprecation.deprecated,
        note: input.deprecation.note,
        actor: actor.urn,
        ...(input.deprecation.decommissionTime != null ? { decommissionTime: input.deprecation.decommissionTime } : {}),
      };
    }
    const columns = input.editableSchemaMetadata?.editableSchemaFieldInfo.map((f) => {
      const tags = f.globalTags ? (f.globalTags.tags ?? []).map((t) => checkUrn(t.tag.urn, 'tag', 'tag')) : undefined;
      if (tags) referenced.push(...tags);
      return { fieldPath: f.fieldPath, description: f.description, tags };
    });
    if (referenced.length) await this.requireAll(referenced, 'Entity');
    const aspects = [...[institutionalMemory, ownership, globalTags, deprecation].filter((a) => writes[a.name] !== undefined),
      ...(input.editableProperties ? [editableDatasetProperties] : []), ...(columns ? [schemaMetadata, editableSchemaMetadata] : [])];
    if (aspects.length === 0) return;
    await this.entities.editChecked(u.raw, aspects, (current) => {
      const next: AspectWrites<(typeof aspects)[number]> = { ...writes };
      if (input.editableProperties) {
        const prev = current.get('editableDatasetProperties');
        next.editableDatasetProperties = {
          ...prev,
          description: input.editableProperties.description,
          ...(input.editableProperties.name != null ? { name: input.editableProperties.name } : {}),
          created: prev?.created ?? stamp(actor, now),
          lastModified: stamp(actor, now),
        };
      }
      if (columns) {
        // Merged per fieldPath: editing one column never erases another column's edits (an Almanac difference).
        let esm = current.get('editableSchemaMetadata') ?? { editableSchemaFieldInfo: [] };
        for (const f of columns) {
          this.requireField(u.raw, f.fieldPath, current.get('schemaMetadata'));
          esm = changeColumn(esm, f.fieldPath, (entry) => ({ ...entry,
            ...(f.description !== undefined && f.description !== null ? { description: f.description } : {}),
            ...(f.tags ? { globalTags: { tags: [...new Set(f.tags)].map((tag) => ({ tag })) } } : {}) }));
        }
        next.editableSchemaMetadata = stamped(esm, actor, now);
      }
      return next;
    }, actor);
  }

  /**
   * DataHub's per-type update (updateChart, updateDashboard, updateDataFlow, updateDataJob, updateNotebook): owners
   * and tags replaced as given, the description written to the type's editable aspect, in one locked edit.
   */
  async updateEntity(urn: string, entityType: string, editableAspect: EditablePropertiesAspect, input: EntityUpdate, actor: Actor): Promise<void> {
    const u = parseUrn(urn);
    if (u.entityType !== entityType) throw badRequest(`Invalid urn: '${urn}' is not a ${entityType} urn`);
    await this.entities.requireExists(u.raw);
    const now = Date.now();
    const writes: AspectWrites<typeof ownership | typeof globalTags> = {};
    const referenced: string[] = [];
    ownershipAndTags(input, actor, now, writes, referenced);
    if (referenced.length) await this.requireAll(referenced, 'Entity');
    // The editable aspect of the type (editableChartProperties, …), with DataHub's created and last-modified stamps.
    const aspects = [...[ownership, globalTags].filter((a) => writes[a.name] !== undefined), ...(input.editableProperties ? [editableAspect] : [])];
    if (aspects.length === 0) return;
    await this.entities.editChecked(u.raw, aspects, (current) => {
      const next: AspectWrites<(typeof aspects)[number]> = { ...writes };
      if (input.editableProperties) {
        const prev = current.get(editableAspect.name);
        next[editableAspect.name] = { ...prev, description: input.editableProperties.description,
          created: prev?.created ?? stamp(actor, now), lastModified: stamp(actor, now) };
      }
      return next;
    }, actor);
  }

  /** A user's editable profile (corpUserEditableInfo): the fields given replace what is stored, the others stay. */
  async updateCorpUserProperties(urn: string, input: { readonly [K in keyof CorpUserEditableInfo]?: CorpUserEditableInfo[K] | null },
    actor: Actor): Promise<void> {
    const u = parseUrn(urn);
    if (u.entityType !== 'corpuser') throw badRequest(`Invalid urn: '${urn}' is not a corpuser urn`);
    // The fields given (null means not given); their values are checked with the aspect when it is written.
    const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v != null)) as CorpUserEditableInfo;
    if (typeof given.pictureLink === 'string') checkUrl(given.pictureLink);
    await this.entities.editExisting(u.raw, [corpUserEditableInfo],
      (current) => ({ corpUserEditableInfo: { ...current.get('corpUserEditableInfo'), ...given } }), actor);
  }

  async updateDescription(input: { description: string; resourceUrn: string; subResourceType?: string | null; subResource?: string | null }, actor: Actor) {
    const u = parseUrn(input.resourceUrn);
    const now = Date.now();
    // First: a missing entity is a 404 whatever else is wrong (here the write finds it missing, before the field).
    if (u.entityType === 'dataset' && input.subResourceType === 'DATASET_FIELD' && input.subResource) {
      const field = input.subResource;
      await this.entities.editChecked(u.raw, [schemaMetadata, editableSchemaMetadata], (current) => {
        this.requireField(u.raw, field, current.get('schemaMetadata'));
        const esm = changeColumn(current.get('editableSchemaMetadata') ?? { editableSchemaFieldInfo: [] }, field,
          (entry) => ({ ...entry, description: input.description }));
        return { editableSchemaMetadata: stamped(esm, actor, now) };
      }, actor, { mustExist: true });
      return;
    }
    await this.entities.requireExists(u.raw);
    if (input.subResourceType && u.entityType !== 'dataset') throw badRequest(`subResourceType ${input.subResourceType} applies to datasets only`);
    // Where the documentation of each entity type lives, as DataHub's updateDescription dispatches it (a dataset's
    // own description too, which DataHub refuses in this form and Almanac honours).
    const d = entityDescriptor(u.entityType);
    const target = d?.edits?.description;
    if (!d || !target) throw badRequest(`Failed to update description. Unsupported resource type ${u.entityType}`);
    // The aspect is the descriptor's choice, so its type is known at run time only: its value is handled as a record.
    const aspect = target.aspect.name;
    await this.entities.editChecked(u.raw, [target.aspect], (current) => {
      const prev: Readonly<Record<string, unknown>> | undefined = current.get(aspect);
      if (!prev && target.requiresExisting) throw notFound(`Properties for this ${target.requiresExisting} do not yet exist!`);
      const key = keyValuesOf(d, u);
      const next: Record<string, unknown> = { ...(target.defaults && key ? target.defaults(key) : {}), ...prev, [target.field]: input.description };
      if (target.stamped) {
        next.created = prev?.created ?? stamp(actor, now);
        next.lastModified = stamp(actor, now);
      }
      return { [aspect]: next };
    }, actor);
  }

  async createTag(input: { id?: string | null; name: string; description?: string | null }, actor: Actor): Promise<string> {
    if (!input.name?.trim()) throw badRequest('A tag needs a name');
    const id = input.id ?? crypto.randomUUID();
    if (!id.trim() || /[\s,()]/.test(id)) throw badRequest(`Tag id '${id}' must be non-empty and contain no spaces, commas or parentheses`);
    const urn = parseUrn(`urn:li:tag:${id}`).raw;
    const props: AspectValue<typeof tagProperties> = { name: input.name, ...(input.description != null ? { description: input.description } : {}) };
    await this.entities.createOnce(urn, [tagProperties, ownership], { tagProperties: props,
      ownership: { owners: [ownerEntry(actor.urn, 'TECHNICAL_OWNER')], lastModified: stamp(actor) } }, actor, 'Tag');
    return urn;
  }

  async updateTag(urn: string, input: { urn: string; name: string; description?: string | null; ownership?: DatasetUpdate['ownership'] }, actor: Actor) {
    const u = parseUrn(urn);
    if (u.entityType !== 'tag') throw badRequest(`Invalid urn: '${urn}' is not a tag urn`);
    if (input.urn !== u.raw) throw badRequest(`input.urn '${input.urn}' does not match urn '${u.raw}'`);
    await this.entities.requireExists(u.raw);
    const writes: AspectWrites<typeof ownership> = {};
    if (input.ownership) {
      const owners = input.ownership.owners.map((o) => checkUrn(o.owner, ['corpuser', 'corpGroup'], 'owner'));
      await this.requireAll(owners, 'Owner');
      writes.ownership = { owners: input.ownership.owners.map((o) => ownerEntry(o.owner, o.type, o.ownershipTypeUrn)),
        lastModified: stamp(actor) };
    }
    await this.entities.editChecked(u.raw, [tagProperties, ...(writes.ownership ? [ownership] : [])], (current) => ({
      tagProperties: { ...current.get('tagProperties'), name: input.name, ...(input.description != null ? { description: input.description } : {}) },
      ...writes,
    }), actor);
  }

  async deleteTag(urn: string): Promise<void> {
    const u = parseUrn(urn);
    if (u.entityType !== 'tag') throw badRequest(`Invalid urn: '${urn}' is not a tag urn`);
    await this.entities.requireExists(u.raw);
    await this.entities.deleteEntity(u.raw);
  }

  async setTagColor(urn: string, colorHex: string, actor: Actor) {
    const u = parseUrn(urn);
    if (u.entityType !== 'tag') throw badRequest(`Invalid urn: '${urn}' is not a tag urn`);
    if (!/^#?[0-9a-fA-F]{3,8}$/.test(colorHex)) throw badRequest(`colorHex '${colorHex}' is not a hex colour like #0077b6`);
    if (!(await this.entities.exists(u.raw))) throw notFound(`Failed to set Tag ${u.raw} color. Tag does not exist.`, { urn: u.raw });
    await this.entities.editChecked(u.raw, [tagProperties],
      (current) => ({ tagProperties: { name: u.key, ...current.get('tagProperties'), colorHex } }), actor);
  }

  /** Adds or removes tags or glossary terms on many resources (and columns): all of them, or none. */
  async changeLabels(kind: 'tag' | 'term', op: 'add' | 'remove', labelUrns: string[], resources: ResourceRef[], actor: Actor) {
    const labelType = kind === 'tag' ? 'tag' : 'glossaryTerm';
    const labels = [...new Set(labelUrns.map((l) => checkUrn(l, labelType, kind === 'tag' ? 'tag' : 'term')))];
    if (labels.length === 0) throw badRequest(`No ${kind} urns given`);
    if (resources.length === 0) throw badRequest('No resources given');
    if (op === 'add') await this.requireAll(labels, kind === 'tag' ? 'Tag' : 'Glossary term');
    const byUrn = new Map<string, ResourceRef[]>();
    for (const r of resources) {
      const urn = parseUrn(r.resourceUrn).raw;
      if (r.subResourceType && !r.subResource) throw badRequest('subResource is required with subResourceType');
      if (r.subResource && r.subResourceType !== 'DATASET_FIELD') throw badRequest('subResourceType must be DATASET_FIELD when subResource is given');
      byUrn.set(urn, [...(byUrn.get(urn) ?? []), r]);
    }
    await this.requireAll([...byUrn.keys()], 'Resource');
    /** The list with the labels added (each once) or taken out. */
    const change = <T>(list: readonly T[], id: (x: T) => string, make: (label: string) => T): T[] => (op === 'add'
      ? [...list, ...labels.filter((l) => !list.some((x) => id(x) === l)).map(make)]
      : list.filter((x) => !labels.includes(id(x))));
    const applyTags = (holder: GlobalTags | undefined): GlobalTags =>
      ({ ...holder, tags: change(holder?.tags ?? [], (x) => x.tag, (tag) => ({ tag })) });
    const applyTerms = (holder: GlossaryTerms | undefined): GlossaryTerms =>
      ({ ...holder, terms: change(holder?.terms ?? [], (x) => x.urn, (urn) => ({ urn })), auditStamp: stamp(actor) });
    const labelAspect = kind === 'tag' ? globalTags : glossaryTerms;
    type Touched = typeof globalTags | typeof glossaryTerms | typeof schemaMetadata | typeof editableSchemaMetadata;
    // Every resource's aspects are read and written in one transaction: all of them change, or none.
    const targets = new Map<string, Touched[]>();
    for (const [urn, refs] of byUrn) {
      const columns = refs.some((r) => r.subResource);
      if (columns && parseUrn(urn).entityType !== 'dataset') throw badRequest(`Columns exist on datasets only, not on ${urn}`);
      targets.set(urn, [...(refs.some((r) => !r.subResource) ? [labelAspect] : []), ...(columns ? [schemaMetadata, editableSchemaMetadata] : [])]);
    }
    await this.entities.edit(targets, (current) => new Map([...byUrn].map(([urn, refs]) => {
      const values = current.get(urn)!;
      const writes: AspectWrites<Touched> = {};
      let esm: EditableSchemaMetadata | undefined;
      for (const r of refs) {
        if (r.subResource) {
          this.requireField(urn, r.subResource, values.get('schemaMetadata'));
          esm = changeColumn(esm ?? values.get('editableSchemaMetadata') ?? { editableSchemaFieldInfo: [] }, r.subResource, (entry) =>
            (kind === 'tag' ? { ...entry, globalTags: applyTags(entry.globalTags) } : { ...entry, glossaryTerms: applyTerms(entry.glossaryTerms) }));
        } else if (kind === 'tag') {
          writes.globalTags = applyTags(writes.globalTags ?? values.get('globalTags'));
        } else {
          writes.glossaryTerms = applyTerms(writes.glossaryTerms ?? values.get('glossaryTerms'));
        }
      }
      if (esm) writes.editableSchemaMetadata = stamped(esm, actor, Date.now());
      return [urn, writes];
    })), actor);
  }

  async addLink(resourceUrn: string, linkUrl: string, label: string, actor: Actor) {
    const urn = (await this.entities.requireExists(resourceUrn)).raw;
    const url = checkUrl(linkUrl);
    await this.entities.editExisting(urn, [institutionalMemory], (current) => {
      const prev = current.get('institutionalMemory');
      const elements = [...(prev?.elements ?? [])];
      const i = elements.findIndex((e) => e.url === url && e.description === label);
      if (i >= 0) return null; // the same link with the same label is already there
      elements.push({ url, description: label, createStamp: stamp(actor) });
      return { institutionalMemory: { ...prev, elements } };
    }, actor);
  }

  async removeLink(resourceUrn: string, linkUrl: string, actor: Actor) {
    const urn = (await this.entities.requireExists(resourceUrn)).raw;
    await this.entities.editExisting(urn, [institutionalMemory], (current) => {
      const prev = current.get('institutionalMemory');
      const elements = (prev?.elements ?? []).filter((e) => e.url !== linkUrl);
      return { institutionalMemory: { ...prev, elements } };
    }, actor);
  }

  /**
   * Adds owners, each under its ownership type, to one resource or many (all of them, or none). An owner already
   * there under the same type (whatever form the stored entry names it in: urn or legacy enum) is replaced in place,
   * as DataHub replaces it, so adding twice changes nothing.
   */
  async addOwners(resourceUrns: string | string[], owners: OwnerInput[], actor: Actor) {
    const urns = await this.requireResources(resourceUrns);
    if (owners.length === 0) throw badRequest('No owners given');
    for (const o of owners) checkUrn(o.ownerUrn, ['corpuser', 'corpGroup'], 'owner');
    await this.requireAll(owners.map((o) => o.ownerUrn), 'Owner');
    // As DataHub checks: an ownership type named by urn must exist.
    const types = owners.flatMap((o) => (o.ownershipTypeUrn ? [checkUrn(o.ownershipTypeUrn, 'ownershipType', 'ownershipTypeUrn')] : []));
    if (types.length) await this.requireAll(types, 'Ownership type');
    await this.editEach(urns, ownership, (prev) => {
      const list: Owner[] = [...(prev?.owners ?? [])];
      for (const o of owners) {
        const entry = ownerEntry(o.ownerUrn, o.type, o.ownershipTypeUrn);
        const same = (x: Owner) => x.owner === entry.owner && ownershipTypeOf(x) === entry.typeUrn;
        const at = list.findIndex(same);
        if (at < 0) list.push(entry);
        else list.splice(at, 1, { ...list[at], ...entry });
        // Any further copies under the same type (from ingestion) go: one owner, one entry per type.
        for (let i = list.length - 1; i > at && at >= 0; i--) if (same(list[i]!)) list.splice(i, 1);
      }
      return { ...prev, owners: list, lastModified: stamp(actor) };
    }, actor);
  }

  /**
   * Removes owners from one resource or many: under one ownership type when given (matching stored urns and legacy
   * types alike), else under all.
   */
  async removeOwners(resourceUrns: string | string[], ownerUrns: string[], ownershipTypeUrn: string | null | undefined, actor: Actor) {
    const urns = await this.requireResources(resourceUrns);
    await this.editEach(urns, ownership, (prev) => {
      const owners = (prev?.owners ?? []).filter((x) => !(ownerUrns.includes(x.owner) && (!ownershipTypeUrn || ownershipTypeOf(x) === ownershipTypeUrn)));
      return { ...prev, owners, lastModified: stamp(actor) };
    }, actor);
  }

  async removeOwner(resourceUrn: string, ownerUrn: string, ownershipTypeUrn: string | null | undefined, actor: Actor) {
    await this.removeOwners(resourceUrn, [ownerUrn], ownershipTypeUrn, actor);
  }

  /**
   * Puts resources in a domain (replacing the one they were in: an entity is in one domain, as DataHub keeps it),
   * or takes them out of theirs when domainUrn is null. The domain and every resource must exist.
   */
  async setDomain(resourceUrns: string | string[], domainUrn: string | null | undefined, actor: Actor) {
    const domain = domainUrn ? checkUrn(domainUrn, 'domain', 'domain') : null;
    if (domain) await this.requireAll([domain], 'Domain');
    const urns = await this.requireResources(resourceUrns);
    await this.editEach(urns, domains, (prev) => ({ ...prev, domains: domain ? [domain] : [] }), actor);
  }

  /** Marks resources deprecated (with an optional note and decommission time) or no longer deprecated, by the caller. */
  async updateDeprecation(resourceUrns: string | string[], input: { deprecated: boolean; note?: string | null; decommissionTime?: number | null },
    actor: Actor) {
    const urns = await this.requireResources(resourceUrns);
    const value: AspectValue<typeof deprecation> = { deprecated: input.deprecated, note: input.note ?? '', actor: actor.urn,
      ...(input.decommissionTime != null ? { decommissionTime: input.decommissionTime } : {}) };
    await this.editEach(urns, deprecation, () => value, actor);
  }

  /** The distinct urns of the resources named, each of which must exist. */
  private async requireResources(resourceUrns: string | string[]): Promise<string[]> {
    if (!Array.isArray(resourceUrns)) return [(await this.entities.requireExists(resourceUrns)).raw];
    const list = resourceUrns;
    if (list.length === 0) throw badRequest('No resources given');
    const urns = [...new Set(list.map((r) => parseUrn(r).raw))];
    await this.requireAll(urns, 'Resource');
    return urns;
  }

  /** Changes one aspect of every entity named, in one transaction under lock: all of them, or none. */
  private async editEach<A extends typeof ownership | typeof domains | typeof deprecation>(urns: string[], aspect: A,
    change: (prev: AspectValue<A> | undefined) => AspectValue<A>, actor: Actor) {
    await this.entities.edit(new Map(urns.map((u) => [u, [aspect]])), (current) => new Map(urns.map((u) => {
      const prev = current.get(u)!.get(aspect.name) as AspectValue<A> | undefined;
      // The one aspect's name, computed: TypeScript cannot follow a generic name into a key.
      return [u, { [aspect.name]: change(prev) } as AspectWrites<A>];
    })), actor);
  }
}

type ColumnInfo = EditableSchemaMetadata['editableSchemaFieldInfo'][number];

/** The editable schema with the entry of one column changed (made when the column has none yet). */
function changeColumn(esm: EditableSchemaMetadata, fieldPath: string, change: (entry: ColumnInfo) => ColumnInfo): EditableSchemaMetadata {
  const list = esm.editableSchemaFieldInfo ?? [];
  const at = list.findIndex((e) => e.fieldPath === fieldPath);
  return { ...esm, editableSchemaFieldInfo: at < 0 ? [...list, change({ fieldPath })] : list.map((e, i) => (i === at ? change(e) : e)) };
}

/** The editable schema with its created stamp (when it has none) and last-modified stamp set. */
function stamped(esm: EditableSchemaMetadata, actor: Actor, now: number): EditableSchemaMetadata {
  return { ...esm, created: esm.created ?? stamp(actor, now), lastModified: stamp(actor, now) };
}

function checkUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!['http:', 'https:', 'mailto:', 'ftp:'].includes(u.protocol)) throw new Error('scheme');
    return url;
  } catch {
    throw badRequest(`'${url}' is not a valid http(s) URL`, { url });
  }
}
