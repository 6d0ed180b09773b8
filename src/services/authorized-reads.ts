import { badRequest, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { tryParseUrn } from '../model/urn.js';
import type { AspectRecord } from '../storage/types.js';
import { Guarded, requireAspectRead, requireRead, visibleAspects, type Authorizer } from './authz.js';
import type { DomainsGlossaryService } from './domains-glossary.js';
import type { EntityService } from './entities.js';
import type { RelationshipService } from './relationships.js';
import type { TimeseriesService } from './timeseries.js';

/** Which transport reads: each has its operation names in the privilege table (the same privileges today). */
export type ReadVia = 'graphql' | 'rest';

type Entities = Pick<EntityService, 'exists' | 'existing' | 'getLatest' | 'getLatestOf' | 'getAspect' | 'versions'>;

/**
 * The reads the transports make, each deciding what the caller may see: an entity (the read operation's privilege on
 * it, and for administrative types the privilege that administers them), the aspects left out of a read (a user's
 * credentials), searches, time series and usage, relationships, and what the caller may do on an entity. Where a
 * transport reads through its own per-request loader (GraphQL), it asks here first (`admitEntity`).
 */
export class AuthorizedReads extends Guarded {
  constructor(private readonly s: { entities: Entities; relationships: RelationshipService; timeseries: TimeseriesService;
    domainsGlossary: Pick<DomainsGlossaryService, 'mayManageChildren'> }, authz: Authorizer) {
    super(authz);
  }

  // ---- entities ----

  /** Refuses unless the caller may read the entity through GraphQL (policies and tokens need more than a view). */
  admitEntity(actor: Actor, urn: string): Promise<void> {
    return requireRead(this.authz, actor, REQUIRES['graphql.read'], urn);
  }

  /** The aspects (of those named) the caller may see in a whole-entity read; the rest are left out. */
  readableAspects(actor: Actor, names: readonly string[]): Promise<Set<string>> {
    return visibleAspects(this.authz, actor, names);
  }

  /** Query.aspectHistory: every kept version of the entity's (named) readable aspects, newest first, `count` at most. */
  async aspectHistory(actor: Actor, urn: string, aspectNames: readonly string[] | undefined, count: number): Promise<AspectRecord[]> {
    await this.admitEntity(actor, urn);
    const latest = (await this.s.entities.getLatestOf([urn])).get(urn) ?? new Map();
    const names = aspectNames?.length ? aspectNames.filter((n) => latest.has(n)) : [...latest.keys()];
    const visible = await this.readableAspects(actor, names);
    const versions = (await Promise.all(names.filter((n) => visible.has(n)).map((n) => this.s.entities.versions(urn, n)))).flat();
    versions.sort((a, b) => b.createdOn - a.createdOn || b.revision - a.revision || (a.aspect < b.aspect ? -1 : a.aspect > b.aspect ? 1 : 0));
    return versions.slice(0, count);
  }

  /** REST GET /aspects: one version of one aspect; the aspect's name and version are read from the request in order. */
  async aspect(actor: Actor, urn: string, aspect: string | undefined, version: () => number): Promise<AspectRecord> {
    await requireRead(this.authz, actor, REQUIRES['rest.getAspect'], urn);
    if (!aspect) throw badRequest('Missing required parameter aspect', { field: 'aspect' });
    await requireAspectRead(this.authz, actor, aspect);
    return this.s.entities.getAspect(urn, aspect, version());
  }

  /** REST GET /entities: the entity's latest readable aspects (404 for one that does not exist). */
  async entity(actor: Actor, urn: string): Promise<AspectRecord[]> {
    await requireRead(this.authz, actor, REQUIRES['rest.getEntity'], urn);
    if (!(await this.s.entities.exists(urn))) throw notFound(`Entity ${urn} does not exist`, { urn });
    const all = await this.s.entities.getLatest(urn);
    const visible = await this.readableAspects(actor, [...all.keys()]);
    return [...all].filter(([a]) => visible.has(a)).map(([, r]) => r);
  }

  /**
   * REST entitiesV2: the latest readable aspects (of those asked for, read from the request once the caller is
   * admitted) of each entity that exists; every one must be readable.
   */
  async entities(actor: Actor, urns: readonly string[], aspects: () => string[] | undefined): Promise<Map<string, AspectRecord[]>> {
    for (const urn of urns) await requireRead(this.authz, actor, REQUIRES['rest.getEntity'], urn);
    const wanted = aspects();
    const existing = await this.s.entities.existing([...urns]);
    const latest = await this.s.entities.getLatestOf([...existing], wanted);
    const visible = await this.readableAspects(actor, [...new Set([...latest.values()].flatMap((m) => [...m.keys()]))]);
    const out = new Map<string, AspectRecord[]>();
    for (const urn of urns) {
      if (!existing.has(urn)) continue;
      out.set(urn, [...(latest.get(urn) ?? new Map<string, AspectRecord>()).values()].filter((r) => visible.has(r.aspect)));
    }
    return out;
  }

  /** REST /relationships and /openapi/relationships/v1/: one page of the entity's edges, if it is readable. */
  async relationships(actor: Actor, q: { urn: string; direction: 'INCOMING' | 'OUTGOING'; types: string[]; start: number; count: number }) {
    await requireRead(this.authz, actor, REQUIRES['rest.getRelationships'], q.urn);
    return this.s.relationships.list(q);
  }

  // ---- searches ----

  /**
   * Refuses unless the caller may search (SEARCH_PRIVILEGE or a view of entities): every search, browse, lineage
   * search, recommendation and list built on the search index asks here before it reads its input further.
   */
  admitSearch(actor: Actor, via: ReadVia): Promise<void> {
    return this.require(actor, via === 'rest' ? 'rest.search' : 'graphql.search');
  }

  // ---- time series ----

  /** REST getTimeseriesAspectValues: the entity must be readable; the query is read from the request once it is. */
  async timeseriesValues(actor: Actor, urn: string, query: () => Parameters<TimeseriesService['values']>[0]) {
    await requireRead(this.authz, actor, REQUIRES['rest.getTimeseriesAspectValues'], urn);
    const q = query();
    return { query: q, rows: await this.s.timeseries.values(q) };
  }

  /** Dataset.datasetProfiles: VIEW_DATASET_PROFILE on the dataset, before its profiles are read. */
  admitProfiles(actor: Actor, urn: string): Promise<void> {
    return this.require(actor, 'graphql.readProfiles', urn);
  }

  /**
   * A dataset's usage (VIEW_DATASET_USAGE on it); the range is read from the request once the caller is admitted. An
   * end time (REST's query) leaves out the buckets after it, not their part of the aggregations.
   */
  async usage(actor: Actor, via: ReadVia, urn: string, opts: () => { range: string; startTimeMillis?: number; endTimeMillis?: number }) {
    await this.require(actor, via === 'rest' ? 'rest.usage' : 'graphql.readUsage', urn);
    const { endTimeMillis, ...q } = opts();
    const u = await this.s.timeseries.usage(urn, q);
    return endTimeMillis === undefined ? u : { ...u, buckets: u.buckets.filter((b) => b.bucket <= endTimeMillis) };
  }

  // ---- what the caller may do ----

  /** Of the platform privileges named, those the caller holds (AuthenticatedUser.platformPrivileges). */
  async heldPrivileges(actor: Actor, privileges: readonly string[]): Promise<Set<string>> {
    const held = await Promise.all(privileges.map((p) => this.authz.allowed(actor, [[p]])));
    return new Set(privileges.filter((_, i) => held[i]));
  }

  /** EntityPrivileges: what the caller may do on this entity, as the entity pages ask. */
  async entityPrivileges(actor: Actor, urn: string) {
    const can = (op: Operation) => this.authz.allowed(actor, REQUIRES[op], urn);
    const [docs, tags, owners, links, terms, deprecation, manage, lineage] = await Promise.all([
      can('graphql.updateDescription'), can('graphql.tags'), can('graphql.owners'), can('graphql.links'), can('graphql.terms'),
      can('graphql.updateDataset.deprecation'), can('graphql.manageEntity'), can('graphql.updateLineage'),
    ]);
    // The fields the entity pages add, as DataHub 0.12.1 answers them per entity type: canEditEmbed on datasets, charts
    // and dashboards, canEditQueries on datasets, canManageChildren on glossary nodes (null elsewhere).
    const parsed = tryParseUrn(urn);
    const entityType = typeof parsed === 'string' ? '' : parsed.entityType;
    const embed = ['dataset', 'chart', 'dashboard'].includes(entityType);
    return { canEditLineage: lineage, canManageEntity: manage, canEditDescription: docs, canEditTags: tags,
      canEditOwners: owners, canEditLinks: links, canEditGlossaryTerms: terms, canEditDeprecation: deprecation,
      canEditEmbed: embed ? await can('graphql.updateEmbed') : null,
      canEditQueries: entityType === 'dataset' ? await can('graphql.editQueries') : null,
      canManageChildren: entityType === 'glossaryNode' ? await this.s.domainsGlossary.mayManageChildren(actor, urn) : null };
  }
}
