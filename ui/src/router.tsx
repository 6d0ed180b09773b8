import { useCallback, useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { BASE, href } from './base';

/**
 * A tiny router: the location is window.location minus BASE; `navigate()` pushes (or replaces) a history entry;
 * `<Link to="/search?q=x">` is an <a> that navigates in-app on a plain click. Routes are matched in routes.tsx.
 */
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());
window.addEventListener('popstate', notify);

function subscribe(l: () => void) {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** The in-app path with its query string, e.g. "/search?q=users". */
function snapshot(): string {
  const { pathname, search } = window.location;
  const path = BASE && pathname.startsWith(BASE) ? pathname.slice(BASE.length) || '/' : pathname;
  return path + search;
}

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  const url = href(to);
  if (url === window.location.pathname + window.location.search) return;
  if (opts.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  notify();
  if (!opts.replace) window.scrollTo(0, 0);
}

export interface Location {
  path: string;
  search: URLSearchParams;
  /** path + query string */
  full: string;
}

export function useLocation(): Location {
  const full = useSyncExternalStore(subscribe, snapshot);
  const q = full.indexOf('?');
  return { full, path: q < 0 ? full : full.slice(0, q), search: new URLSearchParams(q < 0 ? '' : full.slice(q)) };
}

/** Reads and writes one query parameter of the current URL (replacing the history entry). */
export function useSearchParam(name: string): [string, (value: string | null) => void] {
  const loc = useLocation();
  const set = useCallback((value: string | null) => {
    const params = new URLSearchParams(window.location.search);
    if (value === null || value === '') params.delete(name);
    else params.set(name, value);
    const qs = params.toString();
    navigate(`${loc.path}${qs ? `?${qs}` : ''}`, { replace: true });
  }, [loc.path, name]);
  return [loc.search.get(name) ?? '', set];
}

export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const handle = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={handle} {...rest} />;
}

/** Sets document.title for the page shown. */
export function useTitle(title: string | undefined) {
  useEffect(() => {
    document.title = title ? `${title} · Almanac` : 'Almanac';
  }, [title]);
}
