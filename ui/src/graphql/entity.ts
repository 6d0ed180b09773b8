import { ENTITY_SUMMARY } from './fragments';
import { typed } from '../gql';
import type { RawEntity } from '../entitySummary';
import type { SearchInput } from './search';

/**
 * The entity page's one read: the summary, then per type the blocks the page shows. Types lacking a block simply do
 * not select it; aliases give blocks the same name on every type (globalTags, customProps).
 */
const OWNERS = `ownership { owners { type associatedUrn owner {
  ... on CorpUser { urn type username properties { displayName fullName } editableProperties { displayName } }
  ... on CorpGroup { urn type name properties { displayName } } } } }`;
const TAGS = `tags { tag { urn name properties { name colorHex } } associatedUrn }`;
const TERMS = `glossaryTerms { terms { term { urn name properties { name } } associatedUrn } }`;
const DOMAIN = `domain { domain { urn properties { name } } }`;
const LINKS = `institutionalMemory { elements { url label description created { time actor } } }`;
const DEPRECATION = `deprecation { deprecated note decommissionTime actor }`;
const BROWSE = `browsePathV2 { path { name entity { urn type } } }`;
const CONTAINERS = `parentContainers { containers { urn type properties { name } } }`;
const PRIVILEGES = `privileges { canEditDescription canEditTags canEditGlossaryTerms canEditOwners canEditLinks canEditDeprecation }`;
const CUSTOM = (field = 'properties') => `customProps: ${field} { customProperties { key value } }`;
const GLOBAL_TAGS = `globalTags { ${TAGS} }`;
const TAGS_AS_GLOBAL = `globalTags: tags { ${TAGS} }`;
const FIELD_TAGS = `globalTags { tags { tag { urn name properties { name } } } } glossaryTerms { terms { term { urn name properties { name } } } }`;

export const ENTITY_PAGE = typed<{ entity: PageEntity | null }, { urn: string }>(/* GraphQL */ `
  query uiEntity($urn: String!) {
    entity(urn: $urn) {
      __typename
      ...uiEntitySummary
      ... on Dataset {
        exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CONTAINERS} ${PRIVILEGES} ${CUSTOM()}
        origin extProps: properties { externalUrl }
        schemaMetadata { name version platformUrn primaryKeys fields { fieldPath nativeDataType type description nullable isPartOfKey ${FIELD_TAGS} } }
        editableSchemaMetadata { editableSchemaFieldInfo { fieldPath description ${FIELD_TAGS} } }
      }
      ... on Chart { exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CONTAINERS} ${PRIVILEGES} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on Dashboard { exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CONTAINERS} ${PRIVILEGES} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on DataJob { exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${PRIVILEGES} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on DataFlow { exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on Container { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${CONTAINERS} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on Domain { exists ${OWNERS} ${LINKS} parentDomains { domains { urn type ... on Domain { properties { name } } } } }
      ... on DataProduct { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${PRIVILEGES} ${CUSTOM()} extProps: properties { externalUrl } }
      ... on Tag { exists ${OWNERS} }
      ... on GlossaryTerm { exists ${OWNERS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${PRIVILEGES} ${CUSTOM()} parentNodes { nodes { urn type properties { name } } } }
      ... on GlossaryNode { exists ${OWNERS} ${PRIVILEGES} parentNodes { nodes { urn type properties { name } } } }
      ... on CorpUser { exists ${GLOBAL_TAGS} ${CUSTOM()} }
      ... on CorpGroup { exists ${OWNERS} }
      ... on MLModel { exists ${OWNERS} ${GLOBAL_TAGS} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CUSTOM()} }
      ... on MLModelGroup { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${DEPRECATION} ${BROWSE} ${CUSTOM()} }
      ... on MLFeatureTable { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} ${CUSTOM()} }
      ... on MLFeature { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} ${BROWSE} }
      ... on MLPrimaryKey { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${DEPRECATION} }
      ... on Notebook { exists ${OWNERS} ${TAGS_AS_GLOBAL} ${TERMS} ${DOMAIN} ${LINKS} ${BROWSE} ${PRIVILEGES} ${CUSTOM('info')} }
    }
  }
  ${ENTITY_SUMMARY}
`);

