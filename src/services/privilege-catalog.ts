/**
 * The privileges a policy may grant, as DataHub 0.12.1's policy builder offers them (appConfig.policiesConfig):
 * their identifiers, display names and, per resource type, which metadata privileges apply. Descriptions are
 * Almanac's own.
 */
export interface PrivilegeInfo {
  type: string;
  displayName: string;
  description: string;
}

const p = (type: string, displayName: string, description: string): PrivilegeInfo => ({ type, displayName, description });

// Platform privileges
const MANAGE_POLICIES = p('MANAGE_POLICIES', 'Manage Policies', 'Create, edit and remove access policies, and assign roles.');
const MANAGE_INGESTION = p('MANAGE_INGESTION', 'Manage Metadata Ingestion', 'Create, edit and remove ingestion sources.');
const MANAGE_SECRETS = p('MANAGE_SECRETS', 'Manage Secrets', 'Create, edit and remove the secrets ingestion sources use.');
const MANAGE_USERS_AND_GROUPS = p('MANAGE_USERS_AND_GROUPS', 'Manage Users & Groups', 'Create and remove users and groups, and change who belongs to which group.');
const VIEW_ANALYTICS = p('VIEW_ANALYTICS', 'View Analytics', 'Open the analytics page.');
const GET_ANALYTICS = p('GET_ANALYTICS_PRIVILEGE', 'Analytics API access', 'Read usage analytics through the API.');
const GENERATE_PATS = p('GENERATE_PERSONAL_ACCESS_TOKENS', 'Generate Personal Access Tokens', 'Create access tokens for oneself.');
const MANAGE_ACCESS_TOKENS = p('MANAGE_ACCESS_TOKENS', 'Manage All Access Tokens', 'List and revoke the access tokens of every user.');
const MANAGE_DOMAINS = p('MANAGE_DOMAINS', 'Manage Domains', 'Create and remove domains.');
const MANAGE_GLOBAL_ANNOUNCEMENTS = p('MANAGE_GLOBAL_ANNOUNCEMENTS', 'Manage Home Page Posts', 'Publish and remove the announcements shown on the home page.');
const MANAGE_TESTS = p('MANAGE_TESTS', 'Manage Tests', 'Create, edit and remove metadata tests.');
const MANAGE_GLOSSARIES = p('MANAGE_GLOSSARIES', 'Manage Glossaries', 'Create, edit, move and remove glossary terms and term groups.');
const MANAGE_USER_CREDENTIALS = p('MANAGE_USER_CREDENTIALS', 'Manage User Credentials', 'Create password reset links for native users.');
const MANAGE_TAGS = p('MANAGE_TAGS', 'Manage Tags', 'Create and remove tags.');
const CREATE_TAGS = p('CREATE_TAGS', 'Create Tags', 'Create tags (not remove them).');
const CREATE_DOMAINS = p('CREATE_DOMAINS', 'Create Domains', 'Create domains (not remove them).');
const CREATE_GLOBAL_ANNOUNCEMENTS = p('CREATE_GLOBAL_ANNOUNCEMENTS', 'Create Global Announcements', 'Publish announcements (not remove them).');
const MANAGE_GLOBAL_VIEWS = p('MANAGE_GLOBAL_VIEWS', 'Manage Public Views', 'Create, edit and remove the views shared with everyone, and choose the default one.');
const MANAGE_GLOBAL_OWNERSHIP_TYPES = p('MANAGE_GLOBAL_OWNERSHIP_TYPES', 'Manage Ownership Types', 'Create, edit and remove ownership types.');
// Almanac's own: subscribers to the change log (GET /api/changes, webhooks).
const VIEW_CHANGE_LOG = p('VIEW_CHANGE_LOG', 'View the Change Log', 'Follow the catalog\'s changes as they happen (/api/changes), for the assets one may read.');
// Almanac's own: operators' metrics (GET /metrics).
const VIEW_METRICS = p('VIEW_METRICS', 'View Metrics', 'Read the server\'s operational metrics (GET /metrics, Prometheus format).');
const MANAGE_WEBHOOKS = p('MANAGE_WEBHOOKS', 'Manage Webhooks', 'Register, list and remove the webhooks that receive the catalog\'s changes, and see what they failed to deliver.');

