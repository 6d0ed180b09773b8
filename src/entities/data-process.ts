import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, rec, urn } from './schema.js';

export const dataProcessKey = keyAspect('dataProcessKey', 'com.linkedin.metadata.key.DataProcessKey',
  [['name', 'string'], ['orchestrator', 'string'], ['origin', 'fabric']]);

/** DataHub annotates both lists as Consumes (outputs too): kept as DataHub names them. */
export const dataProcessInfo = aspect('dataProcessInfo', 'com.linkedin.dataprocess.DataProcessInfo',
  rec({ 'inputs?': arr(urn), 'outputs?': arr(urn) }), {
    edges: (v, add) => { for (const d of [...(v.inputs ?? []), ...(v.outputs ?? [])]) add('Consumes', d); },
  });

/** DataHub's older model of a process (superseded by dataFlow and dataJob); no GraphQL type in DataHub 0.12.1. */
export const dataProcess = defineEntity({
  name: 'dataProcess',
  category: 'core',
  // dataProcessInfo: inputs and outputs alike are Consumes edges, upstream (as DataHub 0.12.1 annotates both).
  lineage: { upstream: [{ type: 'Consumes', entityTypes: ['dataset'] }] },
  key: dataProcessKey,
  aspects: [dataProcessInfo, shared.ownership, shared.status],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataProcessSnapshot',
  graphql: { entityType: 'OTHER' },
});
