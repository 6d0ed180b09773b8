import { decodeUrnPart } from '../model/urn.js';
import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { COMMON_FIELDS, customProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { rec, str } from './schema.js';

export const dataFlowKey = keyAspect('dataFlowKey', 'com.linkedin.metadata.key.DataFlowKey',
  [['orchestrator', 'string'], ['flowId', 'string'], ['cluster', 'string']]);

export const dataFlowInfo = aspect('dataFlowInfo', 'com.linkedin.datajob.DataFlowInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, name: str, 'description?': str, 'project?': str,
  'created?': shared.timeStamp, 'lastModified?': shared.timeStamp,
}), { searchText: shared.propertiesText });

export const editableDataFlowProperties = aspect('editableDataFlowProperties', 'com.linkedin.datajob.EditableDataFlowProperties',
  rec({ ...shared.changeAuditStampFields, 'description?': str }), { searchText: shared.editableText });

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

/** dataFlowInfo as DataHub's DataFlowProperties (and the deprecated DataFlowInfo, which has the same fields). */
async function flowProperties(f: FieldContext) {
  const info = await f.aspect(dataFlowInfo);
  if (!info) return null;
  return {
    name: info.name,
    description: info.description ?? null,
    project: info.project ?? null,
    externalUrl: info.externalUrl ?? null,
    customProperties: customProperties(info.customProperties, f.urn),
  };
}

const SDL = gql`
"A pipeline of an orchestrator: an Airflow DAG, a Fivetran connector, a NiFi process group."
type DataFlow implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  "When metadata of this flow was last ingested (from system metadata)."
  lastIngested: Long
  "The orchestrator, from the urn (airflow, fivetran, nifi…)."
  orchestrator: String!
  flowId: String!
  cluster: String!
  "The orchestrator as a data platform."
  platform: DataPlatform!
  properties: DataFlowProperties
  editableProperties: DataFlowEditableProperties
  ownership: Ownership
  tags: GlobalTags
  status: Status
  deprecation: Deprecation
  institutionalMemory: InstitutionalMemory
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  dataPlatformInstance: DataPlatformInstance
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Always empty: lineage runs through a flow's jobs."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  info: DataFlowInfo @deprecated(reason: "Use properties")
  globalTags: GlobalTags @deprecated(reason: "Use tags")
  "The flow's jobs (those whose urn names this flow)."
  dataJobs: DataFlowDataJobsRelationships @deprecated(reason: "Use relationships with the IsPartOf type")
  exists: Boolean
}

type DataFlowProperties {
  name: String!
  "The ingested description (an edited one is in editableProperties)."
  description: String
  project: String
  externalUrl: String
  customProperties: [CustomPropertiesEntry!]
}

type DataFlowInfo {
  name: String!
  description: String
  project: String
  externalUrl: String
  customProperties: [CustomPropertiesEntry!]
}

type DataFlowEditableProperties {
  description: String
}

type DataFlowDataJobsRelationships {
  entities: [EntityRelationshipLegacy]
}

"An entity related to another, in the shape of DataHub's deprecated relationship fields."
type EntityRelationshipLegacy {
  entity: Entity
  created: AuditStamp
}
`;

/** Pipelines of an orchestrator (an Airflow DAG, a dbt project run…). */
export const dataFlow = defineEntity({
  name: 'dataFlow',
  category: 'core',
  display: { label: 'Pipeline', rank: 50 },
  key: dataFlowKey,
  aspects: [shared.domains, shared.deprecation, shared.versionInfo, dataFlowInfo, editableDataFlowProperties, shared.ownership,
    shared.status, shared.globalTags, shared.browsePaths, shared.glossaryTerms, shared.institutionalMemory, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly (later DataHub versions give flows subTypes too).
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataFlowSnapshot',
  graphql: {
    entityType: 'DATA_FLOW',
    objectType: 'DataFlow',
    rootField: 'dataFlow',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      orchestrator: (f) => decodeUrnPart(f.key.orchestrator ?? ''),
      flowId: (f) => decodeUrnPart(f.key.flowId ?? ''),
      cluster: (f) => decodeUrnPart(f.key.cluster ?? ''),
      platform: (f) => ref(`urn:li:dataPlatform:${f.key.orchestrator ?? ''}`),
      properties: flowProperties,
      info: flowProperties,
      editableProperties: async (f) => {
        const e = await f.aspect(editableDataFlowProperties);
        return e ? { description: e.description ?? null } : null;
      },
      dataJobs: async (f) => {
        const jobs = await f.related({ direction: 'INCOMING', types: ['IsPartOf'], start: 0, count: 10_000 });
        return { entities: jobs.edges.map((e) => ({ entity: ref(e.source), created: null })) };
      },
    },
  },
  search: {},
  browsePath: (k) => `/${k.orchestrator}/${k.cluster}`.toLowerCase(),
  platform: (k) => (k.orchestrator ? `urn:li:dataPlatform:${k.orchestrator}` : undefined),
});
