import { readFile, stat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AlmanacError, badRequest, notFound } from '../errors.js';
import { mentionsPrototypeKey } from '../model/safe-keys.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { changesFromFileRecord, describeFailure, type ChangeItem } from './ingest-format.js';
import { arrayElements, jsonFault, lineAndColumn, MalformedArrayError } from './json-records.js';

/**
 * Why something was refused: the file could not be read, or is not JSON (nothing of it written); a record is not
 * JSON, not an MCE or MCP DataHub's file format allows, failed the catalog's validation, or could not be written.
 */
export type FailureKind = 'unreadable' | 'unparsable' | 'malformed' | 'unrecognised' | 'invalid' | 'unwritten';

export interface RecordFailure {
  file: string;
  /** The record's index in the file; -1 when the whole file was refused. */
  index: number;
  urn?: string;
  kind: FailureKind;
  reason: string;
}

export interface FileIngestSummary {
  files: number;
  records: number;
  mce: number;
  mcp: number;
  aspectsChanged: number;
  aspectsUnchanged: number;
  timeseriesRows: number;
  failures: RecordFailure[];
}

/**
 * Records written per transaction; a failing batch is retried record by record so one bad record costs only itself.
 * Larger transactions write fewer pages per record (a page several records change is written once per commit): 2,000
 * rather than 200, with index steps as large (src/changelog/index-consumer.ts), took `almanac ingest` of a
 * 36,000-proposal file from 7.4 s to 5.0–5.4 s.
 */
const BATCH = 2000;

/**
 * Expands directories to their .json files, as DataHub's file source does. A path that does not exist, cannot be
 * read, or is a folder without .json files is a NOT_FOUND or BAD_REQUEST error naming it.
 */
export async function expandPaths(paths: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const p of paths) {
    try {
      const s = await stat(p);
      if (s.isDirectory()) {
        const names = (await readdir(p)).filter((n) => n.endsWith('.json')).sort();
        if (names.length === 0) throw badRequest(`${p}: a folder with no .json files in it`);
        out.push(...names.map((n) => path.join(p, n)));
      } else out.push(p);
    } catch (e) {
      if (e instanceof AlmanacError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') throw notFound(`${p}: no such file or folder`);
      throw badRequest(`${p}: cannot be read (${code === 'EACCES' ? 'permission denied' : (e as Error).message})`);
    }
  }
  return out;
}

/** A file read whole that is not JSON: where, and what is wrong there. */
class UnparsableFileError extends Error {}

function unparsable(text: string, e: unknown): UnparsableFileError {
  const fault = jsonFault(text);
  if (!fault) return new UnparsableFileError(`not valid JSON: ${(e as Error).message}`);
  const { line, column } = lineAndColumn(text, fault.offset);
  return new UnparsableFileError(`not valid JSON at line ${line}, column ${column}: ${fault.problem}; nothing in this file was ingested`);
}

/**
 * Files larger than this are read a record at a time (src/services/json-records.ts), as DataHub's file source streams
 * files from the same size on: memory stays bounded and there is no size limit (a string, and so a file read whole,
 * cannot exceed 512 MiB). Smaller ones are read and parsed whole, so that a malformed one is refused before anything
 * is written; a large one is written up to the fault, which is reported with the index of the record where it is.
 */
export const STREAM_ABOVE_BYTES = 100_000_000;

/** A record of a file, parsed, or the reason it could not be. */
type FileRecord = { index: number; record: unknown; mayHoldPrototypeKeys: boolean; parseError?: string };

/** A record of a file read a record at a time that is not JSON: where in the file, and what is wrong there. */
function malformedRecord(text: string, start: number, e: unknown): string {
  const fault = jsonFault(text);
  return fault ? `not valid JSON at character ${start + fault.offset} of the file: ${fault.problem}` : `not valid JSON: ${(e as Error).message}`;
}

async function* fileRecords(file: string, size: number, streamed: boolean, progress: (done: number, total: number) => void): AsyncGenerator<FileRecord> {
  if (streamed) {
    for await (const { index, text, start, bytesRead } of arrayElements(file)) {
      progress(bytesRead, size);
      let parsed: FileRecord;
      try {
        parsed = { index, record: JSON.parse(text), mayHoldPrototypeKeys: mentionsPrototypeKey(text) };
      } catch (e) {
        parsed = { index, record: undefined, mayHoldPrototypeKeys: false, parseError: malformedRecord(text, start, e) };
      }
      yield parsed;
    }
    return;
  }
  const text = await readFile(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw unparsable(text, e);
  }
  const records: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  const mayHoldPrototypeKeys = mentionsPrototypeKey(text);
  for (let i = 0; i < records.length; i++) {
    if (i % BATCH === 0) progress(i, records.length);
    yield { index: i, record: records[i], mayHoldPrototypeKeys };
  }
  progress(records.length, records.length);
}

