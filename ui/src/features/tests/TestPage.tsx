import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { EXPLAIN_TESTS, TEST_PAGE, type TestEntities } from '../../graphql/tests';
import { platformName, summarize, type RawEntity } from '../../entitySummary';
import { entityPath } from '../../entityTypes';
import { Link, useTitle } from '../../router';
import { TESTS_PATH } from './paths';
import './tests.css';
import { Pager } from '../../components/Pager';
import { RunAllPanel, useRunAll } from './RunAll';

/**
 * /test/<urn>: one metadata test — its definition, and the entities whose stored results fail and pass it (as
 * `runTests`, `POST /test?action=evaluate` with push, or `almanac tests run --push` stored them). "Why?" next to a
 * failing entity evaluates the test on it now and shows the reasons.
 */

const PAGE = 50;

export default function TestPage({ params }: { params: string[] }) {
  const urn = params[0] ?? '';
  const [failingStart, setFailingStart] = useState(0);
  const [passingStart, setPassingStart] = useState(0);
  const q = useQuery({
    queryKey: ['tests', 'page', urn, failingStart, passingStart],
    queryFn: ({ signal }) => gql(TEST_PAGE, { urn, failingStart, passingStart, count: PAGE }, { signal }),
    placeholderData: keepPreviousData,
  });
  const t = q.data?.test;
  const runAll = useRunAll();
  useTitle(t ? `Test: ${t.name}` : 'Test');
  if (q.isPending) return <p className="muted" role="status">Loading…</p>;
  if (q.error) return <div><h1>Test</h1><p className="error" role="alert">{(q.error as Error).message}</p></div>;
  if (!t) return <div><h1>Test not found</h1><p><Link to={TESTS_PATH}>All tests</Link></p></div>;
  return (
    <div className="test-page">
      <header className="entity-header">
        <div className="crumbs"><Link to={TESTS_PATH}>Metadata tests</Link></div>
        <div className="kind"><span className="badge">{t.category}</span></div>
        <h1>{t.name}</h1>
        {t.description && <p>{t.description}</p>}
      </header>
      <div className="test-counts card">
        <div><div className="test-count fail" data-testid="test-failing-count">{t.failing?.total ?? 0}</div>failing</div>
        <div><div className="test-count pass" data-testid="test-passing-count">{t.passing?.total ?? 0}</div>passing</div>
      </div>
      <RunAllPanel stored={(t.failing?.total ?? 0) + (t.passing?.total ?? 0) > 0} {...runAll} />
      <div className="test-columns">
        <EntityList title="Failing" id="failing" rel={t.failing} testUrn={t.urn} start={failingStart} onPage={setFailingStart} explain />
        <EntityList title="Passing" id="passing" rel={t.passing} testUrn={t.urn} start={passingStart} onPage={setPassingStart} />
      </div>
      <section aria-labelledby="test-definition" className="card">
        <h2 id="test-definition">Definition</h2>
        <pre className="test-def">{pretty(t.definition.json)}</pre>
      </section>
    </div>
  );
}

function pretty(json: string | null): string {
  if (!json) return '';
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json; // YAML, as written
  }
}

function EntityList({ title, id, rel, testUrn, start, onPage, explain = false }: {
  title: string; id: string; rel: TestEntities | null; testUrn: string; start: number; onPage: (n: number) => void; explain?: boolean;
}) {
  const items = (rel?.relationships ?? []).flatMap((r) => (r.entity ? [r.entity] : []));
  const total = rel?.total ?? 0;
  return (
    <section aria-labelledby={`test-${id}`} className="card">
      <h2 id={`test-${id}`}>{title} ({total})</h2>
      {items.length === 0 ? <p className="muted small">None.</p> : (
        <ul className="entity-rows" data-testid={`test-${id}-entities`}>
          {items.map((e) => <EntityRow key={e.urn} entity={e} testUrn={testUrn} explain={explain} />)}
        </ul>
      )}
      {total > PAGE && (
        <Pager start={start} size={PAGE} total={total} onPage={onPage} />
      )}
    </section>
  );
}

function EntityRow({ entity, testUrn, explain }: { entity: RawEntity; testUrn: string; explain: boolean }) {
  const s = summarize(entity);
  const [open, setOpen] = useState(false);
  const why = useQuery({
    queryKey: ['explain-tests', entity.urn],
    queryFn: ({ signal }) => gql(
      EXPLAIN_TESTS, { urn: entity.urn }, { signal }),
    enabled: open,
  });
  const reasons = why.data?.explainTests?.explanations?.find((e) => e.test === testUrn)?.reasons;
  const stillFails = why.data?.explainTests?.failing.some((f) => f.test?.urn === testUrn);
  return (
    <li>
      <div className="entity-type">{s.typeLabel}{s.platform ? ` · ${platformName(s.platform)}` : ''}</div>
      <Link to={entityPath(entity.urn)}>{s.name}</Link>
      {explain && (
        <>
          {' '}
          <button type="button" className="linklike small" aria-expanded={open} onClick={() => setOpen((v) => !v)}
            aria-label={`Why does ${s.name} fail?`}>Why?</button>
          {open && (
            <div className="test-why" role="status">
              {why.isPending ? <span className="muted small">Evaluating…</span>
                : why.error ? <span className="error small">{(why.error as Error).message}</span>
                : reasons ? (
                  <>
                    {!stillFails && <p className="small muted">It passes now; its stored result is older.</p>}
                    <ul className="test-reasons">{reasons.map((r, i) => <li key={i} data-testid="test-reason">{r}</li>)}</ul>
                  </>
                ) : <span className="muted small">The test no longer selects this entity.</span>}
            </div>
          )}
        </>
      )}
    </li>
  );
}
