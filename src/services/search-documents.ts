import { aspectDef, aspectsOf, descriptorOfUrn, ENTITY_DESCRIPTORS, entityDescriptor, keyValuesOf } from '../entities/index.js';
import { defaultBrowsePath, defaultBrowsePathV2 } from '../entities/graphql-fields.js';
import { browsePathV2Key } from '../entities/shared-aspects.js';
import type { AnyAspect, EntityDescriptor, KeyValues } from '../entities/descriptor.js';
import { fitsSchema } from '../entities/schema.js';
import { decodeUrnPart, tryParseUrn } from '../model/urn.js';
import type { IndexUpdate, LatestAspects, SearchDoc, Store } from '../storage/types.js';

/**
 * The search documents of entities (src/services/search.ts): name, text and filter values, from each entity's
 * descriptor: the urn's key, and each aspect's `searchText` and `facets`; and where a query's words were found in them.
 */

/** An entity's aspect values by name. */
type Aspects = ReadonlyMap<string, unknown>;

/** Entity types worth finding (those whose descriptor has a search part). Access tokens, policies and the like are not. */
// Looked up when asked: the registry extension (ALMANAC_REGISTRY) adds searchable types at start.
export const SEARCHABLE: { has(entityType: string): boolean } = { has: (t) => entityDescriptor(t)?.name === t && entityDescriptor(t)?.search !== undefined };

/**
 * What a search that names no types leaves out: the searchable types DataHub's SEARCHABLE_ENTITY_TYPES does not list
 * (said as an exclusion: the types left out are few and rarely indexed, so the condition costs next to nothing).
 */
export const FOUND_ONLY_WHEN_NAMED: readonly string[] = ENTITY_DESCRIPTORS.filter((d) => d.search?.onlyWhenNamed).map((d) => d.name);

/**
 * A chunk words() keeps whole: lower case letters after at most one capital, capitals only, or digits only (none has a
 * lower-to-upper, capital-before-capitalised-word or letter-digit boundary).
 */
const UNSPLIT = /^(?:[A-Z]?[a-z]*|[A-Z]*|[0-9]*)$/;

/** `SampleKafkaDataset.fct_users2` → `samplekafkadataset sample kafka dataset fct users 2 …`. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/[^A-Za-z0-9]+/)) {
    if (!chunk) continue;
    out.push(chunk.toLowerCase());
    // Most chunks (plain words, numbers) have no place to split: the test costs a fraction of the lookbehind split.
    if (UNSPLIT.test(chunk)) continue;
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
  return def && value !== null && typeof value === 'object' && fitsSchema(def.schema, value) ? def : undefined;
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

/**
 * The documents of these entities as the store holds them now, and the urns among them that no longer exist (whose
 * documents go): the search index's update, applied by its change-log consumer (src/changelog). `latest`: their
 * aspects, already read. `isUnmappable`: whether a stored urn cannot name an entity of its type (left out, its document gone).
 */
export async function searchDocuments(store: Pick<Store, 'existing' | 'getLatest'>, urns: readonly string[], latest: LatestAspects | undefined,
  isUnmappable: (urn: string) => boolean): Promise<IndexUpdate> {
  const wanted = [...new Set(urns)].filter((u) => {
    const p = tryParseUrn(u);
    return typeof p !== 'string' && SEARCHABLE.has(p.entityType);
  });
  if (wanted.length === 0) return { search: { upsert: [], remove: [] } };
  const existing = await store.existing(wanted);
  latest ??= await store.getLatest([...existing]);
  // Aspects of other entities the defaults read (a platform's name delimiter), read once per batch.
  const others = new Map<string, Promise<unknown>>();
  const other = (of: string, aspect: string) => {
    const k = `${of}\n${aspect}`;
    if (!others.has(k)) others.set(k, store.getLatest([of], [aspect]).then((m) => m.get(of)?.get(aspect)?.value));
    return others.get(k)!;
  };
  const docs: SearchDoc[] = [];
  const unmappable = new Set<string>();
  for (const urn of existing) {
    const u = tryParseUrn(urn);
    if (typeof u === 'string' || isUnmappable(urn)) {
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

export interface MatchedField {
  name: string;
  value: string;
}

/**
 * Where the query's words were found in each result, in DataHub's field names: the name, a description, a column
 * path or description, a tag or glossary term, the urn. Read from the results' aspects (one read for the page).
 */
export async function matchedFields(store: Pick<Store, 'getLatest'>, urns: readonly string[], terms: readonly string[]): Promise<Map<string, MatchedField[]>> {
  const latest = await store.getLatest(urns);
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
