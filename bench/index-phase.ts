import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { ChangeLogService } from '../src/changelog/service.js';
import { SqliteStore } from '../src/storage/sqlite.js';
import type { IndexGuard } from '../src/storage/types.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { batches, generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';

/**
 * A bulk load's index phase alone, on SQLite, re-run over one database built once (a 100,000-dataset load takes a
 * quarter of an hour on 2 cores; its index phase is what this measures):
 *   node --import tsx bench/index-phase.ts build <datasets> <snapshot.db>   the load's writes (indexLater), no indexing
 *   node --import tsx bench/index-phase.ts run <snapshot.db> <work dir>      a copy of it, then the catch-up at its end
 * `run` prints the catch-up's wall time, CPU (user and system, the process's and its main thread's), entries a second
 * and peak RSS.
 */
const [mode, a, b] = process.argv.slice(2);
const config = (file: string) => loadConfig({ ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' });

if (mode === 'build') {
  const n = Number(a);
  const file = path.resolve(b!);
  mkdirSync(path.dirname(file), { recursive: true });
  const catalog = await openCatalog(config(file));
  try {
    await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
    const t0 = performance.now();
    let aspects = 0;
    for (const batch of batches(generatedDatasets({ datasets: n }), 2000)) {
      await catalog.entities.ingest(batch.map(changeFromProposal), systemActor(), { indexLater: true });
      aspects += batch.length;
    }
    console.log(JSON.stringify({ built: file, datasets: n, aspects, writeWallS: +((performance.now() - t0) / 1000).toFixed(1) }));
  } finally {
    await catalog.close();
  }
} else if (mode === 'run') {
  const dir = path.resolve(b!);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'bench.db');
  for (const ext of ['', '-wal']) if (existsSync(`${a}${ext}`)) copyFileSync(`${a}${ext}`, `${file}${ext}`);
  // The catalog opens without catching up (its start would apply the backlog in ordinary steps): the bulk call does.
  const progress = { done: 0, marks: [] as number[], on: (_guards: readonly IndexGuard[]) => {} };
  const apply = SqliteStore.prototype.applyIndexUpdate;
  SqliteStore.prototype.applyIndexUpdate = async function (this: SqliteStore, update, guards) {
    const ok = await apply.call(this, update, guards);
    if (ok) progress.on(guards);
    return ok;
  };
  const catchUp = ChangeLogService.prototype.catchUpIndexes;
  ChangeLogService.prototype.catchUpIndexes = async () => {};
  const catalog = await openCatalog(config(file));
  ChangeLogService.prototype.catchUpIndexes = catchUp;
  try {
    // BULK_KEY_ORDER=0: the log-order replay, for an A/B on one build.
    if (process.env.BULK_KEY_ORDER === '0') catalog.changeLog.bulk.keyOrder = 'never';
    const { head, consumers } = await catalog.changeLog.positions();
    const backlog = head - Math.min(...[...catalog.changeLog.consumers.keys()].map((k) => consumers.get(k) ?? 0));
    const task = () => {
      const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
    };
    // Bytes read through read(2)/pread(2) (pages from the OS's cache count: what a small page cache costs).
    const readBytes = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
    // Progress per tenth: each applied update's share of the work, in entries of the backlog — a log-order step moves
    // the offsets (its guards' `to`); a key-order page covers its entities' share of the catalog. (The store's method is
    // wrapped on its class before the catalog opens: the catalog's store wrappers keep the method they first see.)
    const from = head - backlog;
    const entities = await catalog.store.countEntities();
    progress.on = (guards) => {
      const step = guards.find((g) => 'to' in g) as { to: number } | undefined;
      const page = guards.find((g) => 'urns' in g) as { urns: readonly string[] } | undefined;
      if (step) progress.done = Math.max(progress.done, step.to - from);
      else if (page) progress.done = Math.min(backlog, progress.done + (page.urns.length / entities) * backlog);
      while (progress.marks.length < 10 && progress.done >= ((progress.marks.length + 1) * backlog) / 10) progress.marks.push(performance.now());
    };
    const [u0, m0, t0, r0] = [process.cpuUsage(), task(), performance.now(), readBytes()];
    await catalog.entities.committed({ bulk: true });
    const [u1, m1, t1, r1] = [process.cpuUsage(u0), task(), performance.now(), readBytes()];
    const tenths = progress.marks.map((t, i) => Math.round(backlog / 10 / ((t - (i ? progress.marks[i - 1]! : t0)) / 1000)));
    const wall = (t1 - t0) / 1000;
    const cpu = (u1.user + u1.system) / 1e6;
    console.log(JSON.stringify({
      backlog, wallS: +wall.toFixed(1), entriesPerS: Math.round(backlog / wall), tenths: tenths.join(' '),
      cpuUserS: +(u1.user / 1e6).toFixed(1), cpuSystemS: +(u1.system / 1e6).toFixed(1), entriesPerCpuS: Math.round(backlog / cpu),
      mainUserS: +(m1.user - m0.user).toFixed(1), mainSystemS: +(m1.system - m0.system).toFixed(1),
      entriesPerMainCpuS: Math.round(backlog / (m1.user - m0.user + m1.system - m0.system)),
      keyOrder: catalog.changeLog.bulk.keyOrder, readMb: Math.round((r1 - r0) / 1e6), workerSteps: catalog.changeLog.bulk.workerSteps, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      loadAverage: (await import('node:os')).loadavg()[0]!.toFixed(1),
    }));
  } finally {
    await catalog.close();
    if (process.env.BULK_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
  }
} else {
  throw new Error('usage: bench/index-phase.ts build <datasets> <snapshot.db> | run <snapshot.db> <work dir>');
}
