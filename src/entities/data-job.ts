import { tryParseUrn } from '../model/urn.js';
import { aspect, defineEntity, keyAspect, type KeyValues } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, oneOf, rec, str, union, urn } from './schema.js';

export const dataJobKey = keyAspect('dataJobKey', 'com.linkedin.metadata.key.DataJobKey', [['flow', 'urn'], ['jobId', 'string']], {
  edges: (v, add) => add('IsPartOf', v.flow),
});

export const dataJobInfo = aspect('dataJobInfo', 'com.linkedin.datajob.DataJobInfo', rec({
  ...shared.customPropertiesField, ...shared.externalReferenceField, name: str, 'description?': str,
  // union[AzkabanJobType, string]: a string member loses its wrapper when normalised; the enum member keeps its class key.
  type: oneOf(str, union), 'flowUrn?': urn, 'created?': shared.timeStamp, 'lastModified?': shared.timeStamp,
  'status?': enumOf(['STARTING', 'IN_PROGRESS', 'STOPPING', 'STOPPED', 'COMPLETED', 'FAILED', 'UNKNOWN', 'SKIPPED']),
}), { searchText: shared.propertiesText });

/** Inputs and outputs of a job. The deprecated plain lists have no default but clients leave them out; so may they. */
export const dataJobInputOutput = aspect('dataJobInputOutput', 'com.linkedin.datajob.DataJobInputOutput', rec({
  'inputDatasets?': arr(urn), 'inputDatasetEdges?': arr(shared.edge), 'outputDatasets?': arr(urn), 'outputDatasetEdges?': arr(shared.edge),
  'inputDatajobs?': arr(urn), 'inputDatajobEdges?': arr(shared.edge), 'inputDatasetFields?': arr(urn), 'outputDatasetFields?': arr(urn),
  'fineGrainedLineages?': arr(shared.fineGrainedLineage),
}), {
  edges: (v, add) => {
    for (const d of v.inputDatasets ?? []) add('Consumes', d);
    for (const e of v.inputDatasetEdges ?? []) add('Consumes', e.destinationUrn);
    for (const d of v.outputDatasets ?? []) add('Produces', d);
    for (const e of v.outputDatasetEdges ?? []) add('Produces', e.destinationUrn);
    for (const j of v.inputDatajobs ?? []) add('DownstreamOf', j);
    for (const e of v.inputDatajobEdges ?? []) add('DownstreamOf', e.destinationUrn);
    for (const f of v.inputDatasetFields ?? []) add('Consumes', f);
    for (const f of v.outputDatasetFields ?? []) add('Produces', f);
  },
});

export const editableDataJobProperties = aspect('editableDataJobProperties', 'com.linkedin.datajob.EditableDataJobProperties',
  rec({ ...shared.changeAuditStampFields, 'description?': str }), { searchText: shared.editableText });

const ingestionRun = { pipelineName: str, platformInstanceId: str, runId: str } as const;

/** A run of an ingestion pipeline, as the DataHub client reports it. */
export const datahubIngestionRunSummary = aspect('datahubIngestionRunSummary', 'com.linkedin.datajob.datahub.DatahubIngestionRunSummary',
  rec({ ...shared.timeseriesFields, ...ingestionRun, runStatus: enumOf(['STARTING', 'IN_PROGRESS', 'STOPPING', 'STOPPED', 'COMPLETED',
    'FAILED', 'UNKNOWN', 'SKIPPED', 'STARTED', 'COMPLETE', 'FAILURE', 'SUCCESS']) }), { timeseries: true });

/** The state an ingestion pipeline keeps between runs (stateful ingestion). */
export const datahubIngestionCheckpoint = aspect('datahubIngestionCheckpoint', 'com.linkedin.datajob.datahub.DatahubIngestionCheckpoint',
  rec({ ...shared.timeseriesFields, ...ingestionRun, config: str, state: rec({ formatVersion: str, serde: str, 'payload?': str }) }),
  { timeseries: true });

/** The flow's part of a job urn, parsed. */
function flowKey(k: KeyValues): readonly string[] {
  const flow = tryParseUrn(k.flow ?? '');
  return typeof flow === 'string' ? [] : flow.parts;
}

/** Tasks of a pipeline (an Airflow task, a dbt model's run step…). */
export const dataJob = defineEntity({
  name: 'dataJob',
  category: 'core',
  key: dataJobKey,
  aspects: [datahubIngestionRunSummary, datahubIngestionCheckpoint, shared.domains, shared.deprecation, shared.versionInfo, dataJobInfo,
    dataJobInputOutput, editableDataJobProperties, shared.ownership, shared.status, shared.globalTags, shared.browsePaths,
    shared.glossaryTerms, shared.institutionalMemory, shared.dataPlatformInstance, shared.browsePathsV2, shared.subTypes],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataJobSnapshot',
  graphql: { entityType: 'DATA_JOB' },
  search: {},
  // DataHub's default: the flow's orchestrator and cluster.
  browsePath: (k) => { const [orchestrator, , cluster] = flowKey(k); return `/${orchestrator}/${cluster}`.toLowerCase(); },
  platform: (k) => { const o = flowKey(k)[0]; return o ? `urn:li:dataPlatform:${o}` : undefined; },
});
