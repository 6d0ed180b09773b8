import { readFile, stat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { AlmanacError, badRequest, notFound } from '../errors.js';
import { mentionsPrototypeKey } from '../model/safe-keys.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { describeFailure, type ChangeItem } from './ingest-format.js';
import { decodeRecords, RecordDecoders, type DecodedRecord } from './record-decoding.js';
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

/**
 * A record of a file: parsed (a file read whole, parsed whole; `mayHoldPrototypeKeys`: whether the file's text mentions
 * a prototype key), or its text (a file read a record at a time; `start`: where the text starts in the file).
 */
type FileRecord = { index: number; record: unknown; mayHoldPrototypeKeys: boolean } | { index: number; text: string; start: number };

/** A record of a file read a record at a time that is not JSON: where in the file, and what is wrong there. */
function malformedRecord(text: string, start: number): string {
  let error: unknown;
  try {
    JSON.parse(text);
  } catch (e) {
    error = e;
  }
  const fault = jsonFault(text);
  return fault ? `not valid JSON at character ${start + fault.offset} of the file: ${fault.problem}` : `not valid JSON: ${(error as Error)?.message}`;
}

async function* fileRecords(file: string, size: number, streamed: boolean, progress: (done: number, total: number) => void): AsyncGenerator<FileRecord> {
  if (streamed) {
    for await (const { index, text, start, bytesRead } of arrayElements(file)) {
      progress(bytesRead, size);
      yield { index, text, start };
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
 * The records of a file BATCH at a time; when the file breaks off, the records before the fault come first, then the
 * error.
 */
async function* chunks(records: AsyncIterable<FileRecord>): AsyncGenerator<FileRecord[]> {
  let chunk: FileRecord[] = [];
  try {
    for await (const r of records) {
      chunk.push(r);
      if (chunk.length >= BATCH) {
        yield chunk;
        chunk = [];
      }
    }
  } catch (e) {
    if (chunk.length) yield chunk;
    throw e;
  }
  if (chunk.length) yield chunk;
}

/**
 * From this many bytes of files, records are decoded and checked in worker threads (src/services/record-decoding.ts),
 * the next batch while this thread writes the one before: a worker takes about a second of CPU to start.
 */
export const DECODE_IN_WORKERS_FROM = 16_000_000;

/**
 * Ingests files in DataHub's file format (a JSON list of MCEs and/or MCPs, or one such object), BATCH records per
 * transaction. `onProgress` is told how much of the current file is done: records, or bytes for a file read a record
 * at a time (`unit`). Files of `decodeInWorkersFrom` bytes or more in all are decoded in worker threads, unless the
 * entity service's registry has types of its own (`entities.decodeInWorkers`: the workers know the built-in ones).
 */
export async function ingestFiles(
  entities: EntityService,
  files: string[],
  actor: Actor,
  onProgress?: (file: string, done: number, total: number, unit: 'records' | 'bytes') => void,
  streamAbove = STREAM_ABOVE_BYTES,
  decodeInWorkersFrom = DECODE_IN_WORKERS_FROM,
): Promise<FileIngestSummary> {
  const summary: FileIngestSummary = { files: 0, records: 0, mce: 0, mcp: 0, aspectsChanged: 0, aspectsUnchanged: 0,
    timeseriesRows: 0, failures: [] };
  let decoders: RecordDecoders | null = null;
  try {
    if (entities.decodeInWorkers && (await totalBytes(files)) >= decodeInWorkersFrom) decoders = await RecordDecoders.start();
    await ingestEach(entities, files, actor, summary, onProgress, streamAbove, decoders);
  } finally {
    await decoders?.close();
    // A bulk load: the derived indexes catch up once, after the last batch (and before this returns, so that the
    // caller reads its writes in search and relationships); after a crash, the next start catches up from the log.
    await entities.committed({ bulk: true });
  }
  // Parse failures are found before write failures within a batch; report them in file order.
  const fileOrder = new Map(files.map((f, i) => [f, i]));
  summary.failures.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.index - b.index);
  return summary;
}

async function totalBytes(files: readonly string[]): Promise<number> {
  let n = 0;
  for (const f of files) n += await stat(f).then((s) => s.size, () => 0);
  return n;
}

/** A chunk of records and what decoding them comes to (under way). */
interface Decoding {
  records: FileRecord[];
  decoded: Promise<DecodedRecord[]>;
}

function decode(records: FileRecord[], decoders: RecordDecoders | null): Decoding {
  const texts = 'text' in records[0]!;
  const raw = records.map((r) => ('text' in r ? r.text : r.record));
  const mayHold = records.some((r) => 'mayHoldPrototypeKeys' in r && r.mayHoldPrototypeKeys);
  const decoded = decoders ? decoders.decode(raw, texts, mayHold) : Promise.resolve().then(() => decodeRecords(raw, texts, mayHold));
  return { records, decoded };
}

async function ingestEach(entities: EntityService, files: string[], actor: Actor, summary: FileIngestSummary,
  onProgress: ((file: string, done: number, total: number, unit: 'records' | 'bytes') => void) | undefined, streamAbove: number,
  decoders: RecordDecoders | null): Promise<void> {
  for (const file of files) {
    summary.files++;
    /** Writes a decoded chunk: its records checked already, in one transaction (record by record if that fails). */
    const write = async ({ records, decoded }: Decoding) => {
      const results = await decoded;
      const batch: { index: number; items: ChangeItem[] }[] = [];
      results.forEach((r, i) => {
        const rec = records[i]!;
        summary.records++;
        if ('malformed' in r) {
          summary.failures.push({ file, index: rec.index, kind: 'malformed', reason: malformedRecord((rec as { text: string }).text, (rec as { start: number }).start) });
        } else if ('unrecognised' in r) {
          summary.failures.push({ file, index: rec.index, urn: r.urn, kind: 'unrecognised', reason: r.unrecognised });
        } else {
          if (r.kind === 'mce') summary.mce++; else summary.mcp++;
          if (r.invalid !== undefined) summary.failures.push({ file, index: rec.index, urn: r.urn, kind: 'invalid', reason: r.invalid });
          else batch.push({ index: rec.index, items: r.items });
        }
      });
      if (batch.length === 0) return;
      try {
        add(summary, await entities.ingest(batch.flatMap((b) => b.items), actor, { indexLater: true, validated: true }));
      } catch {
        for (const b of batch) {
          try {
            add(summary, await entities.ingest(b.items, actor, { indexLater: true, validated: true }));
          } catch (e) {
            summary.failures.push({ file, index: b.index, urn: b.items[0]?.urn, kind: e instanceof AlmanacError ? 'invalid' : 'unwritten',
              reason: describeFailure(e) });
          }
        }
      }
    };
    let streamed = false;
    const progress = (done: number, total: number) => onProgress?.(file, done, total, streamed ? 'bytes' : 'records');
    // One chunk is decoded (in a worker) while the one before it is written.
    let pending: Decoding | null = null;
    const writePending = async () => {
      const p = pending;
      pending = null;
      if (p) await write(p);
    };
    try {
      const { size } = await stat(file);
      streamed = size > streamAbove;
      for await (const chunk of chunks(fileRecords(file, size, streamed, progress))) {
        const next = decode(chunk, decoders);
        await writePending();
        pending = next;
      }
      await writePending();
    } catch (e) {
      // The file could not be read, or (read a record at a time) broke off: what came before it is written.
      await writePending();
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
