import { badRequest } from '../errors.js';
import { aspect, defineEntity, gql, keyAspect, ref, type FieldContext } from './descriptor.js';
import { auditStamp } from './graphql-fields.js';
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

// ---------------------------------------------------------------------------------------------------------------
// GraphQL

/** The run's state changes (dataProcessInstanceRunEvent), newest first, within the range asked. */
async function runState(f: FieldContext) {
  const { startTimeMillis, endTimeMillis } = f.args as { startTimeMillis?: number | null; endTimeMillis?: number | null };
  const limit = f.args.limit ?? 10_000;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw badRequest(`limit must be between 1 and 10000, got ${limit}`);
  const events = await f.timeseries(dataProcessInstanceRunEvent, { startTimeMillis: startTimeMillis ?? undefined,
    endTimeMillis: endTimeMillis ?? undefined, limit });
  return events.map((e) => ({
    timestampMillis: e.timestampMillis,
    status: e.status ?? null,
    attempt: e.attempt ?? null,
    result: e.result ? { resultType: e.result.type ?? null, nativeResultType: e.result.nativeResultType ?? null } : null,
  }));
}

const SDL = gql`
"One run of a job or flow (an Airflow task instance, a Fivetran sync)."
type DataProcessInstance implements EntityWithRelationships & Entity {
  urn: String!
  type: EntityType!
  "The run's state changes, newest first (dataProcessInstanceRunEvent)."
  state(startTimeMillis: Long, endTimeMillis: Long, limit: Int): [DataProcessRunEvent]
  "When the run started, and by whom."
  created: AuditStamp
  name: String
  "Inputs (Consumes), outputs (Produces) and the job or flow run (InstanceOf)."
  relationships(input: RelationshipsInput!): EntityRelationshipsResult
  "Always empty, as in DataHub 0.12.1: a run's inputs and outputs are relationships, not lineage edges."
  lineage(input: LineageInput!): EntityLineageResult
  externalUrl: String
}

"A state change of a run."
type DataProcessRunEvent {
  status: DataProcessRunStatus
  attempt: Int
  result: DataProcessInstanceRunResult
  timestampMillis: Long!
}

enum DataProcessRunStatus { STARTED COMPLETE }

type DataProcessInstanceRunResult {
  resultType: DataProcessInstanceRunResultType
  "The outcome in the orchestrator's own words."
  nativeResultType: String
}

enum DataProcessInstanceRunResultType { SUCCESS FAILURE SKIPPED UP_FOR_RETRY }

"A page of runs."
type DataProcessInstanceResult {
  count: Int
  start: Int
  total: Int
  runs: [DataProcessInstance]
}
`;

/** One run of a job or flow. */
export const dataProcessInstance = defineEntity({
  name: 'dataProcessInstance',
  category: 'core',
  key: dataProcessInstanceKey,
  aspects: [dataProcessInstanceInput, dataProcessInstanceOutput, dataProcessInstanceProperties, dataProcessInstanceRelationships,
    dataProcessInstanceRunEvent],
  // Accepted before the registry followed DataHub 0.12.1 exactly (later DataHub versions have it too).
  almanacAspects: [shared.status],
  graphql: {
    entityType: 'DATA_PROCESS_INSTANCE',
    objectType: 'DataProcessInstance',
    sdl: SDL,
    fields: {
      name: async (f) => (await f.aspect(dataProcessInstanceProperties))?.name ?? null,
      created: async (f) => {
        const p = await f.aspect(dataProcessInstanceProperties);
        return p?.created ? auditStamp(p.created) : null;
      },
      externalUrl: async (f) => (await f.aspect(dataProcessInstanceProperties))?.externalUrl ?? null,
      state: runState,
    },
  },
});
