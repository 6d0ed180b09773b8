import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { ChangeLogService } from '../src/changelog/service.js';
import { changeFromProposal, type ChangeItem } from '../src/services/ingest-format.js';
import { RecordDecoders } from '../src/services/record-decoding.js';
import { batches, generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';
import { decodedItems } from './support.js';
import { ASPECT_TABLE } from '../src/storage/schema.js';
import { CHANGE_LOG_TABLE } from '../src/storage/change-log.js';

/**
 * PostgreSQL's bulk load measured in its two phases, with the CPU of this process and of PostgreSQL's processes (its
 * backends serving this database, and its shared writers: WAL writer, checkpointer, background writer) read from /proc:
 *   node --import tsx bench/pg-load.ts writes <datasets> [<template name>]   the load's writes (indexLater, as bench/scale.ts
 *       loads: decoded in a worker thread, 2,000 records a batch) into a new database, kept as `almanac_bench_<name>` when named
 *   node --import tsx bench/pg-load.ts index <template name>   the catch-up at a load's end, over a copy of that database
 *       (CREATE DATABASE ... TEMPLATE); BULK_KEY_ORDER=1|0 sets the catalog's key order on or off for an A/B
 *   node --import tsx bench/pg-load.ts drop <template name>
 * Each prints one JSON line. Databases are named almanac_bench_*; the copies are dropped after each run.
 * ALMANAC_BENCH_PG_URL: the server's admin URL (default postgres://postgres@127.0.0.1:5432/postgres).
 */
const ADMIN = process.env.ALMANAC_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const [mode, a, b] = process.argv.slice(2);

const urlOf = (db: string) => {
  const u = new URL(ADMIN);
  u.pathname = `/${db}`;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: ADMIN });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * BENCH_PG_SET='name=value;...': settings of the run's database (an experiment's, e.g. default_toast_compression=lz4,
 * or log_min_duration_statement=100 to find the long statements in the server's log).
 */
async function settingsOf(c: pg.Client, db: string): Promise<void> {
  for (const kv of (process.env.BENCH_PG_SET ?? '').split(';').filter(Boolean)) {
    const [k, v] = kv.split('=');
    await c.query(`ALTER DATABASE ${db} SET ${k} = '${v}'`);
  }
}

