import assert from 'node:assert/strict';
import os from 'node:os';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { rootActor, systemActor } from '../src/model/actor.js';
import { openCatalog, type OpenedCatalog } from '../src/catalog.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';
import { sample } from './support/app.js';

/**
 * The server's log, captured: the real app with its pino logger writing JSON lines into an array, requests through
 * inject. One line per request (ALMANAC_REQUEST_LOG), and a metadata test that cannot run warned about once per
 * definition.
 */
const HDFS = 'urn:li:dataset:(urn:li:dataPlatform:hdfs,SampleHdfsDataset,PROD)';

interface Logged {
  app: FastifyInstance;
  catalog: OpenedCatalog;
  lines: Record<string, unknown>[];
  /** Everything written to the log, as text. */
  text: () => string;
  close: () => Promise<void>;
}

async function loggedApp(url: string, env: Record<string, string>): Promise<Logged> {
  const config = loadConfig({ DATABASE_URL: url, ...env });
  const catalog = await openCatalog(config);
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk, _enc, done) { chunks.push(String(chunk)); done(); } });
  const app = await createApp(catalog, { logger: { level: config.logLevel, stream } });
  await app.ready();
  return {
    app, catalog,
    get lines() { return chunks.join('').split('\n').filter((l) => l).map((l) => JSON.parse(l) as Record<string, unknown>); },
    text: () => chunks.join(''),
    close: async () => { await app.close(); await catalog.close(); },
  };
}

/** A request line with what varies from run to run checked by type and replaced. */
function shape(line: Record<string, unknown>) {
  assert.equal(typeof line.time, 'number', 'time is a number');
  assert.equal(typeof line.durationMs, 'number', 'durationMs is a number');
  assert.match(String(line.reqId), /^req-[0-9a-z]+$/);
  return { ...line, time: '<time>', durationMs: '<ms>', reqId: '<id>' };
}

const common = { pid: process.pid, hostname: os.hostname(), time: '<time>', durationMs: '<ms>', reqId: '<id>', msg: 'request' };

