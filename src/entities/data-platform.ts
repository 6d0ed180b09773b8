import { aspect, defineEntity, gql, keyAspect } from './descriptor.js';
import { enumOf, rec, str, type Infer } from './schema.js';
import * as shared from './shared-aspects.js';

export const dataPlatformKey = keyAspect('dataPlatformKey', 'com.linkedin.metadata.key.DataPlatformKey', [['platformName', 'string']]);

export const dataPlatformInfo = aspect('dataPlatformInfo', 'com.linkedin.dataplatform.DataPlatformInfo', rec({
  name: str, 'displayName?': str, type: enumOf(['FILE_SYSTEM', 'KEY_VALUE_STORE', 'MESSAGE_BROKER', 'OBJECT_STORE', 'OLAP_DATASTORE',
    'OTHERS', 'QUERY_ENGINE', 'RELATIONAL_DB', 'SEARCH_ENGINE']), datasetNameDelimiter: str, 'logoUrl?': str,
}), { searchText: shared.propertiesText });

function platformProps(i: Infer<typeof dataPlatformInfo.schema> | undefined) {
  if (!i) return null;
  return { type: i.type ?? 'OTHERS', displayName: i.displayName ?? null, datasetNameDelimiter: i.datasetNameDelimiter ?? '.', logoUrl: i.logoUrl ?? null };
}

const SDL = gql`
type DataPlatform implements Entity {
  urn: String!
  type: EntityType!
  name: String!
  displayName: String
  properties: DataPlatformProperties
  info: DataPlatformInfo @deprecated(reason: "Use properties")
  lastIngested: Long
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

enum PlatformType { FILE_SYSTEM KEY_VALUE_STORE MESSAGE_BROKER OBJECT_STORE OLAP_DATASTORE QUERY_ENGINE RELATIONAL_DB SEARCH_ENGINE OTHERS }

type DataPlatformProperties {
  type: PlatformType!
  displayName: String
  datasetNameDelimiter: String!
  logoUrl: String
}

"The same as DataPlatformProperties, under the older type name DataHub's clients still see for info."
type DataPlatformInfo {
  type: PlatformType!
  displayName: String
  datasetNameDelimiter: String!
  logoUrl: String
}
`;

/** The systems metadata comes from (hive, kafka, looker…). */
export const dataPlatform = defineEntity({
  name: 'dataPlatform',
  category: 'core',
  display: { label: 'Platform', rank: 200 },
  key: dataPlatformKey,
  aspects: [dataPlatformInfo],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataPlatformSnapshot',
  graphql: {
    entityType: 'DATA_PLATFORM',
    objectType: 'DataPlatform',
    rootField: 'dataPlatform',
    sdl: SDL,
    fields: {
      name: (f) => f.key.platformName,
      displayName: async (f) => (await f.aspect(dataPlatformInfo))?.displayName ?? null,
      properties: async (f) => platformProps(await f.aspect(dataPlatformInfo)),
      info: async (f) => platformProps(await f.aspect(dataPlatformInfo)),
      lastIngested: (f) => f.lastObserved(),
    },
  },
  search: { onlyWhenNamed: true },
});
