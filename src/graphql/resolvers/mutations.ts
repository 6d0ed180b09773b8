import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import { editableChartProperties } from '../../entities/chart.js';
import { editableDashboardProperties } from '../../entities/dashboard.js';
import { editableDataFlowProperties } from '../../entities/data-flow.js';
import { editableDataJobProperties } from '../../entities/data-job.js';
import { ENTITY_DESCRIPTORS } from '../../entities/index.js';
import { editableNotebookProperties } from '../../entities/notebook.js';
import type { DatasetUpdate, EntityUpdate, OwnerInput, ResourceRef } from '../../services/edits.js';
import type { GraphQLContext } from '../context.js';
import { ref } from './common.js';

/**
 * Mutation resolvers: map the inputs, call the edit service (which decides who may: services/authorized-edits.ts),
 * and clear the request's cache so a selection after the write reads the new values.
 */
type Ctx = GraphQLContext;
type Obj = Record<string, any>;

async function updateDataset(urn: string, input: DatasetUpdate, ctx: Ctx) {
  const u = parseUrn(urn).raw;
  await ctx.catalog.edits.updateDataset(u, input, ctx.actor);
  ctx.loader.clear(u);
  return ref(u);
}

function resourcesOf(input: Obj): ResourceRef[] {
  return [{ resourceUrn: input.resourceUrn, subResourceType: input.subResourceType, subResource: input.subResource }];
}

async function changeLabels(ctx: Ctx, kind: 'tag' | 'term', op: 'add' | 'remove', labels: string[], resources: (ResourceRef | null)[]) {
  const refs = resources.filter((r): r is ResourceRef => r != null);
  await ctx.catalog.edits.changeLabels(kind, op, labels, refs, ctx.actor);
  ctx.loader.clear();
  return true;
}

/** The common shape of a Boolean edit of one resource: edit (the service checks the privilege), forget cached reads. */
async function editResource(ctx: Ctx, resourceUrn: string, edit: (urn: string) => Promise<void>) {
  const u = parseUrn(resourceUrn).raw;
  await edit(u);
  ctx.loader.clear(u);
  return true;
}

/** A batch edit of every resource named (all of them change, or none). */
async function editResources(ctx: Ctx, resources: (ResourceRef | null)[], edit: (urns: string[]) => Promise<void>) {
  await edit(resources.filter((r): r is ResourceRef => r != null).map((r) => r.resourceUrn));
  ctx.loader.clear();
  return true;
}

/**
 * DataHub's per-type update mutations the web app uses, each for an entity type whose descriptor serves the object
 * type named (declared only then, so a type not yet first class declares no mutation returning it).
 */
const ENTITY_UPDATES = [
  { entity: 'chart', mutation: 'updateChart', type: 'Chart', tags: true, aspect: editableChartProperties },
  { entity: 'dashboard', mutation: 'updateDashboard', type: 'Dashboard', tags: true, aspect: editableDashboardProperties },
  { entity: 'dataFlow', mutation: 'updateDataFlow', type: 'DataFlow', tags: true, aspect: editableDataFlowProperties },
  { entity: 'dataJob', mutation: 'updateDataJob', type: 'DataJob', tags: true, aspect: editableDataJobProperties },
  { entity: 'notebook', mutation: 'updateNotebook', type: 'Notebook', tags: false, aspect: editableNotebookProperties },
] as const;

const servedUpdates = () => ENTITY_UPDATES.filter((e) =>
  ENTITY_DESCRIPTORS.some((d) => d.name === e.entity && d.graphql.objectType === e.type));

/** The SDL of the per-type updates whose object types exist. */
export function entityUpdateSdl(): string {
  return servedUpdates().map((e) => `
input ${e.type}EditablePropertiesUpdate {
  description: String!
}

input ${e.type}UpdateInput {
  ownership: OwnershipUpdate${e.tags ? '\n  globalTags: GlobalTagsUpdate' : ''}
  tags: GlobalTagsUpdate
  editableProperties: ${e.type}EditablePropertiesUpdate
}

extend type Mutation {
  ${e.mutation}(urn: String!, input: ${e.type}UpdateInput!): ${e.type}
}
`).join('');
}

async function updateEntity(ctx: Ctx, e: (typeof ENTITY_UPDATES)[number], urn: string, input: EntityUpdate) {
  const u = parseUrn(urn).raw;
  await ctx.catalog.edits.updateEntity(u, e.entity, e.aspect, input, ctx.actor);
  ctx.loader.clear(u);
  return ref(u);
}

async function updateCorpUserProperties(ctx: Ctx, urn: string, input: Obj) {
  const u = parseUrn(urn).raw;
  await ctx.catalog.edits.updateCorpUserProperties(u, input, ctx.actor);
  ctx.loader.clear(u);
  return ref(u);
}

function ownersOf(list: Obj[]): OwnerInput[] {
  return list.map((o) => {
    if (o.ownerEntityType === 'CORP_GROUP' && !String(o.ownerUrn).startsWith('urn:li:corpGroup:')) {
      throw badRequest(`ownerEntityType CORP_GROUP needs a corpGroup urn, got '${o.ownerUrn}'`);
    }
    return { ownerUrn: o.ownerUrn, type: o.type, ownershipTypeUrn: o.ownershipTypeUrn };
  });
}

