import type { Actor } from '../model/actor.js';
import { REQUIRES, type Operation } from '../model/privileges.js';
import { parseUrn } from '../model/urn.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import type { DatasetUpdate, EditablePropertiesAspect, EditService, EntityUpdate, OwnerInput, ResourceRef } from './edits.js';

/**
 * The edit service as the transports reach it (Catalog.edits): each operation decides who may do it, on the resources
 * it changes, before the edit's own checks (a caller without the privilege hears 403 whatever else is wrong), then
 * hands over to EditService. Wrapped around it, as Backstage wraps its catalog in an authorized one, so that the edit
 * rules and the privilege rules each read in one place.
 */
export class AuthorizedEditService {
  constructor(private readonly edits: EditService, private readonly authz: Authorizer) {}

  private require(actor: Actor, op: Operation, resourceUrn?: string) {
    return requirePrivilege(this.authz, actor, REQUIRES[op], resourceUrn);
  }

  /** Each section of the input needs its own privilege, as DataHub checks them. */
  async updateDataset(urn: string, input: DatasetUpdate, actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    const sections: [keyof DatasetUpdate, Operation][] = [
      ['editableProperties', 'graphql.updateDataset.editableProperties'],
      ['institutionalMemory', 'graphql.updateDataset.institutionalMemory'],
      ['ownership', 'graphql.updateDataset.ownership'],
      ['tags', 'graphql.updateDataset.tags'],
      ['globalTags', 'graphql.updateDataset.tags'],
      ['deprecation', 'graphql.updateDataset.deprecation'],
      ['editableSchemaMetadata', 'graphql.updateDataset.editableSchemaMetadata'],
    ];
    // Unlike DataHub, an input with no section is not a free pass: it still needs EDIT_ENTITY.
    const present = sections.filter(([k]) => input[k] != null);
    if (present.length === 0) await this.require(actor, 'graphql.updateDataset.editableProperties', u);
    for (const [, op] of present) await this.require(actor, op, u);
    await this.edits.updateDataset(u, input, actor);
  }

  /** Each section needs its own privilege, as DataHub checks them; an input with no section still needs EDIT_ENTITY. */
  async updateEntity(urn: string, entityType: string, editableAspect: EditablePropertiesAspect, input: EntityUpdate, actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    const ops: Operation[] = [
      ...(input.ownership ? ['graphql.owners' as const] : []),
      ...(input.tags || input.globalTags ? ['graphql.tags' as const] : []),
      ...(input.editableProperties ? ['graphql.updateDescription' as const] : []),
    ];
    for (const op of ops.length ? ops : ['graphql.manageEntity' as const]) await this.require(actor, op, u);
    await this.edits.updateEntity(u, entityType, editableAspect, input, actor);
  }

  /** A user edits their own profile; anyone else needs EDIT_ENTITY or the privilege for what they change. */
  async updateCorpUserProperties(urn: string, input: Parameters<EditService['updateCorpUserProperties']>[1], actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    if (actor.urn !== u) {
      const given = input as Readonly<Record<string, unknown>>;
      const contact = ['slack', 'email', 'phone'].some((k) => given[k] != null);
      const profile = ['aboutMe', 'displayName', 'pictureLink', 'teams', 'skills', 'title'].some((k) => given[k] != null);
      if (contact) await this.require(actor, 'graphql.userContactInfo', u);
      if (profile) await this.require(actor, 'graphql.userProfile', u);
      if (!contact && !profile) await this.require(actor, 'graphql.manageEntity', u);
    }
    await this.edits.updateCorpUserProperties(u, input, actor);
  }

  async updateDescription(input: Parameters<EditService['updateDescription']>[0], actor: Actor): Promise<void> {
    const u = parseUrn(input.resourceUrn).raw;
    await this.require(actor, input.subResource ? 'graphql.updateDescription.column' : 'graphql.updateDescription', u);
    await this.edits.updateDescription({ ...input, resourceUrn: u }, actor);
  }