forEachEngine('request log and warnings', (ctx) => {
  let token: string;
  /** A database the apps of each test open in turn (SQLite on a file, not the suite's in-memory one). */
  let db: { url: string; cleanup: () => Promise<void> };
  before(async () => {
    db = await freshSharedDatabaseUrl(ctx.engine);
    const catalog = await openCatalog(loadConfig({ DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
    try {
      await ingestFiles(catalog.entities, [sample('bootstrap_mce.json'), sample('tests_data.json')], systemActor());
      token = (await catalog.tokens.create({ actorUrn: 'urn:li:corpuser:datahub', ownerUrn: 'urn:li:corpuser:datahub', name: 'log test',
        durationMs: 3_600_000 }, rootActor())).accessToken;
    } finally {
      await catalog.close();
    }
  });
  after(async () => db.cleanup());

  /** The same requests for every setting: public, read, GraphQL with a named operation, refused, no such route. */
  async function requests(app: FastifyInstance) {
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 200);
    assert.equal((await app.inject({ method: 'GET', url: `/aspects/${encodeURIComponent(HDFS)}?aspect=schemaMetadata`, headers: auth })).statusCode, 200);
    const gql = await app.inject({ method: 'POST', url: '/api/graphql', headers: { ...auth, cookie: 'PLAY_SESSION=cookie-secret-value; actor=x' },
      payload: { query: `query whoAmI { me { corpUser { urn } } }` } });
    assert.equal(gql.statusCode, 200, gql.body);
    const refused = await app.inject({ method: 'GET', url: '/config?x=query-secret', headers: { authorization: 'Bearer not-a-real-token-secret' } });
    assert.equal(refused.statusCode, 401);
    assert.equal((await app.inject({ method: 'GET', url: '/no/such/route', headers: auth })).statusCode, 404);
    assert.equal((await app.inject({ method: 'DELETE', url: '/no/such/route', headers: auth })).statusCode, 404);
  }

  const lines = {
    health: { level: 20, method: 'GET', route: '/health', path: '/health', status: 200 },
    read: { level: 20, method: 'GET', route: '/aspects/*', path: `/aspects/${encodeURIComponent(HDFS)}`, status: 200, actor: 'urn:li:corpuser:datahub' },
    graphql: { level: 20, method: 'POST', route: '/api/graphql', path: '/api/graphql', status: 200, actor: 'urn:li:corpuser:datahub', operation: 'whoAmI' },
    refused: { level: 30, method: 'GET', route: '/config', path: '/config', status: 401 },
    // The UI's fallback route answers paths it does not own with the JSON 404.
    missing: { level: 30, method: 'GET', route: '/*', path: '/no/such/route', status: 404 },
    // No route at all: the not-found handler's answer.
    noRoute: { level: 30, method: 'DELETE', route: null, path: '/no/such/route', status: 404, actor: 'urn:li:corpuser:datahub' },
  };
  const requestLines = (l: Logged) => l.lines.filter((x) => x.msg === 'request' || x.msg === 'incoming request' || x.msg === 'request completed').map(shape);

  test('by default every request is one line: 4xx/5xx at info, the rest at debug; never a token, cookie or query string', async () => {
    const l = await loggedApp(db.url, { LOG_LEVEL: 'debug' });
    try {
      await requests(l.app);
      assert.deepEqual(requestLines(l), Object.values(lines).map((x) => ({ ...common, ...x })));
      for (const secret of [token, 'not-a-real-token-secret', 'cookie-secret-value', 'query-secret', 'Bearer']) {
        assert.equal(l.text().includes(secret), false, `the log never holds ${secret}`);
      }
    } finally {
      await l.close();
    }
    const info = await loggedApp(db.url, { LOG_LEVEL: 'info' });
    try {
      await requests(info.app);
      assert.deepEqual(requestLines(info), [lines.refused, lines.missing, lines.noRoute].map((x) => ({ ...common, ...x })));
    } finally {
      await info.close();
    }
  });

  test('ALMANAC_REQUEST_LOG=all logs every request at info; off, none', async () => {
    const all = await loggedApp(db.url, { LOG_LEVEL: 'info', ALMANAC_REQUEST_LOG: 'all' });
    try {
      await requests(all.app);
      assert.deepEqual(requestLines(all), Object.values(lines).map((x) => ({ ...common, ...x, level: 30 })));
    } finally {
      await all.close();
    }
    const off = await loggedApp(db.url, { LOG_LEVEL: 'debug', ALMANAC_REQUEST_LOG: 'off' });
    try {
      await requests(off.app);
      assert.deepEqual(requestLines(off), []);
    } finally {
      await off.close();
    }
    assert.throws(() => loadConfig({ ALMANAC_REQUEST_LOG: 'some' }), { message: "ALMANAC_REQUEST_LOG must be one of errors, all, off, got 'some'" });
  });

  test('a metadata test that cannot run is warned about once per definition, across evaluations', async () => {
    const l = await loggedApp(db.url, { LOG_LEVEL: 'warn', ALMANAC_REQUEST_LOG: 'off' });
    const evaluate = async () => {
      const res = await l.app.inject({ method: 'POST', url: '/test?action=evaluate', headers: { authorization: `Bearer ${token}` }, payload: { urn: HDFS } });
      assert.equal(res.statusCode, 200, res.body);
    };
    const warning = (urn: string, reason: string) => ({ level: 40, pid: process.pid, hostname: os.hostname(), time: '<time>',
      testUrn: urn, reason, msg: `metadata test ${urn} is skipped: ${reason}` });
    const warnings = () => l.lines.map((x) => { assert.equal(typeof x.time, 'number'); return { ...x, time: '<time>' }; });
    const empty = "Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: on, rules)";
    const [first, second] = ['urn:li:test:76ca947d-d988-4f0d-8c2f-055de2c6f4b5', 'urn:li:test:953001aa-fb7b-4a43-916f-3efd95ab9047'];
    try {
      await evaluate();
      await evaluate();
      assert.deepEqual(warnings(), [warning(first, empty), warning(second, empty)]);
      // The definition changes (as a connector would write it): warned again, once.
      const info = (await l.catalog.metadataTests.get(first)).info;
      await l.catalog.entities.ingest([{ urn: first, entityType: 'test', aspect: 'testInfo', changeType: 'UPSERT', systemMetadata: null,
        value: { ...info, definition: { type: 'JSON', json: '{"on": {"types": ["dataset"]}}' } } }], systemActor());
      await evaluate();
      await evaluate();
      const rules = "Invalid test definition: a test definition must have an 'on' clause and a 'rules' clause (missing: rules)";
      assert.deepEqual(warnings(), [warning(first, empty), warning(second, empty), warning(first, rules)]);
    } finally {
      await l.close();
    }
  });
});
