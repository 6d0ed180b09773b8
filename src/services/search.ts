import { badRequest } from '../errors.js';
import { aspectDef, aspectsOf, descriptorOfUrn, ENTITY_DESCRIPTORS, entityDescriptor, keyValuesOf } from '../entities/index.js';
import { decodeUrnPart, tryParseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import { rebuildIfEmpty } from './derived-index.js';
import type { EntityService } from './entities.js';

/**
 * Search over names, descriptions, column paths, tags and terms. Names are split into words at camelCase and
 * snake_case boundaries and at dots, so `sample` finds `SampleKafkaDataset` and `users` finds
 * `fct_users_created`; every query word must match the start of a word. The index is kept up to date after
 * every write and rebuilt on start when it is empty but entities exist. Which entity types are searchable, what
 * their urns and aspects give the document and which filter fields they have come from the entity descriptors.
 */
type Aspects = ReadonlyMap<string, unknown>;

/** Entity types worth finding (those whose descriptor has a search part). Access tokens, policies and the like are not. */
export const SEARCHABLE: ReadonlySet<string> = new Set(ENTITY_DESCRIPTORS.filter((d) => d.search).map((d) => d.name));

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

/** An aspect's value when it still fits its schema (stored values passed it when written). */
function fitting(name: string, value: unknown) {
  const def = aspectDef(name);
  return def && value !== null && typeof value === 'object' && def.schema.check(value, []) === null ? def : undefined;
}

/** The entity's name as words from its urn: the descriptor's, else every urn part that is not itself a urn. */
function nameOf(urn: string): string {
  const u = tryParseUrn(urn);
  if (typeof u === 'string') return urn;
  const d = entityDescriptor(u.entityType);
  const key = d ? keyValuesOf(d, u) : undefined;
  if (d?.search?.name && key) return d.search.name(key);
  return u.parts.map((p) => (p.startsWith('urn:') ? '' : decodeUrnPart(p))).join(' ');
}

/** The text of one entity: its name first, then what each of its aspects gives (in the descriptor's order). */
export function documentText(urn: string, aspects: Aspects): string {
  const parts: string[] = [nameOf(urn)];
  const add = (v: unknown) => { if (typeof v === 'string' && v) parts.push(v); };
  const d = descriptorOfUrn(urn);
  const names = d ? aspectsOf(d).map((a) => a.name) : [...aspects.keys()];
  for (const name of names) {
    if (!aspects.has(name)) continue;
    const value = aspects.get(name);
    fitting(name, value)?.searchText?.(value, add);
  }
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
      const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value]));
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
        const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value]));
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

/**
 * The values a filter field has on an entity, in DataHub's field names: the entity type, urn, name and removal are
 * everyone's; the rest come from the urn (the descriptor's platform and facets) and from the aspects' facets.
 */
function fieldValues(field: string, urn: string, aspects: Aspects): string[] {
  const u = tryParseUrn(urn);
  if (typeof u === 'string') return [];
  switch (field) {
    case '_entityType': case 'entityType': return [u.entityType];
    case 'urn': return [urn];
    case 'name': return [nameOf(urn)];
    case 'removed': return [String((aspects.get('status') as { removed?: unknown } | undefined)?.removed === true)];
    default: break;
  }
  const out: string[] = [];
  const d = entityDescriptor(u.entityType);
  const key = d ? keyValuesOf(d, u) : undefined;
  // The platform an urn names (a dataset's, a chart's tool), by urn and by name; aspects may name one too.
  const platform = field === 'platform' && key ? d?.platform?.(key) : undefined;
  if (platform) out.push(platform, platform.replace('urn:li:dataPlatform:', ''));
  const fromKey = d?.search?.facets?.[field];
  if (fromKey && key) out.push(...fromKey(key));
  for (const [name, value] of aspects) {
    const facet = fitting(name, value)?.facets?.[field];
    if (facet) out.push(...facet(value));
  }
  return out;
}

const norm = (s: string) => s.toLowerCase().replace(/_/g, '');

export function clauseHolds(c: FilterClause, urn: string, aspects: Aspects): boolean {
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
