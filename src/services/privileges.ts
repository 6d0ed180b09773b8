import type { Requirement } from './authz.js';

/**
 * What each operation requires, in one table to audit. Either-of groups, as DataHub writes them:
 * `[['EDIT_ENTITY'], ['EDIT_ENTITY_DOCS']]` means EDIT_ENTITY or EDIT_ENTITY_DOCS.
 * Metadata privileges are checked on the operation's resource; platform privileges ignore it.
 */
export const REQUIRES = {
  // REST (Rest.li) actions
  'rest.ingestProposal': [['EDIT_ENTITY']],
  'rest.ingestSnapshot': [['EDIT_ENTITY']],
  'rest.deleteEntity': [['DELETE_ENTITY']],
  'rest.getAspect': [['GET_ENTITY_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.getEntity': [['GET_ENTITY_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.getTimeseriesAspectValues': [['GET_TIMESERIES_ASPECT_PRIVILEGE'], ['VIEW_ENTITY_PAGE']],
  'rest.config': [],
} as const satisfies Record<string, Requirement>;

export type Operation = keyof typeof REQUIRES;
