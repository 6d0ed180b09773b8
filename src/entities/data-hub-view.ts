import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, bool, enumOf, rec, str } from './schema.js';

export const dataHubViewKey = keyAspect('dataHubViewKey', 'com.linkedin.metadata.key.DataHubViewKey', [['id', 'string']]);

const criterion = rec({ field: str, value: str, 'values?': arr(str),
  'condition?': enumOf(['CONTAIN', 'END_WITH', 'EQUAL', 'IS_NULL', 'EXISTS', 'GREATER_THAN', 'GREATER_THAN_OR_EQUAL_TO', 'IN', 'LESS_THAN',
    'LESS_THAN_OR_EQUAL_TO', 'START_WITH']), 'negated?': bool });

export const dataHubViewInfo = aspect('dataHubViewInfo', 'com.linkedin.view.DataHubViewInfo', rec({
  name: str, 'description?': str, type: enumOf(['PERSONAL', 'GLOBAL']),
  definition: rec({ entityTypes: arr(str), filter: rec({ 'or?': arr(rec({ and: arr(criterion) })), 'criteria?': arr(criterion) }) }),
  created: shared.auditStamp, lastModified: shared.auditStamp,
}));

/** Saved search views: entity types and filters. */
export const dataHubView = defineEntity({
  name: 'dataHubView',
  category: 'core',
  key: dataHubViewKey,
  aspects: [dataHubViewInfo],
  graphql: { entityType: 'DATAHUB_VIEW' },
});
