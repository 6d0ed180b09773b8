import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { LIST_USERS, type Named } from '../../graphql/admin';
import { entityPath } from '../../entityTypes';
import { Link, useTitle } from '../../router';
import { urnId } from './AdminNav';
import { AdminList } from './AdminList';

/** /admin/users: users (listUsers, MANAGE_USERS_AND_GROUPS) with their roles, groups and status. */

const PAGE = 50;

export const names = (r: Named | null) => (r?.relationships ?? []).flatMap((x) => (x.entity ? [x.entity] : []));

export default function UsersPage() {
  useTitle('Users');
  const [query, setQuery] = useState('');
  const [start, setStart] = useState(0);
  const q = useQuery({
    queryKey: ['admin-users', query, start],
    queryFn: ({ signal }) => gql(LIST_USERS, { input: { start, count: PAGE, query: query || undefined } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const list = q.data?.listUsers;
  return (
    <AdminList title="Users" noun="users" query={query} onQuery={(v) => { setQuery(v); setStart(0); }} total={list?.total}
      error={q.error} pending={q.isPending} start={start} size={PAGE} onPage={setStart}>
      {list && (
        <table data-testid="users-table">
          <thead>
            <tr><th scope="col">User</th><th scope="col">Email</th><th scope="col">Roles</th><th scope="col">Groups</th><th scope="col">Status</th></tr>
          </thead>
          <tbody>
            {list.users.map((u) => {
              const display = u.editableProperties?.displayName || u.properties?.displayName || u.properties?.fullName || u.username;
              return (
                <tr key={u.urn}>
                  <td>
                    <Link to={entityPath(u.urn)}>{display}</Link>
                    {display !== u.username && <div className="muted small">{u.username}</div>}
                    {u.properties?.title && <div className="muted small">{u.properties.title}</div>}
                  </td>
                  <td>{u.properties?.email ?? ''}</td>
                  <td><span className="pills">{names(u.roles).map((r) => <span key={r.urn} className="pill">{r.name ?? urnId(r.urn)}</span>)}</span></td>
                  <td>
                    <span className="pills">
                      {names(u.groups).map((g) => <Link key={g.urn} to={entityPath(g.urn)} className="pill">{g.groupProps?.displayName || g.name || urnId(g.urn)}</Link>)}
                    </span>
                  </td>
                  <td>{u.status === 'SUSPENDED' ? <span className="error">suspended</span> : u.properties && !u.properties.active ? 'inactive' : 'active'}
                    {u.isNativeUser ? <div className="muted small">native</div> : null}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </AdminList>
  );
}