export const UPDATE_DESCRIPTION = typed<{ updateDescription: boolean }, { input: { description: string; resourceUrn: string; subResourceType?: string; subResource?: string } }>(/* GraphQL */ `
  mutation uiUpdateDescription($input: DescriptionUpdateInput!) { updateDescription(input: $input) }
`);
export const ADD_TAG = typed<{ addTag: boolean }, { input: TargetInput & { tagUrn: string } }>(/* GraphQL */ `mutation uiAddTag($input: TagAssociationInput!) { addTag(input: $input) }`);
export const REMOVE_TAG = typed<{ removeTag: boolean }, { input: TargetInput & { tagUrn: string } }>(/* GraphQL */ `mutation uiRemoveTag($input: TagAssociationInput!) { removeTag(input: $input) }`);
export const ADD_TERM = typed<{ addTerm: boolean }, { input: TargetInput & { termUrn: string } }>(/* GraphQL */ `mutation uiAddTerm($input: TermAssociationInput!) { addTerm(input: $input) }`);
export const REMOVE_TERM = typed<{ removeTerm: boolean }, { input: TargetInput & { termUrn: string } }>(/* GraphQL */ `mutation uiRemoveTerm($input: TermAssociationInput!) { removeTerm(input: $input) }`);
export const ADD_OWNER = typed<{ addOwner: boolean }, { input: { ownerUrn: string; ownerEntityType: 'CORP_USER' | 'CORP_GROUP'; type: string; resourceUrn: string } }>(/* GraphQL */ `mutation uiAddOwner($input: AddOwnerInput!) { addOwner(input: $input) }`);
export const REMOVE_OWNER = typed<{ removeOwner: boolean }, { input: { ownerUrn: string; resourceUrn: string } }>(/* GraphQL */ `mutation uiRemoveOwner($input: RemoveOwnerInput!) { removeOwner(input: $input) }`);
export const SET_DOMAIN = typed<{ setDomain: boolean }, { entityUrn: string; domainUrn: string }>(/* GraphQL */ `mutation uiSetDomain($entityUrn: String!, $domainUrn: String!) { setDomain(entityUrn: $entityUrn, domainUrn: $domainUrn) }`);
export const UNSET_DOMAIN = typed<{ unsetDomain: boolean }, { entityUrn: string }>(/* GraphQL */ `mutation uiUnsetDomain($entityUrn: String!) { unsetDomain(entityUrn: $entityUrn) }`);
export const ADD_LINK = typed<{ addLink: boolean }, { input: { linkUrl: string; label: string; resourceUrn: string } }>(/* GraphQL */ `mutation uiAddLink($input: AddLinkInput!) { addLink(input: $input) }`);
export const REMOVE_LINK = typed<{ removeLink: boolean }, { input: { linkUrl: string; resourceUrn: string } }>(/* GraphQL */ `mutation uiRemoveLink($input: RemoveLinkInput!) { removeLink(input: $input) }`);
export const UPDATE_DEPRECATION = typed<{ updateDeprecation: boolean }, { input: { urn: string; deprecated: boolean; note: string } }>(/* GraphQL */ `mutation uiUpdateDeprecation($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }`);

/** Suggestions for a picker (tags, terms, owners, domains). */
export const PICK = typed<{ searchAcrossEntities: { searchResults: { entity: RawEntity }[] } | null }, { input: SearchInput }>(/* GraphQL */ `
  query uiPick($input: SearchAcrossEntitiesInput!) {
    searchAcrossEntities(input: $input) { searchResults { entity { ...uiEntitySummary } } }
  }
  ${ENTITY_SUMMARY}
`);

/** Entities at the other end of an entity's relationships of some types (a group's members, a node's terms, …). */
export const RELATED_EDGES = typed<{ entity: { relationships: { total: number | null; relationships: { entity: RawEntity | null }[] } | null } | null }, { urn: string; input: { types: string[]; direction: string; start: number; count: number } }>(/* GraphQL */ `
  query uiRelatedEdges($urn: String!, $input: RelationshipsInput!) {
    entity(urn: $urn) {
      urn
      relationships(input: $input) { total relationships { entity { ...uiEntitySummary } } }
    }
  }
  ${ENTITY_SUMMARY}
`);

/** Charts, dashboards, pipelines, tasks and notebooks take their documentation through their own update mutation. */
export const UPDATE_CHART_DOC = typed<{ updateChart: { urn: string } | null }, DocVariables>(/* GraphQL */ `mutation uiUpdateChartDoc($urn: String!, $description: String!) { updateChart(urn: $urn, input: { editableProperties: { description: $description } }) { urn } }`);
export const UPDATE_DASHBOARD_DOC = typed<{ updateDashboard: { urn: string } | null }, DocVariables>(/* GraphQL */ `mutation uiUpdateDashboardDoc($urn: String!, $description: String!) { updateDashboard(urn: $urn, input: { editableProperties: { description: $description } }) { urn } }`);
export const UPDATE_DATA_FLOW_DOC = typed<{ updateDataFlow: { urn: string } | null }, DocVariables>(/* GraphQL */ `mutation uiUpdateDataFlowDoc($urn: String!, $description: String!) { updateDataFlow(urn: $urn, input: { editableProperties: { description: $description } }) { urn } }`);
export const UPDATE_DATA_JOB_DOC = typed<{ updateDataJob: { urn: string } | null }, DocVariables>(/* GraphQL */ `mutation uiUpdateDataJobDoc($urn: String!, $description: String!) { updateDataJob(urn: $urn, input: { editableProperties: { description: $description } }) { urn } }`);
export const UPDATE_NOTEBOOK_DOC = typed<{ updateNotebook: { urn: string } | null }, DocVariables>(/* GraphQL */ `mutation uiUpdateNotebookDoc($urn: String!, $description: String!) { updateNotebook(urn: $urn, input: { editableProperties: { description: $description } }) { urn } }`);

/**
 * The entity page's entity: the summary's fields, and the per-type blocks, read by the page by name (`'globalTags' in
 * entity`) rather than typed one by one.
 */
export type PageEntity = Record<string, any> & RawEntity;

/** Where a tag or term goes: the entity, or one of its columns (subResourceType DATASET_FIELD). */
export interface TargetInput { resourceUrn: string; subResourceType?: string; subResource?: string }

/** The variables of the update mutations that write an entity's own documentation. */
export interface DocVariables { urn: string; description: string }
