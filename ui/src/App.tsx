import { Suspense, useEffect, useRef, useState, type FormEvent } from 'react';
import { matchRoute, NOT_FOUND } from './routes';
import { Link, navigate, useLocation } from './router';
import { logIn, logOut, useMe, type Me } from './session';
import { setStoredToken } from './gql';
import { currentTheme, setTheme } from './theme';
import { ErrorBoundary } from './components/ErrorBoundary';
import { serverPath } from './base';
import { entityPath } from './entityTypes';

export function App() {
  const { me, loading, unauthenticated, error, refresh } = useMe();
  if (loading) return <div className="boot" role="status">Loading…</div>;
  if (unauthenticated || !me) {
    return error ? <ErrorScreen message={error.message} /> : <SignIn onSignedIn={refresh} />;
  }
  return <Shell me={me} onSignOut={logOut} />;
}

function ErrorScreen({ message }: { message: string }) {
  return (
    <main className="signin" id="main">
      <h1>Almanac</h1>
      <p role="alert">The server could not be reached: {message}</p>
    </main>
  );
}

function Shell({ me, onSignOut }: { me: Me; onSignOut: () => void }) {
  const loc = useLocation();
  const { route, params } = matchRoute(loc.path);
  const Page = route?.page ?? NOT_FOUND;
  const mainRef = useRef<HTMLElement>(null);
  const name = me.corpUser.editableProperties?.displayName || me.corpUser.properties?.displayName || me.corpUser.username;
  return (
    <div className="app">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <Link to="/" className="brand" aria-label="Almanac home">Almanac</Link>
        <SearchBox />
        <nav aria-label="Main" className="topnav">
          <Link to="/tests" className="btn subtle">Tests</Link>
          <Link to="/admin" className="btn subtle">Admin</Link>
          {/* The GraphQL explorer, a page of the server's own: it uses this session. */}
          <a href={serverPath('/api/graphiql')} className="btn subtle" title="GraphQL explorer (GraphiQL), signed in as you">GraphiQL</a>
          <UserMenu me={me} name={name} onSignOut={onSignOut} />
        </nav>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <ErrorBoundary key={loc.path}>
          <Suspense fallback={<p className="muted" role="status">Loading…</p>}>
            <Page params={params} />
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}

/**
 * The header's search box, on every page: typing searches as you type (/search?q=…, replacing the history entry
 * while on the search page); `/` anywhere focuses it; Enter opens the search page; ArrowDown moves into the results.
 */
function SearchBox() {
  const loc = useLocation();
  const onSearch = loc.path === '/search';
  const urlQuery = onSearch ? loc.search.get('q') ?? '' : '';
  const [value, setValue] = useState(urlQuery);
  const input = useRef<HTMLInputElement>(null);
  const timer = useRef<number>();

  useEffect(() => {
    if (document.activeElement !== input.current) setValue(urlQuery);
  }, [urlQuery]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const go = (q: string, replace: boolean) => {
    const params = new URLSearchParams(onSearch ? window.location.search : '');
    params.set('q', q);
    params.delete('page');
    navigate(`/search?${params}`, { replace });
  };

  const onChange = (q: string) => {
    setValue(q);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => go(q, onSearch), 50);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    window.clearTimeout(timer.current);
    go(value, onSearch);
  };

  return (
    <form role="search" className="searchbox" onSubmit={submit}>
      <label htmlFor="global-search" className="visually-hidden">Search the catalog</label>
      <input
        id="global-search"
        ref={input}
        type="search"
        placeholder="Search datasets, dashboards, people…  ( / )"
        autoComplete="off"
        spellCheck={false}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') {
            const first = document.querySelector<HTMLElement>('[data-result-index="0"]');
            if (first) {
              e.preventDefault();
              first.focus();
            }
          }
        }}
      />
    </form>
  );
}

function ThemeToggle() {
  const [theme, set] = useState(currentTheme());
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button type="button" className="menu-item" aria-label={`Switch to ${next} theme`}
      onClick={() => { setTheme(next); set(next); }}>
      <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span> {next === 'dark' ? 'Dark' : 'Light'} theme
    </button>
  );
}

/**
 * The signed-in user: an avatar with their initial, opening a small menu (a disclosure, not an ARIA menu: plain links
 * and buttons in tab order) with who they are, their profile, their tokens, the theme and signing out. Escape or a
 * click elsewhere closes it; so does following one of its links.
 */
function UserMenu({ me, name, onSignOut }: { me: Me; name: string; onSignOut: () => void }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const loc = useLocation();
  useEffect(() => setOpen(false), [loc.full]);
  useEffect(() => {
    if (!open) return undefined;
    const onDown = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        button.current?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const initial = (name.trim()[0] ?? '?').toUpperCase();
  return (
    <div className="user-menu" ref={box}>
      <button type="button" ref={button} className="avatar-button" aria-expanded={open} aria-controls="user-menu"
        title={`Signed in as ${name}`} onClick={() => setOpen((v) => !v)}>
        <span className="avatar" aria-hidden="true">{initial}</span>
        <span className="visually-hidden">Account: {name}</span>
        <span className="caret" aria-hidden="true">▾</span>
      </button>
      {open && (
        <div id="user-menu" className="menu-popup card">
          <div className="menu-who">
            <span className="avatar large" aria-hidden="true">{initial}</span>
            <div>
              <strong>{name}</strong>
              <div className="muted small">Signed in as {me.corpUser.username}</div>
            </div>
          </div>
          <Link to={entityPath(me.corpUser.urn)} className="menu-item">Your profile</Link>
          <Link to="/admin/tokens" className="menu-item">Access tokens</Link>
          <ThemeToggle />
          <button type="button" className="menu-item" onClick={onSignOut}>Sign out</button>
        </div>
      )}
    </div>
  );
}

/** Username + password (POST /logIn), or a pasted access token (kept in this browser, sent as a Bearer token). */
function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Sign in · Almanac';
  }, []);

  const submitPassword = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setStoredToken(null);
      await logIn(username, password);
      onSignedIn();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const submitToken = (e: FormEvent) => {
    e.preventDefault();
    if (!token.trim()) return;
    setStoredToken(token.trim());
    onSignedIn();
  };

  return (
    <main className="signin" id="main">
      <h1>Sign in to Almanac</h1>
      {error && <p className="error" role="alert">{error}</p>}
      <section aria-labelledby="pw-heading" className="card">
        <h2 id="pw-heading">With your password</h2>
        <form onSubmit={submitPassword}>
          <label htmlFor="username">User name</label>
          <input id="username" name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} required />
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="current-password" value={password}
            onChange={(e) => setPassword(e.target.value)} required />
          <button type="submit" className="btn primary" disabled={busy}>Sign in</button>
        </form>
      </section>
      <section aria-labelledby="token-heading" className="card">
        <h2 id="token-heading">Or with a token</h2>
        <form onSubmit={submitToken}>
          <label htmlFor="token">Access token</label>
          <input id="token" name="token" autoComplete="off" spellCheck={false} value={token} onChange={(e) => setToken(e.target.value)} />
          <button type="submit" className="btn">Use token</button>
        </form>
        <p className="muted small">The token is kept in this browser and sent with each request.</p>
      </section>
      <section aria-labelledby="help-heading" className="help">
        <h2 id="help-heading">First time?</h2>
        <p>
          On the machine running Almanac, give the root user a password with{' '}
          <code>npx almanac password set --user datahub</code> (it reads the password from stdin) and sign in as{' '}
          <code>datahub</code>, or print a token with <code>npx almanac token create --user datahub</code> and paste it above.
        </p>
      </section>
    </main>
  );
}

