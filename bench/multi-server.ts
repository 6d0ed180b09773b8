import { CONNECTIONS, compare, flag, loadCatalog, postgresEngine, round2, saveResults, startAlmanac, type Row, type Server } from './harness.js';
import { catalogProposals } from './generate.js';
import { expectData, readRequest } from './read.js';

/**
 * Read throughput of one and of two Almanac processes on one PostgreSQL database (`node bin/almanac.js serve`, each
 * on its own port): the `read` request, 32 connections in all (split evenly across the servers for the 2-server
 * figure, autocannon against both at once), against bare Fastify answering the same bytes; the 2/1 ratio.
 * `--servers N` measures 1..N.
 */
const BASE_DATASETS = Number(process.env.BENCH_BASE_DATASETS ?? 200);

export async function run(args: string[]) {
  const max = Number(flag(args, 'servers') ?? 2);
  const engine = await postgresEngine();
  if (!engine) {
    console.log('PostgreSQL unreachable: multi-server needs it; skipped');
    return;
  }
  console.log(`${CONNECTIONS} connections in all, PostgreSQL, the read request of the read scenario`);
  const rows: Row[] = [];
  const servers: Server[] = [];
  try {
    const { token } = await loadCatalog(engine.url, catalogProposals({ datasets: BASE_DATASETS }));
    const req = readRequest(token);
    for (let n = 1; n <= max; n++) {
      servers.push(await startAlmanac(engine.url));
      const bytes = await expectData(servers[servers.length - 1]!, req, 'read');
      rows.push(await compare('multi-server', 'postgres', `${n} server${n > 1 ? 's' : ''}: dataset(urn)`, servers, req, bytes));
    }
    const one = rows[0]!.rps!;
    for (const r of rows.slice(1)) {
      r.note = `${round2(r.rps! / one)}× one server's req/s`;
      console.log(`  ${r.target}: ${r.note}`);
    }
  } finally {
    for (const s of servers) await s.stop();
    await engine.cleanup();
  }
  saveResults('multi-server', rows, { baseDatasets: BASE_DATASETS, scaling: rows.length > 1 ? round2(rows[rows.length - 1]!.rps! / rows[0]!.rps!) : null });
}
