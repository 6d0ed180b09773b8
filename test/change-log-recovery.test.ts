import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../src/storage/index.js';
import { SAMPLES, ingestSamples, startApp, type TestApp } from './support/app.js';
import { forEachEngine, freshSharedDatabaseUrl, type EngineContext } from './support/engines.js';
import { runCli, startServer } from './support/processes.js';

const ds = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;

/** `almanac serve` on the database, quiet. */
const serve = (url: string, env: Record<string, string> = {}) => startServer({ DATABASE_URL: url, LOG_LEVEL: 'silent', ...env });

/** The database's own URL for the suite: SQLite on a file, so that servers and the CLI reach one database. */
function sharedDatabase(ctx: EngineContext) {
  let cleanup = async () => {};
  before(async () => { if (ctx.engine === 'sqlite') ({ url: ctx.url, cleanup } = await freshSharedDatabaseUrl('sqlite')); });
  after(async () => cleanup());
}

forEachEngine('change log: crash between commit and index update', (ctx) => {
  sharedDatabase(ctx);

  test('a server killed (SIGKILL) right after a commit loses no write, and its indexes catch up on the next start', async () => {
    const token = (await runCli(['token', 'create', '--user', 'datahub'], { DATABASE_URL: ctx.url })).stdout.trim();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const DS = ds('crash_victim');
    const proposal = (aspectName: string, value: object) => ({ entityType: 'dataset', entityUrn: DS, changeType: 'UPSERT', aspectName,
      aspect: { contentType: 'application/json', value: JSON.stringify(value) } });

    const doomed = await serve(ctx.url, { ALMANAC_TEST_FAULT: 'kill-after-commit' });
    const request = fetch(`${doomed.base}/aspects?action=ingestProposalBatch`, { method: 'POST', headers: auth, body: JSON.stringify({ proposals: [
      proposal('datasetProperties', { description: 'wombatgrass survives' }),
      proposal('upstreamLineage', { upstreams: [{ dataset: ds('crash_source'), type: 'TRANSFORMED', auditStamp: { time: 0, actor: 'urn:li:corpuser:x' } }] }),
    ] }) });
    await assert.rejects(request, 'the server died before answering');
    assert.equal(await doomed.exited, 'SIGKILL');

    // What the dead server left: the write committed with its log entries, the indexes behind them.
    const store = await openStore(ctx.url);
    try {
      const latest = (await store.getLatest([DS])).get(DS)!;
      assert.deepEqual(latest.get('datasetProperties')!.value, { description: 'wombatgrass survives' });
      const head = await store.lastChangeSeq();
      const offsets = await store.consumerOffsets();
      assert.ok(offsets.get('search')! < head && offsets.get('relationships')! < head, `indexes behind the log: ${[...offsets]} < ${head}`);
      assert.equal((await store.searchDocs({ terms: ['wombatgrass'], where: { all: [] }, sort: { by: 'relevance' }, start: 0, count: 10 })).total, 0);
    } finally {
      await store.close();
    }

    const revived = await serve(ctx.url);
    try {
      const res = await fetch(`${revived.base}/api/graphql`, { method: 'POST', headers: auth, body: JSON.stringify({ query:
        `{ search(input: { type: DATASET, query: "wombatgrass" }) { total searchResults { entity { urn } } }
         victim: dataset(urn: "${DS}") {
           relationships(input: { types: ["DownstreamOf"], direction: OUTGOING }) { total relationships { type entity { urn } } } } }` }) });
      assert.deepEqual(await res.json(), { data: {
        search: { total: 1, searchResults: [{ entity: { urn: DS } }] },
        victim: { relationships: { total: 1, relationships: [{ type: 'DownstreamOf', entity: { urn: ds('crash_source') } }] } },
      }, extensions: {} });
    } finally {
      revived.child.kill('SIGTERM');
      await revived.exited;
    }
  });
});

