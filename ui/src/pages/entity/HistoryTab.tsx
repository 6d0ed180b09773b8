import { useQuery } from '@tanstack/react-query';
import type { EntityTabProps } from '../../entityTabs';
import { gql } from '../../gql';
import { ASPECT_HISTORY, type AspectVersion as Version } from '../../graphql/history';
import { entityPath } from '../../entityTypes';
import { urnName } from '../../entitySummary';
import { Link } from '../../router';

/** Top-level keys whose values differ between two JSON objects. */
function changedKeys(now: unknown, before: unknown): string[] {
  const a = (now && typeof now === 'object' ? now : {}) as Record<string, unknown>;
  const b = (before && typeof before === 'object' ? before : {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

const parse = (s: string | null): unknown => {
  try {
    return s ? JSON.parse(s) : null;
  } catch {
    return null;
  }
};

/** Every kept version of the entity's aspects, newest first: when, who, which aspect, what changed. */
export default function HistoryTab({ urn }: EntityTabProps) {
  const { data, error, isLoading } = useQuery({
    queryKey: ['entity', urn, 'history'],
    queryFn: ({ signal }) => gql(ASPECT_HISTORY, { urn, count: 200 }, { signal }),
  });
  if (isLoading) return <p className="muted" role="status">Loading…</p>;
  if (error) return <p className="error" role="alert">{(error as Error).message}</p>;
  const versions = data?.aspectHistory ?? [];
  // Versions of one aspect, newest first: each row is compared with the next older one.
  const older = new Map<Version, Version | undefined>();
  const byAspect = new Map<string, Version[]>();
  for (const v of versions) byAspect.set(v.aspectName, [...(byAspect.get(v.aspectName) ?? []), v]);
  for (const list of byAspect.values()) list.forEach((v, i) => older.set(v, list[i + 1]));
  return (
    <section className="card" aria-labelledby="history-h">
      <h2 id="history-h">History of changes</h2>
      {versions.length === 0 ? <p className="muted">No stored versions.</p> : (
        <div className="table-wrap">
          <table className="history-table">
            <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Aspect</th><th scope="col">Change</th></tr></thead>
            <tbody>
              {versions.map((v) => {
                const prev = older.get(v);
                const keys = prev ? changedKeys(parse(v.payload), parse(prev.payload)) : [];
                return (
                  <tr key={`${v.aspectName}-${v.version}`}>
                    <td><time dateTime={new Date(v.createdAt).toISOString()}>{new Date(v.createdAt).toLocaleString()}</time></td>
                    <td>{v.actor.startsWith('urn:li:corpuser:') ? <Link to={entityPath(v.actor)}>{urnName(v.actor)}</Link> : urnName(v.actor)}
                      {v.runId && v.runId !== 'no-run-id-provided' && <div className="muted small">run {v.runId}</div>}</td>
                    <td className="mono small">{v.aspectName}{v.version === 0 ? <span className="badge"> current</span> : null}</td>
                    <td>
                      <details>
                        <summary>{prev ? (keys.length ? `Changed ${keys.join(', ')}` : 'Rewritten, same value') : 'Created'}</summary>
                        <pre className="history-json" tabIndex={0} role="region" aria-label={`${v.aspectName}, version ${v.version}`}>{JSON.stringify(parse(v.payload), null, 2)}</pre>
                      </details>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
