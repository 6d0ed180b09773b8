import { aspectDef, entityDescriptor } from '../entities/index.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import type { ChangeItem } from './ingest-format.js';
import { edgesOf } from './relationships.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import { REQUIRES } from '../model/privileges.js';

/**
 * Removing the references other entities hold to one entity (a tag on datasets, an owner, a domain, a group's
 * members, a term…), as DataHub 0.12.1's DeleteEntityService does for `/entities?action=deleteReferences`: every
 * relationship into the entity names an aspect of its source; the urn is taken out of that aspect where the
 * relationship comes from. In a list, its item goes (a tag association, an owner); an optional field is dropped; a
 * required one takes its record with it, up to the whole aspect, which is then deleted (a `container`). Key aspects
 * are never rewritten.
 */

/** A reference found: the entity holding it, the aspect, and the relationship's name. */
export interface RelatedAspect {
  entity: string;
  aspect: string;
  relationship: string;
}

/** Relationships read (and references removed) per call, as DataHub's one page of 10,000. */
const MAX_REFERENCES = 10_000;
/** How many of the related aspects the answer lists, as DataHub's. */
const SAMPLE = 10;

type Path = (string | number)[];
const REMOVE = Symbol('remove');
/** Stands in for the urn to learn which of its occurrences a relationship comes from. */
const PROBE = 'urn:li:almanacReferenceProbe:probe';

export class ReferenceService {
  constructor(private readonly store: Store, private readonly entities: EntityService, private readonly authz: Authorizer) {}

  /**
   * The relationships into `urn` (how many in all, and a sample of the aspects holding them) and, unless dryRun,
   * takes the urn out of those aspects. The entity itself is left alone (it may already be deleted). DELETE_ENTITY on
   * it, as DataHub checks (not on the entities whose aspects change).
   */
  async deleteReferencesTo(urnText: string, dryRun: boolean, actor: Actor): Promise<{ total: number; relatedAspects: RelatedAspect[] }> {
    const urn = parseUrn(urnText).raw;
    await requirePrivilege(this.authz, actor, REQUIRES['rest.deleteReferences'], urn);
    const first = await this.page(urn, dryRun, actor);
    // More than a page: the next pages, while each removes something (what it removed is out of the index).
    let last = first;
    while (!dryRun && last.total > last.edges && last.written > 0) last = await this.page(urn, false, actor);
    return { total: first.total, relatedAspects: first.relatedAspects };
  }

  /** One page of relationships into urn: the aspects holding them, taken out of them unless dryRun. */
  private async page(urn: string, dryRun: boolean, actor: Actor) {
    const { total, edges } = await this.store.relationships({ urn, direction: 'INCOMING', start: 0, count: MAX_REFERENCES });
    const sources = [...new Set(edges.map((e) => e.source))];
    const latest = sources.length ? await this.store.getLatest(sources) : new Map();
    const related: RelatedAspect[] = [];
    /** source → aspect → the relationship types linking it to urn. */
    const holders = new Map<string, Map<string, Set<string>>>();
    for (const e of edges) {
      for (const [aspect, rec] of latest.get(e.source) ?? new Map()) {
        if (!aspectDef(aspect)?.edges) continue;
        const declared = edgesOf(e.source, new Map([[aspect, rec.value]]));
        if (!declared.some((d) => d.type === e.type && d.destination === urn)) continue;
        related.push({ entity: e.source, aspect, relationship: e.type });
        const byAspect = holders.get(e.source) ?? new Map<string, Set<string>>();
        holders.set(e.source, byAspect);
        byAspect.set(aspect, (byAspect.get(aspect) ?? new Set()).add(e.type));
      }
    }
    const result = { total, edges: edges.length, relatedAspects: related.slice(0, SAMPLE), written: 0 };
    if (dryRun) return result;
    const items: ChangeItem[] = [];
    for (const [source, byAspect] of holders) {
      const d = entityDescriptor(parseUrn(source).entityType);
      if (!d) continue;
      for (const [aspect, types] of byAspect) {
        if (aspect === d.key.name) continue;
        const value = latest.get(source)!.get(aspect)!.value;
        const next = withoutReference(aspect, value, urn, types);
        if (next === value) continue;
        items.push(next === REMOVE
          ? { urn: source, entityType: d.name, aspect, changeType: 'DELETE', value: null, systemMetadata: null }
          : { urn: source, entityType: d.name, aspect, changeType: 'UPSERT', value: next, systemMetadata: null });
      }
    }
    // The relationship index follows the writes (ingest waits for it) before the next page is read.
    if (items.length) await this.entities.ingest(items, actor);
    return { ...result, written: items.length };
  }
}

/**
 * The aspect value without the occurrences of `urn` that the given relationships come from; the value itself when
 * there are none, REMOVE when the aspect goes with them.
 */
function withoutReference(aspect: string, value: unknown, urn: string, types: ReadonlySet<string>): unknown {
  const def = aspectDef(aspect)!;
  const occurrences: Path[] = [];
  collect(value, urn, [], occurrences);
  // An occurrence is a reference when the probe put in its place comes out as one of these relationships.
  const marked = new Set(occurrences.filter((p) => edgesOf('urn:li:probe:source', new Map([[aspect, replaced(value, p, 0, PROBE)]]))
    .some((e) => e.destination === PROBE && types.has(e.type))).map((p) => JSON.stringify(p)));
  if (marked.size === 0) return value;
  // A field is optional when the aspect is still valid without it.
  const optional = (p: Path) => def.schema.check(replaced(value, p, 0, REMOVE), []) === null;
  return prune(value, [], marked, optional);
}

function collect(v: unknown, urn: string, path: Path, out: Path[]) {
  if (v === urn) out.push([...path]);
  else if (Array.isArray(v)) v.forEach((x, i) => collect(x, urn, [...path, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, urn, [...path, k], out);
}

/** A copy of v with the value at path replaced (or, with REMOVE, the field or item taken out). */
function replaced(v: unknown, path: Path, i: number, to: unknown): unknown {
  if (i === path.length) return to;
  const step = path[i]!;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    v.forEach((x, j) => {
      if (j !== step) out.push(x);
      else {
        const r = replaced(x, path, i + 1, to);
        if (r !== REMOVE) out.push(r);
      }
    });
    return out;
  }
  const obj = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(obj)) {
    if (k !== step) out[k] = x;
    else {
      const r = replaced(x, path, i + 1, to);
      if (r !== REMOVE) out[k] = r;
    }
  }
  return out;
}

/** DataHub's removal rules, applied at every marked occurrence (see the module's comment). */
function prune(v: unknown, path: Path, marked: ReadonlySet<string>, optional: (p: Path) => boolean): unknown {
  if (typeof v === 'string') return marked.has(JSON.stringify(path)) ? REMOVE : v;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    v.forEach((x, i) => {
      const r = prune(x, [...path, i], marked, optional);
      if (r !== REMOVE) out.push(r);
    });
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const p = [...path, k];
      const r = prune(x, p, marked, optional);
      if (r === REMOVE) {
        if (optional(p)) continue;
        return REMOVE;
      }
      out[k] = r;
    }
    return out;
  }
  return v;
}
