import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * Every page of the UI: a path pattern (matched against the in-app path, without the query string) and the page,
 * loaded on demand (each page is its own chunk). The first match wins. A page receives the pattern's groups.
 * To add a page: write ui/src/pages/MyPage.tsx with a default export, add a line here.
 */
export interface PageProps {
  params: string[];
}

export interface RouteDef {
  pattern: RegExp;
  page: LazyExoticComponent<ComponentType<PageProps>>;
}

export const ROUTES: RouteDef[] = [
  // /login: where GET /logOut sends the browser (the sign-in page shows there when signed out).
  { pattern: /^\/(login)?$/, page: lazy(() => import('./pages/HomePage')) },
  { pattern: /^\/search$/, page: lazy(() => import('./pages/SearchPage')) },
  // Lineage on a page of its own, metadata tests, administration (ui/src/features).
  { pattern: /^\/lineage\/(urn(?::|%3A)[^/]+)$/i, page: lazy(() => import('./features/lineage/LineagePage')) },
  { pattern: /^\/tests$/, page: lazy(() => import('./features/tests/TestsListPage')) },
  { pattern: /^\/test\/(urn(?::|%3A)[^/]+)$/i, page: lazy(() => import('./features/tests/TestPage')) },
  { pattern: /^\/admin$/, page: lazy(() => import('./features/admin/AdminHomePage')) },
  { pattern: /^\/admin\/tokens$/, page: lazy(() => import('./features/admin/TokensPage')) },
  { pattern: /^\/admin\/users$/, page: lazy(() => import('./features/admin/UsersPage')) },
  { pattern: /^\/admin\/groups$/, page: lazy(() => import('./features/admin/GroupsPage')) },
  { pattern: /^\/admin\/policies$/, page: lazy(() => import('./features/admin/PoliciesPage')) },
  { pattern: /^\/admin\/policies\/(urn(?::|%3A)[^/]+)$/i, page: lazy(() => import('./features/admin/PolicyPage')) },
  { pattern: /^\/admin\/timeseries$/, page: lazy(() => import('./features/admin/TimeseriesPage')) },
  // /<urn type>/<urn>[/<tab>]: every entity's page (its tabs: documentation, schema, history, …).
  { pattern: /^\/([A-Za-z]+)\/(urn(?::|%3A)[^/]+)(?:\/([^/]+))?$/i, page: lazy(() => import('./pages/EntityPage')) },
];

export const NOT_FOUND = lazy(() => import('./pages/NotFoundPage'));

export function matchRoute(path: string): { route: RouteDef | null; params: string[] } {
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (m) return { route, params: m.slice(1).map((p) => (p === undefined ? '' : safeDecode(p))) };
  }
  return { route: null, params: [] };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
