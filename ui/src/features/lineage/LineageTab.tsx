import { Link } from '../../router';
import LineageGraph from './LineageGraph';

/** An entity page's Lineage tab (same chunk as the graph): the graph, and a link to it on a page of its own. */
export default function LineageTab({ urn }: { urn: string; type?: string }) {
  return (
    <section aria-labelledby="lineage-tab-heading" className="lin-tab">
      <div className="lin-tab-head">
        <h2 id="lineage-tab-heading">Lineage</h2>
        <Link to={`/lineage/${encodeURIComponent(urn)}`} className="small">Open full page</Link>
      </div>
      <LineageGraph urn={urn} height="560px" />
    </section>
  );
}
