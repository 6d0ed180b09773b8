import { assertionInfo } from '../entities/assertion.js';
import { descriptorOfUrn } from '../entities/index.js';
import * as shared from '../entities/shared-aspects.js';
import { badRequest, notFound } from '../errors.js';
import { aspectSpec } from '../registry/registry.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { parseUrn } from '../model/urn.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import type { EntityService, IngestResult } from './entities.js';
import type { ChangeItem } from './ingest-format.js';
import { updateLineage, type LineageEdit } from './lineage.js';

/**
 * The entity writes the transports make that no other service owns — ingestion, deletion, an operation reported, an
 * embed, soft deletion — each deciding who may before it writes, as Backstage wraps its catalog in an authorized one.
 * The transports reach EntityService's writes only through here (Catalog.entities offers them its reads).
 */
export class AuthorizedEntityWrites {
  constructor(private readonly entities: EntityService, private readonly authz: Authorizer) {}

  private require(actor: Actor, op: Operation, resourceUrn?: string) {
    return requirePrivilege(this.authz, actor, REQUIRES[op], resourceUrn);
  }

  /** Ingestion (REST ingestProposal and its batch, entities ingest, usage buckets): EDIT_ENTITY on every entity written. */
  async ingest(items: ChangeItem[], actor: Actor, opts?: { validated?: boolean }): Promise<IngestResult> {
    for (const urn of new Set(items.map((i) => i.urn))) await this.require(actor, 'rest.ingestProposal', urn);
    return this.entities.ingest(items, actor, opts);
  }

  /**
   * REST entities delete: the entity with everything it has, or only its values of one time-series aspect (in a range
   * when bounds are given). DELETE_ENTITY on it, then 404 for one that does not exist.
   */
  async delete(urnText: string, actor: Actor, timeseries?: { aspectName: string; startTimeMillis?: number; endTimeMillis?: number }):
    Promise<{ urn: string; rows: number; timeseriesRows: number }> {
    const urn = parseUrn(urnText).raw;
    await this.require(actor, 'rest.deleteEntity', urn);
    if (!(await this.entities.exists(urn))) throw notFound(`Entity ${urn} does not exist`, { urn });
    if (timeseries) {
      const spec = aspectSpec(timeseries.aspectName);
      if (!spec?.timeseries) throw badRequest('Not supported for non-timeseries aspect', { field: 'aspectName' });
      const n = await this.entities.deleteTimeseriesRange(urn, spec.name,
        { startTimeMillis: timeseries.startTimeMillis, endTimeMillis: timeseries.endTimeMillis }, actor);
      return { urn, rows: 0, timeseriesRows: n };
    }
    const { rows, timeseriesRows } = await this.entities.deleteEntity(urn, actor);
    return { urn, rows, timeseriesRows };
  }

  /** GraphQL reportOperation: one operation aspect value of an existing dataset. */
  async reportOperation(urnText: string, value: Readonly<Record<string, unknown>>, actor: Actor): Promise<void> {
    const urn = parseUrn(urnText).raw;
    await this.require(actor, 'graphql.reportOperation', urn);
    await this.entities.requireExists(urn);
    await this.entities.ingest([{ urn, entityType: 'dataset', aspect: 'operation', changeType: 'UPSERT', value, systemMetadata: null }], actor);
  }

  /** EDIT_ENTITY or EDIT_ENTITY_ASSERTIONS on the dataset the assertion is about (any user, for one about nothing). */
  async deleteAssertion(urnText: string, actor: Actor): Promise<void> {
    const u = parseUrn(urnText);
    if (u.entityType !== 'assertion') throw badRequest(`Invalid urn: '${urnText}' is not an assertion urn`, { urn: urnText });
    await this.entities.requireExists(u.raw);
    const info = (await this.entities.latestValues([u.raw], [assertionInfo])).get(u.raw)?.get('assertionInfo');
    if (info) {
      const assertee = info.datasetAssertion?.dataset;
      if (!assertee) throw badRequest(`Unsupported assertion type ${info.type}: only DATASET assertions can be deleted here`);
      await this.require(actor, 'graphql.deleteAssertion', assertee);
    }
    await this.entities.deleteEntity(u.raw);
  }

  /** The embed (a page's rendered view) of a dataset, chart or dashboard; its urn. */
  async updateEmbed(urnText: string, renderUrl: string | null | undefined, actor: Actor): Promise<string> {
    const u = parseUrn(urnText);
    await this.require(actor, 'graphql.updateEmbed', u.raw);
    const d = descriptorOfUrn(u.raw);
    if (!d?.aspects.some((a) => a.name === shared.embed.name)) throw badRequest(`Entities of type ${u.entityType} have no embed`);
    await this.entities.editExisting(u.raw, [shared.embed], (current) =>
      ({ embed: { ...current.get('embed'), ...(renderUrl != null ? { renderUrl } : {}) } }), actor);
    return u.raw;
  }

  /** Marks entities removed (or back); every one must exist and be deletable by the caller, or nothing changes. */
  async setSoftDeleted(urnTexts: string[], deleted: boolean, actor: Actor): Promise<void> {
    const urns = [...new Set(urnTexts.map((x) => parseUrn(x).raw))];
    for (const u of urns) {
      await this.require(actor, 'graphql.softDelete', u);
      if (!descriptorOfUrn(u)?.aspects.some((a) => a.name === shared.status.name)) throw badRequest(`Entities of type ${parseUrn(u).entityType} cannot be soft-deleted`);
      await this.entities.requireExists(u);
    }
    await this.entities.edit(new Map(urns.map((u) => [u, [shared.status]])),
      () => new Map(urns.map((u) => [u, { status: { removed: deleted } }])), actor);
  }

  /** DataHub 0.12.1's updateLineage: EDIT_ENTITY or EDIT_LINEAGE on both ends of every edge, then each aspect edited. */
  async updateLineage(add: readonly LineageEdit[], remove: readonly LineageEdit[], actor: Actor): Promise<void> {
    for (const u of new Set([...add, ...remove].flatMap((e) => [e.upstreamUrn, e.downstreamUrn]))) await this.require(actor, 'graphql.updateLineage', u);
    await updateLineage(this.entities, add, remove, actor);
  }
}
