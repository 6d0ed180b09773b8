import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { catalogProposals, writeProposalFile, type Proposal } from '../bench/generate.js';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog, type OpenedCatalog as Catalog } from '../src/catalog.js';
import { ingestFiles } from '../src/services/ingest-files.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { deferredIndexes } from '../src/storage/deferred-indexes.js';
import { ASPECT_TABLE } from '../src/storage/schema.js';
import { PostgresStore } from '../src/storage/postgres.js';
import { OPTIMIZE_ALL_TABLES, plannedAnalyses } from '../src/storage/sqlite/planner-statistics.js';
import { SqliteStore } from '../src/storage/sqlite.js';
import { queryRows } from './support/db-dump.js';
import { forEachEngine, freshSharedDatabaseUrl } from './support/engines.js';

/**
 * The bulk path (`almanac ingest`, the scale benchmark: writes in large transactions, the derived indexes caught up
 * once at the end) leaves exactly what the incremental path (small batches, each indexed before the next) leaves:
 * the same aspects and history, search answers and facet counts, edges and change-log entries.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), 'almanac-bulk-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const open = (url: string) => openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3' }));

/**
 * A generated catalog, then a second round that changes some aspects several times (history beyond the cap of 3,
 * aspects written twice in one batch), sends others again unchanged with a new run (system metadata only) and adds
 * a record that is refused.
 */
function rounds(datasets: number): Proposal[] {
  const first = [...catalogProposals({ datasets })];
  const second: Proposal[] = [];
  for (const p of first) {
    if (p.entityType !== 'dataset') continue;
    if (p.aspectName === 'datasetProperties' && /t[0-9]*[02468],/.test(p.entityUrn)) {
      for (const k of [1, 2, 3, 4]) {
        const value = { ...JSON.parse(p.aspect.value), description: `version ${k} of ${p.entityUrn}` };
        second.push({ ...p, aspect: { ...p.aspect, value: JSON.stringify(value) } });
      }
    }
    if (p.aspectName === 'globalTags') second.push({ ...p, systemMetadata: { ...p.systemMetadata, runId: 'second-run' } });
    if (p.aspectName === 'upstreamLineage' && p.entityUrn.includes('t1')) {
      second.push({ ...p, aspect: { ...p.aspect, value: JSON.stringify({ upstreams: [] }) } });
    }
  }
  return [...first, ...second];
}

/** A proposal the catalog refuses (an aspect dataset does not have). */
const bad: Proposal = { entityType: 'dataset', entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,bad,PROD)', changeType: 'UPSERT',
  aspectName: 'chartInfo', aspect: { value: '{}', contentType: 'application/json' }, systemMetadata: { lastObserved: 0, runId: 'x' } };

/** Small batches, each indexed before the next (what single writes and small REST batches do). */
async function incremental(c: Catalog, proposals: readonly Proposal[], size = 7): Promise<void> {
  for (let i = 0; i < proposals.length; i += size) {
    const batch = proposals.slice(i, i + size).filter((p) => p !== bad);
    await c.entities.ingest(batch.map(changeFromProposal), systemActor());
  }
}

