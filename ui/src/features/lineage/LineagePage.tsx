import { useQuery } from '@tanstack/react-query';
import { Link, useTitle } from '../../router';
import { entityPath, typeInfo } from '../../entityTypes';
import { fetchStart } from './api';
import { LineageView } from './LineageView';

/** /lineage/<urn>: an entity's lineage on a page of its own, the whole window high. */
export default function LineagePage({ params }: { params: string[] }) {
  const urn = params[0] ?? '';
  const head = useQuery({ queryKey: ['lineage-head', urn], queryFn: () => fetchStart(urn) });
  const name = head.data?.name ?? urn;
  useTitle(`Lineage of ${name}`);
  return (
    <div className="lin-page">
      <header className="entity-header">
        <div className="kind">{head.data ? typeInfo(head.data.type).label : ''}{head.data?.platform ? ` · ${head.data.platform}` : ''}</div>
        <h1>Lineage of {name}</h1>
        <p className="small"><Link to={entityPath(urn)}>Back to the {head.data ? typeInfo(head.data.type).label.toLowerCase() : 'entity'}'s page</Link></p>
      </header>
      <LineageView urn={urn} height="calc(100vh - 260px)" />
    </div>
  );
}
