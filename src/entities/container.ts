import { aspect, defineEntity, gql, keyAspect, ref } from './descriptor.js';
import { COMMON_FIELDS, customProperties, descriptionFor, globalTags } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const containerKey = keyAspect('containerKey', 'com.linkedin.metadata.key.ContainerKey', [['guid', 'string']]);

export const containerProperties = aspect('containerProperties', 'com.linkedin.container.ContainerProperties', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, name: str, 'qualifiedName?': str, 'description?': str,
  'created?': shared.timeStamp, 'lastModified?': shared.timeStamp,
}), { searchText: shared.propertiesText });

export const editableContainerProperties = aspect('editableContainerProperties', 'com.linkedin.container.EditableContainerProperties',
  rec({ 'description?': str }), { searchText: shared.editableText });

const SDL = gql`
type Container implements Entity {
  urn: String!
  type: EntityType!
  "The platform of its dataPlatformInstance (DataHub's 'unknown' platform when none was sent)."
  platform: DataPlatform!
  properties: ContainerProperties
  editableProperties: ContainerEditableProperties
  subTypes: SubTypes
  container: Container
  parentContainers: ParentContainersResult
  ownership: Ownership
  tags: GlobalTags
  glossaryTerms: GlossaryTerms
  institutionalMemory: InstitutionalMemory
  domain: DomainAssociation
  deprecation: Deprecation
  dataPlatformInstance: DataPlatformInstance
  status: Status
  lastIngested: Long
  exists: Boolean
  entities(input: ContainerEntitiesInput): SearchResults
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
}

input ContainerEntitiesInput {
  query: String
  start: Int
  count: Int
}

type ContainerProperties {
  name: String!
  "On /api/graphql the description users see: the edited text where one exists, else the ingested one (an Almanac difference). On /api/v2/graphql (DataHub's web app) the ingested one, as in DataHub; the edited one is in editableProperties."
  description: String
  customProperties: [CustomPropertiesEntry!]
  externalUrl: String
  qualifiedName: String
}

type ContainerEditableProperties {
  description: String
}
`;

/** Databases, schemas, folders, projects: what holds other assets. */
export const container = defineEntity({
  name: 'container',
  category: 'core',
  display: { label: 'Container', rank: 60 },
  key: containerKey,
  aspects: [containerProperties, editableContainerProperties, shared.dataPlatformInstance, shared.subTypes, shared.ownership,
    shared.container, shared.globalTags, shared.glossaryTerms, shared.institutionalMemory, shared.browsePaths, shared.status,
    shared.domains, shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.deprecation, shared.testResults],
  graphql: {
    entityType: 'CONTAINER',
    objectType: 'Container',
    rootField: 'container',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      platform: async (f) => {
        const p = await f.aspect(shared.dataPlatformInstance);
        return ref(p?.platform ?? 'urn:li:dataPlatform:unknown');
      },
      properties: async (f) => {
        const [p, e] = await Promise.all([f.aspect(containerProperties), f.aspect(editableContainerProperties)]);
        if (!p) return null;
        return { name: p.name ?? f.key.guid, description: descriptionFor(f, e?.description, p.description),
          customProperties: customProperties(p.customProperties, f.urn), externalUrl: p.externalUrl ?? null,
          qualifiedName: p.qualifiedName ?? null };
      },
      editableProperties: async (f) => {
        const e = await f.aspect(editableContainerProperties);
        return e ? { description: e.description ?? null } : null;
      },
      tags: async (f) => globalTags(await f.aspect(shared.globalTags), f.urn),
      entities: async (f) => {
        const input = f.args.input as { start?: number | null; count?: number | null } | undefined;
        const start = Math.max(0, Number(input?.start ?? 0));
        const count = Math.min(1000, Math.max(0, Number(input?.count ?? 20)));
        const children = await f.related({ direction: 'INCOMING', types: ['IsPartOf'], start, count });
        return { start, count: children.edges.length, total: children.total,
          searchResults: children.edges.map((e) => ({ entity: ref(e.source), matchedFields: [] })) };
      },
    },
  },
  search: {},
  edits: { description: { aspect: editableContainerProperties, field: 'description' } },
});