/** Everything the catalog answers about its content, without the times and offsets that differ from run to run. */
async function state(c: Catalog) {
  const store = c.store;
  const urns = (await store.listEntities({ count: 100_000 })).map((e) => e.urn).sort();
  const latest = await store.getLatest(urns);
  const aspects: unknown[] = [];
  for (const urn of urns) {
    for (const [aspect, r] of [...latest.get(urn)!].sort(([a], [b]) => a.localeCompare(b))) {
      const versions = (await store.listVersions(urn, aspect)).map((v) => [v.version, v.revision, v.value, v.systemMetadata, v.createdBy]);
      aspects.push([urn, aspect, r.revision, r.value, r.systemMetadata, versions]);
    }
  }
  const edges: unknown[] = [];
  for (const urn of urns) {
    for (const direction of ['OUTGOING', 'INCOMING'] as const) {
      const r = await store.relationships({ urn, direction, start: 0, count: 10_000 });
      edges.push([urn, direction, r.total, r.edges.map((e) => [e.source, e.type, e.destination]).sort()]);
    }
  }
  const searches: unknown[] = [];
  for (const query of ['*', 'orders', 'customer id', 'Identifies', 't3', 'version 2']) {
    const r = await c.search.search({ query, count: 10_000 });
    searches.push([query, r.total, [...r.urns].sort(), r.facets]);
  }
  const log = (await store.changesAfter(0, 1_000_000, true))
    .map((e) => JSON.stringify([e.urn, e.entityType, e.aspect, e.changeType, e.revision, e.valueJson, e.previousValueJson, e.systemMetadata,
      e.previousSystemMetadata, e.actor]))
    .sort();
  const offsets = await store.consumerOffsets();
  const head = await store.lastChangeSeq();
  // The filter values as stored (SQLite: the numbered terms themselves, a term no document holds included; PostgreSQL
  // keeps such terms: the terms documents hold).
  const url = c.config.databaseUrl;
  const values = await queryRows(url, url.startsWith('sqlite:') ? `SELECT field, value FROM almanac_search_terms ORDER BY 1, 2`
    : `SELECT DISTINCT field, value FROM almanac_search_values ORDER BY 1, 2`);
  const pairs = await queryRows(url, `SELECT COUNT(*) FROM almanac_search_values`);
  return withoutNow({ aspects, edges, searches, log, values, pairs: Number(pairs[0]![0]),
    indexed: ['search', 'relationships'].map((n) => offsets.get(n) === head) });
}

/** Times of the runs (defaults such as `lastObserved`, the built-in entities' stamps) as 0: each run has its own. */
function withoutNow<T>(x: T): T {
  const now = Date.now();
  return JSON.parse(JSON.stringify(x).replace(/\b\d{13}\b/g, (t) => (Math.abs(Number(t) - now) < 86_400_000 ? '0' : t))) as T;
}

