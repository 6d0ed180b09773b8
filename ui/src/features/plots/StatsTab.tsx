import { useMemo, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { STATS_OPERATIONS, STATS_PROFILES, STATS_USAGE, type Operation, type Profile, type UsageBucket as Bucket } from '../../graphql/stats';
import { TimePlot, type PlotSeries } from './TimePlot';

/**
 * A dataset's Stats tab (its own chunk, with uPlot): row count, and a column's null fraction and distinct count, over
 * time from its profiles (`datasetProfiles`); queries and unique users per bucket from `usageStats`; operations on a
 * timeline (`operations`). Each of the three is its own request, so that one the reader may not see (profiles and
 * usage need privileges of their own) leaves the others shown.
 */

/** Which part of the table a profile measured: the whole table unless it names a partition. */
const partKey = (p: Profile) => (p.partitionSpec && p.partitionSpec.type === 'PARTITION' ? p.partitionSpec.partition : '');

const LIMIT = 1000;

export default function StatsTab({ urn }: { urn: string }) {
  const profiles = useQuery({
    queryKey: ['stats-profiles', urn],
    queryFn: () => gql(STATS_PROFILES, { urn, limit: LIMIT }),
  });
  const usage = useQuery({
    queryKey: ['stats-usage', urn],
    queryFn: () => gql(STATS_USAGE, { urn }),
  });
  const operations = useQuery({
    queryKey: ['stats-operations', urn],
    queryFn: () => gql(STATS_OPERATIONS, { urn, limit: LIMIT }),
  });

  return (
    <div className="stats">
      <section aria-labelledby="stats-profiles">
        <h2 id="stats-profiles">Profiles</h2>
        {profiles.isPending ? <p className="muted" role="status">Loading profiles…</p>
          : profiles.error ? <p className="error" role="alert">{(profiles.error as Error).message}</p>
          : <Profiles list={profiles.data?.dataset?.datasetProfiles ?? []} />}
      </section>
      <section aria-labelledby="stats-usage">
        <h2 id="stats-usage">Usage</h2>
        {usage.isPending ? <p className="muted" role="status">Loading usage…</p>
          : usage.error ? <p className="error" role="alert">{(usage.error as Error).message}</p>
          : <Usage buckets={(usage.data?.dataset?.usageStats?.buckets ?? []).filter((b): b is Bucket => !!b && b.bucket != null)}
            totals={usage.data?.dataset?.usageStats?.aggregations ?? null} />}
      </section>
      <section aria-labelledby="stats-operations">
        <h2 id="stats-operations">Operations</h2>
        {operations.isPending ? <p className="muted" role="status">Loading operations…</p>
          : operations.error ? <p className="error" role="alert">{(operations.error as Error).message}</p>
          : <Operations list={operations.data?.dataset?.operations ?? []} />}
      </section>
    </div>
  );
}

const pct = (v: number) => `${Math.round(v * 1000) / 10} %`;

function Profiles({ list }: { list: Profile[] }) {
  // Profiles of different partitions are different series: one at a time, the whole table first.
  const parts = useMemo(() => [...new Set(list.map(partKey))].sort(), [list]);
  const [part, setPart] = useState<string>('');
  const shownPart = parts.includes(part) ? part : parts[0] ?? '';
  // Oldest first; the API answers newest first.
  const rows = useMemo(() => list.filter((p) => partKey(p) === shownPart).sort((a, b) => a.timestampMillis - b.timestampMillis), [list, shownPart]);
  const columns = useMemo(() => {
    const seen = new Set<string>();
    for (const p of rows) for (const f of p.fieldProfiles ?? []) seen.add(f.fieldPath);
    return [...seen];
  }, [rows]);
  const [column, setColumn] = useState<string>('');
  const field = column && columns.includes(column) ? column : columns[0] ?? '';
  const x = useMemo(() => rows.map((p) => p.timestampMillis), [rows]);
  const rowSeries = useMemo<PlotSeries[]>(() => [{ label: 'Rows', values: rows.map((p) => p.rowCount) }], [rows]);
  const fieldOf = (p: Profile) => p.fieldProfiles?.find((f) => f.fieldPath === field);
  const nullSeries = useMemo<PlotSeries[]>(() => [{
    label: 'Null fraction', format: pct,
    values: rows.map((p) => {
      const f = fieldOf(p);
      if (!f) return null;
      if (f.nullProportion != null) return f.nullProportion;
      return f.nullCount != null && p.rowCount ? f.nullCount / p.rowCount : null;
    }),
  }], [rows, field]);
  const distinctSeries = useMemo<PlotSeries[]>(() => [{ label: 'Distinct values', values: rows.map((p) => fieldOf(p)?.uniqueCount ?? null) }],
    [rows, field]);

  if (rows.length === 0) return <p className="muted">No profile of this dataset was ingested.</p>;
  const latest = rows[rows.length - 1]!;
  return (
    <div className="plots-grid">
      <p className="small muted plots-wide">
        {rows.length} profiles from {new Date(rows[0]!.timestampMillis).toISOString().slice(0, 10)} to{' '}
        {new Date(latest.timestampMillis).toISOString().slice(0, 10)}; latest: {latest.rowCount?.toLocaleString('en') ?? '–'} rows
        {latest.columnCount != null ? `, ${latest.columnCount} columns` : ''}.
      </p>
      {parts.length > 1 && (
        <div className="plots-wide plot-picker">
          <label htmlFor="stats-partition">Partition</label>
          <select id="stats-partition" value={shownPart} onChange={(e) => setPart(e.target.value)}>
            {parts.map((p) => <option key={p} value={p}>{p || 'whole table'}</option>)}
          </select>
        </div>
      )}
      <TimePlot title="Row count" x={x} series={rowSeries} testId="plot-row-count" wide />
      {columns.length > 0 && (
        <div className="plots-wide plot-picker">
          <label htmlFor="stats-column">Column</label>
          <select id="stats-column" value={field} onChange={(e) => setColumn(e.target.value)}>
            {columns.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </div>
      )}
      {columns.length > 0 && <TimePlot title={`Null fraction of ${field}`} x={x} series={nullSeries} yRange={[0, 1]} testId="plot-null-fraction" />}
      {columns.length > 0 && <TimePlot title={`Distinct values of ${field}`} x={x} series={distinctSeries} testId="plot-distinct" />}
    </div>
  );
}

function Usage({ buckets, totals }: { buckets: Bucket[]; totals: { totalSqlQueries: number | null; uniqueUserCount: number | null } | null }) {
  const rows = useMemo(() => [...buckets].sort((a, b) => a.bucket! - b.bucket!), [buckets]);
  const x = useMemo(() => rows.map((b) => b.bucket!), [rows]);
  const series = useMemo<PlotSeries[]>(() => [
    { label: 'Queries', values: rows.map((b) => b.metrics?.totalSqlQueries ?? null), style: 'bars' },
    { label: 'Unique users', values: rows.map((b) => b.metrics?.uniqueUserCount ?? null), right: true },
  ], [rows]);
  if (rows.length === 0) return <p className="muted">No usage of this dataset was ingested.</p>;
  return (
    <div className="plots-grid">
      <p className="small muted plots-wide">
        {totals?.totalSqlQueries ?? 0} queries by {totals?.uniqueUserCount ?? 0} users in {rows.length} {rows[0]?.duration?.toLowerCase() ?? 'day'} buckets.
      </p>
      <TimePlot title="Queries and unique users" x={x} series={series} yLabel="queries" yRightLabel="users" testId="plot-usage" wide />
    </div>
  );
}

function Operations({ list }: { list: Operation[] }) {
  const rows = useMemo(() => [...list].sort((a, b) => a.timestampMillis - b.timestampMillis), [list]);
  const kinds = useMemo(() => [...new Set(rows.map((o) => (o.operationType === 'CUSTOM' && o.customOperationType) || o.operationType))].sort(), [rows]);
  const x = useMemo(() => rows.map((o) => o.timestampMillis), [rows]);
  const series = useMemo<PlotSeries[]>(() => kinds.map((k, lane) => ({
    label: k, style: 'points' as const,
    values: rows.map((o) => (((o.operationType === 'CUSTOM' && o.customOperationType) || o.operationType) === k ? lane : null)),
    format: () => k,
  })), [rows, kinds]);
  if (rows.length === 0) return <p className="muted">No operation on this dataset was reported.</p>;
  return (
    <div className="plots-grid">
      <TimePlot title="Operations over time" x={x} series={series} yTicks={kinds} height={Math.max(140, 60 + kinds.length * 36)}
        testId="plot-operations" wide />
      <table className="plots-wide ops-table">
        <caption className="visually-hidden">Latest operations</caption>
        <thead><tr><th scope="col">When (UTC)</th><th scope="col">Operation</th><th scope="col">Rows affected</th><th scope="col">By</th></tr></thead>
        <tbody>
          {[...rows].reverse().slice(0, 20).map((o, i) => (
            <tr key={`${o.timestampMillis}-${i}`}>
              <td>{new Date(o.timestampMillis).toISOString().replace('T', ' ').slice(0, 19)}</td>
              <td>{o.operationType === 'CUSTOM' && o.customOperationType ? o.customOperationType : o.operationType}</td>
              <td>{o.numAffectedRows?.toLocaleString('en') ?? '–'}</td>
              <td className="mono small">{o.actor ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
