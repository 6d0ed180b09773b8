import { badRequest, notFound } from '../errors.js';
import { aspectDef, aspectsOf, descriptorOfGraphQLType, descriptorOfUrn, ENTITY_DESCRIPTORS, entityDescriptor, keyValuesOf, urnKeyProblem } from '../entities/index.js';
import { defaultBrowsePath, defaultBrowsePathV2 } from '../entities/graphql-fields.js';
import { browsePathV2Key } from '../entities/shared-aspects.js';
import type { AnyAspect, EntityDescriptor, KeyValues } from '../entities/descriptor.js';
import { decodeUrnPart, tryParseUrn } from '../model/urn.js';
import type { FacetCount, FacetSpec, IndexUpdate, LatestAspects, SearchCondition, SearchDoc, SearchOp, SearchSort, Store } from '../storage/types.js';

/**
 * Search over names, descriptions, column paths, tags and terms, with DataHub's filters and facets. Names are split
 * into words at camelCase and snake_case boundaries and at dots, so `sample` finds `SampleKafkaDataset` and `users`
 * finds `fct_users_created`; every query word must match the start of a word. Each entity's document (name, text,
 * filter values) comes from its descriptor: the urn's key, and each aspect's `searchText` and `facets`. The engine
 * keeps the index, counts facets exactly in the database, and pages. Soft-deleted entities are left out unless a
 * filter asks about `removed`, as in DataHub.
 */
type Aspects = ReadonlyMap<string, unknown>;

/** Entity types worth finding (those whose descriptor has a search part). Access tokens, policies and the like are not. */
// Looked up when asked: the registry extension (ALMANAC_REGISTRY) adds searchable types at start.
export const SEARCHABLE: { has(entityType: string): boolean } = { has: (t) => entityDescriptor(t)?.name === t && entityDescriptor(t)?.search !== undefined };

/**
 * What a search that names no types leaves out: the searchable types DataHub's SEARCHABLE_ENTITY_TYPES does not list
 * (said as an exclusion: the types left out are few and rarely indexed, so the condition costs next to nothing).
 */
export const FOUND_ONLY_WHEN_NAMED: readonly string[] = ENTITY_DESCRIPTORS.filter((d) => d.search?.onlyWhenNamed).map((d) => d.name);

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

/**
 * A name as searches compare it whole: its words (split as queries are), lower case, one space apart. A document whose
 * name key equals the query's comes first, then those whose key starts with it (src/storage/search-sql.ts).
 */
export function nameKey(text: string): string {
  return text.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w.toLowerCase()).join(' ');
}

/** A document's name keys: its own name's, and its urn's name's where that differs. */
function nameKeys(urnName: string, own: string): { nameKey: string; qualifiedKey?: string } {
  const k = nameKey(own);
  const q = nameKey(urnName);
  return q === k ? { nameKey: k } : { nameKey: k, qualifiedKey: q };
}

