import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { generatedDatasets, referenceProposals, showcaseProposals } from './generate.js';

/**
 * `node --import tsx bench/write-ingest-file.ts <datasets> <file>`: writes the scale benchmark's catalog (the reference
 * entities, then the generated datasets) as one file in DataHub's file format (a JSON list of MCPs), for timing
 * `almanac ingest` of a large file.
 */
const n = Number(process.argv[2] ?? 10_000);
const file = process.argv[3] ?? 'catalog.json';
const out = createWriteStream(file);
let first = true;
const write = async (text: string) => {
  if (!out.write(text)) await once(out, 'drain');
};
await write('[');
for (const p of [...referenceProposals(), ...showcaseProposals(), ...generatedDatasets({ datasets: n })]) {
  await write(`${first ? '' : ','}\n${JSON.stringify(p)}`);
  first = false;
}
await write('\n]\n');
out.end();
await once(out, 'finish');
