import { useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { SEARCH } from '../../graphql/search';
import { RELATED_EDGES } from '../../graphql/entity';
import { entityPath } from '../../entityTypes';
import { summarize, type RawEntity } from '../../entitySummary';
import { PlatformBadge } from '../../components/EntityBits';
import { Link } from '../../router';

/** What points at an entity, found by the search facet that names it: a container's contents, a tag's assets, … */
const RELATED: Record<string, { field: string; title: string }> = {
  CONTAINER: { field: 'container', title: 'Contents' },
  DOMAIN: { field: 'domains', title: 'Assets in this domain' },
  TAG: { field: 'tags', title: 'Tagged with this tag' },
  GLOSSARY_TERM: { field: 'glossaryTerms', title: 'Assets with this term' },
  CORP_USER: { field: 'owners', title: 'Owner of' },
  CORP_GROUP: { field: 'owners', title: 'Owner of' },
  DATA_PLATFORM: { field: 'platform', title: 'On this platform' },
};

/** What an entity's relationships reach, by type: a term group's contents, a pipeline's tasks, a group's members. */
const EDGES: Record<string, { types: string[]; direction: 'INCOMING' | 'OUTGOING'; title: string }[]> = {
  GLOSSARY_NODE: [{ types: ['IsPartOf'], direction: 'INCOMING', title: 'Contents' }],
  DATA_FLOW: [{ types: ['IsPartOf'], direction: 'INCOMING', title: 'Tasks' }],
  CORP_GROUP: [{ types: ['IsMemberOfGroup', 'IsMemberOfNativeGroup'], direction: 'INCOMING', title: 'Members' }],
  CORP_USER: [{ types: ['IsMemberOfGroup', 'IsMemberOfNativeGroup'], direction: 'OUTGOING', title: 'Groups' }],
  DATA_PRODUCT: [{ types: ['DataProductContains'], direction: 'OUTGOING', title: 'Assets' }],
  DASHBOARD: [{ types: ['Contains'], direction: 'OUTGOING', title: 'Charts' }],
};

interface Listed {
  total: number;
  entities: RawEntity[];
}

function EntityList({ id, title, listed, error, more }: { id: string; title: string; listed: Listed | undefined; error: unknown; more?: string }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title} {listed && <span className="muted small">({listed.total.toLocaleString()})</span>}</h2>
      {error ? <p className="error" role="alert">{(error as Error).message}</p> : null}
      {listed && listed.total === 0 && <p className="muted">None.</p>}
      {listed && listed.entities.length > 0 && (
        <ul className="related">
          {listed.entities.map((e) => {
            const s = summarize(e);
            return (
              <li key={e.urn}>
                <Link to={entityPath(e.urn)}>{s.name}</Link> <span className="badge">{s.typeLabel}</span> <PlatformBadge platform={s.platform} />
              </li>
            );
          })}
        </ul>
      )}
      {listed && more && listed.total > listed.entities.length && <p><Link to={more}>All {listed.total.toLocaleString()} in search →</Link></p>}
    </section>
  );
}

/** Everything the entity's type relates it to: search facets naming it, then relationship edges. */
export function Related({ urn, type }: { urn: string; type: string }) {
  const spec = RELATED[type];
  const input = { query: '*', start: 0, count: 10, orFilters: [{ and: [{ field: spec?.field ?? '', values: [urn] }] }], searchFlags: { skipAggregates: true } };
  const search = useQuery({
    queryKey: ['entity', urn, 'related'],
    enabled: !!spec,
    queryFn: ({ signal }) => gql(SEARCH, { input }, { signal }),
  });
  const searched = search.data?.searchAcrossEntities;
  return (
    <>
      {spec && (
        <EntityList id="related-h" title={spec.title} error={search.error}
          listed={searched ? { total: searched.total, entities: searched.searchResults.map((r) => r.entity) } : undefined}
          more={`/search?q=*&f=${encodeURIComponent(`${spec.field}:${urn}`)}`} />
      )}
      {(EDGES[type] ?? []).map((e, i) => <Edges key={e.title} urn={urn} spec={e} id={`edges-h-${i}`} />)}
    </>
  );
}

function Edges({ urn, spec, id }: { urn: string; spec: { types: string[]; direction: string; title: string }; id: string }) {
  const { data, error } = useQuery({
    queryKey: ['entity', urn, 'edges', spec.types, spec.direction],
    queryFn: ({ signal }) => gql(
      RELATED_EDGES, { urn, input: { types: spec.types, direction: spec.direction, start: 0, count: 50 } }, { signal }),
  });
  const rel = data?.entity?.relationships;
  const entities = (rel?.relationships ?? []).map((r) => r.entity).filter((e): e is RawEntity => !!e);
  return <EntityList id={id} title={spec.title} error={error} listed={data ? { total: rel?.total ?? entities.length, entities } : undefined} />;
}