/** An aspect's value when it still fits its schema (stored values passed it when written). */
function fitting(name: string, value: unknown): AnyAspect | undefined {
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

/** The aspects of an entity in its descriptor's order (stored ones only). */
function orderedAspects(urn: string, aspects: Aspects): [string, unknown][] {
  const d = descriptorOfUrn(urn);
  const names = d ? aspectsOf(d).map((a) => a.name) : [...aspects.keys()];
  return names.filter((n) => aspects.has(n)).map((n) => [n, aspects.get(n)]);
}

/**
 * The name people know the entity by: the first name or display name its aspects give, else its urn's. `ownName`:
 * not the key aspect's (a dataset's key names it by its urn's qualified name; its properties give the table's name).
 */
function displayNameOf(urn: string, aspects: Aspects, ownName = false): string {
  const key = ownName ? descriptorOfUrn(urn)?.key.name : undefined;
  for (const [aspect, value] of orderedAspects(urn, aspects)) {
    if (aspect === key) continue;
    const v = value as { displayName?: unknown; name?: unknown } | null;
    if (v && typeof v === 'object') {
      if (typeof v.displayName === 'string' && v.displayName) return v.displayName;
      if (typeof v.name === 'string' && v.name) return v.name;
    }
  }
  return nameOf(urn);
}

/** The text of one entity: its name first, then what each of its aspects gives (in the descriptor's order). */
export function documentText(urn: string, aspects: Aspects): string {
  return [...words(nameOf(urn)), bodyText(urn, aspects)].filter(Boolean).join(' ');
}

function bodyText(urn: string, aspects: Aspects): string {
  const parts: string[] = [];
  const add = (v: unknown) => { if (typeof v === 'string' && v) parts.push(v); };
  for (const [name, value] of orderedAspects(urn, aspects)) fitting(name, value)?.searchText?.(value, add);
  return words(parts.join(' ')).join(' ');
}

/** Whether any aspect documents the entity: a description (or a glossary term's definition) that is not empty. */
function hasDescription(aspects: Aspects): boolean {
  for (const value of aspects.values()) {
    const v = value as { description?: unknown; definition?: unknown } | null;
    if (v && typeof v === 'object' && ((typeof v.description === 'string' && v.description.trim()) || (typeof v.definition === 'string' && v.definition.trim()))) {
      return true;
    }
  }
  return false;
}

/**
 * The filter values of an entity, in DataHub's field names: from the urn (the descriptor's platform and key facets)
 * and from each aspect's facets; `hasDescription` and the browse paths DataHub derives when none was sent.
 */
function fieldValues(d: EntityDescriptor, key: KeyValues, aspects: Aspects, defaultPathV2: string | undefined,
  defaultPath: string | undefined): [string, string][] {
  const out: [string, string][] = [];
  const platform = d.platform?.(key);
  if (platform) out.push(['platform', platform]);
  for (const [field, fn] of Object.entries(d.search?.facets ?? {})) for (const v of fn(key)) out.push([field, v]);
  for (const [name, value] of aspects) {
    const def = fitting(name, value);
    for (const [field, fn] of Object.entries(def?.facets ?? {})) for (const v of fn(value)) if (typeof v === 'string') out.push([field, v]);
  }
  out.push(['hasDescription', String(hasDescription(aspects))]);
  if (!aspects.has('browsePathsV2') && defaultPathV2 !== undefined) out.push(['browsePathV2', defaultPathV2]);
  if (!aspects.has('browsePaths') && defaultPath !== undefined) out.push(['browsePaths', defaultPath]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export interface FilterClause {
  field: string;
  values: string[];
  condition?: string | null;
  negated?: boolean | null;
}

export interface SearchRequest {
  /** '' or '*': everything. */
  query: string;
  /** Entity names (`dataset`, `dataJob`); every searchable type when absent or empty. */
  entityTypes?: readonly string[];
  /** DataHub's orFilters: any one group, all of whose clauses hold. */
  filters?: readonly (readonly FilterClause[])[];
  /** Only these entities (lineage search). */
  urns?: readonly string[];
  /** `_entityName` (or `name`) sorts by name; any other field by its numeric value; relevance when absent. */
  sort?: { field: string; order?: string | null } | null;
  start?: number;
  count?: number;
  /** Facet fields to count; DataHub's default facets when absent; none when empty. */
  facets?: readonly string[];
}

export interface Aggregation {
  value: string;
  count: number;
  /** The value's entity, when the value is a urn. */
  entity: string | null;
}

export interface Facet {
  field: string;
  displayName: string;
  aggregations: Aggregation[];
}

export interface MatchedField {
  name: string;
  value: string;
}

export interface SearchResponse {
  start: number;
  count: number;
  total: number;
  urns: string[];
  facets: Facet[];
  /** Per result, the fields the query's words were found in (empty without a query). */
  matchedFields: Map<string, MatchedField[]>;
}

/** DataHub's nesting of facets: `_entityType␞typeNames` counts entity types and each type's sub types. */
export const FACET_SEPARATOR = '\u241e';
const ENTITY_TYPE_FIELDS = new Set(['_entityType', 'entityType', '_index', 'entity']);

/**
 * The facets DataHub 0.12.1 returns when none are asked for: the fields its models add to filters, and the type —
 * twice, as `_entityType` and as the legacy `entity` its web app's tag and term pages read.
 */
export const DEFAULT_FACETS: readonly string[] = ['_entityType', 'entity', 'platform', 'origin', 'typeNames', 'tags', 'glossaryTerms', 'owners',
  'domains', 'container', 'platformInstance'];

/** DataHub's display names of filter fields (its models' filterNameOverride). */
const DISPLAY_NAMES: Readonly<Record<string, string>> = {
  _entityType: 'Type', entity: 'Type', platform: 'Platform', origin: 'Environment', env: 'Environment', typeNames: 'Sub Type', tags: 'Tag',
  glossaryTerms: 'Glossary Term', owners: 'Owned By', domains: 'Domain', container: 'Container', platformInstance: 'Platform Instance',
  deprecated: 'Deprecated', hasDescription: 'Has Description', degree: 'Degree',
};
export const displayNameOfField = (field: string) =>
  field.split(FACET_SEPARATOR).map((f) => DISPLAY_NAMES[f] ?? f).join(FACET_SEPARATOR);

/** DataHub's terms aggregations return this many values per facet (values a filter selects are added). */
export const FACET_BUCKETS = 20;

const CONDITIONS: Readonly<Record<string, SearchOp>> = {
  EQUAL: 'EQUAL', IN: 'EQUAL', IEQUAL: 'EQUAL', CONTAIN: 'CONTAIN', START_WITH: 'START_WITH', END_WITH: 'END_WITH', EXISTS: 'EXISTS', GREATER_THAN: 'GREATER_THAN',
  GREATER_THAN_OR_EQUAL_TO: 'GREATER_THAN_OR_EQUAL_TO', LESS_THAN: 'LESS_THAN', LESS_THAN_OR_EQUAL_TO: 'LESS_THAN_OR_EQUAL_TO',
};

/** Other names clients use for an indexed field. */
const FIELD_ALIASES: Readonly<Record<string, string>> = { dataPlatformInstance: 'platformInstance', env: 'origin' };

/** A filter field as indexed: DataHub clients may name the keyword sub-field (`platform.keyword`) or an alias. */
const fieldName = (f: string) => {
  const name = f.replace(/\.keyword$/, '');
  return FIELD_ALIASES[name] ?? name;
};

/** An entity type filter value: DataHub's enum (DATASET, DATASETS as the UI's views send it) or the entity name. */
function entityNameOf(value: string): string {
  const d = descriptorOfGraphQLType(value) ?? descriptorOfGraphQLType(value.replace(/S$/, '')) ?? entityDescriptor(value)
    ?? ENTITY_DESCRIPTORS.find((x) => x.name.toLowerCase() === value.toLowerCase().replace(/_/g, ''));
  if (!d) throw badRequest(`Unknown entity type '${value}' in a filter`, { field: '_entityType' });
  return d.name;
}

/** Values of fields that hold urns, accepted in the short forms DataHub's UI also sends (a platform's bare name). */
function normalizeValues(field: string, values: readonly string[]): string[] {
  if (field === 'platform') return values.map((v) => (v.startsWith('urn:') ? v : `urn:li:dataPlatform:${v}`));
  return [...values];
}

function clauseCondition(c: FilterClause): SearchCondition {
  const field = fieldName(c.field);
  const op = CONDITIONS[(c.condition ?? 'EQUAL').toUpperCase()];
  if (!op) throw badRequest(`Unknown filter condition '${c.condition}' on field ${field}`, { field });
  if (op.startsWith('GREATER') || op.startsWith('LESS')) {
    if (c.values.length !== 1 || !Number.isFinite(Number(c.values[0]))) {
      throw badRequest(`Condition ${op} on field ${field} takes one number, got ${JSON.stringify(c.values)}`, { field });
    }
  }
  let cond: SearchCondition;
  if (ENTITY_TYPE_FIELDS.has(field)) {
    cond = { column: 'entityType', values: c.values.map(entityNameOf) };
  } else if (field === 'urn') {
    cond = { column: 'urn', values: c.values };
  } else if (field === 'removed') {
    cond = { any: c.values.map((v) => ({ column: 'removed' as const, value: v === 'true' })) };
  } else if (field === `_entityType${FACET_SEPARATOR}typeNames`) {
    cond = { any: c.values.map((v) => {
      const [type, sub] = v.split(FACET_SEPARATOR);
      const byType: SearchCondition = { column: 'entityType', values: [entityNameOf(type!)] };
      return sub === undefined ? byType : { all: [byType, { field: 'typeNames', op: 'EQUAL', values: [sub] }] };
    }) };
  } else {
    cond = { field, op, values: normalizeValues(field, c.values) };
  }
  return c.negated ? { not: cond } : cond;
}

/** The field a clause constrains, as facets name it (a facet's own clauses do not narrow its own counts). */
const facetFieldOf = (c: FilterClause) => {
  const f = fieldName(c.field);
  return ENTITY_TYPE_FIELDS.has(f) ? '_entityType' : f;
};

function facetSpec(field: string): FacetSpec {
  if (ENTITY_TYPE_FIELDS.has(field)) return { kind: 'entityType' };
  const [first, second, ...rest] = field.split(FACET_SEPARATOR);
  if (second !== undefined && rest.length === 0 && ENTITY_TYPE_FIELDS.has(first!)) return { kind: 'entityTypeThen', field: second };
  if (second !== undefined) throw badRequest(`Facet ${field}: only the entity type can have a facet nested under it`, { field });
  return { kind: 'field', field: first! };
}

/** The enum DataHub's facets show for an entity type. */
const entityTypeEnum = (name: string) => entityDescriptor(name)?.graphql.entityType ?? name;

export class SearchService {
  /** Where warnings go: stderr, or the server's log (src/app.ts). */
  warn: (message: string, fields: Record<string, unknown>) => void = (m) => process.stderr.write(`almanac: warning: ${m}\n`);
  /** Stored urns already warned about, each once per process. */
  private readonly warned = new Set<string>();
  /** Hear how long each search took, in seconds (the metrics' latency histogram). */
  private readonly timed: ((seconds: number) => void)[] = [];

  constructor(private readonly store: Store) {}

  /**
   * Whether a stored entity's urn cannot name an entity of its type (stored before writes checked urns, or by an older
   * build): such an entity is left out of the index and of every answer, with one warning; `almanac doctor` lists them.
   */
  private unmappable(urn: string): boolean {
    const u = tryParseUrn(urn);
    const d = typeof u === 'string' ? undefined : entityDescriptor(u.entityType);
    const problem = typeof u === 'string' ? u : d ? urnKeyProblem(d, u) : null;
    if (problem === null) return false;
    if (!this.warned.has(urn)) {
      this.warned.add(urn);
      this.warn(`left out of search: the stored entity ${urn} has an invalid urn (${problem}); \`almanac doctor\` lists such entities `
        + 'and how to delete them', { urn, problem });
    }
    return true;
  }

  /**
   * The documents of these entities as the store holds them now, and the urns among them that no longer exist (whose
   * documents go): the search index's update, applied by its change-log consumer (src/changelog). `latest`: their
   * aspects, already read.
   */
  async documents(urns: readonly string[], latest?: LatestAspects): Promise<IndexUpdate> {
    const wanted = [...new Set(urns)].filter((u) => {
      const p = tryParseUrn(u);
      return typeof p !== 'string' && SEARCHABLE.has(p.entityType);
    });
    if (wanted.length === 0) return { search: { upsert: [], remove: [] } };
    const existing = await this.store.existing(wanted);
    latest ??= await this.store.getLatest([...existing]);
    // Aspects of other entities the defaults read (a platform's name delimiter), read once per batch.
    const others = new Map<string, Promise<unknown>>();
    const other = (of: string, aspect: string) => {
      const k = `${of}\n${aspect}`;
      if (!others.has(k)) others.set(k, this.store.getLatest([of], [aspect]).then((m) => m.get(of)?.get(aspect)?.value));
      return others.get(k)!;
    };
    const docs: SearchDoc[] = [];
    const unmappable = new Set<string>();
    for (const urn of existing) {
      const u = tryParseUrn(urn);
      if (typeof u === 'string' || this.unmappable(urn)) {
        unmappable.add(urn);
        continue;
      }
      const d = entityDescriptor(u.entityType)!;
      const key = keyValuesOf(d, u) ?? {};
      const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value]));
      const reads = { urn, key, aspect: async (def: { name: string }, of?: string) =>
        (of === undefined || of === urn ? aspects.get(def.name) : await other(of, def.name)) as never };
      const defaultPathV2 = aspects.has('browsePathsV2') ? undefined : browsePathV2Key((await defaultBrowsePathV2(reads)).path);
      const defaultPath = aspects.has('browsePaths') ? undefined : await defaultBrowsePath(d, reads);
      const name = nameOf(urn);
      const display = displayNameOf(urn, aspects);
      const own = displayNameOf(urn, aspects, true);
      docs.push({
        urn, entityType: u.entityType,
        // The urn's name, the display name and the entity's own name (a dataset's table name): the words ranked as its name.
        name: words([...new Set([name, display, own])].join(' ')).join(' '),
        text: bodyText(urn, aspects),
        sortName: display.toLowerCase(),
        ...nameKeys(name, own),
        removed: (aspects.get('status') as { removed?: unknown } | undefined)?.removed === true,
        values: fieldValues(d, key, aspects, defaultPathV2, defaultPath),
      });
    }
    return { search: { upsert: docs, remove: wanted.filter((u) => !existing.has(u) || unmappable.has(u)) } };
  }

  /**
   * The condition of a request: its entity types, its filter groups, the urns it is limited to, and — unless a
   * clause asks about removal — only entities that are not soft-deleted. `skipFacet` leaves out the clauses on one
   * facet field (how that facet's own counts are taken).
   */
  private condition(req: SearchRequest, skipFacet?: string): SearchCondition {
    const all: SearchCondition[] = [];
    all.push(req.entityTypes?.length ? { column: 'entityType', values: [...req.entityTypes] } : { not: { column: 'entityType', values: FOUND_ONLY_WHEN_NAMED } });
    if (req.urns) all.push({ column: 'urn', values: req.urns });
    const groups = (req.filters ?? []).filter((g) => g.length > 0);
    if (!groups.some((g) => g.some((c) => fieldName(c.field) === 'removed'))) all.push({ column: 'removed', value: false });
    const kept = groups.map((g) => g.filter((c) => skipFacet === undefined || !this.sameFacet(facetFieldOf(c), skipFacet)));
    // A group left empty by skipping its clauses holds for every document: the whole OR then holds.
    if (kept.length && !kept.some((g) => g.length === 0)) all.push({ any: kept.map((g) => ({ all: g.map(clauseCondition) })) });
    return { all };
  }

  /** A facet's own clauses: its field, or for the nested type facet, the type and sub-type clauses too. */
  private sameFacet(clauseField: string, facet: string): boolean {
    if (clauseField === facet || (ENTITY_TYPE_FIELDS.has(facet) && clauseField === '_entityType')) return true;
    const parts = facet.split(FACET_SEPARATOR).map((p) => (ENTITY_TYPE_FIELDS.has(p) ? '_entityType' : p));
    return parts.length > 1 && (parts.includes(clauseField) || clauseField === parts.join(FACET_SEPARATOR));
  }

  /** Calls `listener` with each search's duration in seconds, until the returned function is called. */
  onSearched(listener: (seconds: number) => void): () => void {
    this.timed.push(listener);
    return () => {
      const i = this.timed.indexOf(listener);
      if (i >= 0) this.timed.splice(i, 1);
    };
  }

  async search(req: SearchRequest): Promise<SearchResponse> {
    if (this.timed.length === 0) return this.searchPage(req);
    const t0 = performance.now();
    try {
      return await this.searchPage(req);
    } finally {
      const seconds = (performance.now() - t0) / 1000;
      for (const l of this.timed) l(seconds);
    }
  }

  private async searchPage(req: SearchRequest): Promise<SearchResponse> {
    const start = req.start ?? 0;
    const count = req.count ?? 10;
    if (!Number.isSafeInteger(start) || start < 0) throw badRequest(`start must be a whole number ≥ 0, got ${start}`);
    if (!Number.isSafeInteger(count) || count < 0) throw badRequest(`count must be a whole number ≥ 0, got ${count}`);
    if (count > 10_000 && !req.urns) throw badRequest(`count must be between 0 and 10000, got ${count}`);
    for (const t of req.entityTypes ?? []) if (!SEARCHABLE.has(t)) throw badRequest(`Entity type ${t} is not searchable`);
    const terms = queryTerms(req.query);
    const sort = sortOf(req.sort);
    const where = this.condition(req);
    const key = nameKey(req.query);
    const facetFields = req.facets ?? DEFAULT_FACETS;
    const found = await this.store.searchDocs({ terms, ...(key !== terms.join(' ') ? { nameKey: key } : {}), where, sort, start, count,
      facetsFollow: facetFields.some((f) => f !== 'degree') });
    // An index built before writes checked urns may still hold an entity no answer can map: left out.
    const kept = found.urns.filter((u) => !this.unmappable(u));
    const page = { urns: kept, total: found.total - (found.urns.length - kept.length) };
    // The page's total is how many the facets sharing its condition count over: not counted a second time.
    const facets = await this.facets(req, terms, facetFields, { where, total: page.total });
    const matchedFields = terms.length ? await this.matchedFields(page.urns, terms) : new Map<string, MatchedField[]>();
    return { start, count: page.urns.length, total: page.total, urns: page.urns, facets, matchedFields };
  }

  /**
   * Where the query's words were found in each result, in DataHub's field names: the name, a description, a column
   * path or description, a tag or glossary term, the urn. Read from the results' aspects (one read for the page).
   */
  private async matchedFields(urns: readonly string[], terms: readonly string[]): Promise<Map<string, MatchedField[]>> {
    const latest = await this.store.getLatest(urns);
    const hits = (text: string) => {
      const w = words(text);
      return terms.some((t) => w.some((x) => x.startsWith(t)));
    };
    const out = new Map<string, MatchedField[]>();
    for (const urn of urns) {
      const aspects = new Map([...(latest.get(urn) ?? new Map())].map(([k, r]) => [k, r.value]));
      const found: MatchedField[] = [];
      const add = (name: string, value: string) => {
        if (found.length < 10 && !found.some((f) => f.name === name && f.value === value) && hits(name === 'tags' || name === 'glossaryTerms'
          ? value.slice(value.lastIndexOf(':') + 1) : value)) found.push({ name, value });
      };
      add('name', displayNameOf(urn, aspects));
      for (const [, value] of orderedAspects(urn, aspects)) {
        const v = value as { description?: unknown; fields?: unknown; editableSchemaFieldInfo?: unknown } | null;
        if (!v || typeof v !== 'object') continue;
        if (typeof v.description === 'string') add('description', v.description);
        for (const f of [...(Array.isArray(v.fields) ? v.fields : []), ...(Array.isArray(v.editableSchemaFieldInfo) ? v.editableSchemaFieldInfo : [])]) {
          if (typeof f?.fieldPath === 'string' && Array.isArray(v.fields)) add('fieldPaths', f.fieldPath);
          if (typeof f?.description === 'string') add('fieldDescriptions', f.description);
        }
      }
      for (const t of (aspects.get('globalTags') as { tags?: { tag: string }[] } | undefined)?.tags ?? []) add('tags', t.tag);
      for (const t of (aspects.get('glossaryTerms') as { terms?: { urn: string }[] } | undefined)?.terms ?? []) add('glossaryTerms', t.urn);
      if (found.length === 0) found.push({ name: 'urn', value: urn });
      out.set(urn, found);
    }
    return out;
  }

  /**
   * A request narrowed by a view (DataHub's DataHubView): its entity types intersected with the request's, its
   * filter combined with the request's in conjunction. A view that does not exist is a 404.
   */
  async withView(req: SearchRequest, viewUrn: string): Promise<SearchRequest> {
    const info = (await this.store.getLatest([viewUrn], ['dataHubViewInfo'])).get(viewUrn)?.get('dataHubViewInfo')?.value as
      | { definition?: { entityTypes?: string[]; filter?: { or?: { and: ViewCriterion[] }[]; criteria?: ViewCriterion[] } } }
      | undefined;
    if (!info) throw notFound(`View ${viewUrn} does not exist`, { urn: viewUrn });
    const viewTypes = (info.definition?.entityTypes ?? []).map(entityNameOf);
    const filter = info.definition?.filter ?? {};
    const viewGroups = (filter.or ?? (filter.criteria ? [{ and: filter.criteria }] : [])).map((g) => g.and.map(viewClause));
    let entityTypes = req.entityTypes?.length ? [...req.entityTypes] : undefined;
    let groups = (req.filters ?? []).filter((g) => g.length);
    if (viewTypes.length) entityTypes = entityTypes ? entityTypes.filter((t) => viewTypes.includes(t)) : viewTypes;
    if (viewGroups.length) {
      const base = groups.length ? groups : [[]];
      groups = base.flatMap((g) => viewGroups.map((v) => [...g, ...v]));
    }
    // No type in both: nothing can match (an empty list would mean every type).
    if (entityTypes && entityTypes.length === 0) return { ...req, entityTypes: undefined, filters: [[{ field: 'urn', values: [] }]] };
    return { ...req, entityTypes, filters: groups };
  }

  /**
   * Every value of one field among the matching entities with how many have it (no bucket limit), optionally only
   * values that start with `prefix`: what browsing groups by (browsePathV2, browsePaths).
   */
  async valueCounts(req: SearchRequest, field: string, prefix?: string): Promise<{ value: string; count: number }[]> {
    const withPrefix: SearchRequest = prefix === undefined ? req
      : { ...req, filters: [...((req.filters ?? []).length ? req.filters! : [[]])].map((g) => [...g, { field, values: [prefix], condition: 'START_WITH' }]) };
    const [rows] = await this.store.searchFacets({ terms: queryTerms(req.query), where: this.condition(withPrefix) }, [{ kind: 'field', field }]);
    return rows!.filter((r) => r.count > 0 && (prefix === undefined || r.value.startsWith(prefix)))
      .map((r) => ({ value: r.value, count: r.count })).sort(byCountThenValue);
  }

  /** Counts of each facet: the facets whose own clauses are alike are counted together, in one read each. */
  async facets(req: SearchRequest, terms: readonly string[], fields: readonly string[],
    counted?: { where: SearchCondition; total: number }): Promise<Facet[]> {
    const wanted = [...new Set(fields)].filter((f) => f !== 'degree');
    const specs = wanted.map(facetSpec);
    // Facets counted alike under one condition are counted once (`_entityType` and the legacy `entity` are one count).
    const byCondition = new Map<string, { where: SearchCondition; specs: Map<string, number[]> }>();
    wanted.forEach((f, i) => {
      const where = this.condition(req, f);
      const k = JSON.stringify(where);
      const entry = byCondition.get(k) ?? { where, specs: new Map<string, number[]>() };
      const spec = JSON.stringify(specs[i]);
      entry.specs.set(spec, [...(entry.specs.get(spec) ?? []), i]);
      byCondition.set(k, entry);
    });
    const counts: FacetCount[][] = new Array(wanted.length);
    const countedKey = counted && JSON.stringify(counted.where);
    await Promise.all([...byCondition].map(async ([k, { where, specs: same }]) => {
      const groups = [...same.values()];
      const res = await this.store.searchFacets({ terms, where }, groups.map((idx) => specs[idx[0]!]!), k === countedKey ? counted!.total : undefined);
      groups.forEach((idx, j) => { for (const i of idx) counts[i] = res[j]!; });
    }));
    const selected = selectedValues(req.filters ?? []);
    return wanted.flatMap((field, i) => {
      const aggregations = formatFacet(field, specs[i]!, counts[i]!, selected.get(ENTITY_TYPE_FIELDS.has(field) ? '_entityType' : field) ?? []);
      return aggregations.length ? [{ field, displayName: displayNameOfField(field), aggregations }] : [];
    });
  }

  /**
   * Every urn a request matches, no paging limit, in urn order (code point by code point, as DataHub's index sorts
   * keywords): what the legacy browse lists the entities at a path by.
   */
  async matchingUrns(req: SearchRequest): Promise<string[]> {
    for (const t of req.entityTypes ?? []) if (!SEARCHABLE.has(t)) throw badRequest(`Entity type ${t} is not searchable`);
    const q = { terms: queryTerms(req.query), where: this.condition(req), sort: { by: 'name', descending: false } as SearchSort };
    const { total } = await this.store.searchDocs({ ...q, start: 0, count: 0 });
    if (total === 0) return [];
    const { urns } = await this.store.searchDocs({ ...q, start: 0, count: total });
    return urns.filter((u) => !this.unmappable(u)).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  }
}

