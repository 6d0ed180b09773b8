import { badRequest } from '../errors.js';
import { decodeUrnPart, tryParseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import { rebuildIfEmpty } from './derived-index.js';
import type { EntityService } from './entities.js';

/**
 * Search over names, descriptions, column paths, tags and terms. Names are split into words at camelCase and
 * snake_case boundaries and at dots, so `sample` finds `SampleKafkaDataset` and `users` finds
 * `fct_users_created`; every query word must match the start of a word. The index is kept up to date after
 * every write and rebuilt on start when it is empty but entities exist.
 */
type Obj = Record<string, any>;

/** Entity types worth finding. Access tokens, policies and the like are not. */
export const SEARCHABLE = new Set(['dataset', 'chart', 'dashboard', 'dataFlow', 'dataJob', 'container', 'tag', 'glossaryTerm',
  'glossaryNode', 'corpuser', 'corpGroup', 'domain', 'mlModel', 'mlModelGroup', 'mlFeature', 'mlFeatureTable', 'mlPrimaryKey',
  'notebook', 'dataProduct', 'dataPlatform', 'test']);

/** `SampleKafkaDataset.fct_users2` → `samplekafkadataset sample kafka dataset fct users 2 …`. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/[^A-Za-z0-9]+/)) {
    if (!chunk) continue;
    out.push(chunk.toLowerCase());
    const parts = chunk.split(/(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])/);
    if (parts.length > 1) for (const p of parts) out.push(p.toLowerCase());
  }
  return out;
}

/** Query words; `*` and the empty query mean everything. */
export function queryTerms(query: string): string[] {
  const q = query.trim();
  if (q === '' || q === '*') return [];
  return [...new Set(q.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w.toLowerCase()))];
}

function nameOf(urn: string): string {
  const u = tryParseUrn(urn);
  if (typeof u === 'string') return urn;
  if (u.entityType === 'dataset' && u.parts.length === 3) return decodeUrnPart(u.parts[1]!);
  return u.parts.map((p) => (p.startsWith('urn:') ? '' : decodeUrnPart(p))).join(' ');
}

function idOf(urn: string): string {
  return urn.slice(urn.lastIndexOf(':') + 1);
}

/** The text of one entity: its names first, then descriptions, columns and labels. */
export function documentText(urn: string, aspects: Map<string, Obj>): string {
  const parts: string[] = [nameOf(urn)];
  const add = (v: unknown) => { if (typeof v === 'string' && v) parts.push(v); };
  for (const name of ['datasetProperties', 'containerProperties', 'tagProperties', 'glossaryTermInfo', 'glossaryNodeInfo',
    'corpUserInfo', 'corpGroupInfo', 'domainProperties', 'chartInfo', 'dashboardInfo', 'dataFlowInfo', 'dataJobInfo',
    'mlModelProperties', 'mlFeatureTableProperties', 'dataPlatformInfo', 'testInfo', 'dataProductProperties']) {
    const a = aspects.get(name);
    if (!a) continue;
    for (const f of ['name', 'displayName', 'title', 'fullName', 'qualifiedName', 'description', 'definition', 'email']) add(a[f]);
  }
  for (const name of ['editableDatasetProperties', 'editableContainerProperties', 'corpGroupEditableInfo', 'corpUserEditableInfo']) {
    add(aspects.get(name)?.description);
    add(aspects.get(name)?.displayName);
  }
  for (const f of aspects.get('schemaMetadata')?.fields ?? []) { add(f.fieldPath); add(f.description); }
  for (const f of aspects.get('editableSchemaMetadata')?.editableSchemaFieldInfo ?? []) add(f.description);
  for (const t of aspects.get('globalTags')?.tags ?? []) add(idOf(t.tag));
  for (const t of aspects.get('glossaryTerms')?.terms ?? []) add(idOf(t.urn));
  for (const n of aspects.get('subTypes')?.typeNames ?? []) add(n);
  return words(parts.join(' ')).join(' ');
}

export class SearchService {
  constructor(private readonly store: Store, entities: EntityService) {
    entities.afterWrite((urns) => this.index(urns));
  }

