import { Link, useLocation } from '../../router';
import './admin.css';

/** The admin pages' own tab bar. */
export const ADMIN_PAGES = [
  { path: '/admin/tokens', label: 'Access tokens' },
  { path: '/admin/users', label: 'Users' },
  { path: '/admin/groups', label: 'Groups' },
  { path: '/admin/policies', label: 'Policies' },
  { path: '/admin/timeseries', label: 'Time series' },
];

export function AdminNav() {
  const { path } = useLocation();
  return (
    <nav className="tabs" aria-label="Administration">
      {ADMIN_PAGES.map((p) => (
        <Link key={p.path} to={p.path} aria-current={path === p.path || path.startsWith(`${p.path}/`) ? 'page' : undefined}>{p.label}</Link>
      ))}
    </nav>
  );
}

/** `when` as a date and time in UTC, to the minute. */
export const fmtTime = (ms: number | null | undefined) => (ms == null ? '–' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16));

/** The readable part of a user or group urn. */
export const urnId = (urn: string) => urn.replace(/^urn:li:[A-Za-z]+:/, '');
