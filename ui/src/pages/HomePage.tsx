import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { gql } from '../gql';
import { ENTITY_TYPES, entityPath, typeInfo } from '../entityTypes';
import { summarize, type RawEntity } from '../entitySummary';
import { PlatformBadge } from '../components/EntityBits';
import { Link, useTitle } from '../router';
import { ENTITY_COUNTS } from '../graphql/search';
import { HOME, type RecommendationContent as Content, type RecommendationModule as Module } from '../graphql/home';
import { markdownToText } from '../plainText';
import type { Me } from '../session';

/** Where a recommended platform, tag or term leads: the search filtered by it (a domain opens its own page). */
const filtered = (field: string, urn: string) => `/search?q=*&f=${encodeURIComponent(`${field}:${urn}`)}`;

/**
 * The start page, as DataHub's: the catalog's totals by type; the announcements; what this user viewed and searched
 * lately; the most used datasets; the busiest platforms and domains, the top tags and glossary terms. Each links
 * where a reader goes next: an entity's page, or the search filtered by the platform, tag or term.
 */
export default function HomePage() {
  useTitle(undefined);
  const me = useQueryClient().getQueryData<Me>(['me']);
  const counts = useQuery({
    queryKey: ['entityCounts'],
    queryFn: () => gql(ENTITY_COUNTS, { input: { types: ENTITY_TYPES.filter((t) => t.type !== 'DATA_PLATFORM').map((t) => t.type) } }),
  });
  const home = useQuery({
    queryKey: ['home'],
    queryFn: () => gql(HOME, { user: me?.corpUser.urn ?? '' }),
    // Recently viewed and searched change as the user goes: fresh on every visit.
    staleTime: 0,
  });
  const totals = (counts.data?.getEntityCounts?.counts ?? []).filter((c) => c.count > 0);
  const total = totals.reduce((n, c) => n + c.count, 0);
  const modules = new Map((home.data?.home?.modules ?? []).map((m) => [m.moduleId, m]));
  const searches = home.data?.searchBar?.modules.find((m) => m.moduleId === 'RecentSearches')?.content ?? [];
  const posts = home.data?.listPosts?.posts ?? [];
  const loaded = !!home.data;

  return (
    <div className="home">
      <div className="home-head">
        <h1>Your catalog</h1>
        <p className="muted">
          {counts.data ? `${total.toLocaleString()} ${total === 1 ? 'entity' : 'entities'}. ` : ''}
          Search above (press <kbd>/</kbd>), or start from what you and others use.
        </p>
      </div>
      {(counts.error || home.error) && <p className="error" role="alert">{((counts.error ?? home.error) as Error).message}</p>}
      <section aria-labelledby="totals-h">
        <h2 id="totals-h" className="visually-hidden">What the catalog holds</h2>
        <ul className="home-types" data-testid="home-totals">
          {totals.map((c) => (
            <li key={c.entityType}>
              <Link className="card" to={`/search?q=*&type=${c.entityType}`}>
                <span className="count">{c.count.toLocaleString()}</span>
                <span>{c.count === 1 ? typeInfo(c.entityType).label : typeInfo(c.entityType).plural}</span>
              </Link>
            </li>
          ))}
        </ul>
        {counts.data && totals.length === 0 && <p>The catalog is empty. Load metadata with <code>npx almanac ingest &lt;files&gt;</code>.</p>}
      </section>
      {posts.length > 0 && (
        <section className="card home-posts" aria-labelledby="posts-h" data-testid="home-posts">
          <h2 id="posts-h">Announcements</h2>
          <ul className="plain">
            {posts.map((p) => (
              <li key={p.urn}>
                <strong>{p.content.link && /^https?:\/\//.test(p.content.link)
                  ? <a href={p.content.link} target="_blank" rel="noopener noreferrer">{p.content.title}</a> : p.content.title}</strong>
                <span className="muted small"> · {new Date(p.lastModified.time).toLocaleDateString()}</span>
                {p.content.description && <p className="snippet">{markdownToText(p.content.description)}</p>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <div className="home-grid">
        <HomeModule id="recent-views" title="Recently viewed" loaded={loaded} empty="The pages you open are listed here.">
          {entityItems(modules.get('RecentlyViewedEntities'))}
        </HomeModule>
        <HomeModule id="recent-searches" title="Recent searches" loaded={loaded} empty="Your searches are listed here.">
          {searches.length > 0 && (
            <ul className="home-list">
              {searches.map((s) => <li key={s.value}><Link to={`/search?q=${encodeURIComponent(s.value)}`}>{s.value}</Link></li>)}
            </ul>
          )}
        </HomeModule>
        <HomeModule id="popular" title="Most popular" loaded={loaded} empty="Datasets with usage statistics in the last 30 days are listed here.">
          {entityItems(modules.get('HighUsageEntities'))}
        </HomeModule>
        <HomeModule id="recent-edits" title="Recently edited by you" loaded={loaded} empty="The entities you edit are listed here.">
          {entityItems(modules.get('RecentlyEditedEntities'))}
        </HomeModule>
        <HomeModule id="platforms" title="Platforms" loaded={loaded} empty="No platform yet.">
          {counted(modules.get('Platforms'), (c) => (
            <Link to={filtered('platform', c.value)}>
              {c.entity ? <PlatformBadge platform={summarizedPlatform(c.entity)} /> : nameOf(c)}
            </Link>
          ))}
        </HomeModule>
        <HomeModule id="domains" title="Domains" loaded={loaded} empty="No domain yet.">
          {counted(modules.get('Domains'), (c) => <Link to={entityPath(c.value)}>{nameOf(c)}</Link>)}
        </HomeModule>
        <HomeModule id="tags" title="Top tags" loaded={loaded} empty="No tag in use yet.">
          {counted(modules.get('TopTags'), (c) => <Link to={filtered('tags', c.value)}>{nameOf(c)}</Link>)}
        </HomeModule>
        <HomeModule id="terms" title="Top glossary terms" loaded={loaded} empty="No glossary term in use yet.">
          {counted(modules.get('TopTerms'), (c) => <Link to={filtered('glossaryTerms', c.value)}>{nameOf(c)}</Link>)}
        </HomeModule>
      </div>
    </div>
  );
}

const nameOf = (c: Content) => (c.entity ? summarize(c.entity).name : c.value.replace(/^urn:li:[A-Za-z]+:/, ''));

/** A DataPlatform's summary fields as the Platform shape PlatformBadge takes. */
function summarizedPlatform(e: RawEntity) {
  const props = (e.platformProps ?? null) as { displayName?: string | null; logoUrl?: string | null } | null;
  return { urn: e.urn, name: String(e.name ?? e.urn.replace(/^urn:li:dataPlatform:/, '')), properties: props };
}

function HomeModule({ id, title, loaded, empty, children }: { id: string; title: string; loaded: boolean; empty: string; children: ReactNode }) {
  const has = !!children;
  return (
    <section className="card home-module" aria-labelledby={`home-${id}`} data-testid={`home-${id}`}>
      <h2 id={`home-${id}`}>{title}</h2>
      {has ? children : <p className="muted small">{loaded ? empty : 'Loading…'}</p>}
    </section>
  );
}

/** A module's entities as links, each with its type and platform. */
function entityItems(m: Module | undefined) {
  const items = (m?.content ?? []).filter((c) => c.entity);
  if (!items.length) return null;
  return (
    <ul className="home-list">
      {items.map((c) => {
        const s = summarize(c.entity!);
        return (
          <li key={c.value}>
            <Link to={entityPath(c.value)}>{s.name}</Link>
            <span className="home-meta"><span className="badge">{s.typeLabel}</span> <PlatformBadge platform={s.platform} /></span>
          </li>
        );
      })}
    </ul>
  );
}

/** A module's values (platforms, domains, tags, terms), each with how many entities it stands for. */
function counted(m: Module | undefined, label: (c: Content) => ReactNode) {
  const items = m?.content ?? [];
  if (!items.length) return null;
  return (
    <ul className="home-list counted">
      {items.slice(0, 10).map((c) => {
        const n = c.params?.contentParams?.count;
        return (
          <li key={c.value}>
            {label(c)}
            {n != null && <span className="count" aria-label={`${n} ${n === 1 ? 'entity' : 'entities'}`}>{n.toLocaleString()}</span>}
          </li>
        );
      })}
    </ul>
  );
}
