import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { gql } from '../../gql';
import { LIST_POLICIES, UPDATE_POLICY } from '../../graphql/admin';
import { Link, useTitle } from '../../router';
import { actorsText, policyInput, type PolicyData } from './policy';
import { AdminList } from './AdminList';

/** /admin/policies: every access policy, who it applies to, what it grants, and a switch for the editable ones. */
const PAGE = 100;

export const policyPath = (urn: string) => `/admin/policies/${encodeURIComponent(urn)}`;

export function useTogglePolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (p: PolicyData) => gql(UPDATE_POLICY, { urn: p.urn, input: policyInput(p, p.state === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE') }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin-policies'] }),
  });
}

export function PolicySwitch({ policy, toggle }: { policy: PolicyData; toggle: ReturnType<typeof useTogglePolicy> }) {
  const on = policy.state === 'ACTIVE';
  return (
    <button type="button" role="switch" aria-checked={on} className="btn small" disabled={!policy.editable || toggle.isPending}
      aria-label={`${policy.name}: ${on ? 'active' : 'inactive'}${policy.editable ? '' : ' (built in, cannot be changed)'}`}
      title={policy.editable ? (on ? 'Switch off' : 'Switch on') : 'Built-in policy: cannot be changed'}
      onClick={() => toggle.mutate(policy)}>
      <span className={`state ${on ? 'on' : 'off'}`}>{on ? 'Active' : 'Inactive'}</span>
    </button>
  );
}

export default function PoliciesPage() {
  useTitle('Policies');
  const [query, setQuery] = useState('');
  const [start, setStart] = useState(0);
  const q = useQuery({
    queryKey: ['admin-policies', 'list', query, start],
    queryFn: ({ signal }) => gql(LIST_POLICIES, { input: { start, count: PAGE, query: query || undefined } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const toggle = useTogglePolicy();
  const list = q.data?.listPolicies;
  return (
    <AdminList title="Policies" noun="policies" query={query} onQuery={(v) => { setQuery(v); setStart(0); }} total={list?.total}
      error={q.error ?? toggle.error} pending={q.isPending} start={start} size={PAGE} onPage={setStart}>
      {list && (
        <table data-testid="policies-table">
          <thead>
            <tr><th scope="col">Policy</th><th scope="col">Type</th><th scope="col">Applies to</th><th scope="col">Privileges</th><th scope="col">State</th></tr>
          </thead>
          <tbody>
            {list.policies.map((p) => (
              <tr key={p.urn} data-policy={p.urn}>
                <td><Link to={policyPath(p.urn)}>{p.name}</Link>{p.description && <div className="muted small">{p.description}</div>}</td>
                <td>{p.type.toLowerCase()}</td>
                <td>{actorsText(p)}</td>
                <td>{p.privileges.length <= 3 ? p.privileges.join(', ') : `${p.privileges.slice(0, 3).join(', ')} and ${p.privileges.length - 3} more`}</td>
                <td><PolicySwitch policy={p} toggle={toggle} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </AdminList>
  );
}
