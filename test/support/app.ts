import { readFileSync } from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { rootActor, systemActor } from '../../src/model/actor.js';
import { openCatalog, type OpenedCatalog } from '../../src/catalog.js';
import { ingestFiles } from '../../src/services/ingest-files.js';
import type { EngineContext } from './engines.js';

export const SAMPLES = path.resolve(import.meta.dirname, '../../samples/datahub');
export const sample = (name: string) => path.join(SAMPLES, name);
export const readSample = (name: string): unknown => JSON.parse(readFileSync(sample(name), 'utf8'));

export interface TestApp {
  app: FastifyInstance;
  catalog: OpenedCatalog;
  /** A personal access token of the root user (urn:li:corpuser:datahub). */
  rootToken: string;
  /** Bearer header for the root token. */
  auth: { authorization: string };
  /** POST a GraphQL document as the root user (or with the given headers) and return status and parsed body. */
  graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Writes one aspect (UPSERT) through POST /aspects?action=ingestProposal as the root user; fails unless 200. */
  put(urn: string, aspectName: string, value: unknown): Promise<void>;
  /** A token for another user. */
  tokenFor(username: string): Promise<string>;
  /** Listens on a free port of 127.0.0.1, for clients outside the process (a browser, a CLI, fetch); returns the origin. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Builds the real app in-process on the suite's database (requests go through `app.inject`). `follow: false`: no
 * change-log follower, so nothing catches the indexes up behind the test's back.
 */
export async function startApp(ctx: EngineContext, overrides: Partial<Config> = {}, { follow = true } = {}): Promise<TestApp> {
  const config: Config = { ...loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' }), ...overrides };
  const catalog = await openCatalog(config);
  // As a serving process does: other servers' writes reach this one's caches through the change log.
  if (follow) await catalog.follow();
  const app = await createApp(catalog, { logger: false });
  await app.ready();
  const tokenFor = async (username: string) => (await catalog.tokens.create({
    actorUrn: `urn:li:corpuser:${username}`, ownerUrn: `urn:li:corpuser:${username}`, name: `test ${username}`,
    durationMs: 3_600_000 }, rootActor())).accessToken;
  const rootToken = await tokenFor('datahub');
  const auth = { authorization: `Bearer ${rootToken}` };
  return {
    app, catalog, rootToken, auth, tokenFor,
    async graphql(query, variables, headers) {
      const res = await app.inject({ method: 'POST', url: '/api/graphql', headers: headers ?? auth, payload: { query, variables } });
      return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
    },
    async put(urn, aspectName, value) {
      const entityType = urn.slice('urn:li:'.length).split(':', 1)[0];
      const res = await app.inject({ method: 'POST', url: '/aspects?action=ingestProposal', headers: auth, payload: { proposal: {
        entityType, entityUrn: urn, changeType: 'UPSERT', aspectName, aspect: { value: JSON.stringify(value), contentType: 'application/json' } } } });
      assert.equal(res.statusCode, 200, `${urn} ${aspectName}: ${res.body}`);
    },
    async listen() {
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      assert.ok(address && typeof address === 'object', 'listening on a port');
      return `http://127.0.0.1:${address.port}`;
    },
    async close() {
      await app.close();
      await catalog.close();
    },
  };
}

/** Loads sample files straight through the ingestion service; fails the test if any record is refused. */
export async function ingestSamples(catalog: OpenedCatalog, ...names: string[]) {
  const summary = await ingestFiles(catalog.entities, names.map(sample), systemActor());
  if (summary.failures.length) throw new Error(`sample ingestion refused records: ${JSON.stringify(summary.failures)}`);
  return summary;
}
