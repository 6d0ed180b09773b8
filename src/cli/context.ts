import { ConfigError, loadConfig } from '../config.js';
import type { OpenedCatalog } from '../catalog.js';
import type { FacetStart } from '../storage/index.js';

/**
 * Opens the catalog from the environment; configuration and connection problems end in one clear line.
 * `facetStart`: by default a command loads the facet structure only if it counts facets (a token, a password or an
 * export never does); a bulk load or a reindex asks for 'open': it keeps the structure from the open on and saves it
 * at its end, so that the next start loads it rather than building it.
 */
export async function withCatalog<T>(fn: (catalog: OpenedCatalog) => Promise<T>, opts: { facetStart?: FacetStart } = {}): Promise<T> {
  const catalog = await openFromEnv({ facetStart: opts.facetStart ?? 'first-count' });
  try {
    return await fn(catalog);
  } finally {
    await catalog.close();
  }
}

export async function openFromEnv(opts: { facetStart?: FacetStart } = {}): Promise<OpenedCatalog> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    fail(e instanceof ConfigError ? `almanac: invalid configuration: ${e.message}` : String(e));
  }
  // Loaded here, not at the top: `almanac --help` and argument mistakes answer without loading the whole catalog.
  const { openCatalog } = await import('../catalog.js');
  try {
    return await openCatalog(config, undefined, opts);
  } catch (e) {
    fail(`almanac: cannot open the database (${redact(config.databaseUrl)}): ${(e as Error).message}`);
  }
}

export function fail(line: string): never {
  process.stderr.write(`${line}\n`);
  process.exit(1);
}

/** Hides a password in a connection string. */
export function redact(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
