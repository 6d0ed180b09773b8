import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { gql } from '../../gql';
import { RUN_ALL_TESTS, TEST_PRIVILEGES } from '../../graphql/tests';

/**
 * Test counts come from the results stored on entities, which only a run stores (`almanac tests run --push`, the
 * entity page's "Store results", or this): an entity's Tests tab evaluates on the spot, so the two can differ. This
 * says so and, for users who may manage tests, runs every test over the catalog and stores the results.
 */
export function useRunAll() {
  const client = useQueryClient();
  const privileges = useQuery({
    queryKey: ['tests', 'privileges'],
    queryFn: () => gql(TEST_PRIVILEGES),
    staleTime: 5 * 60_000,
  });
  const run = useMutation({
    mutationKey: ['tests', 'run-all'],
    mutationFn: () => gql(RUN_ALL_TESTS).then((d) => d.runAllTests),
    onSuccess: () => client.invalidateQueries({ queryKey: ['tests'] }),
  });
  return { canRun: privileges.data?.me.platformPrivileges?.manageTests === true, run };
}

export function RunAllPanel({ stored, canRun, run }: { stored: boolean } & ReturnType<typeof useRunAll>) {
  const result = run.data;
  return (
    <div className="tests-run" data-testid="tests-run">
      {result ? (
        <p role="status">
          Evaluated just now over {result.entities.toLocaleString()} entities; results stored.
          {result.unstoredTypes.length > 0 && ` (${result.unstoredTypes.join(', ')} are counted but cannot store results.)`}
        </p>
      ) : (
        <p className="muted">
          {stored
            ? 'Counts are the results stored on entities by the last run; an entity\'s Tests tab evaluates it now.'
            : 'No results are stored yet: the counts appear once the tests are run and their results stored.'}
          {' '}From a shell: <code>npx almanac tests run --push</code>.
        </p>
      )}
      {canRun && (
        <button type="button" className="btn" disabled={run.isPending} onClick={() => run.mutate()}>
          {run.isPending ? 'Running…' : 'Run all tests now'}
        </button>
      )}
      {run.error && <p className="error" role="alert">{(run.error as Error).message}</p>}
    </div>
  );
}
