import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useRef, useState, type KeyboardEvent } from 'react';
import { gql } from '../gql';
import { SEARCH, SEARCH_FACETS } from '../graphql/search';
import { entityPath, typeInfo } from '../entityTypes';
import { platformName, summarize, type RawEntity } from '../entitySummary';
import { Highlight, PlatformBadge } from '../components/EntityBits';
import { Link, navigate, useLocation, useTitle } from '../router';
import { markdownToText } from '../plainText';

const PAGE_SIZE = 20;
/** Values shown per facet before "Show more". */
const FACET_SHOWN = 8;

/** Facets shown, in this order, with our labels; others the API returns are shown after them. */
const FACET_ORDER: Record<string, string> = {
  _entityType: 'Type', platform: 'Platform', tags: 'Tags', glossaryTerms: 'Glossary terms', owners: 'Owners', domains: 'Domains',
  container: 'Containers', typeNames: 'Subtypes', origin: 'Environment', platformInstance: 'Platform instance',
};
const HIDDEN_FACETS = new Set(['entity']);

/** Selected facet values from the URL: `f=<field>:<value>` (repeatable). */
function selectedFilters(search: URLSearchParams): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const raw of search.getAll('f')) {
    const i = raw.indexOf(':');
    if (i <= 0) continue;
    const field = raw.slice(0, i);
    out.set(field, [...(out.get(field) ?? []), raw.slice(i + 1)]);
  }
  // /search?type=DATASET (links from the start page) is the Type facet's value.
  for (const t of search.getAll('type')) out.set('_entityType', [...(out.get('_entityType') ?? []), t]);
  return out;
}

function withParams(loc: { search: URLSearchParams }, change: (p: URLSearchParams) => void): string {
  const p = new URLSearchParams(loc.search);
  change(p);
  return `/search?${p}`;
}

