import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, rec, str, urn } from './schema.js';

export const queryKey = keyAspect('queryKey', 'com.linkedin.metadata.key.QueryKey', [['id', 'string']]);

/**
 * A query's text and origin. DataHub 0.12.1 knows the source MANUAL only; connectors for later versions send SYSTEM
 * for the queries they find in logs, which Almanac takes too rather than refuse real connector output.
 */
export const queryProperties = aspect('queryProperties', 'com.linkedin.query.QueryProperties', rec({
  ...shared.customPropertiesField, statement: rec({ value: str, 'language?': enumOf(['SQL', 'UNKNOWN']) }), source: enumOf(['MANUAL', 'SYSTEM']),
  'name?': str, 'description?': str, created: shared.auditStamp, lastModified: shared.auditStamp, 'origin?': urn,
}), { searchText: shared.propertiesText });

export const querySubjects = aspect('querySubjects', 'com.linkedin.query.QuerySubjects',
  rec({ subjects: arr(rec({ entity: urn })) }), {
    edges: (v, add) => { for (const s of v.subjects) add('IsAssociatedWith', s.entity); },
  });

/** Queries run against datasets, found in logs or written by users. */
export const query = defineEntity({
  name: 'query',
  category: 'core',
  key: queryKey,
  aspects: [queryProperties, querySubjects, shared.status],
  graphql: { entityType: 'QUERY' },
});
