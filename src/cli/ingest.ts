import type { Command } from 'commander';
import { AlmanacError } from '../errors.js';
import { systemActor } from '../model/actor.js';
import { expandPaths, ingestFiles, type FailureKind, type FileIngestSummary } from '../services/ingest-files.js';
import { fail, withCatalog } from './context.js';
import { progressBar } from './progress.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What each kind of refusal says in the summary, after its count. */
const REFUSED: Record<FailureKind, [one: string, many: string, why: string]> = {
  unreadable: ['file', 'files', 'could not be read'],
  unparsable: ['file', 'files', 'not valid JSON'],
  malformed: ['record', 'records', 'not valid JSON'],
  unrecognised: ['record', 'records', 'not a valid MCE or MCP'],
  invalid: ['record', 'records', 'refused by validation'],
  unwritten: ['record', 'records', 'could not be written'],
};

/**
 * The summary line: what was written, and what was refused by kind (each refusal is named with its reason on
 * stderr). Aspect versions count the key aspect a new entity gets with its first record.
 */
export function summaryLine(s: FileIngestSummary, ms: number): string {
  const wholeFiles = s.failures.filter((f) => f.index < 0).length;
  const ok = s.records - (s.failures.length - wholeFiles);
  const files = wholeFiles ? `${s.files - wholeFiles} of ${plural(s.files, 'file')}` : plural(s.files, 'file');
  const counts = new Map<FailureKind, number>();
  for (const f of s.failures) counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  const refused = [...counts].map(([kind, n]) => { const [one, many, why] = REFUSED[kind]; return `${plural(n, one, many)} ${why}`; });
  return `Ingested ${ok} of ${plural(s.records, 'record')} from ${files} (${s.mce} MCE, ${s.mcp} MCP) in ${ms} ms: ` +
    `${plural(s.aspectsChanged, 'aspect version')} written (new entities' key aspects included), ${s.aspectsUnchanged} unchanged, ` +
    `${plural(s.timeseriesRows, 'time-series row')}; ` +
    (refused.length ? `refused, each named on stderr with its reason: ${refused.join(', ')}` : 'nothing refused');
}

export function registerIngest(program: Command) {
  program
    .command('ingest')
    .description("ingest files in DataHub's file format (lists of MCEs and/or MCPs) straight into the database")
    .argument('<paths...>', 'JSON files or folders of them')
    .action(async (paths: string[]) => {
      // Every path is checked before the database is opened: a missing one is one line, nothing ingested.
      const files = await expandPaths(paths).catch((e) => fail(`almanac: ${e instanceof AlmanacError ? e.message : String(e)}`));
      const code = await withCatalog(async (catalog) => {
        const started = Date.now();
        let bar: ReturnType<typeof progressBar> | undefined;
        let current = '';
        const summary = await ingestFiles(catalog.entities, files, systemActor(), (file, done, total, unit) => {
          if (file !== current) { bar?.done(); current = file; bar = total >= 1000 ? progressBar(file) : undefined; }
          bar?.update(done, total, unit);
        });
        bar?.done();
        for (const f of summary.failures) {
          process.stderr.write(`refused: ${f.file}${f.index >= 0 ? ` record ${f.index}` : ''}${f.urn ? ` (${f.urn})` : ''}: ${f.reason}\n`);
        }
        process.stdout.write(`${summaryLine(summary, Date.now() - started)}\n`);
        return summary.failures.length ? 1 : 0;
      }, { facetStart: 'open' });
      process.exitCode = code;
    });
}
