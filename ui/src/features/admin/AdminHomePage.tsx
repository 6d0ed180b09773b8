import { Link, useTitle } from '../../router';
import { ADMIN_PAGES, AdminNav } from './AdminNav';

/** /admin: the admin pages. */
const WHAT: Record<string, { manages: string; what: string }> = {
  '/admin/tokens': { manages: 'Personal access tokens', what: 'Create tokens for scripts and the CLI, see who holds which, revoke them.' },
  '/admin/users': { manages: 'Users', what: 'Every user with their roles, groups and status.' },
  '/admin/groups': { manages: 'Groups', what: 'Groups with their members and the roles they give.' },
  '/admin/policies': { manages: 'Access policies', what: 'Who may do what: read the policies, switch the editable ones on and off.' },
  '/admin/timeseries': { manages: 'Time-series storage', what: 'How much room profiles, usage statistics and operations take.' },
};

export default function AdminHomePage() {
  useTitle('Administration');
  return (
    <div className="admin-page">
      <h1>Administration</h1>
      <AdminNav />
      <ul className="admin-cards">
        {ADMIN_PAGES.map((p) => {
          const id = `admin-card-${p.path.slice('/admin/'.length)}`;
          return (
          <li key={p.path}>
            <Link to={p.path} className="card admin-card" data-testid={id}>
              <strong className="admin-card-title">{p.label}</strong>
              <span className="badge">Manages: {WHAT[p.path]?.manages}</span>
              <span className="muted small">{WHAT[p.path]?.what}</span>
              <span className="admin-card-open" aria-hidden="true">Open →</span>
            </Link>
          </li>
          );
        })}
      </ul>
    </div>
  );
}