/** CPU seconds (user + system) of a process, or null once it is gone. */
function cpuOf(pid: number, mainThread = false): number | null {
  try {
    const f = readFileSync(mainThread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

/** PostgreSQL's shared background processes (by their titles): what every database's writes cost them. */
function sharedPostgresPids(): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (/^postgres: .*(walwriter|checkpointer|background writer)/.test(cmd)) out.push(Number(d));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * The CPU this database's backends use from now on (polled: a backend that ends between polls loses its last part),
 * and the shared processes', and the WAL written.
 */
async function postgresMeter(db: string) {
  const backends = new Map<number, { first: number; last: number }>();
  const watcher = new pg.Client({ connectionString: ADMIN });
  await watcher.connect();
  const watcherPid = (await watcher.query('SELECT pg_backend_pid() AS p')).rows[0].p as number;
  const poll = async () => {
    const { rows } = await watcher.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [db]);
    for (const r of rows) {
      const pid = r.pid as number;
      if (pid === watcherPid) continue;
      const cpu = cpuOf(pid);
      if (cpu === null) continue;
      const seen = backends.get(pid);
      // A backend first seen now started after the meter: its CPU so far counts (a connection's start is cheap).
      if (seen) seen.last = cpu; else backends.set(pid, { first: started ? cpu : 0, last: cpu });
    }
  };
  let started = false;
  await poll();
  for (const s of backends.values()) s.first = s.last;
  started = true;
  const shared = sharedPostgresPids().map((pid) => [pid, cpuOf(pid) ?? 0] as const);
  const wal0 = (await watcher.query('SELECT pg_current_wal_lsn() AS l')).rows[0].l as string;
  const timer = setInterval(() => { poll().catch(() => {}); }, 250);
  return {
    async stop() {
      clearInterval(timer);
      await poll();
      const wal = Number((await watcher.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d', [wal0])).rows[0].d);
      await watcher.end();
      let backendS = 0;
      for (const s of backends.values()) backendS += s.last - s.first;
      const sharedS = shared.reduce((t, [pid, c0]) => t + ((cpuOf(pid) ?? c0) - c0), 0);
      return { pgBackendCpuS: +backendS.toFixed(1), pgSharedCpuS: +sharedS.toFixed(1), walMb: Math.round(wal / 1e6) };
    },
  };
}

/** The aspects' and the log's tables (with TOAST and indexes), in kB a dataset. */
async function sizesOf(db: string, n: number) {
  const c = new pg.Client({ connectionString: urlOf(db) });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT pg_total_relation_size('${ASPECT_TABLE}') AS a, pg_total_relation_size('${CHANGE_LOG_TABLE}') AS l`);
    return { aspectsKbPerDataset: +(Number(rows[0].a) / 1000 / n).toFixed(1), logKbPerDataset: +(Number(rows[0].l) / 1000 / n).toFixed(1) };
  } finally {
    await c.end();
  }
}

/** Wall time, this process's CPU (every thread) and its main thread's. */
function nodeMeter() {
  const u0 = process.cpuUsage();
  const m0 = cpuOf(process.pid, true)!;
  const t0 = performance.now();
  return () => {
    const u = process.cpuUsage(u0);
    return { wallS: +((performance.now() - t0) / 1000).toFixed(1), nodeCpuS: +((u.user + u.system) / 1e6).toFixed(1),
      mainCpuS: +(cpuOf(process.pid, true)! - m0).toFixed(1) };
  };
}

const config = (db: string) => loadConfig({ ...process.env, DATABASE_URL: urlOf(db), LOG_LEVEL: 'silent' });

if (mode === 'writes') {
  const n = Number(a);
  const db = b ? `almanac_bench_${b}` : `almanac_bench_w${process.pid}`;
  await admin(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${db}`);
    await settingsOf(c, db);
  });
  try {
    const catalog = await openCatalog(config(db));
    let aspects = 0;
    try {
      await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
      const decoders = await RecordDecoders.start();
      const pgMeter = await postgresMeter(db);
      const stop = nodeMeter();
      // As bench/scale.ts loads: each batch decoded in a worker thread while the one before it is written.
      let pending: Promise<ChangeItem[]> | null = null;
      const write = async (p: Promise<ChangeItem[]> | null) => {
        if (p) await catalog.entities.ingest(await p, systemActor(), { indexLater: true, validated: decoders !== null });
      };
      for (const batch of batches(generatedDatasets({ datasets: n }), 2000)) {
        const next = decoders ? decoders.decode(batch, false, false).then(decodedItems) : Promise.resolve(batch.map(changeFromProposal));
        await write(pending);
        pending = next;
        aspects += batch.length;
      }
      await write(pending);
      const node = stop();
      const postgres = await pgMeter.stop();
      await decoders?.close();
      const sizes = await sizesOf(db, n);
      console.log(JSON.stringify({ mode, datasets: n, aspects, ...node, ...postgres, ...sizes, aspectsPerS: Math.round(aspects / node.wallS),
        aspectsPerCpuS: Math.round(aspects / (node.nodeCpuS + postgres.pgBackendCpuS + postgres.pgSharedCpuS)),
        loadAverage: os.loadavg()[0]!.toFixed(1), kept: b ? db : null }));
    } finally {
      // (Its close applies only what this process asked to be indexed: the load's entries are left to `index`.)
      await catalog.close();
    }
  } finally {
    if (!b) await admin((c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
  }
} else if (mode === 'index') {
  const template = `almanac_bench_${a}`;
  const db = `almanac_bench_i${process.pid}`;
  await admin(async (c) => {
    await c.query(`CREATE DATABASE ${db} TEMPLATE ${template}`);
    await settingsOf(c, db);
  });
  try {
    // The catalog opens without catching up (its start would apply the backlog in ordinary steps): the bulk call does.
    const catchUp = ChangeLogService.prototype.catchUpIndexes;
    ChangeLogService.prototype.catchUpIndexes = async () => {};
    const catalog = await openCatalog(config(db));
    ChangeLogService.prototype.catchUpIndexes = catchUp;
    try {
      if (process.env.BULK_KEY_ORDER === '1') catalog.changeLog.bulk.keyOrder = 'always';
      if (process.env.BULK_KEY_ORDER === '0') catalog.changeLog.bulk.keyOrder = 'never';
      if (process.env.BENCH_DROP_EXTRA === '1') {
        // Experiment: the filter values' pairs' key dropped too (built at the end with the deferred indexes; the words'
        // key is dropped by the load itself).
        const c = new pg.Client({ connectionString: urlOf(db) });
        await c.connect();
        await c.query(`INSERT INTO almanac_settings (key, value) VALUES ('deferred-index:almanac_search_term_docs_pkey',
          'ALTER TABLE almanac_search_term_docs ADD CONSTRAINT almanac_search_term_docs_pkey PRIMARY KEY (doc_id, term)')`);
        await c.query(`ALTER TABLE almanac_search_term_docs DROP CONSTRAINT almanac_search_term_docs_pkey`);
        await c.end();
      }
      const { head, consumers } = await catalog.changeLog.positions();
      const backlog = head - Math.min(...[...catalog.changeLog.consumers.keys()].map((k) => consumers.get(k) ?? 0));
      const pgMeter = await postgresMeter(db);
      const stop = nodeMeter();
      await catalog.entities.committed({ bulk: true });
      const node = stop();
      const postgres = await pgMeter.stop();
      console.log(JSON.stringify({ mode, template, backlog, keyOrder: catalog.changeLog.bulk.keyOrder, ...node, ...postgres,
        cpuS: +(node.nodeCpuS + postgres.pgBackendCpuS + postgres.pgSharedCpuS).toFixed(1),
        peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), loadAverage: os.loadavg()[0]!.toFixed(1) }));
    } finally {
      await catalog.close();
    }
  } finally {
    // BENCH_KEEP=1: the indexed copy kept, for a look at it (drop it by hand, `drop i<pid>`).
    if (process.env.BENCH_KEEP === '1') console.log(`kept ${db}`);
    else await admin((c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
  }
} else if (mode === 'drop') {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS almanac_bench_${a} WITH (FORCE)`));
} else {
  throw new Error('usage: bench/pg-load.ts writes <datasets> [<name>] | index <name> | drop <name>');
}