  async createTag(input: Parameters<EditService['createTag']>[0], actor: Actor): Promise<string> {
    await this.require(actor, 'graphql.createTag');
    return this.edits.createTag(input, actor);
  }

  async updateTag(urn: string, input: Parameters<EditService['updateTag']>[1], actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    await this.require(actor, 'graphql.updateTag', u);
    await this.edits.updateTag(u, input, actor);
  }

  async deleteTag(urn: string, actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    await this.require(actor, 'graphql.deleteTag', u);
    await this.edits.deleteTag(u);
  }

  async setTagColor(urn: string, colorHex: string, actor: Actor): Promise<void> {
    const u = parseUrn(urn).raw;
    await this.require(actor, 'graphql.setTagColor', u);
    await this.edits.setTagColor(u, colorHex, actor);
  }

  /** The tag or term privilege (of the column, when a column is named) on every resource first. */
  async changeLabels(kind: 'tag' | 'term', op: 'add' | 'remove', labelUrns: string[], resources: ResourceRef[], actor: Actor): Promise<void> {
    for (const r of resources) {
      const required: Operation = kind === 'tag'
        ? (r.subResource ? 'graphql.tags.column' : 'graphql.tags')
        : (r.subResource ? 'graphql.terms.column' : 'graphql.terms');
      await this.require(actor, required, parseUrn(r.resourceUrn).raw);
    }
    await this.edits.changeLabels(kind, op, labelUrns, resources, actor);
  }

  async addLink(resourceUrn: string, linkUrl: string, label: string, actor: Actor): Promise<void> {
    const u = parseUrn(resourceUrn).raw;
    await this.require(actor, 'graphql.links', u);
    await this.edits.addLink(u, linkUrl, label, actor);
  }

  async removeLink(resourceUrn: string, linkUrl: string, actor: Actor): Promise<void> {
    const u = parseUrn(resourceUrn).raw;
    await this.require(actor, 'graphql.links', u);
    await this.edits.removeLink(u, linkUrl, actor);
  }

  async addOwners(resourceUrns: string | string[], owners: OwnerInput[], actor: Actor): Promise<void> {
    const urns = await this.requireOnEach(actor, 'graphql.owners', resourceUrns);
    await this.edits.addOwners(urns, owners, actor);
  }

  async removeOwners(resourceUrns: string | string[], ownerUrns: string[], ownershipTypeUrn: string | null | undefined, actor: Actor): Promise<void> {
    const urns = await this.requireOnEach(actor, 'graphql.owners', resourceUrns);
    await this.edits.removeOwners(urns, ownerUrns, ownershipTypeUrn, actor);
  }

  async setDomain(resourceUrns: string | string[], domainUrn: string | null | undefined, actor: Actor): Promise<void> {
    const urns = await this.requireOnEach(actor, 'graphql.domains', resourceUrns);
    await this.edits.setDomain(urns, domainUrn, actor);
  }

  async updateDeprecation(resourceUrns: string | string[], input: Parameters<EditService['updateDeprecation']>[1], actor: Actor): Promise<void> {
    const urns = await this.requireOnEach(actor, 'graphql.deprecation', resourceUrns);
    await this.edits.updateDeprecation(urns, input, actor);
  }

  /**
   * The privilege on every resource (each once) before anything is written; the urns as parsed, one urn staying one
   * (the edit's 404 then names it as a resource), a list staying a list.
   */
  private async requireOnEach(actor: Actor, op: Operation, resourceUrns: string | string[]): Promise<string | string[]> {
    const urns = Array.isArray(resourceUrns) ? [...new Set(resourceUrns.map((r) => parseUrn(r).raw))] : parseUrn(resourceUrns).raw;
    for (const u of Array.isArray(urns) ? urns : [urns]) await this.require(actor, op, u);
    return urns;
  }
}