export const PLATFORM_PRIVILEGE_LIST: readonly PrivilegeInfo[] = [
  MANAGE_POLICIES, MANAGE_USERS_AND_GROUPS, VIEW_ANALYTICS, GET_ANALYTICS, MANAGE_DOMAINS, MANAGE_GLOBAL_ANNOUNCEMENTS,
  MANAGE_INGESTION, MANAGE_SECRETS, GENERATE_PATS, MANAGE_ACCESS_TOKENS, MANAGE_TESTS, MANAGE_GLOSSARIES,
  MANAGE_USER_CREDENTIALS, MANAGE_TAGS, CREATE_TAGS, CREATE_DOMAINS, CREATE_GLOBAL_ANNOUNCEMENTS, MANAGE_GLOBAL_VIEWS,
  MANAGE_GLOBAL_OWNERSHIP_TYPES, VIEW_CHANGE_LOG, MANAGE_WEBHOOKS, VIEW_METRICS,
];

// Metadata (resource) privileges
const VIEW_ENTITY_PAGE = p('VIEW_ENTITY_PAGE', 'View Entity Page', 'See the asset and its page.');
const EDIT_TAGS = p('EDIT_ENTITY_TAGS', 'Edit Tags', 'Add and remove the asset\'s tags.');
const EDIT_TERMS = p('EDIT_ENTITY_GLOSSARY_TERMS', 'Edit Glossary Terms', 'Add and remove the asset\'s glossary terms.');
const EDIT_OWNERS = p('EDIT_ENTITY_OWNERS', 'Edit Owners', 'Add and remove the asset\'s owners.');
const EDIT_DOCS = p('EDIT_ENTITY_DOCS', 'Edit Description', 'Change the asset\'s description.');
const EDIT_LINKS = p('EDIT_ENTITY_DOC_LINKS', 'Edit Links', 'Add and remove the asset\'s links.');
const EDIT_STATUS = p('EDIT_ENTITY_STATUS', 'Edit Status', 'Mark the asset removed, or restore it.');
const EDIT_DOMAIN = p('EDIT_DOMAINS_PRIVILEGE', 'Edit Domain', 'Set or unset the asset\'s domain.');
const EDIT_DATA_PRODUCT = p('EDIT_ENTITY_DATA_PRODUCTS', 'Edit Data Product', 'Add the asset to a data product, or take it out.');
const EDIT_DEPRECATION = p('EDIT_DEPRECATION_PRIVILEGE', 'Edit Deprecation', 'Mark the asset deprecated, or not.');
const EDIT_ASSERTIONS = p('EDIT_ENTITY_ASSERTIONS', 'Edit Assertions', 'Add and remove the dataset\'s assertions.');
const EDIT_ENTITY = p('EDIT_ENTITY', 'Edit Entity', 'Change any of the asset\'s metadata.');
const DELETE_ENTITY = p('DELETE_ENTITY', 'Delete', 'Remove the asset.');
const EDIT_LINEAGE = p('EDIT_LINEAGE', 'Edit Lineage', 'Draw and erase the asset\'s lineage edges.');
const EDIT_EMBED = p('EDIT_ENTITY_EMBED', 'Edit Embedded Content', 'Change the content embedded in the asset\'s page.');
const EDIT_COL_TAGS = p('EDIT_DATASET_COL_TAGS', 'Edit Dataset Column Tags', 'Add and remove the tags of the dataset\'s columns.');
const EDIT_COL_TERMS = p('EDIT_DATASET_COL_GLOSSARY_TERMS', 'Edit Dataset Column Glossary Terms', 'Add and remove the glossary terms of the dataset\'s columns.');
const EDIT_COL_DOCS = p('EDIT_DATASET_COL_DESCRIPTION', 'Edit Dataset Column Descriptions', 'Change the descriptions of the dataset\'s columns.');
const VIEW_USAGE = p('VIEW_DATASET_USAGE', 'View Dataset Usage', 'See who uses the dataset, and how often.');
const VIEW_PROFILE = p('VIEW_DATASET_PROFILE', 'View Dataset Profile', 'See the dataset\'s profiles (row counts, column statistics).');
const EDIT_QUERIES = p('EDIT_ENTITY_QUERIES', 'Edit Dataset Queries', 'Add, edit and remove the queries saved on the dataset.');
const EDIT_TAG_COLOR = p('EDIT_TAG_COLOR', 'Edit Tag Color', 'Change the tag\'s colour.');
const EDIT_GROUP_MEMBERS = p('EDIT_GROUP_MEMBERS', 'Edit Group Members', 'Add and remove the group\'s members.');
const EDIT_USER_PROFILE = p('EDIT_USER_PROFILE', 'Edit User Profile', 'Change the user\'s profile (name, title, picture, teams, skills).');
const EDIT_CONTACT_INFO = p('EDIT_CONTACT_INFO', 'Edit Contact Information', 'Change the e-mail address, Slack handle or phone number.');
const MANAGE_GLOSSARY_CHILDREN = p('MANAGE_GLOSSARY_CHILDREN', 'Manage Direct Glossary Children', 'Create, edit and remove the terms and groups directly under this term group.');
const MANAGE_ALL_GLOSSARY_CHILDREN = p('MANAGE_ALL_GLOSSARY_CHILDREN', 'Manage All Glossary Children', 'Create, edit and remove every term and group under this term group, at any depth.');
const MANAGE_DATA_PRODUCTS = p('MANAGE_DATA_PRODUCTS', 'Manage Data Products', 'Create, edit and remove the data products of this domain.');

