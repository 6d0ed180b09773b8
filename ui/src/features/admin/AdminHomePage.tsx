import { Link, useTitle } from '../../router';
import { ADMIN_PAGES, AdminNav } from './AdminNav';

/** /admin: the admin pages. */
const WHAT: Record<string, string> = {
  '/admin/tokens': 'Create, list and revoke personal access tokens.',
  '/admin/users': 'Users with their roles, groups and status.',
  '/admin/groups': 'Groups with their members and roles.',
  '/admin/policies': 'Who may do what: read the policies, switch the editable ones on and off.',
  '/admin/timeseries': 'How much room profiles, usage and operations take.',
};

export default function AdminHomePage() {
  useTitle('Administration');
  return (
    <div className="admin-page">
      <h1>Administration</h1>
      <AdminNav />
      <ul className="home-types">
        {ADMIN_PAGES.map((p) => (
          <li key={p.path}><Link to={p.path} className="card"><strong>{p.label}</strong><span className="muted small">{WHAT[p.path]}</span></Link></li>
        ))}
      </ul>
    </div>
  );
}
