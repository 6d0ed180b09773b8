import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal, type ChangeItem } from '../src/services/ingest-format.js';
import { RecordDecoders } from '../src/services/record-decoding.js';
import { postgresEngine, sqliteEngine } from './harness.js';
import { decodedItems } from './support.js';
import { batches, generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';

/**
 * `node --import tsx bench/bulk-load-cpu.ts <datasets> [sqlite|postgres]`: the scale benchmark's load alone, with the
 * CPU time (user + system, this process; on PostgreSQL the server's is not counted) and wall time of its two phases,
 * writes and indexing at the end, and the peak RSS: the figures to compare a change of the bulk path by on a machine
 * other work shares (wall time there measures the machine). Records are decoded and checked in worker threads, as
 * `almanac ingest` of a large file has them (BULK_DECODE=main: in this thread, as the scale benchmark's load does).
 */
const n = Number(process.argv[2] ?? 20_000);
const engine = process.argv[3] === 'postgres' ? await postgresEngine() : await sqliteEngine();
// BULK_KEEP=1: the SQLite database is left in place (its path printed) to be looked at afterwards.
if (engine && process.env.BULK_KEEP === '1' && engine.name === 'sqlite') {
  console.error(`database kept: ${engine.url}`);
  engine.cleanup = async () => {};
}
if (!engine) throw new Error('PostgreSQL unreachable');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
/** The main thread's CPU seconds (Linux: its utime + stime in clock ticks): what bounds the wall time with a core to spare. */
const mainCpu = () => {
  try {
    const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return NaN;
  }
};
try {
  const catalog = await openCatalog({ ...loadConfig({ ...process.env, DATABASE_URL: engine.url, LOG_LEVEL: 'silent' }) });
  // BULK_WORKER=0: the catch-up computes in this thread (the path before the worker), for comparison.
  if (process.env.BULK_WORKER === '0') catalog.changeLog.indexWorkers = false;
  try {
    await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
    // As `almanac ingest` of a large file does (src/services/ingest-files.ts): each batch decoded and checked in a
    // worker thread while the one before it is written. BULK_DECODE=main: decoded and checked in this thread. The
    // workers start before the clock does (about a second of CPU each, once per load).
    const decoders = process.env.BULK_DECODE === 'main' ? null : await RecordDecoders.start();
    const t0 = performance.now();
    const c0 = cpu();
    const m0 = mainCpu();
    let aspects = 0;
    const tenths: number[] = [];
    // The same per CPU second of this process and of its main thread: how the cost of a write grows with the catalog,
    // whatever else the machine runs meanwhile.
    const tenthsCpu: number[] = [];
    const tenthsMainCpu: number[] = [];
    let windowCpu = c0;
    let windowMain = m0;
    let windowAt = t0;
    let windowAspects = 0;
    const tenth = Math.ceil((n * 12) / 10);
    const written = async (decoding: Promise<ChangeItem[]> | null) => {
      if (decoding) await catalog.entities.ingest(await decoding, systemActor(), { indexLater: true, validated: decoders !== null });
    };
    let pending: Promise<ChangeItem[]> | null = null;
    for (const b of batches(generatedDatasets({ datasets: n }), 2000)) {
      // The generated records hold no prototype key (`false`: not looked for).
      const next = decoders ? decoders.decode(b, false, false).then(decodedItems) : Promise.resolve(b.map(changeFromProposal));
      await written(pending);
      pending = next;
      aspects += b.length;
      windowAspects += b.length;
      if (windowAspects >= tenth) {
        const now = performance.now();
        tenths.push(Math.round(windowAspects / ((now - windowAt) / 1000)));
        const [c, m] = [cpu(), mainCpu()];
        tenthsCpu.push(Math.round(windowAspects / (c - windowCpu)));
        tenthsMainCpu.push(Math.round(windowAspects / (m - windowMain)));
        [windowCpu, windowMain] = [c, m];
        windowAt = now;
        windowAspects = 0;
      }
    }
    await written(pending);
    await decoders?.close();
    const t1 = performance.now();
    const c1 = cpu();
    const m1 = mainCpu();
    await catalog.entities.committed({ bulk: true });
    const t2 = performance.now();
    const c2 = cpu();
    const m2 = mainCpu();
    const load = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(JSON.stringify({
      engine: engine.name, datasets: n, aspects,
      writeWallS: +((t1 - t0) / 1000).toFixed(1), writeCpuS: +(c1 - c0).toFixed(1),
      indexWallS: +((t2 - t1) / 1000).toFixed(1), indexCpuS: +(c2 - c1).toFixed(1),
      totalWallS: +((t2 - t0) / 1000).toFixed(1), totalCpuS: +(c2 - c0).toFixed(1),
      writeMainCpuS: +(m1 - m0).toFixed(1), indexMainCpuS: +(m2 - m1).toFixed(1),
      workerSteps: catalog.changeLog.bulk.workerSteps, tenths, tenthsCpu, tenthsMainCpu, peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024), loadAverage: load,
    }));
  } finally {
    await catalog.close();
  }
} finally {
  await engine.cleanup();
}