export default function SearchPage() {
  const loc = useLocation();
  const q = loc.search.get('q') ?? '';
  const page = Math.max(1, Number(loc.search.get('page') ?? '1') || 1);
  const filters = selectedFilters(loc.search);
  useTitle(q ? `Search: ${q}` : 'Search');

  const input = {
    query: q.trim() === '' ? '*' : q,
    start: (page - 1) * PAGE_SIZE,
    count: PAGE_SIZE,
    orFilters: filters.size ? [{ and: [...filters].map(([field, values]) => ({ field, values })) }] : undefined,
  };
  // Results first (no facet counting), facets in a query of their own: the list shows as soon as it is found.
  const { data, error, isFetching, isPlaceholderData } = useQuery({
    queryKey: ['search', input],
    queryFn: ({ signal }) => gql(SEARCH, { input: { ...input, searchFlags: { skipAggregates: true } } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const { data: facetData } = useQuery({
    queryKey: ['search-facets', { ...input, start: 0 }],
    queryFn: ({ signal }) => gql(SEARCH_FACETS, { input: { ...input, start: 0, count: 0 } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const result = data?.searchAcrossEntities;
  const facetResult = facetData?.searchAcrossEntities;
  const listRef = useRef<HTMLOListElement>(null);
  const [expanded, setExpanded] = useState<Set<string>>(new Set());

  const toggle = (field: string, value: string, on: boolean) => navigate(withParams(loc, (p) => {
    const key = `${field}:${value}`;
    const kept = p.getAll('f').filter((f) => f !== key);
    const types = p.getAll('type').filter((t) => !(field === '_entityType' && t === value));
    p.delete('f');
    p.delete('type');
    p.delete('page');
    for (const f of on ? [...kept, key] : kept) p.append('f', f);
    for (const t of types) p.append('type', t);
  }), { replace: true });

  const onListKey = (e: KeyboardEvent<HTMLOListElement>) => {
    const links = [...(listRef.current?.querySelectorAll<HTMLElement>('[data-result-index]') ?? [])];
    const at = links.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'ArrowDown' && at < links.length - 1) {
      e.preventDefault();
      links[at + 1]!.focus();
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      if (at > 0) links[at - 1]!.focus();
      else document.getElementById('global-search')?.focus();
    }
  };

  const facets = [...(facetResult?.facets ?? [])]
    .filter((f) => !HIDDEN_FACETS.has(f.field) && !f.field.includes('\u241e') && (f.aggregations.length > 0 || filters.has(f.field)))
    .sort((a, b) => rank(a.field) - rank(b.field));
  const total = result?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  return (
    <div className="search-layout">
      <aside aria-label="Filters" className="facets">
        {facets.map((f) => (
          <section key={f.field} className="facet" aria-labelledby={`facet-${f.field}`}>
            <h2 id={`facet-${f.field}`}>{FACET_ORDER[f.field] ?? f.displayName ?? f.field}</h2>
            <ul>
              {f.aggregations.filter((a, i) => i < FACET_SHOWN || expanded.has(f.field) || (filters.get(f.field)?.includes(a.value) ?? false)).map((a) => {
                const checked = filters.get(f.field)?.includes(a.value) ?? false;
                const label = facetLabel(f.field, a.value, a.entity);
                const id = `f-${f.field}-${a.value}`;
                return (
                  <li key={a.value}>
                    <label htmlFor={id} title={a.value}>
                      <input id={id} type="checkbox" checked={checked} onChange={(e) => toggle(f.field, a.value, e.target.checked)} />
                      <span className="name">{label}</span>
                      <span className="count" aria-label={`${a.count} results`}>{a.count.toLocaleString()}</span>
                    </label>
                  </li>
                );
              })}
            </ul>
            {f.aggregations.length > FACET_SHOWN && (
              <button type="button" className="linklike small" aria-expanded={expanded.has(f.field)}
                onClick={() => setExpanded((x) => { const n = new Set(x); if (n.has(f.field)) n.delete(f.field); else n.add(f.field); return n; })}>
                {expanded.has(f.field) ? 'Show fewer' : `Show ${f.aggregations.length - FACET_SHOWN} more`}
              </button>
            )}
          </section>
        ))}
      </aside>
      <section aria-label="Results" className="search-results">
        <h1 className="visually-hidden">Search results</h1>
        <div className="summary" aria-live="polite">
          <span data-testid="result-count">
            {result ? `${total.toLocaleString()} result${total === 1 ? '' : 's'}${q.trim() && q.trim() !== '*' ? ` for “${q}”` : ''}` : isFetching ? 'Searching…' : ''}
          </span>
          {isFetching && isPlaceholderData && <span className="muted small">Updating…</span>}
        </div>
        {filters.size > 0 && (
          <div className="active-filters" aria-label="Active filters">
            {[...filters].flatMap(([field, values]) => values.map((v) => (
              <span className="pill" key={`${field}:${v}`}>
                {FACET_ORDER[field] ?? field}: {facetLabel(field, v, facetResult?.facets?.find((f) => f.field === field)?.aggregations.find((a) => a.value === v)?.entity ?? null)}
                <button type="button" aria-label={`Remove filter ${field} ${v}`} onClick={() => toggle(field, v, false)}>×</button>
              </span>
            )))}
            <Link to={`/search?q=${encodeURIComponent(q)}`}>Clear all</Link>
          </div>
        )}
        {error && <p className="error" role="alert">{(error as Error).message}</p>}
        <ol className="results" ref={listRef} onKeyDown={onListKey}>
          {result?.searchResults.map((r, i) => {
            const s = summarize(r.entity);
            // Descriptions are Markdown: a snippet shows the text a reader sees, without its marks.
            const description = s.description ? markdownToText(s.description) : '';
            const matched = r.matchedFields.filter((m) => m.value && m.value !== s.name && m.value !== s.description);
            return (
              <li key={r.entity.urn}>
                <Link className="result" to={entityPath(r.entity.urn)} data-result-index={i}>
                  <span className="meta">
                    <span className="badge">{s.typeLabel}{s.subTypes.length ? ` · ${s.subTypes.join(', ')}` : ''}</span>
                    <PlatformBadge platform={s.platform} />
                  </span>
                  <span className="title"><Highlight text={s.name} query={q} /></span>
                  {description && <span className="desc"><Highlight text={description} query={q} /></span>}
                  {matched.length > 0 && (
                    <span className="matched">
                      Matched {matched.slice(0, 3).map((m, j) => (
                        <span key={j}>{j > 0 && ', '}{fieldLabel(m.name)}: <Highlight text={short(markdownToText(m.value))} query={q} /></span>
                      ))}
                    </span>
                  )}
                </Link>
              </li>
            );
          })}
        </ol>
        {result && total === 0 && <p>No results. Try fewer words or remove a filter.</p>}
        {pages > 1 && (
          <nav className="pager" aria-label="Pages">
            {page > 1 ? <Link to={withParams(loc, (p) => p.set('page', String(page - 1)))} rel="prev">← Previous</Link> : <span />}
            <span>Page {page} of {pages.toLocaleString()}</span>
            {page < pages ? <Link to={withParams(loc, (p) => p.set('page', String(page + 1)))} rel="next">Next →</Link> : <span />}
          </nav>
        )}
      </section>
    </div>
  );
}

const rank = (field: string) => {
  const keys = Object.keys(FACET_ORDER);
  const i = keys.indexOf(field);
  return i < 0 ? keys.length : i;
};

function facetLabel(field: string, value: string, entity: RawEntity | null): string {
  if (field === '_entityType') return typeInfo(value.toUpperCase()).plural;
  if (entity) return summarize(entity).name;
  // A platform the catalog holds nothing about: its name, as a result's platform reads without properties.
  if (field === 'platform') return platformName({ urn: value, name: value.replace(/^urn:li:dataPlatform:/, '') });
  return value;
}

const FIELD_LABELS: Record<string, string> = {
  name: 'name', description: 'description', fieldPaths: 'column', fieldDescriptions: 'column description', tags: 'tag',
  glossaryTerms: 'term', fieldTags: 'column tag', fieldGlossaryTerms: 'column term', owners: 'owner', qualifiedName: 'qualified name',
  editedDescription: 'description', editedFieldDescriptions: 'column description', urn: 'urn', id: 'id',
};
const fieldLabel = (name: string) => FIELD_LABELS[name] ?? name;
const short = (v: string) => (v.length > 120 ? `${v.slice(0, 117)}…` : v);
