import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * `node --import tsx bench/ingest-cpu.ts <checkout A> [<checkout B>] [rounds]`: CPU per 1,000 aspects of ingestion
 * through the entity service in process (issue 30, ongoing writes), of two checkouts' sources alternated A/B, each run
 * a process of its own: no HTTP and no load generator beside it, so that on a shared machine its figures vary far less
 * than bench/write-cpu.ts's (whose server also parses and answers the requests). Each run loads the scale generator's
 * catalog of INGEST_CPU_BASE datasets (200), then ingests INGEST_CPU_N new proposals (12,000) as `batch` (1,000 a call,
 * two calls in flight, as two clients of ingestProposalBatch) or `single` (one a call, 32 in flight), each decoded from
 * its JSON text as the REST routes decode it (changeFromProposal), and waits for the indexes; the first sixth warms up.
 * INGEST_CPU_LOADS: `batch,single` by default. CPU is the process's (every thread's) user + system time, and the main
 * thread's apart (what bounds a server's rate: the other threads run on the other cores). INGEST_CPU_ONGOING_WORKER=1:
 * on a checkout that has one, the ongoing index worker (ChangeLogService.ongoingWorkerAfter) runs from the start of the
 * measured part, as it does in a server that has indexed a few hundred entities.
 */
const args = process.argv.slice(2);
if (args[0] === '--run') {
  const [, root, mode] = args as [string, string, string];
  const { openCatalog } = await import(`${root}/src/catalog.ts`);
  const { loadConfig } = await import(`${root}/src/config.ts`);
  const { systemActor } = await import(`${root}/src/model/actor.ts`);
  const { changeFromProposal } = await import(`${root}/src/services/ingest-format.ts`);
  const { catalogProposals, generatedDatasets } = await import(`${root}/bench/generate.ts`);
  const dir = mkdtempSync(path.join(process.env.INGEST_CPU_TMP ?? os.tmpdir(), 'ingest-cpu-'));
  const catalog = await openCatalog(loadConfig({ DATABASE_URL: `sqlite:${path.join(dir, 'bench.db')}`, LOG_LEVEL: 'silent' }));
  try {
    const base = [...catalogProposals({ datasets: Number(process.env.INGEST_CPU_BASE ?? 200) })];
    for (let i = 0; i < base.length; i += 500) await catalog.entities.ingest(base.slice(i, i + 500).map(changeFromProposal), systemActor());
    const it = generatedDatasets({ datasets: Number.MAX_SAFE_INTEGER, seed: 9 }, 2_000_000);
    const size = mode === 'batch' ? 1000 : 1;
    const n = Number(process.env.INGEST_CPU_N ?? 12_000);
    const bodies = Array.from({ length: Math.ceil(n / size) }, () => JSON.stringify({ proposals: Array.from({ length: size }, () => it.next().value) }));
    const run = async (from: number, to: number) => {
      const pending: Promise<unknown>[] = [];
      for (let b = from; b < to; b++) {
        const body = JSON.parse(bodies[b]!) as { proposals: unknown[] };
        pending.push(catalog.entities.ingest(body.proposals.map(changeFromProposal), systemActor()));
        if (pending.length >= (mode === 'batch' ? 2 : 32)) await pending.shift();
      }
      await Promise.all(pending);
      await catalog.changeLog.indexesCurrent();
    };
    const warm = Math.floor(bodies.length / 6);
    if (process.env.INGEST_CPU_ONGOING_WORKER === '1' && 'ongoingWorkerAfter' in catalog.changeLog) {
      catalog.changeLog.ongoingWorkerAfter = 0;
      if (!(await catalog.changeLog.startOngoingWorker())) throw new Error('the ongoing index worker did not start');
    }
    await run(0, warm);
    // The main thread's user + system time, from /proc (Linux). (Not bench/harness.ts's helper: it imports this checkout's catalog.)
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const mainMs = () => {
      const f = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      return ((Number(f[11]) + Number(f[12])) * 1000) / ticks;
    };
    const c0 = process.cpuUsage();
    const m0 = mainMs();
    await run(warm, bodies.length);
    const c = process.cpuUsage(c0);
    const main = mainMs() - m0;
    const aspects = (bodies.length - warm) * size;
    process.stdout.write(`${(((c.user + c.system) / 1000) / aspects) * 1000} ${(main / aspects) * 1000}\n`);
  } finally {
    await catalog.close();
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}

const roots = args.filter((a) => !/^\d+$/.test(a)).map((r) => path.resolve(r));
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3);
if (!roots.length) throw new Error('usage: ingest-cpu.ts <checkout A> [<checkout B>] [rounds]');
const loads = (process.env.INGEST_CPU_LOADS ?? 'batch,single').split(',');
const results = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const load of loads) {
    for (const root of r % 2 === 0 ? roots : [...roots].reverse()) {
      const out = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--run', root, load], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      const [ms, mainMs] = (out.stdout.trim().split('\n').pop() ?? '').split(' ').map(Number) as [number, number];
      if (out.status !== 0 || !Number.isFinite(ms)) throw new Error(`${load} on ${root} failed (${out.status})`);
      const key = `${load} ${root}`;
      results.set(key, [...(results.get(key) ?? []), ms]);
      results.set(`${key} main thread`, [...(results.get(`${key} main thread`) ?? []), mainMs]);
      console.log(`round ${r + 1} ${load.padEnd(6)} ${root.padEnd(40)} ${ms.toFixed(0).padStart(5)} ms CPU/1k aspects, main thread ${mainMs.toFixed(0)} `
        + `(load ${os.loadavg()[0]!.toFixed(2)})`);
    }
  }
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
console.log(`\nmedians of ${rounds} rounds, CPU per 1,000 aspects:`);
for (const [key, xs] of results) console.log(`${key.padEnd(50)} ${median(xs).toFixed(0).padStart(5)}  [${xs.map((x) => x.toFixed(0)).join(' ')}]`);
