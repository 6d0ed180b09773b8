import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { auditStamp, status } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const ownershipTypeKey = keyAspect('ownershipTypeKey', 'com.linkedin.metadata.key.OwnershipTypeKey', [['id', 'string']]);

/** DataHub requires the stamps; Almanac accepts their absence, as it did before, and reads them as null. */
export const ownershipTypeInfo = aspect('ownershipTypeInfo', 'com.linkedin.ownership.OwnershipTypeInfo',
  rec({ name: str, 'description?': str, 'created?': shared.auditStamp, 'lastModified?': shared.auditStamp }));

const SDL = gql`
type OwnershipTypeEntity implements Entity {
  urn: String!
  type: EntityType!
  info: OwnershipTypeInfo
  status: Status
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type OwnershipTypeInfo {
  name: String!
  description: String
  created: AuditStamp
  lastModified: AuditStamp
}
`;

/** Kinds of ownership: the system ones (technical owner…) and those users create. */
export const ownershipType = defineEntity({
  name: 'ownershipType',
  category: 'core',
  key: ownershipTypeKey,
  aspects: [ownershipTypeInfo, shared.status],
  graphql: {
    entityType: 'CUSTOM_OWNERSHIP_TYPE',
    objectType: 'OwnershipTypeEntity',
    sdl: SDL,
    fields: {
      info: async (f) => {
        const info = await f.aspect(ownershipTypeInfo);
        return info ? { name: info.name, description: info.description ?? null,
          created: info.created ? auditStamp(info.created) : null, lastModified: info.lastModified ? auditStamp(info.lastModified) : null } : null;
      },
      status: async (f) => status(await f.aspect(shared.status)),
    },
  },
});
