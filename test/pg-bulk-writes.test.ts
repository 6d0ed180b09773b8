import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import pg from 'pg';
import { catalogProposals, type Proposal } from '../bench/generate.js';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { COPY_FROM_ROWS, copyField } from '../src/storage/postgres/copy.js';
import { ASPECT_TABLE } from '../src/storage/schema.js';
import { queryRows } from './support/db-dump.js';
import { forEachEngine, freshDatabaseUrl, PG_ADMIN_URL } from './support/engines.js';

/**
 * PostgreSQL's bulk writes: a large batch's new aspect rows and log entries go by COPY (src/storage/postgres/copy.ts)
 * and are stored exactly as the statements of small batches store them; the large values' columns are LZ4-compressed.
 */

/** Times of a run (write times, `lastObserved` defaults) as 0: each run has its own. */
function withoutNow<T>(x: T): T {
  const now = Date.now();
  return JSON.parse(JSON.stringify(x).replace(/\b\d{13}\b/g, (t) => (Math.abs(Number(t) - now) < 86_400_000 ? '0' : t))) as T;
}

/** Text that COPY's format must escape (tab, line feed, carriage return, backslash) and some that it must not. */
const AWKWARD = 'tab\there, lines\nand\r\nreturns, back\\slash \\N, "quotes" \'single\', \\\\t, ünïcödé ✓ 🐘, NULL';

