/**
 * Where the UI lives: `/` normally, `/almanac` when the server also serves DataHub's web app (`--webapp-dir`). The
 * server writes it into index.html as <meta name="almanac-base">; every route and link is relative to it.
 */
const meta = typeof document === 'undefined' ? null : document.querySelector('meta[name="almanac-base"]');
export const BASE = (meta?.getAttribute('content') ?? '').replace(/\/+$/, '');

/** An in-app path ("/search?q=x") as a URL path on the server ("/almanac/search?q=x"). */
export const href = (path: string) => `${BASE}${path.startsWith('/') ? path : `/${path}`}`;

/** The server's own paths (API, sign-in): never prefixed. */
export const serverPath = (path: string) => path;
