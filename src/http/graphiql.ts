import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Catalog } from '../catalog.js';
import { sendError } from './errors.js';
import { notFound } from '../errors.js';

/**
 * GET /api/graphiql: the GraphQL explorer. The page, its script and every library it loads are served by Almanac
 * from local packages (no CDN), so it works with no internet; the page runs no inline script, so its
 * Content-Security-Policy allows nothing but our own origin. All of it is public: the token is typed into the
 * page and sent by the browser with each GraphQL request.
 */
export const GRAPHIQL_PATH = '/api/graphiql';
export const GRAPHIQL_ASSETS_PATH = `${GRAPHIQL_PATH}/assets`;

/**
 * `style-src 'unsafe-inline'`: GraphiQL (CodeMirror, Radix popovers) sets inline styles, and the page's own
 * layout is one <style> block. Scripts stay strictly same-origin. Fonts and icons in graphiql's CSS are data: URLs.
 */
export const GRAPHIQL_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const JS = 'application/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const MAP = 'application/json; charset=utf-8';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
const here = path.dirname(fileURLToPath(import.meta.url));

interface AssetSource {
  file: string;
  type: string;
}

/** The only files served under /api/graphiql/assets/: name → where it lives and its content type. */
function assetSources(): Map<string, AssetSource> {
  const graphiql = packageDir('graphiql');
  const react = packageDir('react');
  const reactDom = packageDir('react-dom');
  return new Map<string, AssetSource>([
    ['react.production.min.js', { file: path.join(react, 'umd/react.production.min.js'), type: JS }],
    ['react-dom.production.min.js', { file: path.join(reactDom, 'umd/react-dom.production.min.js'), type: JS }],
    ['graphiql.min.js', { file: path.join(graphiql, 'graphiql.min.js'), type: JS }],
    ['graphiql.min.css', { file: path.join(graphiql, 'graphiql.min.css'), type: CSS }],
    // graphiql.min.js ends with `sourceMappingURL=index.umd.js.map`; browsers only fetch it with devtools open.
    ['index.umd.js.map', { file: path.join(graphiql, 'graphiql.min.js.map'), type: MAP }],
    ['graphiql-page.js', { file: path.join(here, 'graphiql-page.js'), type: JS }],
  ]);
}

interface LoadedAsset {
  type: string;
  body: Buffer;
  gzip: Buffer | undefined;
  etag: string;
}

function hashOf(body: Buffer | string): string {
  return createHash('sha256').update(body).digest('base64url').slice(0, 16);
}

function load(source: AssetSource): LoadedAsset {
  const body = readFileSync(source.file);
  const gzip = body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined;
  return { type: source.type, body, gzip, etag: `"${hashOf(body)}"` };
}

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  return typeof header === 'string' && /\bgzip\b/i.test(header);
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: LoadedAsset) {
  reply
    .header('Content-Type', asset.type)
    .header('X-Content-Type-Options', 'nosniff')
    // The page references every asset with `?v=<content hash>`, so a changed file is a new URL.
    .header('Cache-Control', 'public, max-age=31536000, immutable')
    .header('ETag', asset.etag)
    .header('Vary', 'Accept-Encoding');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (asset.gzip && acceptsGzip(request)) return reply.header('Content-Encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

export async function graphiqlFeature(app: FastifyInstance, _opts: { catalog: Catalog }) {
  const sources = assetSources();
  // Read once, lazily (the source map alone is megabytes), then served from memory.
  const loaded = new Map<string, LoadedAsset>();
  const asset = (name: string): LoadedAsset | undefined => {
    const source = sources.get(name);
    if (!source) return undefined;
    let hit = loaded.get(name);
    if (!hit) {
      hit = load(source);
      loaded.set(name, hit);
    }
    return hit;
  };

  // The page is made once, when first asked for (hashing its assets, a megabyte and more, would slow every start);
  // each asset reference gets a version from the file's content.
  let html: string | undefined;
  const page = () => (html ??= readFileSync(path.join(here, 'graphiql.html'), 'utf8')
    .replace(/(\b(?:src|href)=")(graphiql\/assets\/([^"?]+))"/g, (whole, attr: string, url: string, name: string) => {
      const source = sources.get(name);
      if (!source) throw new Error(`graphiql.html references ${url}, which is not an allowed asset`);
      return `${attr}${url}?v=${hashOf(readFileSync(source.file))}"`;
    }));

  app.get(GRAPHIQL_PATH, { config: { public: true } }, async (_request, reply) => reply
    .header('Content-Type', 'text/html; charset=utf-8')
    .header('Content-Security-Policy', GRAPHIQL_CSP)
    .header('X-Content-Type-Options', 'nosniff')
    .header('X-Frame-Options', 'DENY')
    .header('Referrer-Policy', 'no-referrer')
    .header('Cache-Control', 'no-cache')
    .send(page()));

  app.get<{ Params: { file: string } }>(`${GRAPHIQL_ASSETS_PATH}/:file`, { config: { public: true } }, async (request, reply) => {
    const hit = asset(request.params.file);
    if (!hit) return sendError(request, reply, notFound(`No explorer asset named ${request.params.file}`));
    return sendAsset(request, reply, hit);
  });
}
