import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, int, rec, str, urn } from './schema.js';

export const dataProcessInstanceKey = keyAspect('dataProcessInstanceKey', 'com.linkedin.metadata.key.DataProcessInstanceKey',
  [['id', 'string']]);

export const dataProcessInstanceProperties = aspect('dataProcessInstanceProperties',
  'com.linkedin.dataprocess.DataProcessInstanceProperties', rec({
    ...shared.customPropertiesField, ...shared.externalReferenceField, name: str,
    'type?': enumOf(['BATCH_SCHEDULED', 'BATCH_AD_HOC', 'STREAMING']), created: shared.auditStamp,
  }), { searchText: shared.propertiesText });

export const dataProcessInstanceInput = aspect('dataProcessInstanceInput', 'com.linkedin.dataprocess.DataProcessInstanceInput',
  rec({ inputs: arr(urn) }), { edges: (v, add) => { for (const d of v.inputs) add('Consumes', d); } });

export const dataProcessInstanceOutput = aspect('dataProcessInstanceOutput', 'com.linkedin.dataprocess.DataProcessInstanceOutput',
  rec({ outputs: arr(urn) }), { edges: (v, add) => { for (const d of v.outputs) add('Produces', d); } });

export const dataProcessInstanceRelationships = aspect('dataProcessInstanceRelationships',
  'com.linkedin.dataprocess.DataProcessInstanceRelationships', rec({
    'parentTemplate?': urn, 'parentInstance?': urn, upstreamInstances: arr(urn),
  }), {
    edges: (v, add) => {
      add('InstanceOf', v.parentTemplate);
      add('ChildOf', v.parentInstance);
      for (const u of v.upstreamInstances) add('UpstreamOf', u);
    },
  });

export const dataProcessInstanceRunEvent = aspect('dataProcessInstanceRunEvent', 'com.linkedin.dataprocess.DataProcessInstanceRunEvent',
  rec({
    ...shared.timeseriesFields, ...shared.externalReferenceField, status: enumOf(['STARTED', 'COMPLETE']), 'attempt?': int,
    'result?': rec({ type: enumOf(['SUCCESS', 'FAILURE', 'SKIPPED', 'UP_FOR_RETRY']), nativeResultType: str }),
    'durationMillis?': int,
  }), { timeseries: true });

/** One run of a job or flow. */
export const dataProcessInstance = defineEntity({
  name: 'dataProcessInstance',
  category: 'core',
  key: dataProcessInstanceKey,
  aspects: [dataProcessInstanceInput, dataProcessInstanceOutput, dataProcessInstanceProperties, dataProcessInstanceRelationships,
    dataProcessInstanceRunEvent],
  // Accepted before the registry followed DataHub 0.12.1 exactly (later DataHub versions have it too).
  almanacAspects: [shared.status],
  graphql: { entityType: 'DATA_PROCESS_INSTANCE' },
});
