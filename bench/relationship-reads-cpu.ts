import { createHash } from 'node:crypto';
import { loadConfig } from '../src/config.js';
import { systemActor } from '../src/model/actor.js';
import { openCatalog } from '../src/catalog.js';
import { changeFromProposal } from '../src/services/ingest-format.js';
import { batches, generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';

/**
 * The reads a change of the relationship index or the change log's layout could slow, in CPU seconds of this process
 * (the store is in-process; SQLite's work is this thread's), to compare two builds on a machine other work shares:
 * - `node --import tsx bench/relationship-reads-cpu.ts build <file.db> <datasets>`: a bulk load of generated datasets (the
 *   scale benchmark's), left in the file;
 * - `node --import tsx bench/relationship-reads-cpu.ts read <file.db>`: lineage walks (3 hops both ways, with and
 *   without stamps), pages of a container's and a tag's members, each dataset's outgoing edges, point reads of
 *   datasets, and the change log read by a follower (with and without values). Prints each phase's CPU seconds and a
 *   digest of its answers (two builds must give the same).
 */
const [mode, file, arg] = process.argv.slice(2);
if (!file || (mode !== 'build' && mode !== 'read')) throw new Error('usage: build <file> <datasets> | read <file>');
const catalog = await openCatalog({ ...loadConfig({ ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' }) });
try {
  if (mode === 'build') {
    await catalog.entities.ingest([...referenceProposals(), ...showcaseProposals()].map(changeFromProposal), systemActor());
    for (const batch of batches(generatedDatasets({ datasets: Number(arg ?? 20_000) }), 2000)) {
      await catalog.entities.ingest(batch.map(changeFromProposal), systemActor(), { indexLater: true });
    }
    await catalog.entities.committed({ bulk: true });
  } else {
    const store = catalog.store;
    const all = async (entityType: string) => (await store.listEntities({ entityType, count: 10_000_000 })).map((r) => r.urn);
    const datasets = await all('dataset');
    const sample = (n: number) => datasets.filter((_, i) => i % Math.max(1, Math.floor(datasets.length / n)) === 0).slice(0, n);
    const containers = await all('container');
    const tags = await all('tag');
    const phases: Record<string, { cpu: number; digest: string }> = {};
    const phase = async (name: string, body: () => Promise<unknown[]>) => {
      const u0 = process.cpuUsage();
      const out = await body();
      const u = process.cpuUsage(u0);
      phases[name] = { cpu: +((u.user + u.system) / 1e6).toFixed(3), digest: createHash('sha1').update(JSON.stringify(out)).digest('hex').slice(0, 10) };
    };
    const walkers = sample(400);
    for (const stamps of [false, true]) {
      await phase(`walks 3 hops${stamps ? ', stamps' : ''}`, async () => {
        const out = [];
        for (const u of walkers) {
          for (const d of ['UPSTREAM', 'DOWNSTREAM'] as const) out.push((await catalog.lineage.walk(u, d, { maxHops: 3, stamps })).hits.length);
        }
        return out;
      });
    }
    await phase('member pages (containers, tags)', async () => {
      const out = [];
      for (let round = 0; round < 20; round++) {
        for (const c of containers) out.push((await store.relationships({ urn: c, direction: 'INCOMING', types: ['IsPartOf'], start: round * 20, count: 20 })).total);
        for (const t of tags) out.push((await store.relationships({ urn: t, direction: 'INCOMING', start: round * 20, count: 20 })).edges.length);
      }
      return out;
    });
    await phase('outgoing edges of datasets', async () => {
      const out = [];
      for (const u of sample(4000)) out.push((await store.relationships({ urn: u, direction: 'OUTGOING', start: 0, count: 100 })).edges.length);
      return out;
    });
    await phase('point reads', async () => {
      const out = [];
      for (const u of sample(4000)) out.push((await store.getLatest([u])).get(u)?.size ?? 0);
      return out;
    });
    for (const withValues of [false, true]) {
      await phase(`change log${withValues ? ' with values' : ''}`, async () => {
        let after = 0;
        let n = 0;
        for (;;) {
          const page = await store.changesAfter(after, 2000, withValues);
          if (page.length === 0) return [n];
          n += page.length;
          after = page[page.length - 1]!.seq;
        }
      });
    }
    console.log(JSON.stringify({ datasets: datasets.length, containers: containers.length, tags: tags.length, phases }));
  }
} finally {
  await catalog.close();
}
