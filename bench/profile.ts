import { readFileSync } from 'node:fs';
import path from 'node:path';
import { flag } from './harness.js';

/**
 * Where a V8 CPU profile (`node --cpu-prof`) spends its time: functions by self time (the samples that landed in
 * them), and the share of a few broad areas by the file the function is in.
 * `npm run bench -- profile --file server.cpuprofile [--top 10] [--skip-ms 3000]`.
 */
interface Node { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
interface Profile { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

export interface ProfileSummary {
  totalMs: number;
  top: { function: string; where: string; selfMs: number; percent: number }[];
  areas: Record<string, number>;
}

function areaOf(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : 'native';
  if (url.includes('/node_modules/better-sqlite3/')) return 'sqlite driver';
  if (url.includes('/node_modules/pg') ) return 'pg driver';
  if (url.includes('/node_modules/graphql-jit/') || url.includes('/node_modules/mercurius/') || url.includes('/node_modules/graphql/')) return 'graphql';
  if (url.includes('/node_modules/fastify/') || url.includes('/node_modules/find-my-way/') || url.includes('/node_modules/avvio/')
    || url.includes('/node_modules/light-my-request/') || url.includes('/node_modules/fast-json-stringify/')) return 'fastify';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.includes('/src/storage/')) return 'src/storage';
  if (url.includes('/src/graphql/')) return 'src/graphql';
  if (url.includes('/src/http/')) return 'src/http';
  if (url.includes('/src/services/')) return 'src/services';
  if (url.includes('/src/')) return 'src (other)';
  if (url.startsWith('node:')) return 'node core';
  return 'other';
}

/** `skipMs`: leave out the first milliseconds of the profile (start-up, module loading), to see the steady state. */
export function summariseProfile(file: string, top = 10, print = true, skipMs = 0): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let t = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i] ?? 0;
    if (t < skipMs * 1000) continue;
    self.set(p.samples[i]!, (self.get(p.samples[i]!) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const byFn = new Map<string, { function: string; where: string; us: number }>();
  const areas = new Map<string, number>();
  let total = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const name = functionName || '(anonymous)';
    // Our sources run through tsx: a line number would be the generated code's, so they are named by file only.
    const file = url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|src|bench)\//, '$1/');
    const where = !url ? '' : /^(src|bench)\//.test(file) ? file : `${file}:${lineNumber + 1}`;
    const key = `${name}@${where}`;
    const e = byFn.get(key) ?? { function: name, where, us: 0 };
    e.us += us;
    byFn.set(key, e);
    const area = areaOf(url, name);
    areas.set(area, (areas.get(area) ?? 0) + us);
    total += us;
  }
  // Idle time is the server waiting for requests: shares are of the time it was busy.
  const idle = [...byFn.values()].filter((e) => e.function === '(idle)').reduce((n, e) => n + e.us, 0);
  const busy = total - idle;
  const summary: ProfileSummary = {
    totalMs: Math.round(busy / 1000),
    top: [...byFn.values()].filter((e) => e.function !== '(idle)').sort((a, b) => b.us - a.us).slice(0, top)
      .map((e) => ({ function: e.function, where: e.where, selfMs: Math.round(e.us / 1000), percent: Math.round((e.us / busy) * 1000) / 10 })),
    areas: Object.fromEntries([...areas].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1])
      .map(([k, us]) => [k, Math.round((us / busy) * 1000) / 10])),
  };
  if (print) {
    console.log(`  ${path.basename(file)}: ${summary.totalMs} ms busy (idle${skipMs ? ` and the first ${Math.round(skipMs)} ms` : ''} excluded); top ${top} functions by self time:`);
    for (const e of summary.top) console.log(`    ${e.percent.toFixed(1).padStart(5)} %  ${String(e.selfMs).padStart(6)} ms  ${e.function}  ${e.where}`);
    console.log(`  by area: ${Object.entries(summary.areas).map(([k, v]) => `${k} ${v} %`).join(', ')}`);
  }
  return summary;
}

export async function run(args: string[]) {
  const file = flag(args, 'file');
  if (!file) throw new Error('profile needs --file <x.cpuprofile>');
  summariseProfile(file, Number(flag(args, 'top') ?? 10), true, Number(flag(args, 'skip-ms') ?? 0));
}
