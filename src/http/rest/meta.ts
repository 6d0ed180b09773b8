import type { FastifyInstance } from 'fastify';
import type { Catalog } from '../../catalog.js';
import { ALMANAC_VERSION, DATAHUB_VERSION } from '../../version.js';

/** `GET /config` (how the Python client recognises a GMS) and `GET /health`. */
export async function metaRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  app.get('/config', async () => ({
    noCode: 'true',
    retention: 'true',
    statefulIngestionCapable: true,
    patchCapable: true,
    supportsImpactAnalysis: false,
    timeZone: 'GMT',
    datasetUrnNameCasing: false,
    versions: {
      'linkedin/datahub': { version: DATAHUB_VERSION, commit: 'almanac' },
      almanac: { version: ALMANAC_VERSION, engine: catalog.engine },
    },
    telemetry: { enabledCli: false, enabledIngestion: false },
    managedIngestion: { enabled: false, defaultCliVersion: '0.12.1' },
    datahub: { serverType: 'almanac' },
    models: {},
  }));

  // No database call: the replicas' state is what their periodic check last saw.
  app.get('/health', { config: { public: true } }, async () => {
    const replicas = catalog.readReplicas?.();
    return replicas ? { status: 'ok', replicas: replicas.status } : { status: 'ok' };
  });
}
