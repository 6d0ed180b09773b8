import { lazy, Suspense } from 'react';
import { ErrorBoundary } from '../../components/ErrorBoundary';

/**
 * The lineage graph, loaded on demand: @xyflow/react and ELK are a chunk of their own, fetched the first time a
 * lineage view is shown (never with the first page). Use it as an entity page's Lineage tab, or full page
 * (LineagePage).
 */
const LineageGraph = lazy(() => import('./LineageGraph'));

export function LineageView({ urn, height }: { urn: string; height?: string }) {
  return (
    <ErrorBoundary>
      <Suspense fallback={<p className="muted" role="status">Loading the lineage graph…</p>}>
        <LineageGraph urn={urn} height={height} />
      </Suspense>
    </ErrorBoundary>
  );
}

export default LineageView;
