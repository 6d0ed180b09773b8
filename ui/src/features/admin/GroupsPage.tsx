import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { gql } from '../../gql';
import { LIST_GROUPS, type Group } from '../../graphql/admin';
import { entityPath } from '../../entityTypes';
import { Link, useTitle } from '../../router';
import { urnId } from './AdminNav';
import { names } from './UsersPage';
import { AdminList } from './AdminList';

/** /admin/groups: groups (listGroups) with their member counts, origin and roles. */

/** Members through memberships (native or from an identity provider) and the group's own legacy list, each once. */
function memberCount(g: Group): number {
  const urns = new Set([...(g.members?.relationships ?? []).flatMap((r) => (r.entity ? [r.entity.urn] : [])),
    ...(g.info?.members ?? []).map((m) => m.urn)]);
  return Math.max(urns.size, g.members?.total ?? 0);
}

const PAGE = 50;

export default function GroupsPage() {
  useTitle('Groups');
  const [query, setQuery] = useState('');
  const [start, setStart] = useState(0);
  const q = useQuery({
    queryKey: ['admin-groups', query, start],
    queryFn: ({ signal }) => gql(LIST_GROUPS, { input: { start, count: PAGE, query: query || undefined } }, { signal }),
    placeholderData: keepPreviousData,
  });
  const list = q.data?.listGroups;
  return (
    <AdminList title="Groups" noun="groups" query={query} onQuery={(v) => { setQuery(v); setStart(0); }} total={list?.total}
      error={q.error} pending={q.isPending} start={start} size={PAGE} onPage={setStart} empty="No group.">
      {list && (
        <table data-testid="groups-table">
          <thead>
            <tr><th scope="col">Group</th><th scope="col">Description</th><th scope="col" className="num">Members</th><th scope="col">Roles</th><th scope="col">Origin</th></tr>
          </thead>
          <tbody>
            {list.groups.map((g) => (
              <tr key={g.urn}>
                <td><Link to={entityPath(g.urn)}>{g.properties?.displayName || g.name || urnId(g.urn)}</Link>
                  {g.properties?.email && <div className="muted small">{g.properties.email}</div>}</td>
                <td>{g.properties?.description ?? ''}</td>
                <td className="num">{memberCount(g)}</td>
                <td><span className="pills">{names(g.roles).map((r) => <span key={r.urn} className="pill">{r.name ?? urnId(r.urn)}</span>)}</span></td>
                <td>{g.origin ? (g.origin.externalType ? `${g.origin.type.toLowerCase()} (${g.origin.externalType})` : g.origin.type.toLowerCase()) : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </AdminList>
  );
}
