import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { int, map, rec, str, urn } from './schema.js';

export const dataHubExecutionRequestKey = keyAspect('dataHubExecutionRequestKey', 'com.linkedin.metadata.key.ExecutionRequestKey',
  [['id', 'string']]);

export const dataHubExecutionRequestInput = aspect('dataHubExecutionRequestInput', 'com.linkedin.execution.ExecutionRequestInput', rec({
  task: str, args: map(str), executorId: str, source: rec({ type: str, 'ingestionSource?': urn }), requestedAt: int,
}), { edges: (v, add) => add('ingestionSource', v.source.ingestionSource) });

export const dataHubExecutionRequestSignal = aspect('dataHubExecutionRequestSignal', 'com.linkedin.execution.ExecutionRequestSignal',
  rec({ signal: str, 'executorId?': str, createdAt: shared.auditStamp }));

export const dataHubExecutionRequestResult = aspect('dataHubExecutionRequestResult', 'com.linkedin.execution.ExecutionRequestResult', rec({
  status: str, 'report?': str, 'structuredReport?': rec({ type: str, serializedValue: str, contentType: str }), 'startTimeMs?': int,
  'durationMs?': int,
}));

/** Runs of managed ingestion sources, with their reports. */
export const dataHubExecutionRequest = defineEntity({
  name: 'dataHubExecutionRequest',
  category: 'internal',
  key: dataHubExecutionRequestKey,
  aspects: [dataHubExecutionRequestInput, dataHubExecutionRequestSignal, dataHubExecutionRequestResult],
  graphql: { entityType: 'EXECUTION_REQUEST' },
  privileges: { read: 'read.ingestion' },
});
