import { useQuery } from '@tanstack/react-query';
import { gql } from '../gql';
import { ENTITY_TYPES, typeInfo } from '../entityTypes';
import { Link, useTitle } from '../router';
import { ENTITY_COUNTS } from '../graphql/search';

interface Counts {
  getEntityCounts: { counts: { entityType: string; count: number }[] | null } | null;
}

/** The start page: what the catalog holds, by type, each a link to its search. */
export default function HomePage() {
  useTitle(undefined);
  const { data, error } = useQuery({
    queryKey: ['entityCounts'],
    queryFn: () => gql<Counts>(ENTITY_COUNTS, { input: { types: ENTITY_TYPES.filter((t) => t.type !== 'DATA_PLATFORM').map((t) => t.type) } }),
  });
  const counts = (data?.getEntityCounts?.counts ?? []).filter((c) => c.count > 0);
  return (
    <div className="home">
      <h1>Your catalog</h1>
      <p className="muted">Search above (press <kbd>/</kbd>), or start from a kind of thing.</p>
      {error && <p className="error" role="alert">{(error as Error).message}</p>}
      <ul className="home-types">
        {counts.map((c) => (
          <li key={c.entityType}>
            <Link className="card" to={`/search?q=*&type=${c.entityType}`}>
              <span className="count">{c.count.toLocaleString()}</span>
              <span>{c.count === 1 ? typeInfo(c.entityType).label : typeInfo(c.entityType).plural}</span>
            </Link>
          </li>
        ))}
      </ul>
      {data && counts.length === 0 && <p>The catalog is empty. Load metadata with <code>npx almanac ingest &lt;files&gt;</code>.</p>}
    </div>
  );
}