const COMMON = [VIEW_ENTITY_PAGE, EDIT_TAGS, EDIT_TERMS, EDIT_OWNERS, EDIT_DOCS, EDIT_LINKS, EDIT_STATUS, EDIT_DOMAIN,
  EDIT_DATA_PRODUCT, EDIT_DEPRECATION, EDIT_ENTITY, DELETE_ENTITY];

export interface ResourcePrivilegeInfo {
  resourceType: string;
  resourceTypeDisplayName: string;
  privileges: readonly PrivilegeInfo[];
}

const r = (resourceType: string, resourceTypeDisplayName: string, privileges: readonly PrivilegeInfo[]): ResourcePrivilegeInfo =>
  ({ resourceType, resourceTypeDisplayName, privileges });

const ENTITY_RESOURCE_PRIVILEGES: readonly ResourcePrivilegeInfo[] = [
  r('dataset', 'Datasets', [...COMMON, VIEW_USAGE, VIEW_PROFILE, EDIT_COL_DOCS, EDIT_COL_TAGS, EDIT_COL_TERMS, EDIT_ASSERTIONS,
    EDIT_LINEAGE, EDIT_EMBED, EDIT_QUERIES]),
  r('dashboard', 'Dashboards', [...COMMON, EDIT_LINEAGE, EDIT_EMBED]),
  r('chart', 'Charts', [...COMMON, EDIT_LINEAGE, EDIT_EMBED]),
  r('dataFlow', 'Data Pipelines', COMMON),
  r('dataJob', 'Data Tasks', [...COMMON, EDIT_LINEAGE]),
  r('tag', 'Tags', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_TAG_COLOR, EDIT_DOCS, EDIT_ENTITY, DELETE_ENTITY]),
  r('container', 'Containers', COMMON),
  r('domain', 'Domains', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_DOCS, EDIT_LINKS, EDIT_ENTITY, DELETE_ENTITY, MANAGE_DATA_PRODUCTS]),
  r('glossaryTerm', 'Glossary Terms', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_DOCS, EDIT_LINKS, EDIT_DEPRECATION, EDIT_ENTITY]),
  r('glossaryNode', 'Glossary Term Groups', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_DOCS, EDIT_LINKS, EDIT_DEPRECATION, EDIT_ENTITY,
    MANAGE_GLOSSARY_CHILDREN, MANAGE_ALL_GLOSSARY_CHILDREN]),
  r('corpGroup', 'Groups', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_GROUP_MEMBERS, EDIT_CONTACT_INFO, EDIT_DOCS, EDIT_ENTITY]),
  r('corpuser', 'Users', [VIEW_ENTITY_PAGE, EDIT_CONTACT_INFO, EDIT_USER_PROFILE, EDIT_ENTITY]),
  r('notebook', 'Notebook', COMMON),
  r('dataProduct', 'Data Products', [VIEW_ENTITY_PAGE, EDIT_OWNERS, EDIT_DOCS, EDIT_LINKS, EDIT_ENTITY, DELETE_ENTITY, EDIT_TAGS,
    EDIT_TERMS, EDIT_DOMAIN]),
];

/** Every entity type's list, then "all types": each privilege once, in order of first appearance. */
export const RESOURCE_PRIVILEGE_LIST: readonly ResourcePrivilegeInfo[] = [
  ...ENTITY_RESOURCE_PRIVILEGES,
  r('all', 'All Types', [...new Map(ENTITY_RESOURCE_PRIVILEGES.flatMap((x) => x.privileges).map((x) => [x.type, x])).values()]),
];
