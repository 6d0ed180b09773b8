import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, notFound } from '../../errors.js';
import { aspectSpec, entitySpec } from '../../registry/registry.js';
import { parseUrn } from '../../model/urn.js';
import type { Catalog } from '../../catalog.js';
import { changeFromProposal, changesFromSnapshot, IF_VERSION_MATCH, parseExpectedVersion, type ChangeItem } from '../../services/ingest-format.js';
import { noteIngested } from '../metrics.js';
import type { AspectRecord } from '../../storage/types.js';
import {
  MAX_BATCH_ITEMS, MAX_LIST_ITEMS, RawBody, boundedList, collectionRoute, optionalBoolean, optionalInteger, parseInteger, parseRequestJson, registerActions, requiredString,
  restliListParam, urnFromPath,
} from './actions.js';

/** Ingestion and reads of versioned aspects: the Rest.li resources the Python SDK and emitter use. */
export async function entityRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {
  const reads = catalog.authorized.reads;

  async function ingest(items: ChangeItem[], request: FastifyRequest, opts?: { validated?: boolean }) {
    const result = await catalog.writes.ingest(items, request.actor, opts);
    noteIngested(request, items.length);
    return result;
  }

  registerActions(app, 'aspects', {
    async ingestProposal(body, request) {
      const item = changeFromProposal(body.proposal);
      // The HTTP header form of a conditional write (the proposal's own `headers` win when both are given).
      const header = request.headers[IF_VERSION_MATCH.toLowerCase()];
      if (item.expectedVersion === undefined && header !== undefined) {
        const expected = parseExpectedVersion(Array.isArray(header) ? header[0] : header, IF_VERSION_MATCH);
        if (expected !== undefined) item.expectedVersion = expected;
      }
      await ingest([item], request);
      return item.urn;
    },
    async getTimeseriesAspectValues(body, request) {
      const urn = parseUrn(requiredString(body, 'urn')).raw;
      const latest = body.latestValue === true || body.latestValue === 'true';
      const { query: q, rows } = await reads.timeseriesValues(request.actor, urn, () => ({ urn, entityType: requiredString(body, 'entity'),
        aspect: requiredString(body, 'aspect'), startTimeMillis: optionalInteger(body, 'startTimeMillis'),
        endTimeMillis: optionalInteger(body, 'endTimeMillis'), limit: latest ? 1 : optionalInteger(body, 'limit') }));
      return {
        entityName: q.entityType, aspectName: q.aspect, limit: q.limit ?? 10_000,
        ...(q.startTimeMillis !== undefined ? { startTimeMillis: q.startTimeMillis } : {}),
        ...(q.endTimeMillis !== undefined ? { endTimeMillis: q.endTimeMillis } : {}),
        values: rows.map((r) => ({ aspect: { value: JSON.stringify(r.value), contentType: 'application/json' },
          ...(r.systemMetadata ? { systemMetadata: r.systemMetadata } : {}) })),
      };
    },
    async ingestProposalBatch(raw, request) {
      let body = raw;
      if (raw instanceof RawBody) {
        // Decoded and checked in a worker thread (the values come as the texts the writes store); anything refused or
        // malformed is read again here, so that the answer is the one it would be without the worker.
        const items = await catalog.entities.decodeProposalBatch(raw.text, MAX_BATCH_ITEMS);
        if (items) {
          await ingest(items, request, { validated: true });
          return items.map((i) => i.urn);
        }
        const parsed = parseRequestJson(raw.text);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('The request body must be a JSON object');
        body = parsed as Record<string, unknown>;
      }
      if (!Array.isArray(body.proposals)) throw badRequest('proposals must be a list', { field: 'proposals' });
      const items = boundedList(body.proposals, 'proposals', MAX_BATCH_ITEMS).map(changeFromProposal);
      await ingest(items, request);
      return items.map((i) => i.urn);
    },
  }, new Set(['ingestProposalBatch']));

  registerActions(app, 'entities', {
    async ingest(body, request) {
      const entity = body.entity as { value?: unknown } | undefined;
      if (!entity || typeof entity !== 'object') throw badRequest('entity must be {"value": {<snapshot class>: {...}}}', { field: 'entity' });
      await ingest(changesFromSnapshot(entity.value, body.systemMetadata), request);
      return undefined;
    },
    async batchIngest(body, request) {
      if (!Array.isArray(body.entities)) throw badRequest('entities must be a list', { field: 'entities' });
      const sys = Array.isArray(body.systemMetadata) ? body.systemMetadata : [];
      const items = boundedList(body.entities, 'entities', MAX_BATCH_ITEMS).flatMap((e, i) => changesFromSnapshot((e as { value?: unknown })?.value, sys[i]));
      await ingest(items, request);
      return undefined;
    },
    async search(body, request) {
      await reads.admitSearch(request.actor, 'rest');
      const entity = requiredString(body, 'entity');
      const spec = entitySpec(entity);
      if (!spec) throw badRequest(`Unknown entity type '${entity}'`, { field: 'entity' });
      return searchResult(await catalog.search.search({ query: String(body.input ?? '*'), entityTypes: [spec.name],
        start: optionalInteger(body, 'start', 0) ?? 0, count: optionalInteger(body, 'count', 0) ?? 10 }));
    },
    async searchAcrossEntities(body, request) {
      await reads.admitSearch(request.actor, 'rest');
      const names = Array.isArray(body.entities) ? boundedList(body.entities, 'entities', MAX_LIST_ITEMS).map(String) : [];
      const entityTypes = names.map((n) => {
        const spec = entitySpec(n);
        if (!spec) throw badRequest(`Unknown entity type '${n}'`, { field: 'entities' });
        return spec.name;
      });
      return searchResult(await catalog.search.search({ query: String(body.input ?? '*'), entityTypes: entityTypes.length ? entityTypes : undefined,
        start: optionalInteger(body, 'start', 0) ?? 0, count: optionalInteger(body, 'count', 0) ?? 10 }));
    },
    async delete(body, request) {
      const aspectName = body.aspectName;
      return catalog.writes.delete(requiredString(body, 'urn'), request.actor, aspectName !== undefined && aspectName !== null
        ? { aspectName: String(aspectName), startTimeMillis: optionalInteger(body, 'startTimeMillis'), endTimeMillis: optionalInteger(body, 'endTimeMillis') }
        : undefined);
    },
    // DataHub's DeleteReferencesResponse: every relationship into the urn, a sample of the aspects holding them.
    async deleteReferences(body, request) {
      return catalog.references.deleteReferencesTo(requiredString(body, 'urn'), optionalBoolean(body, 'dryRun') ?? false, request.actor);
    },
  });

  app.get('/aspects/*', async (request) => {
    const urn = parseUrn(urnFromPath(request, 'aspects')).raw;
    const q = request.query as Record<string, string | undefined>;
    // A non-negative safe integer, else 400: 1e308 or -1 must not reach the database (a bigint on PostgreSQL).
    const rec = await reads.aspect(request.actor, urn, q.aspect, () => parseInteger(q.version, 'version', 0) ?? 0);
    // DataHub 0.12.1's VersionedAspect: the aspect as a member of the Aspect union (keyed by its class) and the version.
    return { aspect: { [aspectSpec(rec.aspect)?.className ?? rec.aspect]: rec.value }, version: rec.version };
  });

  app.get('/entitiesV2/*', async (request) => {
    const urn = parseUrn(urnFromPath(request, 'entitiesV2')).raw;
    const response = entityResponses(await reads.entities(request.actor, [urn], () => restliListParam(request, 'aspects')));
    const found = response.get(urn);
    if (!found) throw notFound(`Entity ${urn} does not exist`, { urn });
    return found;
  });

  collectionRoute(app, 'GET', 'entitiesV2', async (request) => {
    const ids = restliListParam(request, 'ids');
    if (!ids?.length) throw badRequest('Missing required parameter ids=List(<urn>,…)', { field: 'ids' });
    const urns = ids.map((u) => parseUrn(u).raw);
    const responses = entityResponses(await reads.entities(request.actor, urns, () => restliListParam(request, 'aspects')));
    return { results: Object.fromEntries(responses), statuses: {}, errors: {} };
  });

  app.get('/entities/*', async (request) => {
    const urn = parseUrn(urnFromPath(request, 'entities')).raw;
    const latest = await reads.entity(request.actor, urn);
    const u = parseUrn(urn);
    const spec = entitySpec(u.entityType);
    const snapshotClass = spec?.snapshotClass ?? `com.linkedin.metadata.snapshot.${u.entityType[0]!.toUpperCase()}${u.entityType.slice(1)}Snapshot`;
    const aspects = latest.map((r) => ({ [aspectSpec(r.aspect)?.className ?? r.aspect]: r.value }));
    return { value: { [snapshotClass]: { urn, aspects } } };
  });
}

/** EntityResponse records for the urns that exist; time-series aspects are not part of it, as in DataHub. */
function entityResponses(found: Map<string, AspectRecord[]>) {
  const out = new Map<string, unknown>();
  for (const [urn, recs] of found) {
    out.set(urn, {
      entityName: entitySpec(parseUrn(urn).entityType)?.name ?? parseUrn(urn).entityType,
      urn,
      aspects: Object.fromEntries(recs.map((r) => [r.aspect, envelope(r)])),
    });
  }
  return out;
}

function envelope(r: AspectRecord) {
  return {
    name: r.aspect,
    type: 'VERSIONED',
    version: r.version,
    // `value` is DataHub's open `Aspect` record, which holds the aspect's own fields (not a union keyed by class).
    value: r.value,
    created: { time: r.createdOn, actor: r.createdBy },
    ...(r.systemMetadata ? { systemMetadata: r.systemMetadata } : {}),
  };
}

/** Rest.li's SearchResult record. */
function searchResult(r: { start: number; count: number; total: number; urns: string[] }) {
  return { numEntities: r.total, from: r.start, pageSize: r.count, entities: r.urns.map((entity) => ({ entity, matchedFields: [] })),
    metadata: { aggregations: [] } };
}