  /** Recomputes the documents of these entities (removing those that no longer exist). */
  async index(urns: readonly string[]): Promise<void> {
    const wanted = [...new Set(urns)].filter((u) => {
      const p = tryParseUrn(u);
      return typeof p !== 'string' && SEARCHABLE.has(p.entityType);
    });
    if (wanted.length === 0) return;
    const existing = await this.store.existing(wanted);
    const latest = await this.store.getLatest([...existing]);
    const docs = [...existing].map((urn) => {
      const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value as Obj]));
      return { urn, entityType: (tryParseUrn(urn) as { entityType: string }).entityType, text: documentText(urn, aspects) };
    });
    await this.store.upsertSearchDocs(docs);
    const gone = wanted.filter((u) => !existing.has(u));
    if (gone.length) await this.store.deleteSearchDocs(gone);
  }

  /** Builds the index from scratch when it is empty but entities exist (first start after an upgrade). */
  async rebuildIfEmpty(): Promise<void> {
    await rebuildIfEmpty(this.store, await this.store.countSearchDocs(), (urns) => this.index(urns));
  }


  /**
   * Full-text matches, best first. `filters` is DataHub's orFilters: any one group of clauses, all of which hold.
   * Filtered searches read the candidates' aspects (at most MAX_FILTERED of them) and page in memory.
   */
  async search(q: { query: string; entityTypes?: string[]; start?: number; count?: number; filters?: FilterClause[][] }) {
    const start = q.start ?? 0;
    const count = q.count ?? 10;
    if (!Number.isSafeInteger(start) || start < 0) throw badRequest(`start must be a whole number ≥ 0, got ${start}`);
    if (!Number.isInteger(count) || count < 0 || count > 10_000) throw badRequest(`count must be between 0 and 10000, got ${count}`);
    const terms = queryTerms(q.query);
    const groups = (q.filters ?? []).filter((g) => g.length > 0);
    if (groups.length === 0) {
      const res = await this.store.searchDocs({ terms, entityTypes: q.entityTypes, start, count });
      return { start, count: res.urns.length, total: res.total, urns: res.urns };
    }
    const candidates = await this.store.searchDocs({ terms, entityTypes: q.entityTypes, start: 0, count: MAX_FILTERED });
    const matching: string[] = [];
    for (let i = 0; i < candidates.urns.length; i += 500) {
      const chunk = candidates.urns.slice(i, i + 500);
      const latest = await this.store.getLatest(chunk);
      for (const urn of chunk) {
        const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value as Obj]));
        if (groups.some((g) => g.every((c) => clauseHolds(c, urn, aspects)))) matching.push(urn);
      }
    }
    const page = matching.slice(start, start + count);
    return { start, count: page.length, total: matching.length, urns: page };
  }
}

/** Filtered searches look at this many full-text candidates at most. */
const MAX_FILTERED = 10_000;

export interface FilterClause {
  field: string;
  values: string[];
  condition?: string | null;
  negated?: boolean | null;
}

/** The values a filter field has on an entity, in DataHub's field names. */
function fieldValues(field: string, urn: string, aspects: Map<string, Obj>): string[] {
  const u = tryParseUrn(urn);
  const parts = typeof u === 'string' ? [] : u.parts;
  const entityType = typeof u === 'string' ? '' : u.entityType;
  switch (field) {
    case '_entityType': case 'entityType': return [entityType];
    case 'urn': return [urn];
    case 'platform': {
      const p = entityType === 'dataset' ? parts[0] : aspects.get('dataPlatformInstance')?.platform;
      return p ? [p, p.replace('urn:li:dataPlatform:', '')] : [];
    }
    case 'origin': case 'env': return entityType === 'dataset' && parts[2] ? [parts[2]] : [];
    case 'name': return [nameOf(urn)];
    case 'removed': return [String(aspects.get('status')?.removed === true)];
    case 'tags': return (aspects.get('globalTags')?.tags ?? []).map((t: Obj) => t.tag);
    case 'glossaryTerms': return (aspects.get('glossaryTerms')?.terms ?? []).map((t: Obj) => t.urn);
    case 'owners': return (aspects.get('ownership')?.owners ?? []).map((o: Obj) => o.owner);
    case 'domains': return aspects.get('domains')?.domains ?? [];
    case 'container': return aspects.get('container')?.container ? [aspects.get('container')!.container] : [];
    case 'typeNames': return aspects.get('subTypes')?.typeNames ?? [];
    default: return [];
  }
}

const norm = (s: string) => s.toLowerCase().replace(/_/g, '');

export function clauseHolds(c: FilterClause, urn: string, aspects: Map<string, Obj>): boolean {
  const have = fieldValues(c.field, urn, aspects);
  const cond = (c.condition ?? 'EQUAL').toUpperCase();
  // Entity types compare loosely, as clients send both DATASET and dataset.
  const eq = c.field === '_entityType' || c.field === 'entityType' ? (a: string, b: string) => norm(a) === norm(b) : (a: string, b: string) => a === b;
  let holds: boolean;
  if (cond === 'EXISTS') holds = have.length > 0;
  else if (cond === 'CONTAIN') holds = have.some((h) => c.values.some((v) => h.includes(v)));
  else if (cond === 'START_WITH') holds = have.some((h) => c.values.some((v) => h.startsWith(v)));
  else holds = have.some((h) => c.values.some((v) => eq(h, v)));
  return c.negated ? !holds : holds;
}