/** The names of the database's indexes, read over a connection of its own. */
async function indexNames(url: string): Promise<string[]> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length), { readonly: true });
    try {
      return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name`).pluck().all() as string[]);
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(`SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY indexname`)).rows.map((r) => r.indexname as string);
  } finally {
    await c.end();
  }
}

/** A query's rows on PostgreSQL, over a connection of its own. */
async function pgRows(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/** The full-text index's pending-terms buffer as its config table holds it (SQLite), over a connection of its own. */
async function ftsHashSize(url: string): Promise<unknown[]> {
  return (await rowsOf(url, `SELECT v FROM almanac_search_fts_config WHERE k = 'hashsize'`)).map((r) => r.v);
}

/** A query's rows, over a connection of its own (either engine). */
async function rowsOf(url: string, sql: string): Promise<Record<string, unknown>[]> {
  if (!url.startsWith('sqlite:')) return pgRows(url, sql);
  const db = new Database(url.slice('sqlite:'.length), { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/**
 * The stored rows of the aspect table as the database holds them (values in their stored form, compressed or not),
 * without their write times: read over a connection of its own.
 */
async function aspectRows(url: string): Promise<unknown[]> {
  const sql = `SELECT urn, aspect, version, metadata, systemmetadata, createdby, revision FROM ${ASPECT_TABLE} ORDER BY urn, aspect, version`;
  const rows = await queryRows(url, sql);
  return withoutNow(rows.map((r) => r.map((v) => (Buffer.isBuffer(v) ? `bytes:${v.toString('hex')}` : typeof v === 'object' && v !== null ? JSON.stringify(v) : v))));
}

forEachEngine('bulk load', (ctx) => {
  const dbs: (() => Promise<void>)[] = [];
  const fresh = async () => {
    const db = await freshSharedDatabaseUrl(ctx.engine);
    dbs.push(db.cleanup);
    return db.url;
  };
  after(async () => { for (const d of dbs) await d(); });

  let proposals: Proposal[];
  let file: string;
  let expected: Awaited<ReturnType<typeof state>>;
  before(async () => {
    proposals = rounds(40);
    // The bad record in the middle: refused alone, the rest written.
    proposals.splice(Math.floor(proposals.length / 2), 0, bad);
    file = path.join(dir, `catalog-${ctx.engine}.json`);
    await writeProposalFile(file, proposals);
    const c = await open(await fresh());
    try {
      await incremental(c, proposals);
      expected = await state(c);
    } finally {
      await c.close();
    }
  });

  test('a file ingested by the bulk path leaves what small indexed batches leave; a bad record is refused alone', async () => {
    const c = await open(await fresh());
    try {
      const summary = await ingestFiles(c.entities, [file], systemActor());
      assert.deepEqual(summary.failures, [{ file, index: proposals.indexOf(bad), urn: bad.entityUrn, kind: 'invalid',
        reason: "Aspect 'chartInfo' is not an aspect of entity type 'dataset'" }]);
      assert.equal(summary.records, proposals.length);
      // Indexed when the call returns (read-your-writes), and equal to the incremental path in every respect.
      const got = await state(c);
      assert.deepEqual(got.indexed, [true, true]);
      assert.deepEqual(got, expected);
    } finally {
      await c.close();
    }
  });

  test('computed in a worker thread one step ahead of the applies, in small steps, the bulk path leaves the same', async () => {
    // No timed index step (the one the catalog's own bootstrap writes schedule) takes the load's entries before its
    // catch-up does: all of them are left to the bulk path.
    const c = await openCatalog(loadConfig({ DATABASE_URL: await fresh(), LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3',
      ALMANAC_INDEX_DELAY_MS: '60000' }));
    try {
      // Steps of 97 entries: entities whose entries fall in two steps, steps whose consumers start from different offsets.
      Object.assign(c.changeLog.bulk, { step: 97, workerFrom: 0 });
      await ingestFiles(c.entities, [file], systemActor());
      // About 1,100 entries are left to the catch-up: a dozen steps of 97.
      assert.ok(c.changeLog.bulk.workerSteps >= 10, `the worker computed the steps (${c.changeLog.bulk.workerSteps})`);
      assert.deepEqual(await state(c), expected);
    } finally {
      await c.close();
    }
  });

  test('decoded in worker threads, values handed over as text, the bulk path stores the same bytes as decoding here', async () => {
    const here = await fresh();
    const workers = await fresh();
    for (const [url, decodeInWorkersFrom] of [[here, Infinity], [workers, 0]] as const) {
      const c = await open(url);
      try {
        // (On by default on SQLite only: asked for here on either engine.)
        c.entities.decodeInWorkers = decodeInWorkersFrom === 0;
        const summary = await ingestFiles(c.entities, [file], systemActor(), undefined, undefined, decodeInWorkersFrom);
        assert.equal(summary.failures.length, 1, JSON.stringify(summary.failures));
        assert.deepEqual(await state(c), expected);
      } finally {
        await c.close();
      }
    }
    // The file's entities (the catalog's own, written when it opens, hold the time they were written in their values).
    const loaded = new Set(proposals.map((p) => p.entityUrn));
    const rowsOf = async (url: string) => (await aspectRows(url)).filter((r) => loaded.has((r as string[])[0]!));
    const rows = await rowsOf(here);
    assert.ok(rows.length > proposals.length / 2, `the aspect rows compared (${rows.length})`);
    if (ctx.engine === 'sqlite') assert.ok(rows.some((r) => String((r as unknown[])[3]).startsWith('bytes:')), 'compressed values compared too');
    assert.deepEqual(await rowsOf(workers), rows);
  });

  test('the expected state is what the aspects say: one edge per upstream left, every searchable entity found', async () => {
    const lineage = expected.aspects.filter((a) => (a as unknown[])[1] === 'upstreamLineage')
      .map((a) => ((a as unknown[])[3] as { upstreams: unknown[] }).upstreams.length).reduce((x, y) => x + y, 0);
    const downstreamOf = expected.edges.filter((e) => (e as unknown[])[1] === 'OUTGOING')
      .flatMap((e) => (e as [string, string, number, string[][]])[3]).filter((e) => e[1] === 'DownstreamOf').length;
    assert.ok(lineage > 10, `the catalog has lineage to compare (${lineage} upstreams)`);
    assert.equal(downstreamOf, lineage);
    const datasets = new Set(expected.aspects.map((a) => (a as string[])[0]!).filter((u) => u.startsWith('urn:li:dataset:')));
    const everything = expected.searches[0] as [string, number, string[]];
    assert.deepEqual(everything[2].filter((u) => u.startsWith('urn:li:dataset:')), [...datasets].sort());
  });

  test('a bulk load that stops before its indexes catch up loses no acknowledged write; the next start indexes it from the log', async () => {
    const url = await fresh();
    const c = await open(url);
    const kept = proposals.filter((p) => p !== bad);
    try {
      // Written and acknowledged batch by batch, the indexes left to an end that never comes.
      for (let i = 0; i < kept.length; i += 500) {
        await c.entities.ingest(kept.slice(i, i + 500).map(changeFromProposal), systemActor(), { indexLater: true });
      }
      const offsets = await c.store.consumerOffsets();
      assert.ok(offsets.get('search')! < await c.store.lastChangeSeq(), 'the indexes are behind the log');
    } finally {
      await c.store.close(); // as a crash leaves it: nothing more runs
    }
    const revived = await open(url);
    try {
      assert.deepEqual(await state(revived), expected);
    } finally {
      await revived.close();
    }
  });

  test('a large catch-up builds its secondary indexes at the end; a crash before that has them built at the next start', async () => {
    const url = await fresh();
    const c = await open(url);
    const all = await indexNames(url);
    const deferred = deferredIndexes(ctx.engine);
    assert.deepEqual(deferred.filter((n) => !all.includes(n)), [], 'every deferred index exists in a new database');
    try {
      for (let i = 0; i < proposals.length; i += 500) {
        await c.entities.ingest(proposals.slice(i, i + 500).filter((p) => p !== bad).map(changeFromProposal), systemActor(), { indexLater: true });
      }
      // Not worth it for a small backlog, nor when the index holds most of what the backlog would add.
      assert.equal(await c.store.deferIndexes!(49_999), null);
      const restore = await c.store.deferIndexes!(1_000_000);
      assert.ok(restore, 'a backlog of a million entries over a few hundred documents is worth deferring');
      // PostgreSQL: the key of the words goes too, the words found by document meanwhile through a stand-in.
      const keys = ctx.engine === 'postgres' ? ['almanac_search_words_pkey'] : [];
      const standIns = ctx.engine === 'postgres' ? ['almanac_search_words_bulk_doc'] : [];
      assert.deepEqual((await indexNames(url)).sort(), [...all.filter((n) => !deferred.includes(n) && !keys.includes(n)), ...standIns].sort());
      if (ctx.engine === 'sqlite') assert.deepEqual(await ftsHashSize(url), [64 * 1024 * 1024], 'the full-text buffer of a bulk catch-up');
      await c.changeLog.catchUpIndexes(10_000);
    } finally {
      await c.store.close(); // dies before building them
    }
    if (ctx.engine === 'postgres') {
      // Built at the end, the derived tables are vacuumed: every page of theirs all-visible, for index-only scans.
      const again = await open(url);
      try {
        const restore = await again.store.deferIndexes!(1_000_000);
        assert.ok(restore, 'deferred again');
        await again.changeLog.catchUpIndexes(10_000);
        // The keys the load filled in its input's order are rebuilt (concurrently: new indexes under the same names).
        const keys = `SELECT relname, oid::int AS oid FROM pg_class WHERE relname IN ('metadata_aspect_v2_pkey', 'almanac_entities_pkey',
          'almanac_entities_type', 'almanac_search_docs_urn_key') ORDER BY relname`;
        const before = await pgRows(url, keys);
        await restore();
        const rebuilt = await pgRows(url, keys);
        assert.deepEqual(rebuilt.map((r) => r.relname), before.map((r) => r.relname));
        assert.equal(before.length, 4);
        rebuilt.forEach((r, i) => assert.notEqual(r.oid, before[i]!.oid, `${String(r.relname)} rebuilt`));
        assert.deepEqual(await pgRows(url, `SELECT indexrelid::regclass::text AS i FROM pg_index WHERE NOT indisvalid`), []);
        const pages = await pgRows(url, `SELECT relname, relpages > 0 AS filled, relallvisible = relpages AS visible FROM pg_class
          WHERE relname IN ('almanac_search_words', 'almanac_search_term_docs', 'almanac_edges') ORDER BY relname`);
        assert.deepEqual(pages, ['almanac_edges', 'almanac_search_term_docs', 'almanac_search_words']
          .map((relname) => ({ relname, filled: true, visible: true })));
      } finally {
        await again.store.close();
      }
    }
    if (ctx.engine === 'postgres') {
      // What a rebuild stopped midway leaves: an invalid copy of the index, dropped at the next start.
      await pgRows(url, `CREATE INDEX metadata_aspect_v2_pkey_ccnew ON metadata_aspect_v2 (urn, aspect, version)`);
      await pgRows(url, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'metadata_aspect_v2_pkey_ccnew'::regclass`);
    }
    const revived = await open(url);
    try {
      assert.deepEqual(await indexNames(url), all);
      if (ctx.engine === 'postgres') {
        // The keys are primary keys again, not only unique indexes.
        assert.deepEqual(await pgRows(url, `SELECT conrelid::regclass::text AS t, pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE contype = 'p' AND conrelid IN ('almanac_search_words'::regclass, 'almanac_search_term_docs'::regclass) ORDER BY 1`),
        [{ t: 'almanac_search_term_docs', def: 'PRIMARY KEY (doc_id, term)' }, { t: 'almanac_search_words', def: 'PRIMARY KEY (word, doc_id)' }]);
      }
      if (ctx.engine === 'sqlite') assert.deepEqual(await ftsHashSize(url), [1024 * 1024], 'the usual full-text buffer, put back');
      assert.deepEqual(await state(revived), expected);
    } finally {
      await revived.close();
    }
  });

  if (ctx.engine === 'sqlite') {
    test('the full-text index reaches its pages by rowid range: on a new database, after a bulk load, and on one whose statistics call the table tiny', async () => {
      // FTS5 drops a merged segment's pages with a rowid range; planned as a scan, every merge read the whole index.
      const pagesPlan = async () => ({
        plan: (await rowsOf(url, 'EXPLAIN QUERY PLAN SELECT block FROM almanac_search_fts_data WHERE id >= 1 AND id <= 2')).map((r) => r.detail),
        stat: (await rowsOf(url, `SELECT stat FROM sqlite_stat1 WHERE tbl = 'almanac_search_fts_data'`)).map((r) => r.stat),
      });
      const plan = ['SEARCH almanac_search_fts_data USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)'];
      // No figure gathered (the planner then takes the table as large), or the one set over what an older version gathered.
      const byRange = { plan, stat: [] };
      const byRangeMended = { plan, stat: ['1000000'] };
      const url = await fresh();
      let c = await open(url);
      try {
        assert.deepEqual(await pagesPlan(), byRange, 'a new database');
        for (let i = 0; i < proposals.length; i += 500) {
          await c.entities.ingest(proposals.slice(i, i + 500).filter((p) => p !== bad).map(changeFromProposal), systemActor(), { indexLater: true });
        }
        // As a large load does: its indexes dropped, built again at its end (which gathers the statistics).
        const restore = await c.store.deferIndexes!(1_000_000);
        assert.ok(restore, 'the indexes dropped for a large backlog');
        await c.entities.committed({ bulk: true });
        await restore();
        assert.deepEqual(await pagesPlan(), byRange, 'after a bulk load, whose end gathers statistics again');
        // What the next start's open would gather (optimize over every table): nothing, the load's end gathered it all.
        // At a million datasets the first start after a load spent 3.2 s there, 2.5 of them reading the whole
        // full-text page table, which optimize itself would choose (its figure is set, not gathered).
        const stats = new Database(url.slice('sqlite:'.length));
        try {
          assert.deepEqual(plannedAnalyses(stats, OPTIMIZE_ALL_TABLES), [], 'nothing left for the next start');
          assert.ok((stats.pragma(`optimize = ${OPTIMIZE_ALL_TABLES | 1}`) as { optimize: string }[]).some((r) => r.optimize.includes('almanac_search_fts_data')),
            'SQLite\'s own choice would read the page table again');
        } finally {
          stats.close();
        }
      } finally {
        await c.close();
      }
      // As ANALYZE left every database an earlier version made: the table as it was when new, two rows.
      const db = new Database(url.slice('sqlite:'.length));
      db.prepare(`DELETE FROM sqlite_stat1 WHERE tbl = 'almanac_search_fts_data'`).run();
      db.prepare(`INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES ('almanac_search_fts_data', NULL, '2')`).run();
      db.close();
      assert.deepEqual((await pagesPlan()).plan, ['SCAN almanac_search_fts_data'], 'what a tiny figure plans');
      c = await open(url);
      try {
        assert.deepEqual(await pagesPlan(), byRangeMended, 'an earlier database, at its next start');
        assert.deepEqual(await state(c), expected);
      } finally {
        await c.close();
      }
    });
  }

  for (const worker of [false, true]) {
    test(`indexed in key order, a few entities a page${worker ? ' computed in a worker thread' : ''}, the bulk path leaves the same and numbers new documents in key order`, async () => {
      const url = await fresh();
      const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3', ALMANAC_INDEX_DELAY_MS: '60000' }));
      try {
        // Pages of 7 entities: a page holds entities some of whose entries came before others' (the log's order is not
        // the key's). Log-order steps of 97 entries would number the documents step by step instead.
        Object.assign(c.changeLog.bulk, { keyOrder: 'always', scanPage: 7, step: 97, workerFrom: worker ? 0 : Infinity });
        await ingestFiles(c.entities, [file], systemActor());
        if (worker) assert.ok(c.changeLog.bulk.workerSteps >= 10, `the worker computed the pages (${c.changeLog.bulk.workerSteps})`);
        assert.deepEqual(await state(c), expected);
        // Every dataset is new to the index: numbered in the order the scan visits them, the store's key order.
        const datasets = (await c.store.listEntities({ count: 100_000 })).map((e) => e.urn).filter((u) => u.startsWith('urn:li:dataset:'));
        const numbered = (await rowsOf(url, `SELECT urn FROM almanac_search_docs WHERE urn LIKE 'urn:li:dataset:%' ORDER BY id`)).map((r) => r.urn);
        assert.ok(datasets.length > 30, `datasets loaded (${datasets.length})`);
        assert.deepEqual(numbered, datasets);
      } finally {
        await c.close();
      }
    });
  }

  test('with its indexes deferred (as for most of a catalog), a key-order catch-up leaves the same and builds them again', async () => {
    const url = await fresh();
    const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3', ALMANAC_INDEX_DELAY_MS: '60000' }));
    const all = await indexNames(url);
    try {
      Object.assign(c.changeLog.bulk, { keyOrder: 'when-deferred', scanPage: 7, workerFrom: Infinity });
      // The load's backlog taken for a million entries: worth deferring the indexes, so the catch-up runs in key order
      // without them (PostgreSQL: without the words' and values' keys too). (Set on the store itself, before the
      // catalog's wrappers first read the method; the engine's own method from its class.)
      const store = c.store as unknown as { deferIndexes: (backlog: number) => Promise<(() => Promise<void>) | null> };
      const defer = (ctx.engine === 'sqlite' ? SqliteStore.prototype : PostgresStore.prototype).deferIndexes;
      const seen: string[][] = [];
      store.deferIndexes = async () => {
        const restore = await defer.call(c.store as SqliteStore & PostgresStore, 1_000_000);
        seen.push(await indexNames(url));
        return restore;
      };
      await ingestFiles(c.entities, [file], systemActor());
      assert.equal(seen.length, 1, 'the catch-up deferred its indexes');
      assert.ok(!seen[0]!.includes(deferredIndexes(ctx.engine)[0]!), `dropped during the catch-up (${seen[0]!.join(', ')})`);
      assert.deepEqual(await state(c), expected);
      assert.deepEqual(await indexNames(url), all);
    } finally {
      await c.close();
    }
  });

  test('a key-order catch-up that fails midway leaves the offsets where they were; the next start finishes it from the log', async () => {
    const url = await fresh();
    const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3', ALMANAC_INDEX_DELAY_MS: '60000' }));
    try {
      Object.assign(c.changeLog.bulk, { keyOrder: 'always', scanPage: 7, workerFrom: Infinity });
      const kept = proposals.filter((p) => p !== bad);
      for (let i = 0; i < kept.length; i += 500) {
        await c.entities.ingest(kept.slice(i, i + 500).map(changeFromProposal), systemActor(), { indexLater: true });
      }
      const before = await c.store.consumerOffsets();
      // (Counted over a connection of its own: a read of the index through the catalog would first catch it up.)
      const documents = async () => Number((await rowsOf(url, 'SELECT COUNT(*) AS n FROM almanac_search_docs'))[0]!.n);
      const indexed = await documents();
      // The search index's computation fails at the fourth page, after three pages were written.
      const search = c.changeLog.consumers.get('search')!;
      const compute = search.compute;
      let pages = 0;
      Object.defineProperty(search, 'compute', { value: async (...args: Parameters<typeof compute>) => {
        if (++pages === 4) throw new Error('failed on purpose');
        return compute(...args);
      } });
      await assert.rejects(c.entities.committed({ bulk: true }), /failed on purpose/);
      assert.ok(await documents() > indexed, 'some pages were written');
      assert.deepEqual(await c.store.consumerOffsets(), before);
    } finally {
      await c.store.close(); // as a crash leaves it: nothing more runs
    }
    const revived = await open(url);
    try {
      assert.deepEqual(await state(revived), expected);
    } finally {
      await revived.close();
    }
  });
});

