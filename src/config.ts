/**
 * Configuration from the environment. Every value is checked here, so a bad one stops start-up with one clear
 * line (ConfigError) instead of a failure somewhere deep inside.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  /**
   * HS256 signing key, from ALMANAC_TOKEN_SECRET or the file ALMANAC_TOKEN_SECRET_FILE names; when absent one is
   * generated on first start and kept in the database.
   */
  tokenSecret?: string;
  logLevel: string;
  /** Which requests get a log line (src/http/request-log.ts). */
  requestLog: RequestLog;
  /** Versions kept per (entity, aspect), latest included. */
  historyCap: number;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** Allow personal access tokens that never expire. */
  allowNoExpiryTokens: boolean;
  /** `Basic <id>:<secret>` credentials for service-to-service callers, when configured. */
  systemClientId: string;
  systemClientSecret?: string;
  /** How long a node trusts a token lookup before asking the store again (revocation on other nodes). */
  tokenCacheMs: number;
  /** How long a node trusts its snapshot of policies and groups (changes made on other nodes). */
  policyCacheMs: number;
  /** Memory for reused GraphQL answers (src/services/response-cache.ts); 0 turns reuse off. */
  responseCacheBytes: number;
  /**
   * How long after a write its server starts applying it to the search and relationship indexes, unless a read of
   * them comes first (src/changelog/service.ts); the writes made meanwhile share one step.
   */
  indexDelayMs: number;
  /** Maximum age per time-series aspect, e.g. `datasetProfile:90d,operation:30d` (empty: keep everything). */
  timeseriesRetention: Retention;
  /** How often the retention jobs run (time-series retention, change-log trimming). */
  retentionIntervalMs: number;
  /** Days change-log entries are kept (never trimmed before every registered consumer has applied them). */
  changeLogRetentionDays: number;
  /** PostgreSQL: how long a request waits for a connection (a free one of the pool, or a new one made) before a 503. */
  databaseConnectTimeoutMs: number;
  /** PostgreSQL: how long a statement may go unanswered before it fails (503) and its connection is dropped; 0: no limit. */
  databaseQueryTimeoutMs: number;
  /** PostgreSQL: connections of the pool (ALMANAC_PG_POOL_SIZE), and of each read replica's. */
  databasePoolSize: number;
  /** PostgreSQL: the server's statement_timeout on every pooled connection (ALMANAC_PG_STATEMENT_TIMEOUT_MS); 0: none. */
  databaseStatementTimeoutMs: number;
  /** PostgreSQL: streaming standbys that serve reads (DATABASE_READ_URL, comma-separated). */
  databaseReadUrls: string[];
  /** PostgreSQL: how long a read waits for a replica to replay what it needs before the primary serves it. */
  databaseReadWaitMs: number;
  /** SQLite: the page cache in MiB (ALMANAC_SQLITE_CACHE_MB); unset, the store's default (DEFAULT_CACHE_MB, 128). */
  sqliteCacheMb?: number;
  /** SQLite: the page cache in MiB while a bulk load's indexes catch up (ALMANAC_SQLITE_BULK_CACHE_MB); unset, DEFAULT_BULK_CACHE_MB. */
  sqliteBulkCacheMb?: number;
  /** GET /metrics and the request observations behind it (ALMANAC_METRICS, on unless `false`). */
  metrics: boolean;
  /** A token a scraper sends as `Bearer <token>` to read /metrics without a user (ALMANAC_METRICS_TOKEN). */
  metricsToken?: string;
  /** The deployment's own aspects and entity types (ALMANAC_REGISTRY, src/registry/registry-extension.ts), checked here. */
  registry?: RegistryExtension;
  /**
   * Which peers' X-Forwarded-For/-Proto/-Host are believed (Fastify's trustProxy): none (false), or proxy addresses
   * and CIDR ranges. Secure cookies follow the protocol a trusted proxy reports.
   */
  trustProxy: TrustProxy;
}

import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { RegistryExtension } from './entities/index.js';
import { loadRegistryExtension, RegistryFileError } from './registry/registry-extension.js';
import { lookupTable } from './model/safe-keys.js';
import { TIMESERIES_INDICES, type TimeseriesIndex } from './registry/registry.js';

/** `errors`: 4xx/5xx answers at info, the rest at debug; `all`: every request at info; `off`: no request lines. */
export type RequestLog = 'errors' | 'all' | 'off';
const REQUEST_LOGS: RequestLog[] = ['errors', 'all', 'off'];

