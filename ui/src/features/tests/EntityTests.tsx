import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { gql } from '../../gql';
import { EXPLAIN_TESTS, RUN_TESTS, TEST_PRIVILEGES } from '../../graphql/tests';
import { Link } from '../../router';
import { testPath } from './paths';
import './tests.css';

/**
 * An entity's metadata tests (the Tests tab): every test that selects the entity, failing ones first, each with the
 * reasons the rule engine gives (the predicates that decided it and what they saw). Evaluated when the tab opens,
 * so it reflects the metadata as it is now; holders of MANAGE_TESTS may also store the results on the entity (what
 * the tests' pages list).
 */
export default function EntityTests({ urn }: { urn: string; type?: string }) {
  const client = useQueryClient();
  const q = useQuery({ queryKey: ['explain-tests', urn], queryFn: ({ signal }) => gql(EXPLAIN_TESTS, { urn }, { signal }) });
  const privileges = useQuery({
    queryKey: ['test-privileges'],
    queryFn: () => gql(TEST_PRIVILEGES),
    staleTime: 5 * 60_000,
  });
  const store = useMutation({
    mutationFn: () => gql(RUN_TESTS, { urn }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['explain-tests', urn] });
      void client.invalidateQueries({ queryKey: ['entity', urn] });
      void client.invalidateQueries({ queryKey: ['tests'] });
    },
  });

  if (q.isPending) return <p className="muted" role="status">Evaluating tests…</p>;
  if (q.error) return <p className="error" role="alert">{(q.error as Error).message}</p>;
  const r = q.data.explainTests;
  const why = new Map((r?.explanations ?? []).map((e) => [e.test, e.reasons]));
  const failing = (r?.failing ?? []).filter((x) => x.test);
  const passing = (r?.passing ?? []).filter((x) => x.test);
  const canStore = !!privileges.data?.me.platformPrivileges?.manageTests;

  return (
    <section className="tests-panel" aria-labelledby="tests-heading">
      <div className="tests-head">
        <h2 id="tests-heading">Metadata tests</h2>
        <span className="muted small" data-testid="tests-summary">
          {failing.length} failing, {passing.length} passing{failing.length + passing.length === 0 ? ' (no test selects this entity)' : ''}
        </span>
        <span className="tests-actions">
          <button type="button" className="btn small" onClick={() => void q.refetch()} disabled={q.isFetching}>Evaluate again</button>
          {canStore && (
            <button type="button" className="btn small" onClick={() => store.mutate()} disabled={store.isPending}
              title="Store these results on the entity, where the tests' pages read them">Store results</button>
          )}
        </span>
      </div>
      {store.error && <p className="error" role="alert">{(store.error as Error).message}</p>}
      {store.isSuccess && <p className="muted small" role="status">Results stored.</p>}
      {failing.length + passing.length > 0 && (
        <ul className="tests-list">
          {[...failing.map((x) => ({ ...x, ok: false })), ...passing.map((x) => ({ ...x, ok: true }))].map(({ test, ok }) => (
            <li key={test!.urn} className={`test-result ${ok ? 'pass' : 'fail'}`} data-testid={ok ? 'test-passing' : 'test-failing'}>
              <div className="test-line">
                <span className={`test-status ${ok ? 'pass' : 'fail'}`}>{ok ? 'Pass' : 'Fail'}</span>
                <Link to={testPath(test!.urn)} className="test-name">{test!.name}</Link>
                <span className="badge">{test!.category}</span>
              </div>
              {test!.description && <p className="muted small test-desc">{test!.description}</p>}
              <Reasons ok={ok} reasons={why.get(test!.urn) ?? []} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Why: for a failure, the reasons shown; for a pass, behind a disclosure. */
function Reasons({ ok, reasons }: { ok: boolean; reasons: string[] }) {
  if (reasons.length === 0) return null;
  const list = (
    <ul className="test-reasons" aria-label={ok ? 'Why it passed' : 'Why it failed'}>
      {reasons.map((r, i) => <li key={i} data-testid="test-reason">{r}</li>)}
    </ul>
  );
  if (!ok) return <div className="test-why"><span className="small">Why it failed:</span>{list}</div>;
  return <details className="test-why"><summary className="small">Why it passed</summary>{list}</details>;
}
