import { badRequest } from '../errors.js';
import { decodeUrnPart, tryParseUrn } from '../model/urn.js';
import { aspect, defineEntity, edgeMeta, gql, keyAspect, ref, type AspectValue, type FieldContext, type KeyValues } from './descriptor.js';
import { COMMON_FIELDS, customProperties } from './graphql-fields.js';
import * as shared from './shared-aspects.js';
import { arr, enumOf, oneOf, rec, str, union, urn } from './schema.js';
import { dataProcessInstanceProperties } from './data-process-instance.js';

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
    for (const e of v.inputDatasetEdges ?? []) add('Consumes', e.destinationUrn, edgeMeta(e));
    for (const d of v.outputDatasets ?? []) add('Produces', d);
    for (const e of v.outputDatasetEdges ?? []) add('Produces', e.destinationUrn, edgeMeta(e));
    for (const j of v.inputDatajobs ?? []) add('DownstreamOf', j);
    for (const e of v.inputDatajobEdges ?? []) add('DownstreamOf', e.destinationUrn, edgeMeta(e));
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

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

/** dataJobInfo as DataHub's DataJobProperties (and the deprecated DataJobInfo, which has the same fields). */
async function jobProperties(f: FieldContext) {
  const info = await f.aspect(dataJobInfo);
  if (!info) return null;
  return {
    name: info.name,
    description: info.description ?? null,
    externalUrl: info.externalUrl ?? null,
    customProperties: customProperties(info.customProperties, f.urn),
  };
}

type InputOutput = AspectValue<typeof dataJobInputOutput>;

/** The urns of a plain list and its edge form together, each once, in the order given. */
function urnsOf(plain: readonly string[] | undefined, edges: readonly { destinationUrn: string }[] | undefined): string[] {
  return [...new Set([...(plain ?? []), ...(edges ?? []).map((e) => e.destinationUrn)])];
}

/** A schema field urn as DataHub's SchemaFieldRef: the dataset's urn and the field's path. */
function schemaFieldRef(u: string) {
  const parsed = tryParseUrn(u);
  if (typeof parsed === 'string' || parsed.entityType !== 'schemaField' || parsed.parts.length < 2) return undefined;
  return { urn: parsed.parts[0]!, path: decodeUrnPart(parsed.parts.slice(1).join(',')) };
}

/**
 * Column-level lineage (a job's dataJobInputOutput or a dataset's upstreamLineage): only the schema-field members of
 * each side, as DataHub 0.12.1 maps them.
 */
export function fineGrainedLineages(io: Pick<InputOutput, 'fineGrainedLineages'>) {
  if (!io.fineGrainedLineages) return null;
  const refs = (list: readonly string[] | undefined) =>
    list ? list.flatMap((u) => { const r = schemaFieldRef(u); return r ? [r] : []; }) : null;
  return io.fineGrainedLineages.map((l) => ({ upstreams: refs(l.upstreams), downstreams: refs(l.downstreams) }));
}

/** The instances (runs) of this job, newest first by their creation time, as DataHub's runs field pages them. */
async function jobRuns(f: FieldContext) {
  const start = f.args.start ?? 0;
  const count = f.args.count ?? 20;
  if (!Number.isInteger(start) || start < 0) throw badRequest(`start must be a whole number ≥ 0, got ${start}`);
  if (!Number.isInteger(count) || count < 0 || count > 1000) throw badRequest(`count must be between 0 and 1000, got ${count}`);
  const instances = await f.related({ direction: 'INCOMING', types: ['InstanceOf'], start: 0, count: 10_000 });
  const urns = [...new Set(instances.edges.map((e) => e.source))];
  const created = await Promise.all(urns.map(async (u) => (await f.aspect(dataProcessInstanceProperties, u))?.created?.time ?? 0));
  const order = urns.map((u, i) => ({ u, t: created[i]! })).sort((a, b) => b.t - a.t || (a.u < b.u ? -1 : a.u > b.u ? 1 : 0));
  return { start, count, total: order.length, runs: order.slice(start, start + count).map((r) => ref(r.u)) };
}