forEachEngine('bulk writes', (ctx) => {
  const dbs: (() => Promise<void>)[] = [];
  after(async () => { for (const d of dbs) await d(); });
  const fresh = async () => {
    const db = await freshDatabaseUrl(ctx.engine);
    dbs.push(db.cleanup);
    return db.url;
  };

  if (ctx.engine === 'postgres') {
    test('entities are listed page by page in byte order, none skipped, whatever the database compares text by (ICU en-US)', async () => {
      // A key-order catch-up (and a reindex, an export) reads the entities a page after the last urn of the page before.
      const name = `almanac_t_icu_${process.pid}`;
      const admin = async (sql: string) => {
        const a = new pg.Client({ connectionString: PG_ADMIN_URL });
        await a.connect();
        try { await a.query(sql); } finally { await a.end(); }
      };
      await admin(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'`);
      dbs.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      const u = new URL(PG_ADMIN_URL);
      u.pathname = `/${name}`;
      const c = await openCatalog(loadConfig({ DATABASE_URL: u.toString(), LOG_LEVEL: 'silent' }));
      try {
        const names = ['a_b', 'a-b', 'A', 'b', 'aa', 'a.b', 'Z', 'é', 'e', 'a(b)', 'a,b', 'B2', 'b1'];
        await c.entities.ingest(names.map((n) => changeFromProposal({ entityType: 'corpuser', entityUrn: `urn:li:corpuser:${n}`, changeType: 'UPSERT',
          aspectName: 'corpUserInfo', aspect: { value: JSON.stringify({ active: true }), contentType: 'application/json' } })), systemActor());
        const all = (await c.store.listEntities({ count: 10_000 })).map((e) => e.urn);
        const paged: string[] = [];
        for (let page = await c.store.listEntities({ count: 2 }); page.length; page = await c.store.listEntities({ after: paged.at(-1), count: 2 })) {
          paged.push(...page.map((e) => e.urn));
        }
        assert.deepEqual(paged, all);
        // Byte order (UTF-8's is code point order; these are all in the Basic Multilingual Plane, where UTF-16's agrees).
        assert.deepEqual(all, [...all].sort());
        assert.deepEqual(all.filter((x) => x.startsWith('urn:li:corpuser:')), names.map((n) => `urn:li:corpuser:${n}`).sort());
      } finally {
        await c.close();
      }
    });

    test('the large values are compressed with LZ4 (migration 20)', async () => {
      const c = await openCatalog(loadConfig({ DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' }));
      await c.close();
      assert.deepEqual(await queryRows(ctx.url, `SELECT attrelid::regclass::text, attname FROM pg_attribute WHERE attcompression = 'l' ORDER BY 1, 2`), [
        ['almanac_change_log', 'previous_system_metadata'], ['almanac_change_log', 'previous_value'], ['almanac_change_log', 'system_metadata'],
        ['almanac_change_log', 'value'], ['almanac_search_text', 'tsv'], [ASPECT_TABLE, 'metadata'], [ASPECT_TABLE, 'systemmetadata'],
      ]);
    });

    test('COPY text: tabs, line ends and backslashes escaped, NULL as \\N, everything else as it is', () => {
      assert.equal(copyField(null), '\\N');
      assert.equal(copyField(42), '42');
      assert.equal(copyField('{"a":"b"}'), '{"a":"b"}');
      assert.equal(copyField(AWKWARD), AWKWARD.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r'));
    });

    test('a large batch goes by COPY and stores exactly what small batches store: aspects, history, log entries', async () => {
      // Some aspects stored before the batch (their new versions take the statement's path, their old ones go to
      // history), the rest new; some written twice in the batch; values with text COPY must escape.
      const all = [...catalogProposals({ datasets: 30 })];
      const awkward = (p: Proposal, k: number): Proposal => {
        if (p.aspectName !== 'datasetProperties') return p;
        return { ...p, aspect: { ...p.aspect, value: JSON.stringify({ ...JSON.parse(p.aspect.value), description: `${AWKWARD} ${k}` }) } };
      };
      const before = all.slice(0, 60);
      const batch = [...all.map((p) => awkward(p, 1)), ...all.filter((p) => p.aspectName === 'datasetProperties').map((p) => awkward(p, 2))];
      const copies: string[] = [];
      const query = pg.Client.prototype.query;
      const stateAfter = async (size: number) => {
        const url = await fresh();
        const c = await openCatalog(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', ALMANAC_HISTORY_CAP: '3' }));
        try {
          await c.entities.ingest(before.map(changeFromProposal), systemActor());
          copies.length = 0;
          for (let i = 0; i < batch.length; i += size) await c.entities.ingest(batch.slice(i, i + size).map(changeFromProposal), systemActor());
        } finally {
          await c.close();
        }
        return withoutNow({
          aspects: await queryRows(url, `SELECT urn, aspect, version, metadata, systemmetadata, createdby, revision FROM ${ASPECT_TABLE}
            ORDER BY urn, aspect, version`),
          log: await queryRows(url, `SELECT urn, entity_type, aspect, change_type, value, previous_value, system_metadata, previous_system_metadata,
            actor, revision FROM almanac_change_log ORDER BY urn, aspect, revision, seq`),
        });
      };
      // The COPY statements the driver is given (every connection of the store is one of its Clients).
      (pg.Client.prototype as { query: unknown }).query = function (this: pg.Client, q: unknown, ...rest: unknown[]) {
        const text = (q as { text?: unknown } | null)?.text;
        if (typeof text === 'string' && text.startsWith('COPY ')) copies.push(text.split(' (')[0]!);
        return (query as (...a: unknown[]) => unknown).call(this, q, ...rest);
      };
      try {
        const small = await stateAfter(7);
        assert.deepEqual(copies, [], 'small batches are written by statements');
        assert.ok(batch.length >= COPY_FROM_ROWS, `a batch large enough for COPY (${batch.length})`);
        const large = await stateAfter(batch.length);
        assert.deepEqual(copies, [`COPY ${ASPECT_TABLE}`, 'COPY almanac_change_log'], 'the large batch is written by COPY');
        assert.ok(large.aspects.some((r) => String(r[3]).includes(JSON.stringify(`${AWKWARD} 2`).slice(1, -1))), 'the awkward text is stored');
        assert.ok(large.aspects.some((r) => Number(r[2]) > 0), 'history rows compared');
        assert.deepEqual(large, small);
      } finally {
        pg.Client.prototype.query = query;
      }
    });
  }
});
