import { aspect, defineEntity, keyAspect } from './descriptor.js';
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

/** Pipelines of an orchestrator (an Airflow DAG, a dbt project run…). */
export const dataFlow = defineEntity({
  name: 'dataFlow',
  category: 'core',
  key: dataFlowKey,
  aspects: [shared.domains, shared.deprecation, shared.versionInfo, dataFlowInfo, editableDataFlowProperties, shared.ownership,
    shared.status, shared.globalTags, shared.browsePaths, shared.glossaryTerms, shared.institutionalMemory, shared.dataPlatformInstance,
    shared.browsePathsV2],
  // Accepted before the registry followed DataHub 0.12.1 exactly (later DataHub versions give flows subTypes too).
  almanacAspects: [shared.container, shared.subTypes, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataFlowSnapshot',
  graphql: { entityType: 'DATA_FLOW' },
  search: {},
  browsePath: (k) => `/${k.orchestrator}/${k.cluster}`.toLowerCase(),
  platform: (k) => (k.orchestrator ? `urn:li:dataPlatform:${k.orchestrator}` : undefined),
});
