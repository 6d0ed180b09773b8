import { lookupTable } from '../model/safe-keys.js';
import { ROOT_USER_URN } from '../model/actor.js';

/**
 * The privilege vocabulary of policies (DataHub 0.12.1's and Almanac's own), the shape of a policy, and the policies
 * and roles every new catalog starts with. PolicyService (policies.ts) evaluates and administers them.
 */
export const PLATFORM_PRIVILEGES = [
  'MANAGE_POLICIES', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS',
  'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS',
  'MANAGE_TESTS', 'VIEW_TESTS', 'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'CREATE_TAGS',
  'CREATE_DOMAINS', 'MANAGE_GLOBAL_VIEWS', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'RESTORE_INDICES_PRIVILEGE',
  'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE', 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE', 'GET_ES_TASK_STATUS_PRIVILEGE',
  'SET_WRITEABLE_PRIVILEGE', 'APPLY_RETENTION_PRIVILEGE', 'GET_ANALYTICS_PRIVILEGE', 'CREATE_GLOBAL_ANNOUNCEMENTS',
  // Almanac's own (the change log's subscribers, the operators' metrics)
  'VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS', 'VIEW_METRICS',
] as const;

export const METADATA_PRIVILEGES = [
  'VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS', 'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_DEPRECATION', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY_OPERATIONS',
  'EDIT_ENTITY', 'DELETE_ENTITY', 'EDIT_LINEAGE', 'EDIT_ENTITY_EMBED', 'EDIT_ENTITY_QUERIES', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'SEARCH_PRIVILEGE',
  'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE',
  'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS', 'MANAGE_GLOSSARY_CHILDREN', 'MANAGE_ALL_GLOSSARY_CHILDREN',
] as const;

/** Every privilege a policy may grant: what the system actor holds, and what validation accepts. */
export const ALL_PRIVILEGES = new Set<string>([...PLATFORM_PRIVILEGES, ...METADATA_PRIVILEGES]);

export interface PolicyInfo {
  displayName: string;
  description?: string;
  type: 'PLATFORM' | 'METADATA';
  state: 'ACTIVE' | 'INACTIVE';
  resources?: { type?: string; resources?: string[]; allResources?: boolean;
    filter?: { criteria: { field: string; values: string[]; condition?: 'EQUALS' | 'STARTS_WITH' }[] } };
  privileges: string[];
  actors: { users?: string[]; groups?: string[]; roles?: string[]; allUsers?: boolean; allGroups?: boolean;
    resourceOwners?: boolean; resourceOwnersTypes?: string[] };
  editable: boolean;
  lastUpdatedTimestamp?: number;
}

// DataHub 0.12.1's built-in policies (its boot file), with its urns, names, privileges, actors and states, so
// that clients and administrators find and toggle them by the same urns. Privileges come from these and from
// policies administrators write; nothing else grants one. Only the root user's two policies differ: they hold
// every privilege Almanac knows (a superset of DataHub's lists), so that the root user can always act and
// repair, and they cannot be edited.
const ROLE = (name: string) => [`urn:li:dataHubRole:${name}`];
const VIEW = ['VIEW_ENTITY_PAGE', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE'];
const ADMIN_PLATFORM = ['MANAGE_POLICIES', 'MANAGE_INGESTION', 'MANAGE_SECRETS', 'MANAGE_USERS_AND_GROUPS', 'VIEW_ANALYTICS',
  'GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_TESTS',
  'MANAGE_GLOSSARIES', 'MANAGE_USER_CREDENTIALS', 'MANAGE_TAGS', 'MANAGE_GLOBAL_VIEWS', 'RESTORE_INDICES_PRIVILEGE',
  'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE', 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE', 'GET_ES_TASK_STATUS_PRIVILEGE',
  'SET_WRITEABLE_PRIVILEGE', 'APPLY_RETENTION_PRIVILEGE', 'MANAGE_GLOBAL_OWNERSHIP_TYPES', 'GET_ANALYTICS_PRIVILEGE',
  'VIEW_CHANGE_LOG', 'MANAGE_WEBHOOKS', 'VIEW_METRICS'];
const EDITOR_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_DATASET_COL_TAGS', 'EDIT_DATASET_COL_GLOSSARY_TERMS',
  'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'EDIT_TAG_COLOR', 'EDIT_LINEAGE',
  'EDIT_ENTITY_QUERIES', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE', 'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS'];
const ADMIN_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS',
  'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES',
  'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE',
  'GET_TIMELINE_PRIVILEGE', 'PRODUCE_PLATFORM_EVENT_PRIVILEGE', 'MANAGE_DATA_PRODUCTS', 'DELETE_ENTITY'];
const OWNER_METADATA = ['VIEW_ENTITY_PAGE', 'EDIT_ENTITY_TAGS', 'EDIT_ENTITY_GLOSSARY_TERMS', 'EDIT_ENTITY_OWNERS',
  'EDIT_ENTITY_DOCS', 'EDIT_ENTITY_DOC_LINKS', 'EDIT_ENTITY_STATUS', 'EDIT_DOMAINS_PRIVILEGE', 'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_DEPRECATION_PRIVILEGE', 'EDIT_ENTITY_ASSERTIONS', 'EDIT_ENTITY', 'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS', 'EDIT_DATASET_COL_DESCRIPTION', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE',
  'EDIT_TAG_COLOR', 'EDIT_GROUP_MEMBERS', 'EDIT_USER_PROFILE', 'EDIT_CONTACT_INFO', 'EDIT_LINEAGE', 'EDIT_ENTITY_QUERIES',
  'GET_TIMELINE_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_COUNTS_PRIVILEGE',
  'MANAGE_DATA_PRODUCTS'];