/** What the derived indexes hold, read over a connection of their own, without internal ids. */
async function indexSnapshot(ctx: EngineContext): Promise<Record<string, unknown[]>> {
  const queries = {
    docs: 'SELECT urn, entity_type, removed, sort_name FROM almanac_search_docs ORDER BY urn',
    values: `SELECT d.urn, v.field, v.value, v.num FROM almanac_search_values v JOIN almanac_search_docs d ON d.id = v.doc_id
      ORDER BY d.urn, v.field, v.value`,
    counts: 'SELECT field, removed, entity_type, value, n FROM almanac_search_counts ORDER BY field, removed, entity_type, value',
    relationships: `SELECT source, type, destination, created_on, created_actor, updated_on, updated_actor, manual FROM almanac_relationships
      ORDER BY source, type, destination`,
  };
  const out: Record<string, unknown[]> = {};
  if (ctx.engine === 'sqlite') {
    const db = new Database(ctx.url.slice('sqlite:'.length), { readonly: true });
    try {
      for (const [k, q] of Object.entries(queries)) out[k] = db.prepare(q).all().map((r) => normalise(r as Record<string, unknown>));
    } finally {
      db.close();
    }
    return out;
  }
  const c = new pg.Client({ connectionString: ctx.url });
  await c.connect();
  try {
    for (const [k, q] of Object.entries(queries)) out[k] = (await c.query(q.replace(/ORDER BY (.*)$/s, (_m, cols: string) =>
      `ORDER BY ${cols.split(',').map((x) => `${x.trim()} COLLATE "C"`).join(', ')}`).replace(/(removed|n|num|created_on|updated_on|manual) COLLATE "C"/g, '$1')))
      .rows.map((r) => normalise(r));
  } finally {
    await c.end();
  }
  return out;
}

/** Booleans and numbers as both engines agree on them (SQLite has 0/1 for booleans; pg BIGINT as text). */
const normalise = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) =>
  [k, typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'string' && /^(n|created_on|updated_on)$/.test(k) ? Number(v) : v]));

forEachEngine('change log: almanac reindex', (ctx) => {
  sharedDatabase(ctx);
  let t: TestApp;
  before(async () => {
    t = await startApp(ctx);
    await ingestSamples(t.catalog, ...readdirSync(SAMPLES).filter((f) => f.endsWith('.json')));
    // The snapshots read the tables behind the catalog's back: the indexes apply the writes right after they answer.
    await t.catalog.changeLog.catchUpIndexes();
  });
  after(async () => t?.close());

  test('rebuilds both indexes from the aspects, online, to exactly what the writes built incrementally', async () => {
    const incremental = await indexSnapshot(ctx);
    assert.ok(incremental.docs!.length > 50 && incremental.relationships!.length > 20, 'samples indexed');
    const { store } = t.catalog;
    // Damage of every kind: documents and edges missing, and entries for an entity that does not exist.
    const some = (incremental.docs as { urn: string }[]).slice(0, 7).map((d) => d.urn);
    await store.deleteSearchDocs(some);
    const sources = [...new Set((incremental.relationships as { source: string }[]).map((r) => r.source))].slice(0, 5);
    await store.replaceRelationships(sources, []);
    const ghost = ds('ghost_never_stored');
    await store.upsertSearchDocs([{ urn: ghost, entityType: 'dataset', name: 'ghost', text: 'ghost', sortName: 'ghost', removed: false,
      values: [['platform', 'urn:li:dataPlatform:hive']] }]);
    await store.replaceRelationships([ghost], [{ source: ghost, type: 'DownstreamOf', destination: ds('anything') }]);
    assert.notDeepEqual(await indexSnapshot(ctx), incremental);

    const only = await runCli(['reindex', '--relationships'], { DATABASE_URL: ctx.url });
    assert.equal(only.code, 0, only.stderr);
    assert.match(only.stderr, /^Rebuilt the relationships index from \d+ entities in \d+ ms\n$/);
    const after = await indexSnapshot(ctx);
    assert.deepEqual(after.relationships, incremental.relationships);
    assert.notDeepEqual(after.docs, incremental.docs);

    const both = await runCli(['reindex'], { DATABASE_URL: ctx.url });
    assert.equal(both.code, 0, both.stderr);
    // Both in one pass over the entities.
    assert.match(both.stderr, /^Rebuilt the search and relationships indexes from \d+ entities in \d+ ms\n$/);
    assert.equal(Number(/from (\d+) entities/.exec(both.stderr)![1]), await store.countEntities(), 'every stored entity, once');
    assert.deepEqual(await indexSnapshot(ctx), incremental);
    // And the text index answers as before.
    const found = await t.graphql(`{ search(input: { type: DATASET, query: "*", count: 100 }) { total } }`);
    assert.equal(found.body.data.search.total, incremental.docs!.filter((d) => (d as { entity_type: string }).entity_type === 'dataset').length);
  });
});
