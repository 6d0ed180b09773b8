import { aspect, defineEntity, keyAspect } from './descriptor.js';
import { rec, str } from './schema.js';

export const telemetryKey = keyAspect('telemetryKey', 'com.linkedin.metadata.key.TelemetryKey', [['name', 'string']]);

export const telemetryClientId = aspect('telemetryClientId', 'com.linkedin.telemetry.TelemetryClientId', rec({ clientId: str }));

/** DataHub's anonymous usage-reporting id (stored if sent; Almanac reports nothing). */
export const telemetry = defineEntity({
  name: 'telemetry',
  category: 'internal',
  key: telemetryKey,
  aspects: [telemetryClientId],
  graphql: { entityType: 'OTHER' },
});
