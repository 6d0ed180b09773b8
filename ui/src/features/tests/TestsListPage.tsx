import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { LIST_TESTS } from '../../graphql/tests';
import { Link, useTitle } from '../../router';
import { testPath } from './paths';
import './tests.css';
import { Pager } from '../../components/Pager';
import { RunAllPanel, useRunAll } from './RunAll';

/** /tests: every metadata test with how many entities' stored results fail and pass it. */
const PAGE = 50;

export default function TestsListPage() {
  useTitle('Metadata tests');
  const [query, setQuery] = useState('');
  const [start, setStart] = useState(0);
  const q = useQuery({
    queryKey: ['tests', 'list', query, start],
    queryFn: ({ signal }) => gql(LIST_TESTS, { input: { start, count: PAGE, query: query || undefined } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const list = q.data?.listTests;
  const runAll = useRunAll();
  // After a run here, its own counts (every entity evaluated, as `almanac tests run` prints them).
  const ran = new Map((runAll.run.data?.tests ?? []).map((t) => [t.urn, t]));
  const stored = (list?.tests ?? []).some((t) => (t.failing?.total ?? 0) + (t.passing?.total ?? 0) > 0);
  return (
    <div>
      <h1>Metadata tests</h1>
      <p className="muted">Rules over entities' metadata: which entities pass and fail each.</p>
      {list && list.total > 0 && <RunAllPanel stored={stored} {...runAll} />}
      <div className="schema-toolbar">
        <label htmlFor="tests-filter" className="visually-hidden">Filter tests</label>
        <input id="tests-filter" type="search" placeholder="Filter tests" value={query}
          onChange={(e) => { setQuery(e.target.value); setStart(0); }} />
        {list && <span className="muted small">{list.total} tests</span>}
      </div>
      {q.error && <p className="error" role="alert">{(q.error as Error).message}</p>}
      {q.isPending ? <p className="muted" role="status">Loading…</p> : list && list.tests.length === 0 ? <p className="muted">No test.</p> : list && (
        <table>
          <thead>
            <tr><th scope="col">Test</th><th scope="col">Category</th><th scope="col">Failing</th><th scope="col">Passing</th></tr>
          </thead>
          <tbody>
            {list.tests.map((t) => {
              const failing = ran.get(t.urn)?.failing ?? t.failing?.total ?? 0;
              const passing = ran.get(t.urn)?.passing ?? t.passing?.total ?? 0;
              const none = !ran.has(t.urn) && failing + passing === 0;
              return (
              <tr key={t.urn} data-testid="test-row">
                <td>
                  <Link to={testPath(t.urn)}>{t.name}</Link>
                  {t.description && <div className="muted small">{t.description}</div>}
                </td>
                <td>{t.category}</td>
                {none ? <td colSpan={2} className="muted">Not run yet</td> : (
                  <>
                    <td className={failing ? 'error' : ''} data-testid="failing">{failing}</td>
                    <td data-testid="passing">{passing}</td>
                  </>
                )}
              </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {list && list.total > PAGE && (
        <Pager start={start} size={PAGE} total={list.total} onPage={setStart} />
      )}
    </div>
  );
}
