import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import { sendError } from './errors.js';

/**
 * Serves a built copy of DataHub's web app (`almanac serve --webapp-dir <dir>`), as datahub-frontend does: its files
 * as they are, and `index.html` for any other path that is not an API path, so the app's own routes (`/search`,
 * `/dataset/…`, `/login`) load it. API paths that no route answers keep their JSON 404. Files are public, as the web
 * app's login page must load before anyone signs in; dot-files and anything outside the folder are never served.
 */

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif',
  '.ico': 'image/x-icon', '.webp': 'image/webp', '.woff': 'font/woff', '.woff2': 'font/woff2', '.ttf': 'font/ttf',
  '.eot': 'application/vnd.ms-fontobject', '.txt': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
};

/** Paths that belong to the API: never answered with the web app's page. */
const API_PREFIXES = ['/api/', '/gms/', '/openapi/', '/auth/'];

export function isApiPath(urlPath: string): boolean {
  return API_PREFIXES.some((p) => urlPath.startsWith(p) || urlPath === p.slice(0, -1));
}

export function webappFeature(dir: string) {
  return async function webapp(app: FastifyInstance) {
    const root = await realpath(path.resolve(dir));
    const index = path.join(root, 'index.html');

    /** The regular file this URL path names inside the folder, or null. */
    const fileFor = async (urlPath: string): Promise<{ file: string; size: number } | null> => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(urlPath);
      } catch {
        return null;
      }
      if (decoded.includes('\0')) return null;
      const segments = decoded.split('/').filter(Boolean);
      if (segments.some((s) => s.startsWith('.'))) return null;
      const candidate = path.join(root, ...segments);
      try {
        const real = await realpath(candidate);
        if (real !== root && !real.startsWith(root + path.sep)) return null;
        const s = await stat(real);
        return s.isFile() ? { file: real, size: s.size } : null;
      } catch {
        return null;
      }
    };

    const send = (reply: FastifyReply, file: string, size: number, isIndex: boolean) => {
      reply.type(TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream');
      reply.header('content-length', size);
      reply.header('x-content-type-options', 'nosniff');
      // The page itself is checked on every load (it names the current bundles); the hashed bundles are cached.
      reply.header('cache-control', isIndex ? 'no-cache' : /\.[0-9a-f]{8,}\./.test(path.basename(file)) ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
      return reply.send(createReadStream(file));
    };

    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      const urlPath = request.url.split('?')[0]!;
      if (isApiPath(urlPath)) {
        return sendError(request, reply, notFound(`No route for ${request.method} ${urlPath}`));
      }
      // The web app is built to be served under /assets (its PUBLIC_URL), as datahub-frontend serves it: a built folder
      // (datahub-web-react/dist) holds at its root what the page asks for under /assets/.
      const found = urlPath === '/' ? null
        : (await fileFor(urlPath)) ?? (urlPath.startsWith('/assets/') ? await fileFor(urlPath.slice('/assets'.length)) : null);
      if (found) return send(reply, found.file, found.size, found.file === index);
      const page = await fileFor('/index.html');
      if (!page) return sendError(request, reply, notFound(`The web app folder has no index.html: ${root}`));
      return send(reply, page.file, page.size, true);
    };

    app.get('/', { config: { public: true } }, handler);
    app.get('/*', { config: { public: true } }, handler);
  };
}
