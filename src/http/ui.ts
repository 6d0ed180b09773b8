import { createHash } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import { sendError } from './errors.js';
import { isApiPath } from './webapp.js';

/**
 * Almanac's own web UI (ui/, built by `npm ci` into ui/dist): at `/`, or under `/almanac/` when DataHub's web app
 * takes `/` (`serve --webapp-dir`). Built files are read from ui/dist on first use and served from memory
 * (gzipped when asked): the bundles under assets/ carry a content hash in their name and are cached for good;
 * index.html is revalidated on every load. Any other GET that a browser sends for a page (Accept: text/html) and that
 * is not an API path gets index.html, so the UI's own routes (/search, /dataset/<urn>) load it; everything else keeps
 * the server's JSON 404. The page runs no inline script and loads nothing from another origin.
 */
export const UI_PREFIX_WITH_WEBAPP = '/almanac';

/** The UI sets inline styles from script (React `style`, the graph and plot libraries); scripts are same-origin only. */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_UI_DIR = path.resolve(here, '../../ui/dist');

export const NOT_BUILT_MESSAGE = "Almanac's web UI is not built: run `npm run build:ui` (npm ci builds it) and reload this page.";

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.woff2': 'font/woff2', '.woff': 'font/woff', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8', '.ico': 'image/x-icon', '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
  immutable: boolean;
}

function asset(body: Buffer, type: string, immutable: boolean): Asset {
  const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 1024;
  return { type, body, gzip: compressible ? gzipSync(body, { level: 9 }) : undefined, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`, immutable };
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? ''));
const wantsHtml = (request: FastifyRequest) => /\btext\/html\b/i.test(String(request.headers.accept ?? ''));

function send(request: FastifyRequest, reply: FastifyReply, a: Asset, extra: Record<string, string> = {}) {
  reply.header('content-type', a.type)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', a.immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
    .header('etag', a.etag)
    .header('vary', 'Accept-Encoding');
  for (const [k, v] of Object.entries(extra)) reply.header(k, v);
  if (request.headers['if-none-match'] === a.etag) return reply.code(304).send();
  if (a.gzip && acceptsGzip(request)) return reply.header('content-encoding', 'gzip').send(a.gzip);
  return reply.send(a.body);
}

/** index.html as served under `prefix`: its own references made absolute, and the prefix named for the router. */
export function rewriteIndex(html: string, prefix: string): string {
  return html
    .replace(/(\b(?:src|href)=")\.\/(assets\/[^"]+")/g, (_m, attr: string, rest: string) => `${attr}${prefix}/${rest}`)
    .replace('<head>', `<head>\n    <meta name="almanac-base" content="${prefix}">`);
}

export function uiFeature(opts: { prefix?: string; dir?: string } = {}) {
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const dir = opts.dir ?? DEFAULT_UI_DIR;
  return async function ui(app: FastifyInstance) {
    let index: { asset: Asset; mtimeMs: number } | null = null;
    const assets = new Map<string, Asset | null>();
    const headers = {
      'content-security-policy': UI_CSP, 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin',
    };

    /** index.html, read again when a new build replaced it (so a running server follows `npm run build:ui`). */
    const loadIndex = (): Asset | null => {
      const file = path.join(dir, 'index.html');
      let mtimeMs: number;
      try {
        mtimeMs = statSync(file).mtimeMs;
      } catch {
        return null;
      }
      if (index?.mtimeMs !== mtimeMs) {
        index = { asset: asset(Buffer.from(rewriteIndex(readFileSync(file, 'utf8'), prefix)), 'text/html; charset=utf-8', false), mtimeMs };
      }
      return index.asset;
    };

    /** A built file under assets/ by its name (no folders, no dot-files), or null. */
    const loadAsset = (name: string): Asset | null => {
      if (assets.has(name)) return assets.get(name)!;
      let found: Asset | null = null;
      if (/^[\w.-]+$/.test(name) && !name.startsWith('.')) {
        const file = path.join(dir, 'assets', name);
        try {
          const real = realpathSync(file);
          if (real.startsWith(realpathSync(path.join(dir, 'assets')) + path.sep) && statSync(real).isFile()) {
            const type = TYPES[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
            found = asset(readFileSync(real), type, /-[\w-]{8,}\.\w+$/.test(name));
          }
        } catch {
          found = null;
        }
      }
      if (found) assets.set(name, found);
      return found;
    };

    const page = async (request: FastifyRequest, reply: FastifyReply) => {
      const urlPath = request.url.split('?')[0]!;
      if (isApiPath(urlPath) || (urlPath !== `${prefix}/` && urlPath !== (prefix || '/') && !wantsHtml(request))) {
        return sendError(request, reply, notFound(`No route for ${request.method} ${urlPath}`));
      }
      const html = loadIndex();
      if (!html) {
        return reply.code(503).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send(NOT_BUILT_MESSAGE);
      }
      return send(request, reply, html, headers);
    };

    app.get<{ Params: { name: string } }>(`${prefix}/assets/:name`, { config: { public: true } }, async (request, reply) => {
      const hit = loadAsset(request.params.name);
      if (!hit) return sendError(request, reply, notFound(`No UI asset named ${request.params.name}`));
      return send(request, reply, hit);
    });
    if (prefix) app.get(prefix, { config: { public: true } }, page);
    app.get(`${prefix}/`, { config: { public: true } }, page);
    app.get(`${prefix}/*`, { config: { public: true } }, page);
  };
}