export const mutationResolvers = {
  Mutation: {
    ...Object.fromEntries(servedUpdates().map((e) => [e.mutation,
      (_: unknown, { urn, input }: { urn: string; input: EntityUpdate }, ctx: Ctx) => updateEntity(ctx, e, urn, input)])),
    updateCorpUserProperties: (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => updateCorpUserProperties(ctx, urn, input),
    updateDataset: (_: unknown, { urn, input }: { urn: string; input: DatasetUpdate }, ctx: Ctx) => updateDataset(urn, input, ctx),
    updateDatasets: async (_: unknown, { input }: { input: { urn: string; update: DatasetUpdate }[] }, ctx: Ctx) => {
      const out = [];
      for (const i of input) out.push(await updateDataset(i.urn, i.update, ctx));
      return out;
    },
    updateDescription: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn, (u) => ctx.catalog.edits.updateDescription({ ...input, resourceUrn: u } as never, ctx.actor)),
    createTag: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => ctx.catalog.edits.createTag(input as never, ctx.actor),
    updateTag: async (_: unknown, { urn, input }: { urn: string; input: Obj }, ctx: Ctx) => {
      const u = parseUrn(urn).raw;
      await ctx.catalog.edits.updateTag(u, input as never, ctx.actor);
      ctx.loader.clear(u);
      return ref(u);
    },
    deleteTag: (_: unknown, { urn }: { urn: string }, ctx: Ctx) =>
      editResource(ctx, urn, (u) => ctx.catalog.edits.deleteTag(u, ctx.actor)),
    setTagColor: (_: unknown, { urn, colorHex }: { urn: string; colorHex: string }, ctx: Ctx) =>
      editResource(ctx, urn, (u) => ctx.catalog.edits.setTagColor(u, colorHex, ctx.actor)),
    addTag: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'tag', 'add', [input.tagUrn], resourcesOf(input)),
    addTags: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'tag', 'add', input.tagUrns, resourcesOf(input)),
    removeTag: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'tag', 'remove', [input.tagUrn], resourcesOf(input)),
    batchAddTags: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'tag', 'add', input.tagUrns, input.resources),
    batchRemoveTags: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'tag', 'remove', input.tagUrns, input.resources),
    addTerm: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'term', 'add', [input.termUrn], resourcesOf(input)),
    addTerms: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'term', 'add', input.termUrns, resourcesOf(input)),
    removeTerm: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'term', 'remove', [input.termUrn], resourcesOf(input)),
    addLink: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn, (u) => ctx.catalog.edits.addLink(u, input.linkUrl, input.label, ctx.actor)),
    removeLink: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn, (u) => ctx.catalog.edits.removeLink(u, input.linkUrl, ctx.actor)),
    addOwner: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn, (u) => ctx.catalog.edits.addOwners(u, ownersOf([input]), ctx.actor)),
    addOwners: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn, (u) => ctx.catalog.edits.addOwners(u, ownersOf(input.owners), ctx.actor)),
    removeOwner: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.resourceUrn,
        (u) => ctx.catalog.edits.removeOwners(u, [input.ownerUrn], input.ownershipTypeUrn, ctx.actor)),
    batchAddTerms: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'term', 'add', input.termUrns, input.resources),
    batchRemoveTerms: (_: unknown, { input }: { input: Obj }, ctx: Ctx) => changeLabels(ctx, 'term', 'remove', input.termUrns, input.resources),
    // As DataHub's: the batch's ownershipTypeUrn applies to owners that name none.
    batchAddOwners: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResources(ctx, input.resources, (urns) => ctx.catalog.edits.addOwners(urns,
        ownersOf(input.owners.map((o: Obj) => ({ ...o, ownershipTypeUrn: o.ownershipTypeUrn ?? input.ownershipTypeUrn }))), ctx.actor)),
    batchRemoveOwners: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResources(ctx, input.resources,
        (urns) => ctx.catalog.edits.removeOwners(urns, input.ownerUrns, input.ownershipTypeUrn, ctx.actor)),
    setDomain: (_: unknown, { entityUrn, domainUrn }: { entityUrn: string; domainUrn: string }, ctx: Ctx) =>
      editResource(ctx, entityUrn, (u) => ctx.catalog.edits.setDomain(u, domainUrn, ctx.actor)),
    unsetDomain: (_: unknown, { entityUrn }: { entityUrn: string }, ctx: Ctx) =>
      editResource(ctx, entityUrn, (u) => ctx.catalog.edits.setDomain(u, null, ctx.actor)),
    batchSetDomain: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResources(ctx, input.resources, (urns) => ctx.catalog.edits.setDomain(urns, input.domainUrn, ctx.actor)),
    updateDeprecation: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResource(ctx, input.urn, (u) => ctx.catalog.edits.updateDeprecation(u, input as never, ctx.actor)),
    batchUpdateDeprecation: (_: unknown, { input }: { input: Obj }, ctx: Ctx) =>
      editResources(ctx, input.resources, (urns) => ctx.catalog.edits.updateDeprecation(urns, input as never, ctx.actor)),
  },
};
