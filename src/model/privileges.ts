import { lookupTable } from './safe-keys.js';

/** A privilege's identifier, as DataHub names it (EDIT_ENTITY, MANAGE_POLICIES…). */
export type Privilege = string;
/**
 * DataHub's "either-of" form: a list of groups, any one of which, held in full, suffices.
 */
export type Requirement = readonly (readonly Privilege[])[];

/**
 * What each operation requires, in one table to audit. Either-of groups, as DataHub writes them:
 * `[['EDIT_ENTITY'], ['EDIT_ENTITY_DOCS']]` means EDIT_ENTITY or EDIT_ENTITY_DOCS.
 * Metadata privileges are checked on the operation's resource; platform privileges ignore it.
 * Operations not listed (GET /config, `me`, `appConfig`) need only an authenticated caller.
 */
export const REQUIRES = {
  // REST (Rest.li): ingestion and reads
  'rest.ingestProposal': [['EDIT_ENTITY']],
  'rest.deleteEntity': [['DELETE_ENTITY']],
  'rest.getAspect': [['GET_ENTITY_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.getEntity': [['GET_ENTITY_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.search': [['SEARCH_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  // on the entity whose relationships are read (/relationships, /openapi/relationships/v1/)
  'rest.getRelationships': [['GET_ENTITY_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  // on the referenced entity (DataHub checks that one only, not those whose aspects change)
  'rest.deleteReferences': [['DELETE_ENTITY']],
  // on every entity the run wrote
  'rest.rollbackRun': [['DELETE_ENTITY']],
  // REST: time series and usage
  'rest.getTimeseriesAspectValues': [['GET_TIMESERIES_ASPECT_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.usage': [['VIEW_DATASET_USAGE']],
  'rest.getIndexSizes': [['GET_TIMESERIES_INDEX_SIZES_PRIVILEGE']],
  'rest.truncateTimeseriesAspect': [['TRUNCATE_TIMESERIES_INDEX_PRIVILEGE']],
  'rest.getEsTaskStatus': [['GET_ES_TASK_STATUS_PRIVILEGE'], ['TRUNCATE_TIMESERIES_INDEX_PRIVILEGE']],
  // The change log's subscribers (src/http/changes.ts): platform privileges; each event is then checked as a
  // rest.getAspect read of its entity by the subscriber (a webhook's creator)
  'changes.subscribe': [['VIEW_CHANGE_LOG']],
  'webhooks.manage': [['MANAGE_WEBHOOKS']],
  // registering one also subscribes (its creator's reads decide what it receives)
  'webhooks.register': [['MANAGE_WEBHOOKS', 'VIEW_CHANGE_LOG']],
  // GET /metrics without the scrape token (src/http/metrics.ts)
  'metrics.read': [['VIEW_METRICS']],
  // REST: metadata tests
  'rest.evaluateTests': [['VIEW_ENTITY_PAGE']],
  'rest.pushTestResults': [['MANAGE_TESTS']],

  // GraphQL reads (the default policies give every user VIEW_ENTITY_PAGE on everything)
  'graphql.read': [['VIEW_ENTITY_PAGE']],
  'graphql.search': [['SEARCH_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'graphql.readProfiles': [['VIEW_DATASET_PROFILE']],
  'graphql.readUsage': [['VIEW_DATASET_USAGE']],
  'graphql.viewTests': [['VIEW_TESTS'], ['MANAGE_TESTS'], ['VIEW_ENTITY_PAGE']],
  'graphql.explainTests': [['VIEW_ENTITY_PAGE']],
  'graphql.timeseriesIndexSizes': [['GET_TIMESERIES_INDEX_SIZES_PRIVILEGE']],
  // GraphQL edits, on the resource they change
  'graphql.manageEntity': [['EDIT_ENTITY']],
  'graphql.updateDataset.editableProperties': [['EDIT_ENTITY'], ['EDIT_ENTITY_DOCS']],
  'graphql.updateDataset.institutionalMemory': [['EDIT_ENTITY'], ['EDIT_ENTITY_DOC_LINKS']],
  'graphql.updateDataset.ownership': [['EDIT_ENTITY'], ['EDIT_ENTITY_OWNERS']],
  'graphql.updateDataset.tags': [['EDIT_ENTITY'], ['EDIT_ENTITY_TAGS']],
  'graphql.updateDataset.deprecation': [['EDIT_ENTITY'], ['EDIT_ENTITY_DEPRECATION'], ['EDIT_DEPRECATION_PRIVILEGE']],
  'graphql.updateDataset.editableSchemaMetadata': [['EDIT_ENTITY'], ['EDIT_DATASET_COL_DESCRIPTION', 'EDIT_DATASET_COL_TAGS']],
  'graphql.updateDescription': [['EDIT_ENTITY'], ['EDIT_ENTITY_DOCS']],
  'graphql.updateDescription.column': [['EDIT_ENTITY'], ['EDIT_DATASET_COL_DESCRIPTION']],
  'graphql.tags': [['EDIT_ENTITY'], ['EDIT_ENTITY_TAGS']],
  'graphql.tags.column': [['EDIT_ENTITY'], ['EDIT_DATASET_COL_TAGS']],
  'graphql.terms': [['EDIT_ENTITY'], ['EDIT_ENTITY_GLOSSARY_TERMS']],
  'graphql.terms.column': [['EDIT_ENTITY'], ['EDIT_DATASET_COL_GLOSSARY_TERMS']],
  'graphql.links': [['EDIT_ENTITY'], ['EDIT_ENTITY_DOC_LINKS']],
  'graphql.owners': [['EDIT_ENTITY'], ['EDIT_ENTITY_OWNERS']],
  'graphql.domains': [['EDIT_ENTITY'], ['EDIT_DOMAINS_PRIVILEGE']],
  'graphql.deprecation': [['EDIT_ENTITY'], ['EDIT_ENTITY_DEPRECATION'], ['EDIT_DEPRECATION_PRIVILEGE']],
  'graphql.reportOperation': [['EDIT_ENTITY'], ['EDIT_ENTITY_OPERATIONS']],
  // GraphQL: the dataset, chart and dashboard pages (src/graphql/resolvers/dataset-pages.ts)
  'graphql.updateEmbed': [['EDIT_ENTITY'], ['EDIT_ENTITY_EMBED']],
  // on every dataset a query is about (before and after an update)
  'graphql.editQueries': [['EDIT_ENTITY'], ['EDIT_ENTITY_QUERIES']],
  // on the dataset the assertion is about
  'graphql.deleteAssertion': [['EDIT_ENTITY'], ['EDIT_ENTITY_ASSERTIONS']],
  'graphql.softDelete': [['EDIT_ENTITY'], ['DELETE_ENTITY']],
  // updateLineage: on both ends of every edge drawn or erased
  'graphql.updateLineage': [['EDIT_ENTITY'], ['EDIT_LINEAGE']],
  // GraphQL: tags (platform privileges, except per-tag edits)
  'graphql.createTag': [['CREATE_TAGS'], ['MANAGE_TAGS']],
  'graphql.updateTag': [['EDIT_ENTITY'], ['MANAGE_TAGS']],
  'graphql.deleteTag': [['MANAGE_TAGS'], ['DELETE_ENTITY']],
  'graphql.setTagColor': [['EDIT_ENTITY'], ['EDIT_TAG_COLOR'], ['MANAGE_TAGS']],
  // GraphQL: tokens, policies, metadata tests (platform privileges)
  'graphql.createOwnAccessToken': [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']],
  'graphql.listOwnAccessTokens': [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']],
  'graphql.manageAccessTokens': [['MANAGE_ACCESS_TOKENS']],
  'graphql.managePolicies': [['MANAGE_POLICIES']],
  'graphql.manageTests': [['MANAGE_TESTS']],
  'graphql.manageUsersAndGroups': [['MANAGE_USERS_AND_GROUPS']],
  'graphql.manageUserCredentials': [['MANAGE_USER_CREDENTIALS']],
  'graphql.groupMembers': [['MANAGE_USERS_AND_GROUPS'], ['EDIT_GROUP_MEMBERS']],
  'graphql.userProfile': [['EDIT_ENTITY'], ['EDIT_USER_PROFILE']],
  'graphql.userContactInfo': [['EDIT_ENTITY'], ['EDIT_CONTACT_INFO']],
  'graphql.groupProperties': [['MANAGE_USERS_AND_GROUPS'], ['EDIT_ENTITY_DOCS'], ['EDIT_ENTITY']],
  'graphql.manageOwnershipTypes': [['MANAGE_GLOBAL_OWNERSHIP_TYPES']],
  'graphql.viewAnalytics': [['VIEW_ANALYTICS']],
  // GraphQL: domains, the business glossary and data products, as DataHub 0.12.1 checks them
  'graphql.createDomain': [['CREATE_DOMAINS'], ['MANAGE_DOMAINS']],
  'graphql.manageDomains': [['MANAGE_DOMAINS']],
  'graphql.deleteDomain': [['MANAGE_DOMAINS'], ['DELETE_ENTITY']],
  'graphql.manageGlossaries': [['MANAGE_GLOSSARIES']],
  // on the parent node of what is created, moved or deleted; the next on any node above it
  'graphql.manageGlossaryChildren': [['MANAGE_GLOSSARIES'], ['MANAGE_GLOSSARY_CHILDREN']],
  'graphql.manageAllGlossaryChildren': [['MANAGE_GLOSSARIES'], ['MANAGE_ALL_GLOSSARY_CHILDREN']],
  // on the product's domain (on the product itself when it has none)
  'graphql.manageDataProducts': [['EDIT_ENTITY'], ['MANAGE_DATA_PRODUCTS']],
  // on each asset put in or taken out of a product
  'graphql.dataProducts': [['EDIT_ENTITY'], ['EDIT_ENTITY_DATA_PRODUCTS']],
  // GraphQL: the web app's settings (src/graphql/resolvers/settings.ts). Personal views need no privilege (their
  // owner only edits them); roles and invitations are administered with MANAGE_POLICIES, as in DataHub.
  'graphql.manageGlobalViews': [['MANAGE_GLOBAL_VIEWS']],
  'graphql.createPost': [['CREATE_GLOBAL_ANNOUNCEMENTS'], ['MANAGE_GLOBAL_ANNOUNCEMENTS']],
  'graphql.deletePost': [['MANAGE_GLOBAL_ANNOUNCEMENTS']],

  // Reads of administrative entity types, beyond the read operation's own privilege, whichever way the entity is
  // read (GraphQL entity/entities, REST entities, entitiesV2, aspects, test evaluation): they are for those who
  // administer them, as their dedicated queries (listPolicies, listAccessTokens) demand. Entity descriptors
  // (src/entities) say which of these applies to their type.
  'read.dataHubPolicy': [['MANAGE_POLICIES']],
  'read.dataHubAccessToken': [['MANAGE_ACCESS_TOKENS']],
  'read.dataHubSecret': [['MANAGE_SECRETS']],
  'read.ingestion': [['MANAGE_INGESTION']],
  'read.inviteToken': [['MANAGE_USERS_AND_GROUPS']],
} as const satisfies Record<string, Requirement>;

export type Operation = keyof typeof REQUIRES;

/** Aspects left out of (or refused in) generic reads without a privilege: a user's password hash and salt. */
export const READ_REQUIRES_BY_ASPECT: Readonly<Record<string, Requirement>> = lookupTable<Requirement>({
  corpUserCredentials: [['MANAGE_USER_CREDENTIALS']],
});
