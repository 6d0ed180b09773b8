import { useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { GET_POLICY } from '../../graphql/admin';
import { summarize, type RawEntity } from '../../entitySummary';
import { entityPath } from '../../entityTypes';
import { Link, useTitle } from '../../router';
import { AdminNav, urnId } from './AdminNav';
import { PolicySwitch, useTogglePolicy } from './PoliciesPage';
import type { PolicyData } from './policy';

/** /admin/policies/<urn>: one policy — who, what, on which resources — with its on/off switch. */
export default function PolicyPage({ params }: { params: string[] }) {
  const urn = params[0] ?? '';
  const q = useQuery({
    queryKey: ['admin-policies', 'one', urn],
    queryFn: ({ signal }) => gql(GET_POLICY, { urn }, { signal }),
  });
  const toggle = useTogglePolicy();
  const p = q.data?.getPolicy;
  useTitle(p ? `Policy: ${p.name}` : 'Policy');
  return (
    <div className="admin-page">
      <h1>{p ? p.name : 'Policy'}</h1>
      <AdminNav />
      <p className="small"><Link to="/admin/policies">All policies</Link></p>
      {(q.error || toggle.error) && <p className="error" role="alert">{((q.error ?? toggle.error) as Error).message}</p>}
      {q.isPending ? <p className="muted" role="status">Loading…</p> : p && (
        <div className="card">
          {p.description && <p>{p.description}</p>}
          <dl className="kv">
            <dt>State</dt><dd><PolicySwitch policy={p} toggle={toggle} /></dd>
            <dt>Urn</dt><dd className="mono small">{p.urn}</dd>
            <dt>Type</dt><dd>{p.type.toLowerCase()}</dd>
            <dt>Editable</dt><dd>{p.editable ? 'yes' : 'no (built in)'}</dd>
            <dt>Users</dt>
            <dd>{p.actors.allUsers ? 'all users' : (p.actors.resolvedUsers ?? []).length === 0 ? '–' : (
              <span className="pills">{(p.actors.resolvedUsers ?? []).map((u) => <Link key={u.urn} className="pill" to={entityPath(u.urn)}>{u.editableProperties?.displayName || u.properties?.displayName || u.username}</Link>)}</span>
            )}</dd>
            <dt>Groups</dt>
            <dd>{p.actors.allGroups ? 'all groups' : (p.actors.resolvedGroups ?? []).length === 0 ? '–' : (
              <span className="pills">{(p.actors.resolvedGroups ?? []).map((g) => <Link key={g.urn} className="pill" to={entityPath(g.urn)}>{g.properties?.displayName || g.name}</Link>)}</span>
            )}</dd>
            <dt>Roles</dt>
            <dd>{(p.actors.resolvedRoles ?? []).length === 0 ? '–' : (p.actors.resolvedRoles ?? []).map((r) => r.name).join(', ')}</dd>
            <dt>Owners of the asset</dt>
            <dd>{p.actors.resourceOwners ? `yes${p.actors.resourceOwnersTypes?.length ? ` (${p.actors.resourceOwnersTypes.map(urnId).join(', ')})` : ''}` : 'no'}</dd>
            {p.type === 'METADATA' && (
              <>
                <dt>Resources</dt>
                <dd><Resources policy={p} /></dd>
              </>
            )}
            <dt>Privileges ({p.privileges.length})</dt>
            <dd><ul className="privs">{p.privileges.map((x) => <li key={x} className="pill mono">{x}</li>)}</ul></dd>
          </dl>
        </div>
      )}
    </div>
  );
}

function Resources({ policy }: { policy: PolicyData }) {
  const r = policy.resources;
  if (!r || r.allResources || (!r.resources?.length && !r.filter?.criteria?.length && !r.type)) return <>every asset</>;
  return (
    <ul className="plain">
      {r.type && <li>of type {r.type}</li>}
      {(r.resources ?? []).map((u) => <li key={u} className="mono small">{u}</li>)}
      {(r.filter?.criteria ?? []).map((c, i) => (
        <li key={i}>
          {c.field} {c.condition === 'EQUALS' ? 'is' : 'starts with'}{' '}
          {c.values.map((v, j) => (
            <span key={j}>{j > 0 ? ', ' : ''}{v.entity ? <Link to={entityPath(v.entity.urn)}>{summarize(v.entity as RawEntity).name}</Link> : v.value}</span>
          ))}
        </li>
      ))}
    </ul>
  );
}