const EDITABLE_TYPES = ['dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob', 'tag', 'container', 'domain', 'glossaryTerm',
  'glossaryNode', 'notebook', 'dataProduct'];

const policy = (displayName: string, type: PolicyInfo['type'], privileges: string[], actors: PolicyInfo['actors'],
  editable: boolean, description: string, resources?: PolicyInfo['resources']): PolicyInfo => ({
  displayName, description, type, state: 'ACTIVE', privileges,
  actors: { users: [], groups: [], allUsers: false, allGroups: false, resourceOwners: false, ...actors },
  ...(resources ? { resources } : {}), editable,
});

/** The policies every new catalog starts with, keyed by urn. */
export const DEFAULT_POLICIES: Readonly<Record<string, PolicyInfo>> = lookupTable<PolicyInfo>({
  'urn:li:dataHubPolicy:0': policy('Root User - All Platform Privileges', 'PLATFORM', [...PLATFORM_PRIVILEGES],
    { users: [ROOT_USER_URN] }, false, 'Grants every platform privilege to the root user.'),
  'urn:li:dataHubPolicy:1': policy('Root User - Edit and View All Resources', 'METADATA', [...METADATA_PRIVILEGES],
    { users: [ROOT_USER_URN] }, false, 'Grants every metadata privilege on every resource to the root user.'),
  'urn:li:dataHubPolicy:7': policy('All Users - Base Platform Privileges', 'PLATFORM',
    ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS'], { allUsers: true }, true,
    'Lets every user view analytics and create personal access tokens for themselves.'),
  'urn:li:dataHubPolicy:view-entity-page-all': policy('All Users - View Entity Page', 'METADATA', VIEW, { allUsers: true },
    true, 'Lets every user view and search every asset.'),
  'urn:li:dataHubPolicy:view-dataset-sensitive': policy('All Users - View Dataset Sensitive Information', 'METADATA',
    ['VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE'], { allUsers: true }, true,
    'Lets every user view the usage statistics and profiles of datasets.'),
  'urn:li:dataHubPolicy:admin-platform-policy': policy('Admins - Platform Policy', 'PLATFORM', ADMIN_PLATFORM,
    { roles: ROLE('Admin') }, false, 'Platform privileges of the Admin role.'),
  'urn:li:dataHubPolicy:admin-metadata-policy': policy('Admins - Metadata Policy', 'METADATA', ADMIN_METADATA,
    { roles: ROLE('Admin') }, false, 'Metadata privileges of the Admin role on every asset.'),
  'urn:li:dataHubPolicy:editor-platform-policy': policy('Editors - Platform Policy', 'PLATFORM',
    ['GENERATE_PERSONAL_ACCESS_TOKENS', 'MANAGE_DOMAINS', 'MANAGE_GLOBAL_ANNOUNCEMENTS', 'MANAGE_GLOSSARIES', 'MANAGE_TAGS'],
    { roles: ROLE('Editor') }, false, 'Platform privileges of the Editor role.'),
  'urn:li:dataHubPolicy:editor-metadata-policy': policy('Editors - Metadata Policy', 'METADATA', EDITOR_METADATA,
    { roles: ROLE('Editor') }, false, 'Metadata privileges of the Editor role on every asset.'),
  'urn:li:dataHubPolicy:editor-metadata-policy-entities': policy('Editors - Edit Metadata Entities', 'METADATA', ['EDIT_ENTITY'],
    { roles: ROLE('Editor') }, true, 'Lets the Editor role edit assets of the common entity types.',
    { allResources: false, filter: { criteria: [{ field: 'RESOURCE_TYPE', values: EDITABLE_TYPES, condition: 'EQUALS' }] } }),
  'urn:li:dataHubPolicy:reader-platform-policy': policy('Readers - Platform Policy', 'PLATFORM', [],
    { roles: ROLE('Reader') }, false, 'Platform privileges of the Reader role (none).'),
  'urn:li:dataHubPolicy:reader-metadata-policy': policy('Readers - Metadata Policy', 'METADATA',
    ['VIEW_ENTITY_PAGE', 'VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'SEARCH_PRIVILEGE', 'GET_COUNTS_PRIVILEGE',
      'GET_TIMESERIES_ASPECT_PRIVILEGE', 'GET_ENTITY_PRIVILEGE', 'GET_TIMELINE_PRIVILEGE'],
    { roles: ROLE('Reader') }, false, 'Metadata privileges of the Reader role on every asset.'),
  'urn:li:dataHubPolicy:asset-owners-metadata-policy': policy('Asset Owners - Metadata Policy', 'METADATA', OWNER_METADATA,
    { resourceOwners: true }, true, 'Lets the owners of an asset view and edit it.'),
});

/** DataHub's three built-in roles, which the role policies above name; a user holds one through `roleMembership`. */
export const DEFAULT_ROLES: Readonly<Record<string, { name: string; description: string; editable: boolean }>> = lookupTable({
  'urn:li:dataHubRole:Admin': { name: 'Admin', description: 'Every platform and metadata privilege.', editable: false },
  'urn:li:dataHubRole:Editor': { name: 'Editor', description: 'Reads and edits all metadata; no administration.', editable: false },
  'urn:li:dataHubRole:Reader': { name: 'Reader', description: 'Reads all metadata; edits nothing by default.', editable: false },
});