export type TrustProxy = false | string[];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * ALMANAC_INDEX_DELAY_MS by default. A step's cost is mostly per entity and per commit (an edited dataset's document is
 * recomputed and its FTS rows rewritten once however many writes it had), so a longer wait indexes busy entities for
 * less: from 20 to 100 ms, the CPU of an edit under 32 concurrent edits fell by about a quarter, of one alone by
 * about half (2026-11-27, in-process, loaded machine). A search on the writing server waits for the step only when it follows writes not yet
 * applied (it then runs the step at once); other servers' readers apply what they miss themselves (PostgreSQL), and
 * their followers step in only after FOLLOW_INDEX_DELAY_MS (250 ms).
 */
export const DEFAULT_INDEX_DELAY_MS = 100;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got '${raw}'`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return dflt;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got '${env[name]}'`);
}

/** The token signing key: given inline, or read from a file (its content less a final line break), or neither. */
function tokenSecret(env: NodeJS.ProcessEnv): string | undefined {
  const inline = env.ALMANAC_TOKEN_SECRET || undefined;
  const file = env.ALMANAC_TOKEN_SECRET_FILE?.trim() || undefined;
  if (inline !== undefined && file !== undefined) {
    throw new ConfigError('Set ALMANAC_TOKEN_SECRET or ALMANAC_TOKEN_SECRET_FILE, not both');
  }
  if (file === undefined) {
    if (inline !== undefined && inline.length < 32) throw new ConfigError('ALMANAC_TOKEN_SECRET must be at least 32 characters long');
    return inline;
  }
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new ConfigError(`ALMANAC_TOKEN_SECRET_FILE: cannot read '${file}' (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (secret.length < 32) throw new ConfigError(`ALMANAC_TOKEN_SECRET_FILE: the key in '${file}' must be at least 32 characters long`);
  return secret;
}

/** The scrape token: long enough not to be guessed (it is compared in constant time). */
function metricsToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.ALMANAC_METRICS_TOKEN?.trim() || undefined;
  if (token !== undefined && token.length < 32) throw new ConfigError('ALMANAC_METRICS_TOKEN must be at least 32 characters long');
  if (token !== undefined && /\s/.test(token)) throw new ConfigError('ALMANAC_METRICS_TOKEN must not contain spaces');
  return token;
}

/** Retention per aspect, e.g. `datasetProfile:90d,operation:30d`. */
export type Retention = { index: TimeseriesIndex; maxAgeMs: number }[];

const UNITS: Readonly<Record<string, number>> = lookupTable<number>({ m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 });

export function parseRetention(spec: string | undefined): Retention {
  if (!spec?.trim()) return [];
  return spec.split(',').map((part) => {
    const m = /^\s*([A-Za-z]+)(?:\.([A-Za-z]+))?\s*:\s*(\d+)\s*([mhdw])\s*$/.exec(part);
    if (!m) throw new Error(`'${part.trim()}' is not <aspect>:<number><m|h|d|w> (or <entityType>.<aspect>:…)`);
    const [entityType, aspect] = m[2] ? [m[1]!, m[2]] : [undefined, m[1]!];
    const indices = TIMESERIES_INDICES.filter((i) => i.aspect.toLowerCase() === aspect.toLowerCase()
      && (!entityType || i.entityType.toLowerCase() === entityType.toLowerCase()));
    if (indices.length === 0) throw new Error(`'${m[2] ? `${m[1]}.${m[2]}` : m[1]}' is not a time-series aspect`);
    const maxAgeMs = Number(m[3]) * UNITS[m[4]!]!;
    return indices.map((index) => ({ index, maxAgeMs }));
  }).flat();
}

function retention(spec: string | undefined): Retention {
  try {
    return parseRetention(spec);
  } catch (e) {
    throw new ConfigError(`ALMANAC_TIMESERIES_RETENTION: ${(e as Error).message}`);
  }
}

/** proxy-addr's names for address ranges, accepted beside addresses and CIDR ranges. */
const PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

function trustProxy(raw: string | undefined): TrustProxy {
  const value = raw?.trim();
  if (!value) return false;
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const e of entries) {
    if (PROXY_RANGES.includes(e)) continue;
    const [address, bits, extra] = e.split('/');
    const family = isIP(address!);
    const max = family === 4 ? 32 : 128;
    if (!family || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= max))) {
      // No hop count: it cannot tell a proxy from a client that sends the headers itself (Fastify trusts none then).
      throw new ConfigError(`ALMANAC_TRUST_PROXY: '${e}' is not an IP address, a CIDR range (e.g. 10.0.0.0/8) or one of `
        + `${PROXY_RANGES.join(', ')}; give the proxies' addresses, separated by commas`);
    }
  }
  return entries;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL?.trim() || 'sqlite:./data/almanac.db';
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must be sqlite:<path> or postgres://…, got '${databaseUrl}'`);
  }
  const logLevel = (env.LOG_LEVEL ?? 'info').trim().toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  const requestLog = (env.ALMANAC_REQUEST_LOG?.trim().toLowerCase() || 'errors') as RequestLog;
  if (!REQUEST_LOGS.includes(requestLog)) {
    throw new ConfigError(`ALMANAC_REQUEST_LOG must be one of ${REQUEST_LOGS.join(', ')}, got '${env.ALMANAC_REQUEST_LOG}'`);
  }
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    databaseUrl,
    tokenSecret: tokenSecret(env),
    logLevel,
    requestLog,
    historyCap: int(env, 'ALMANAC_HISTORY_CAP', 20, 1, 10_000),
    bodyLimit: int(env, 'ALMANAC_BODY_LIMIT', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    allowNoExpiryTokens: bool(env, 'ALMANAC_ALLOW_NO_EXPIRY_TOKENS', false),
    systemClientId: env.DATAHUB_SYSTEM_CLIENT_ID?.trim() || '__datahub_system',
    systemClientSecret: env.DATAHUB_SYSTEM_CLIENT_SECRET || undefined,
    tokenCacheMs: int(env, 'ALMANAC_TOKEN_CACHE_MS', 2_000, 0, 2_000),
    policyCacheMs: int(env, 'ALMANAC_POLICY_CACHE_MS', 2_000, 0, 2_000),
    responseCacheBytes: int(env, 'ALMANAC_RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    indexDelayMs: int(env, 'ALMANAC_INDEX_DELAY_MS', DEFAULT_INDEX_DELAY_MS, 0, 60_000),
    timeseriesRetention: retention(env.ALMANAC_TIMESERIES_RETENTION),
    retentionIntervalMs: int(env, 'ALMANAC_RETENTION_INTERVAL_MS', 3_600_000, 1_000, 7 * 86_400_000),
    changeLogRetentionDays: int(env, 'ALMANAC_CHANGE_LOG_RETENTION_DAYS', 7, 1, 3_650),
    databaseConnectTimeoutMs: int(env, 'ALMANAC_DB_CONNECT_TIMEOUT_MS', 5_000, 100, 600_000),
    databaseQueryTimeoutMs: int(env, 'ALMANAC_DB_QUERY_TIMEOUT_MS', 60_000, 0, 86_400_000),
    databasePoolSize: int(env, 'ALMANAC_PG_POOL_SIZE', 10, 1, 1_000),
    databaseStatementTimeoutMs: int(env, 'ALMANAC_PG_STATEMENT_TIMEOUT_MS', 0, 0, 86_400_000),
    databaseReadUrls: readUrls(env.DATABASE_READ_URL, databaseUrl),
    databaseReadWaitMs: int(env, 'ALMANAC_READ_WAIT_MS', 250, 0, 60_000),
    sqliteCacheMb: env.ALMANAC_SQLITE_CACHE_MB?.trim() ? int(env, 'ALMANAC_SQLITE_CACHE_MB', 0, 2, 65_536) : undefined,
    sqliteBulkCacheMb: env.ALMANAC_SQLITE_BULK_CACHE_MB?.trim() ? int(env, 'ALMANAC_SQLITE_BULK_CACHE_MB', 0, 2, 65_536) : undefined,
    metrics: bool(env, 'ALMANAC_METRICS', true),
    metricsToken: metricsToken(env),
    registry: registry(env.ALMANAC_REGISTRY?.trim()),
    trustProxy: trustProxy(env.ALMANAC_TRUST_PROXY),
  };
}

/** Read replicas: postgres:// URLs separated by commas, only beside a PostgreSQL DATABASE_URL. */
function readUrls(raw: string | undefined, databaseUrl: string): string[] {
  const urls = (raw ?? '').split(',').map((u) => u.trim()).filter((u) => u !== '');
  if (!urls.length) return [];
  if (!databaseUrl.startsWith('postgres')) throw new ConfigError('DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (replicas of it)');
  for (const u of urls) {
    if (!/^postgres(ql)?:\/\/.+/.test(u)) throw new ConfigError(`DATABASE_READ_URL: each replica must be a postgres://… URL, got '${u.replace(/:[^:@/]*@/, ':…@')}'`);
  }
  return urls;
}

function registry(file: string | undefined): RegistryExtension | undefined {
  if (!file) return undefined;
  try {
    return loadRegistryExtension(file);
  } catch (e) {
    if (e instanceof RegistryFileError) throw new ConfigError(`ALMANAC_REGISTRY: ${e.message}`);
    throw e;
  }
}
