import { useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { TIMESERIES_SIZES } from '../../graphql/admin';
import { useTitle } from '../../router';
import { AdminNav } from './AdminNav';

/** /admin/timeseries: the size of every time-series table (getIndexSizes), largest first. */
const mb = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toFixed(3));

export default function TimeseriesPage() {
  useTitle('Time series');
  const q = useQuery({
    queryKey: ['admin-timeseries'],
    queryFn: ({ signal }) => gql(TIMESERIES_SIZES, {}, { signal }),
  });
  const rows = [...(q.data?.timeseriesIndexSizes ?? [])].sort((a, b) => b.sizeMb - a.sizeMb || a.indexName.localeCompare(b.indexName));
  const total = rows.reduce((s, r) => s + r.sizeMb, 0);
  const max = rows[0]?.sizeMb || 1;
  return (
    <div className="admin-page">
      <h1>Administration</h1>
      <AdminNav />
      <h2>Time-series tables</h2>
      <p className="muted small">
        Profiles, usage, operations and run events, one table each; sizes include their indexes (SQLite's dbstat or
        PostgreSQL's pg_total_relation_size). Truncate old rows with <code>npx almanac timeseries truncate</code>, or
        set <code>ALMANAC_TIMESERIES_RETENTION</code>.
      </p>
      {q.error && <p className="error" role="alert">{(q.error as Error).message}</p>}
      {q.isPending ? <p className="muted" role="status">Loading…</p> : (
        <table data-testid="timeseries-table">
          <caption className="visually-hidden">Size of each time-series table</caption>
          <thead>
            <tr><th scope="col">Entity type</th><th scope="col">Aspect</th><th scope="col">Table</th><th scope="col" className="num">Size (MB)</th><th scope="col"><span className="visually-hidden">Share</span></th></tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.indexName}>
                <td>{r.entityName}</td>
                <td>{r.aspectName}</td>
                <td className="mono small">{r.indexName}</td>
                <td className="num">{mb(r.sizeMb)}</td>
                <td style={{ width: '30%' }}><meter min={0} max={max} value={r.sizeMb} aria-label={`${r.indexName}: ${mb(r.sizeMb)} MB`} className="ts-meter" /></td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr><th scope="row" colSpan={3}>Total</th><td className="num">{mb(total)}</td><td /></tr>
          </tfoot>
        </table>
      )}
    </div>
  );
}
