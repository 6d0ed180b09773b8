import { requirePrivilege, requireRead } from '../../services/authz.js';
import { REQUIRES, type Operation, type Requirement } from '../../model/privileges.js';
import type { GraphQLContext } from '../context.js';
import { tryParseUrn } from '../../model/urn.js';

/** Refuses with a 403-coded error unless the caller holds the operation's privileges on the resource. */
export function authorize(ctx: GraphQLContext, op: Operation, resourceUrn?: string) {
  return requirePrivilege(ctx.catalog.authz, ctx.actor, REQUIRES[op] as Requirement, resourceUrn);
}

/** Refuses unless the caller may read the entity (see requireRead: policies and tokens need more than a view). */
export function authorizeRead(ctx: GraphQLContext, urn: string) {
  return requireRead(ctx.catalog.authz, ctx.actor, REQUIRES['graphql.read'] as Requirement, urn);
}

const can = (ctx: GraphQLContext, op: Operation, urn: string) => ctx.catalog.authz.allowed(ctx.actor, REQUIRES[op] as Requirement, urn);

/** Dataset.privileges: what the caller may do on this entity. */
export async function entityPrivileges(urn: string, ctx: GraphQLContext) {
  const [docs, tags, owners, links, terms, deprecation, manage, lineage] = await Promise.all([
    can(ctx, 'graphql.updateDescription', urn), can(ctx, 'graphql.tags', urn), can(ctx, 'graphql.owners', urn),
    can(ctx, 'graphql.links', urn), can(ctx, 'graphql.terms', urn), can(ctx, 'graphql.updateDataset.deprecation', urn),
    can(ctx, 'graphql.manageEntity', urn), can(ctx, 'graphql.updateLineage', urn),
  ]);
  return { canEditLineage: lineage, canManageEntity: manage, canEditDescription: docs, canEditTags: tags,
    canEditOwners: owners, canEditLinks: links, canEditGlossaryTerms: terms, canEditDeprecation: deprecation,
    ...(await pagePrivileges(urn, ctx)) };
}

/**
 * The EntityPrivileges fields the entity pages add, as DataHub 0.12.1 answers them per entity type: canEditEmbed on
 * datasets, charts and dashboards, canEditQueries on datasets, canManageChildren on glossary nodes (null elsewhere).
 */
async function pagePrivileges(urn: string, ctx: GraphQLContext) {
  const type = tryParseUrn(urn);
  const entityType = typeof type === 'string' ? '' : type.entityType;
  const embed = ['dataset', 'chart', 'dashboard'].includes(entityType);
  return {
    canEditEmbed: embed ? await can(ctx, 'graphql.updateEmbed', urn) : null,
    canEditQueries: entityType === 'dataset' ? await can(ctx, 'graphql.editQueries', urn) : null,
    canManageChildren: entityType === 'glossaryNode' ? await ctx.catalog.domainsGlossary.mayManageChildren(ctx.actor, urn) : null,
  };
}