type ViewCriterion = { field: string; value?: string; values?: string[]; condition?: string; negated?: boolean };

/** A stored view criterion as a clause: IS_NULL is the negation of EXISTS. */
function viewClause(c: ViewCriterion): FilterClause {
  const values = c.values?.length ? c.values : c.value !== undefined && c.value !== '' ? [c.value] : [];
  if (c.condition === 'IS_NULL') return { field: c.field, values, condition: 'EXISTS', negated: !c.negated };
  return { field: c.field, values, condition: c.condition ?? 'EQUAL', negated: c.negated ?? false };
}

function sortOf(s: SearchRequest['sort']): SearchSort {
  if (!s?.field) return { by: 'relevance' };
  const order = (s.order ?? 'ASCENDING').toUpperCase();
  if (order !== 'ASCENDING' && order !== 'DESCENDING') throw badRequest(`sortOrder must be ASCENDING or DESCENDING, got ${s.order}`);
  const descending = order === 'DESCENDING';
  if (s.field === '_entityName' || s.field === 'name' || s.field === '_name') return { by: 'name', descending };
  return { by: 'field', field: fieldName(s.field), descending };
}

/** The values each facet field's clauses select (shown with their count even when not among the top ones). */
function selectedValues(groups: readonly (readonly FilterClause[])[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const g of groups) {
    for (const c of g) {
      if (c.negated || (c.condition && !['EQUAL', 'IN'].includes(c.condition.toUpperCase()))) continue;
      const f = facetFieldOf(c);
      const values = f === '_entityType' ? c.values.map((v) => entityTypeEnum(entityNameOf(v))) : normalizeValues(f, c.values);
      out.set(f, [...new Set([...(out.get(f) ?? []), ...values])]);
    }
  }
  return out;
}

const byCountThenValue = (a: { value: string; count: number }, b: { value: string; count: number }) =>
  b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/** One facet's aggregations in DataHub's form: most frequent first, at most FACET_BUCKETS, selected values kept. */
function formatFacet(field: string, spec: FacetSpec, rows: readonly FacetCount[], selected: readonly string[]): Aggregation[] {
  let values: { value: string; count: number }[];
  if (spec.kind === 'entityType') {
    values = rows.map((r) => ({ value: entityTypeEnum(r.value), count: r.count }));
  } else if (spec.kind === 'entityTypeThen') {
    values = rows.map((r) => ({ value: r.sub === undefined ? entityTypeEnum(r.value) : `${entityTypeEnum(r.value)}${FACET_SEPARATOR}${r.sub}`, count: r.count }));
  } else {
    values = [...rows];
  }
  values = values.filter((v) => v.count > 0).sort(byCountThenValue);
  const top = values.slice(0, FACET_BUCKETS);
  for (const s of selected) {
    if (top.some((v) => v.value === s)) continue;
    top.push(values.find((v) => v.value === s) ?? { value: s, count: 0 });
  }
  return top.map((v) => ({ value: v.value, count: v.count, entity: v.value.startsWith('urn:li:') ? v.value : null }));
}
