import { badRequest } from '../errors.js';

/**
 * DataHub's FilterInput over time-series events (`operations(filter:)`, `datasetProfiles(filter:)`): any `or` group
 * (or the `and` list), all of whose clauses hold. A clause names a field of the event — dotted for nested ones
 * (`partitionSpec.partition`, also accepted as `partition`) — and compares as DataHub's conditions do.
 */
export interface EventClause {
  field: string;
  values?: readonly string[] | null;
  value?: string | null;
  condition?: string | null;
  negated?: boolean | null;
}

export interface EventFilter {
  and?: readonly EventClause[] | null;
  or?: readonly { and?: readonly EventClause[] | null }[] | null;
}

const ALIASES: Readonly<Record<string, string>> = { partition: 'partitionSpec.partition' };

/** The values at a dotted path of an event, lists flattened, as text. */
function valuesAt(event: unknown, field: string): string[] {
  let at: unknown[] = [event];
  for (const key of (ALIASES[field] ?? field).split('.')) {
    at = at.flatMap((v) => (v && typeof v === 'object' && !Array.isArray(v) ? [(v as Record<string, unknown>)[key]] : []))
      .flatMap((v) => (Array.isArray(v) ? v : [v]));
  }
  return at.filter((v) => v !== undefined && v !== null).map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v)));
}

function holds(c: EventClause, event: unknown): boolean {
  const have = valuesAt(event, c.field);
  const want = c.values?.length ? c.values : c.value != null ? [c.value] : [];
  const cond = (c.condition ?? 'EQUAL').toUpperCase();
  const num = (s: string) => Number(s);
  let ok: boolean;
  switch (cond) {
    case 'EQUAL': case 'IN': ok = have.some((h) => want.includes(h)); break;
    case 'IEQUAL': ok = have.some((h) => want.some((w) => w.toLowerCase() === h.toLowerCase())); break;
    case 'CONTAIN': ok = have.some((h) => want.some((w) => h.includes(w))); break;
    case 'START_WITH': ok = have.some((h) => want.some((w) => h.startsWith(w))); break;
    case 'END_WITH': ok = have.some((h) => want.some((w) => h.endsWith(w))); break;
    case 'EXISTS': ok = have.length > 0; break;
    case 'GREATER_THAN': case 'GREATER_THAN_OR_EQUAL_TO': case 'LESS_THAN': case 'LESS_THAN_OR_EQUAL_TO': {
      const limit = num(want[0] ?? '');
      if (want.length !== 1 || !Number.isFinite(limit)) throw badRequest(`Condition ${cond} on field ${c.field} takes one number, got ${JSON.stringify(want)}`);
      const cmp = { GREATER_THAN: (x: number) => x > limit, GREATER_THAN_OR_EQUAL_TO: (x: number) => x >= limit,
        LESS_THAN: (x: number) => x < limit, LESS_THAN_OR_EQUAL_TO: (x: number) => x <= limit }[cond];
      ok = have.some((h) => Number.isFinite(num(h)) && cmp(num(h)));
      break;
    }
    default: throw badRequest(`Unknown filter condition '${c.condition}' on field ${c.field}`);
  }
  return c.negated ? !ok : ok;
}

/** A predicate over events, or undefined when the filter has no clause. */
export function eventFilter(filter: EventFilter | null | undefined): ((event: unknown) => boolean) | undefined {
  const groups = [...(filter?.or ?? []).map((g) => g.and ?? []), ...(filter?.and?.length ? [filter.and] : [])].filter((g) => g.length);
  if (groups.length === 0) return undefined;
  // Unknown conditions are refused before any event is read.
  for (const g of groups) for (const c of g) holds(c, {});
  return (event) => groups.some((g) => g.every((c) => holds(c, event)));
}