/**
 * Ingests files in DataHub's file format (a JSON list of MCEs and/or MCPs, or one such object), BATCH records per
 * transaction. `onProgress` is told how much of the current file is done: records, or bytes for a file read a record
 * at a time (`unit`).
 */
export async function ingestFiles(
  entities: EntityService,
  files: string[],
  actor: Actor,
  onProgress?: (file: string, done: number, total: number, unit: 'records' | 'bytes') => void,
  streamAbove = STREAM_ABOVE_BYTES,
): Promise<FileIngestSummary> {
  const summary: FileIngestSummary = { files: 0, records: 0, mce: 0, mcp: 0, aspectsChanged: 0, aspectsUnchanged: 0,
    timeseriesRows: 0, failures: [] };
  try {
    await ingestEach(entities, files, actor, summary, onProgress, streamAbove);
  } finally {
    // A bulk load: the derived indexes catch up once, after the last batch (and before this returns, so that the
    // caller reads its writes in search and relationships); after a crash, the next start catches up from the log.
    await entities.committed({ bulk: true });
  }
  // Parse failures are found before write failures within a batch; report them in file order.
  const fileOrder = new Map(files.map((f, i) => [f, i]));
  summary.failures.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.index - b.index);
  return summary;
}

async function ingestEach(entities: EntityService, files: string[], actor: Actor, summary: FileIngestSummary,
  onProgress: ((file: string, done: number, total: number, unit: 'records' | 'bytes') => void) | undefined, streamAbove: number): Promise<void> {
  for (const file of files) {
    summary.files++;
    let batch: { index: number; items: ChangeItem[] }[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      try {
        add(summary, await entities.ingest(batch.flatMap((b) => b.items), actor, { indexLater: true }));
      } catch {
        for (const b of batch) {
          try {
            add(summary, await entities.ingest(b.items, actor, { indexLater: true }));
          } catch (e) {
            summary.failures.push({ file, index: b.index, urn: b.items[0]?.urn, kind: e instanceof AlmanacError ? 'invalid' : 'unwritten',
              reason: describeFailure(e) });
          }
        }
      }
      batch = [];
    };
    let streamed = false;
    const progress = (done: number, total: number) => onProgress?.(file, done, total, streamed ? 'bytes' : 'records');
    try {
      const { size } = await stat(file);
      streamed = size > streamAbove;
      for await (const r of fileRecords(file, size, streamed, progress)) {
        summary.records++;
        if (r.parseError) {
          summary.failures.push({ file, index: r.index, kind: 'malformed', reason: r.parseError });
          continue;
        }
        try {
          const { kind, items } = changesFromFileRecord(r.record, r.mayHoldPrototypeKeys);
          if (kind === 'mce') summary.mce++; else summary.mcp++;
          batch.push({ index: r.index, items });
        } catch (e) {
          summary.failures.push({ file, index: r.index, urn: urnOfRecord(r.record), kind: 'unrecognised', reason: describeFailure(e) });
        }
        if (batch.length >= BATCH) await flush();
      }
      await flush();
    } catch (e) {
      // The file could not be read, or (read a record at a time) broke off: what came before it is written.
      await flush();
      if (e instanceof MalformedArrayError) {
        summary.records++; // the record where the file broke off, refused
        summary.failures.push({ file, index: e.index, kind: 'malformed', reason: e.message });
      } else if (e instanceof UnparsableFileError) {
        summary.failures.push({ file, index: -1, kind: 'unparsable', reason: e.message });
      } else {
        summary.failures.push({ file, index: -1, kind: 'unreadable', reason: `cannot read the file: ${(e as Error).message}` });
      }
    }
  }
}

function add(s: FileIngestSummary, r: { changed: number; unchanged: number; timeseries: number }) {
  s.aspectsChanged += r.changed;
  s.aspectsUnchanged += r.unchanged;
  s.timeseriesRows += r.timeseries;
}

function urnOfRecord(rec: unknown): string | undefined {
  if (!rec || typeof rec !== 'object') return undefined;
  const r = rec as Record<string, unknown>;
  if (typeof r.entityUrn === 'string') return r.entityUrn;
  const snap = r.proposedSnapshot;
  if (snap && typeof snap === 'object') {
    const body = Object.values(snap)[0] as { urn?: unknown } | undefined;
    if (typeof body?.urn === 'string') return body.urn;
  }
  return undefined;
}
