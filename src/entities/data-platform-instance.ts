import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { COMMON_FIELDS, customProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const dataPlatformInstanceKey = keyAspect('dataPlatformInstanceKey', 'com.linkedin.metadata.key.DataPlatformInstanceKey',
  [['platform', 'urn'], ['instance', 'string']]);

export const dataPlatformInstanceProperties = aspect('dataPlatformInstanceProperties',
  'com.linkedin.dataplatforminstance.DataPlatformInstanceProperties',
  rec({ ...shared.customPropertiesField, ...shared.externalReferenceField, 'name?': str, 'description?': str }),
  { searchText: shared.propertiesText });

const SDL = gql`
type DataPlatformInstance implements Entity {
  urn: String!
  type: EntityType!
  platform: DataPlatform!
  instanceId: String!
  properties: DataPlatformInstanceProperties
  ownership: Ownership
  institutionalMemory: InstitutionalMemory
  tags: GlobalTags
  deprecation: Deprecation
  status: Status
  exists: Boolean
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

type DataPlatformInstanceProperties {
  name: String
  description: String
  customProperties: [CustomPropertiesEntry!]
  externalUrl: String
}
`;

/** One deployment of a platform (a second Snowflake account, a staging Kafka). */
export const dataPlatformInstance = defineEntity({
  name: 'dataPlatformInstance',
  category: 'internal',
  key: dataPlatformInstanceKey,
  aspects: [dataPlatformInstanceProperties, shared.ownership, shared.globalTags, shared.institutionalMemory, shared.deprecation,
    shared.status],
  graphql: {
    entityType: 'DATA_PLATFORM_INSTANCE',
    objectType: 'DataPlatformInstance',
    sdl: SDL,
    rootField: 'dataPlatformInstance',
    fields: {
      ...COMMON_FIELDS,
      // Also reached as another entity's dataPlatformInstance, which names the instance without it being stored.
      platform: (f) => ref(f.key.platform ?? 'urn:li:dataPlatform:unknown'),
      instanceId: (f) => f.key.instance ?? '',
      properties: async (f) => {
        const p = await f.aspect(dataPlatformInstanceProperties);
        return p ? { name: p.name ?? null, description: p.description ?? null, externalUrl: p.externalUrl ?? null,
          customProperties: customProperties(p.customProperties, f.urn) } : null;
      },
    },
  },
  platform: (k) => k.platform,
});
