import { ConfigError, loadConfig } from '../config.js';
import type { OpenedCatalog } from '../catalog.js';

/** Opens the catalog from the environment; configuration and connection problems end in one clear line. */
export async function withCatalog<T>(fn: (catalog: OpenedCatalog) => Promise<T>): Promise<T> {
  const catalog = await openFromEnv();
  try {
    return await fn(catalog);
  } finally {
    await catalog.close();
  }
}

export async function openFromEnv(): Promise<OpenedCatalog> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    fail(e instanceof ConfigError ? `almanac: invalid configuration: ${e.message}` : String(e));
  }
  // Loaded here, not at the top: `almanac --help` and argument mistakes answer without loading the whole catalog.
  const { openCatalog } = await import('../catalog.js');
  try {
    return await openCatalog(config);
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
