import { randomUUID } from 'node:crypto';
import { queryProperties, querySubjects } from '../entities/query.js';
import { status } from '../entities/shared-aspects.js';
import { badRequest, forbidden, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES } from '../model/privileges.js';
import { parseUrn } from '../model/urn.js';
import type { Authorizer } from './authz.js';
import type { EntityService } from './entities.js';
import type { RelationshipService } from './relationships.js';

type Properties = { name?: string | null; description?: string | null; statement?: { value: string; language?: 'SQL' | 'UNKNOWN' } | null };

/**
 * Query entities as DataHub 0.12.1's dataset page lists and edits them. Who may edit a query is decided here, for
 * create, update and delete alike: EDIT_ENTITY or EDIT_ENTITY_QUERIES on every dataset the query is about (before and
 * after an update).
 */
export class QueryService {
  constructor(private readonly entities: EntityService, private readonly relationships: RelationshipService,
    private readonly authz: Authorizer) {}

  /** Query entities, newest first (queryProperties.created), soft-deleted ones left out, narrowed as asked. */
  async list(opts: { start: number; count: number; query?: string | null; source?: string | null; datasetUrn?: string | null }) {
    let urns: string[];
    if (opts.datasetUrn) {
      const r = await this.relationships.list({ urn: parseUrn(opts.datasetUrn).raw, direction: 'INCOMING', types: ['IsAssociatedWith'],
        start: 0, count: 10_000 });
      urns = [...new Set(r.edges.map((e) => e.source))].filter((u) => u.startsWith('urn:li:query:'));
    } else {
      urns = [];
      for (let after: string | undefined; ;) {
        const rows = await this.entities.list({ entityType: 'query', count: 1000, after });
        urns.push(...rows.map((r) => r.urn));
        if (rows.length < 1000) break;
        after = rows[rows.length - 1]!.urn;
      }
    }
    const words = (opts.query ?? '').toLowerCase().split(/\s+/).filter((w) => w && w !== '*');
    const values = await this.entities.latestValues(urns, [queryProperties, status]);
    const matching = urns.flatMap((u) => {
      const p = values.get(u)?.get('queryProperties');
      return p && values.get(u)?.get('status')?.removed !== true ? [{ u, p }] : [];
    }).filter((r) => (!opts.source || r.p.source === opts.source)
      && words.every((w) => [r.p.name, r.p.description, r.p.statement.value].some((t) => t?.toLowerCase().includes(w))));
    matching.sort((a, b) => (b.p.created?.time ?? 0) - (a.p.created?.time ?? 0) || (a.u < b.u ? -1 : 1));
    const page = matching.slice(opts.start, opts.start + opts.count);
    return { total: matching.length, urns: page.map((r) => r.u) };
  }

  async create(input: { properties: Properties & { statement: { value: string; language?: 'SQL' | 'UNKNOWN' } }; subjects: { datasetUrn: string }[] },
    actor: Actor): Promise<string> {
    const subjects = await this.requireSubjects(input.subjects);
    await this.authorizeSubjects(subjects, actor);
    const urn = `urn:li:query:${randomUUID()}`;
    const stamp = { time: Date.now(), actor: actor.urn };
    const p = input.properties;
    await this.entities.createOnce(urn, [queryProperties, querySubjects], {
      queryProperties: { statement: { value: p.statement.value, language: p.statement.language }, source: 'MANUAL',
        ...(p.name != null ? { name: p.name } : {}), ...(p.description != null ? { description: p.description } : {}), created: stamp, lastModified: stamp },
      querySubjects: { subjects: [...new Set(subjects)].map((entity) => ({ entity })) },
    }, actor, 'query');
    return urn;
  }

  async update(urn: string, input: { properties?: Properties | null; subjects?: { datasetUrn: string }[] | null }, actor: Actor): Promise<string> {
    const u = this.queryUrn(urn);
    await this.entities.requireExists(u);
    const next = input.subjects ? await this.requireSubjects(input.subjects) : [];
    await this.authorizeSubjects([...(await this.subjectsOf(u)), ...next], actor);
    const stamp = { time: Date.now(), actor: actor.urn };
    const p = input.properties;
    await this.entities.editExisting(u, [queryProperties, querySubjects], (current) => {
      const old = current.get('queryProperties');
      if (!old) throw notFound(`Query ${u} has no properties to update`, { urn: u });
      return {
        queryProperties: { ...old, ...(p?.name != null ? { name: p.name } : {}), ...(p?.description != null ? { description: p.description } : {}),
          ...(p?.statement ? { statement: { value: p.statement.value, language: p.statement.language } } : {}), lastModified: stamp },
        ...(input.subjects ? { querySubjects: { subjects: [...new Set(next)].map((entity) => ({ entity })) } } : {}),
      };
    }, actor);
    return u;
  }

  async delete(urn: string, actor: Actor): Promise<void> {
    const u = this.queryUrn(urn);
    await this.entities.requireExists(u);
    await this.authorizeSubjects(await this.subjectsOf(u), actor);
    await this.entities.deleteEntity(u);
  }

  private queryUrn(urn: string): string {
    const u = parseUrn(urn);
    if (u.entityType !== 'query') throw badRequest(`Invalid urn: '${urn}' is not a query urn`, { urn });
    return u.raw;
  }

  private async subjectsOf(urn: string): Promise<string[]> {
    return ((await this.entities.latestValues([urn], [querySubjects])).get(urn)?.get('querySubjects')?.subjects ?? []).map((s) => s.entity);
  }

  private async authorizeSubjects(subjects: string[], actor: Actor) {
    for (const s of new Set(subjects)) {
      if (!(await this.authz.allowed(actor, REQUIRES['graphql.editQueries'], s))) throw forbidden('Unauthorized to edit queries of ' + s);
    }
  }

  private async requireSubjects(subjects: { datasetUrn: string }[]): Promise<string[]> {
    const urns = subjects.map((s) => {
      const u = parseUrn(s.datasetUrn);
      if (u.entityType !== 'dataset') throw badRequest(`Invalid urn: '${s.datasetUrn}' is not a dataset urn`);
      return u.raw;
    });
    for (const u of new Set(urns)) if (!(await this.entities.exists(u))) throw notFound(`Entity ${u} does not exist`, { urn: u });
    return urns;
  }
}
