import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest } from '../../errors.js';
import { parseUrn } from '../../model/urn.js';
import type { Catalog } from '../../catalog.js';
import { collectionRoute, parseInteger, rawQueryValues, restliListParam } from './actions.js';

/** Most edges one page may hold (an Elasticsearch page in DataHub). */
const MAX_COUNT = 10_000;

function direction(v: unknown): 'INCOMING' | 'OUTGOING' {
  if (v === 'INCOMING' || v === 'OUTGOING') return v;
  if (v === undefined || v === '') throw badRequest("Missing required parameter 'direction' (INCOMING or OUTGOING)", { field: 'direction' });
  throw badRequest(`direction must be INCOMING or OUTGOING, got '${String(v)}'`, { field: 'direction' });
}

function urnParam(v: unknown): string {
  if (typeof v !== 'string' || v === '') throw badRequest("Missing required parameter 'urn'", { field: 'urn' });
  return parseUrn(v).raw;
}

/**
 * The relationship index over REST, as DataHub 0.12.1 serves it: Rest.li's `GET /relationships` (the CLI's
 * migrate commands) and the OpenAPI `GET /openapi/relationships/v1/` (DataHubGraph.get_related_entities). One page
 * of the edges into or out of an entity, of the given types, with the count on the page and the total.
 */
export async function relationshipRoutes(app: FastifyInstance, { catalog }: { catalog: Catalog }) {


  async function page(request: FastifyRequest, urn: string, dir: 'INCOMING' | 'OUTGOING', types: string[], start: number, count: number) {
    const r = await catalog.authorized.reads.relationships(request.actor, { urn, direction: dir, types, start, count });
    return { start, count: r.edges.length, total: r.total,
      edges: r.edges.map((e) => ({ type: e.type, urn: dir === 'INCOMING' ? e.source : e.destination })) };
  }

  // Rest.li: ?urn=&direction=&types=List(A,B)&start=&count= → EntityRelationships.
  collectionRoute(app, 'GET', 'relationships', async (request) => {
    const q = request.query as Record<string, unknown>;
    const urn = urnParam(q.urn);
    const types = restliListParam(request, 'types');
    if (types === undefined) throw badRequest("Missing required parameter 'types' (types=List(<relationship>,…))", { field: 'types' });
    const r = await page(request, urn, direction(q.direction), types, parseInteger(q.start, 'start', 0) ?? 0,
      parseInteger(q.count, 'count', 0, MAX_COUNT) ?? 100);
    return { start: r.start, count: r.count, total: r.total, relationships: r.edges.map((e) => ({ type: e.type, entity: e.urn })) };
  });

  // OpenAPI: ?urn=&direction=&relationshipTypes=A&relationshipTypes=B&start=&count= → RelatedEntitiesResult.
  collectionRoute(app, 'GET', 'openapi/relationships/v1', async (request) => {
    const q = request.query as Record<string, unknown>;
    // DataHub decodes the urn once more (it may come through the frontend's proxy still encoded).
    const raw = typeof q.urn === 'string' && /^urn%3A/i.test(q.urn) ? decode(q.urn, 'urn') : q.urn;
    const urn = urnParam(raw);
    // Each value is one type, as Spring binds the repeated parameter (no splitting at commas).
    const types = rawQueryValues(request, 'relationshipTypes').map((v) => decode(v.replace(/\+/g, ' '), 'relationshipTypes')).filter(Boolean);
    if (types.length === 0) throw badRequest("Missing required parameter 'relationshipTypes'", { field: 'relationshipTypes' });
    const r = await page(request, urn, direction(q.direction), types, parseInteger(q.start, 'start', 0) ?? 0,
      parseInteger(q.count, 'count', 0, MAX_COUNT) ?? 200);
    return { start: r.start, count: r.count, total: r.total, entities: r.edges.map((e) => ({ relationshipType: e.type, urn: e.urn })) };
  });
}

function decode(v: string, name: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    throw badRequest(`Parameter ${name} is not valid percent-encoding: '${v}'`, { field: name });
  }
}