test('SQLite: a bulk catch-up runs with the bulk page cache, set back to the usual one after it, even when it fails', async () => {
  const file = path.join(dir, 'bulk-cache.db');
  const c = await openCatalog(loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent', ALMANAC_SQLITE_CACHE_MB: '8',
    ALMANAC_SQLITE_BULK_CACHE_MB: '40' }));
  try {
    // The setting of the store's own connection (a private field, read through the store the catalog holds).
    const cacheKib = () => -((c.store as unknown as { db: Database.Database }).db.pragma('cache_size', { simple: true }) as number);
    assert.equal(cacheKib(), 8 * 1024, 'the usual cache before');
    const seen: number[] = [];
    let fail = false;
    // Called inside the catch-up, with the bulk cache set: what it sees is the catch-up's. (Set on the store itself
    // before the catalog's wrappers first read the method.)
    const defer = SqliteStore.prototype.deferIndexes;
    (c.store as unknown as { deferIndexes: typeof defer }).deferIndexes = async function (this: SqliteStore, backlog) {
      seen.push(cacheKib());
      if (fail) throw new Error('failed on purpose');
      return defer.call(this, backlog);
    };
    const batch = [...catalogProposals({ datasets: 5 })].map(changeFromProposal);
    await c.entities.ingest(batch, systemActor(), { indexLater: true });
    await c.entities.committed({ bulk: true });
    assert.deepEqual(seen, [40 * 1024], 'the bulk cache during the catch-up');
    assert.equal(cacheKib(), 8 * 1024, 'the usual cache after');
    fail = true;
    await c.entities.ingest(batch, systemActor(), { indexLater: true });
    await assert.rejects(c.entities.committed({ bulk: true }), /failed on purpose/);
    assert.deepEqual(seen, [40 * 1024, 40 * 1024], 'the bulk cache during the failed catch-up');
    assert.equal(cacheKib(), 8 * 1024, 'the usual cache after a failed catch-up');
  } finally {
    await c.close();
  }
});

test('SQLite: a usual page cache larger than the bulk one is left as it is', async () => {
  const c = await openCatalog(loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'large-cache.db')}`, LOG_LEVEL: 'silent',
    ALMANAC_SQLITE_CACHE_MB: '64', ALMANAC_SQLITE_BULK_CACHE_MB: '40' }));
  try {
    const cacheKib = () => -((c.store as unknown as { db: Database.Database }).db.pragma('cache_size', { simple: true }) as number);
    const restore = c.store.bulkPageCache!();
    assert.equal(cacheKib(), 64 * 1024, 'the usual cache during the catch-up');
    restore();
    assert.equal(cacheKib(), 64 * 1024, 'the usual cache after it');
  } finally {
    await c.close();
  }
});
