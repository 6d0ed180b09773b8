import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { auditStamp } from './graphql-fields.js';
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

const SDL = gql`
type QueryEntity implements Entity {
  urn: String!
  type: EntityType!
  properties: QueryProperties
  subjects: [QuerySubject!]
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type QueryProperties {
  statement: QueryStatement!
  source: QuerySource!
  name: String
  description: String
  created: AuditStamp!
  lastModified: AuditStamp!
}

type QueryStatement {
  value: String!
  language: QueryLanguage!
}

"SQL is DataHub 0.12.1's only value; UNKNOWN is kept as sent (later connectors write it)."
enum QueryLanguage { SQL UNKNOWN }

"MANUAL is DataHub 0.12.1's only value; SYSTEM is kept as sent (later connectors write it)."
enum QuerySource { MANUAL SYSTEM }

type QuerySubject {
  dataset: Dataset!
}
`;

/** Queries run against datasets, found in logs or written by users. */
export const query = defineEntity({
  name: 'query',
  category: 'core',
  key: queryKey,
  aspects: [queryProperties, querySubjects, shared.status],
  graphql: {
    entityType: 'QUERY',
    objectType: 'QueryEntity',
    sdl: SDL,
    fields: {
      properties: async (f) => {
        const p = await f.aspect(queryProperties);
        return p ? { statement: { value: p.statement.value, language: p.statement.language ?? 'SQL' }, source: p.source,
          name: p.name ?? null, description: p.description ?? null, created: auditStamp(p.created), lastModified: auditStamp(p.lastModified) } : null;
      },
      // DataHub's QuerySubject is a dataset; subjects of other types (later versions' schema fields) are left out.
      subjects: async (f) => {
        const s = await f.aspect(querySubjects);
        return s ? s.subjects.filter((x) => x.entity.startsWith('urn:li:dataset:')).map((x) => ({ dataset: ref(x.entity) })) : null;
      },
    },
  },
});
