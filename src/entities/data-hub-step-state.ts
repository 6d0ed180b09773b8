import { aspect, defineEntity, keyAspect } from './descriptor.js';
import * as shared from './shared-aspects.js';
import { map, rec, str } from './schema.js';

export const dataHubStepStateKey = keyAspect('dataHubStepStateKey', 'com.linkedin.metadata.key.DataHubStepStateKey', [['id', 'string']]);

export const dataHubStepStateProperties = aspect('dataHubStepStateProperties', 'com.linkedin.step.DataHubStepStateProperties',
  rec({ 'properties?': map(str), lastModified: shared.auditStamp }));

/** Where a user is in the UI's onboarding steps. */
export const dataHubStepState = defineEntity({
  name: 'dataHubStepState',
  category: 'internal',
  key: dataHubStepStateKey,
  aspects: [dataHubStepStateProperties],
  graphql: { entityType: 'OTHER' },
});