const SDL = gql`
"A task of a pipeline: an Airflow task, a Fivetran sync, a NiFi processor."
type DataJob implements EntityWithRelationships & Entity & BrowsableEntity {
  urn: String!
  type: EntityType!
  subTypes: SubTypes
  "When metadata of this job was last ingested (from system metadata)."
  lastIngested: Long
  "The flow the urn names."
  dataFlow: DataFlow
  jobId: String!
  properties: DataJobProperties
  dataPlatformInstance: DataPlatformInstance
  editableProperties: DataJobEditableProperties
  tags: GlobalTags
  ownership: Ownership
  status: Status
  deprecation: Deprecation
  institutionalMemory: InstitutionalMemory
  glossaryTerms: GlossaryTerms
  domain: DomainAssociation
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Upstream: datasets read and jobs followed; downstream: datasets written and jobs that follow this one."
  lineage(input: LineageInput!): EntityLineageResult
  browsePaths: [BrowsePath!]
  browsePathV2: BrowsePathV2
  info: DataJobInfo @deprecated(reason: "Use properties")
  inputOutput: DataJobInputOutput
  globalTags: GlobalTags @deprecated(reason: "Use tags")
  "The job's runs (instances naming it as parentTemplate), newest first; 20 unless count says."
  runs(start: Int, count: Int): DataProcessInstanceResult
  privileges: EntityPrivileges
  exists: Boolean
}

type DataJobProperties {
  name: String!
  "The ingested description (an edited one is in editableProperties)."
  description: String
  externalUrl: String
  customProperties: [CustomPropertiesEntry!]
}

type DataJobInfo {
  name: String!
  description: String
  externalUrl: String
  customProperties: [CustomPropertiesEntry!]
}

type DataJobEditableProperties {
  description: String
}

"What a job reads and writes (dataJobInputOutput): the plain lists and their edge forms together."
type DataJobInputOutput {
  inputDatasets: [Dataset!] @deprecated(reason: "Use relationships with the Consumes type")
  outputDatasets: [Dataset!] @deprecated(reason: "Use relationships with the Produces type")
  inputDatajobs: [DataJob!] @deprecated(reason: "Use relationships with the DownstreamOf type")
  fineGrainedLineages: [FineGrainedLineage!]
}

"Column-level lineage: fields read and fields written."
type FineGrainedLineage {
  upstreams: [SchemaFieldRef!]
  downstreams: [SchemaFieldRef!]
}
`;

/** Tasks of a pipeline (an Airflow task, a dbt model's run step…). */
export const dataJob = defineEntity({
  name: 'dataJob',
  category: 'core',
  display: { label: 'Task', rank: 40 },
  // dataJobInputOutput: input datasets (Consumes) and input jobs (DownstreamOf) upstream, output datasets (Produces) downstream.
  lineage: {
    upstream: [{ type: 'Consumes', entityTypes: ['dataset'] }, { type: 'DownstreamOf', entityTypes: ['dataJob'] }],
    downstream: [{ type: 'Produces', entityTypes: ['dataset'] }],
  },
  key: dataJobKey,
  aspects: [datahubIngestionRunSummary, datahubIngestionCheckpoint, shared.domains, shared.deprecation, shared.versionInfo, dataJobInfo,
    dataJobInputOutput, editableDataJobProperties, shared.ownership, shared.status, shared.globalTags, shared.browsePaths,
    shared.glossaryTerms, shared.institutionalMemory, shared.dataPlatformInstance, shared.browsePathsV2, shared.subTypes],
  // Accepted before the registry followed DataHub 0.12.1 exactly; kept so existing pipelines keep working.
  almanacAspects: [shared.container, shared.testResults],
  snapshotClass: 'com.linkedin.metadata.snapshot.DataJobSnapshot',
  graphql: {
    entityType: 'DATA_JOB',
    objectType: 'DataJob',
    rootField: 'dataJob',
    sdl: SDL,
    fields: {
      ...COMMON_FIELDS,
      dataFlow: (f) => (f.key.flow ? ref(f.key.flow) : null),
      jobId: (f) => decodeUrnPart(f.key.jobId ?? ''),
      properties: jobProperties,
      info: jobProperties,
      editableProperties: async (f) => {
        const e = await f.aspect(editableDataJobProperties);
        return e ? { description: e.description ?? null } : null;
      },
      inputOutput: async (f) => {
        const io = await f.aspect(dataJobInputOutput);
        if (!io) return null;
        return {
          inputDatasets: urnsOf(io.inputDatasets, io.inputDatasetEdges).map(ref),
          outputDatasets: urnsOf(io.outputDatasets, io.outputDatasetEdges).map(ref),
          inputDatajobs: urnsOf(io.inputDatajobs, io.inputDatajobEdges).map(ref),
          fineGrainedLineages: fineGrainedLineages(io),
        };
      },
      runs: jobRuns,
    },
  },
  search: {},
  // DataHub's default: the flow's orchestrator and cluster.
  browsePath: (k) => { const [orchestrator, , cluster] = flowKey(k); return `/${orchestrator}/${cluster}`.toLowerCase(); },
  platform: (k) => { const o = flowKey(k)[0]; return o ? `urn:li:dataPlatform:${o}` : undefined; },
});
