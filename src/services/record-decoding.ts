import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { mentionsPrototypeKey, parseJsonSafely } from '../model/safe-keys.js';
import { checkBeforeWrite } from './entities.js';
import { changeFromProposal, changesFromFileRecord, ChangeWithText, describeFailure, type ChangeItem, type FileRecordKind } from './ingest-format.js';
import { startModuleWorker } from '../storage/module-workers.js';

/**
 * What a record of DataHub's file format comes to before it is written: its change items, each checked as the entity
 * service checks them before a write (checkBeforeWrite) — or why the record is refused. Computed in worker threads
 * for a large ingest (RecordDecoders), so that parsing, decoding and validation run beside the writes.
 */
export type DecodedRecord =
  /** `invalid`: the first of its items to fail the entity service's checks, and why (the record is refused). */
  | { kind: FileRecordKind; items: ChangeItem[]; invalid?: string; urn?: string }
  /** Not an MCE or MCP the file format allows. */
  | { unrecognised: string; urn?: string }
  /** A record given as text that is not JSON (the caller, which knows where it is in the file, says where it breaks). */
  | { malformed: true };

/**
 * Decodes records (what a worker answers is this as JSON: nothing here is undefined but absent keys): parsed values, or (`texts`) their JSON texts. `mayHoldPrototypeKeys`: whether the file's text
 * mentions a prototype key (parsed values only; a text is looked at itself).
 */
export function decodeRecords(records: readonly unknown[], texts: boolean, mayHoldPrototypeKeys: boolean): DecodedRecord[] {
  return records.map((raw): DecodedRecord => {
    let record = raw;
    let mayHold = mayHoldPrototypeKeys;
    if (texts) {
      try {
        record = JSON.parse(raw as string);
      } catch {
        return { malformed: true };
      }
      mayHold = mentionsPrototypeKey(raw as string);
    }
    let decoded: { kind: FileRecordKind; items: ChangeItem[] };
    try {
      decoded = changesFromFileRecord(record, mayHold);
    } catch (e) {
      const urn = urnOfRecord(record);
      return urn === undefined ? { unrecognised: describeFailure(e) } : { unrecognised: describeFailure(e), urn };
    }
    try {
      for (const item of decoded.items) checkBeforeWrite(item);
    } catch (e) {
      // Refused as a whole: its items are not handed on (one may hold a prototype key).
      const refused: DecodedRecord = { kind: decoded.kind, items: [], invalid: describeFailure(e) };
      if (decoded.items[0]) refused.urn = decoded.items[0].urn;
      return refused;
    }
    return decoded;
  });
}

/**
 * The body of a REST ingestProposalBatch as the route reads it (`{"proposals": [MCP, ...]}`), decoded and checked as
 * the route and the entity service would (changeFromProposal, then checkBeforeWrite on every item): one `mcp` record of
 * all its items; `unrecognised` when anything is refused or malformed — the route then reads the body itself, so that
 * what it answers is exactly what it answers without a worker.
 */
export function decodeProposalBatch(text: string, maxItems: number): DecodedRecord {
  try {
    const body = text.trim() === '' ? {} : parseJsonSafely(text, 'The request body');
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return { unrecognised: 'not an object' };
    const proposals = (body as Record<string, unknown>).proposals;
    if (!Array.isArray(proposals) || proposals.length > maxItems) return { unrecognised: 'no list of proposals' };
    const items = proposals.map(changeFromProposal);
    for (const item of items) checkBeforeWrite(item);
    return { kind: 'mcp', items };
  } catch (e) {
    return { unrecognised: describeFailure(e) };
  }
}

/** The urn a record names, if it names one where the file format puts it (to name a refused record). */
export function urnOfRecord(rec: unknown): string | undefined {
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

/** A batch of records asked of a decoding worker, and its answer (DecodedAnswer). */
export interface DecodeWork {
  id: number;
  records: readonly unknown[];
  texts: boolean;
  mayHoldPrototypeKeys: boolean;
  /** Set instead of `records`: a REST ingestProposalBatch body, as text (decodeProposalBatch), and its bound. */
  proposalBatch?: { text: string; maxItems: number };
}
export type DecodeResult = ({ id: number } & DecodedAnswer) | { id: number; error: string };

/**
 * Decoded records as a worker hands them over: the list as JSON text, each item's value left out when it is given in
 * `values` (in order) as its own JSON text — every value but a deletion's (none) and a patch's (its operations, read
 * to apply them). The value texts are what the writes store, made once, in the worker.
 */
export interface DecodedAnswer {
  json: string;
  values: string[];
}

/** Whether an item's value goes as text (DecodedAnswer). */
const sentAsText = (item: ChangeItem) => item.changeType !== 'DELETE' && item.changeType !== 'PATCH';

export function answerOf(records: readonly DecodedRecord[]): DecodedAnswer {
  const values: string[] = [];
  const listed = records.map((r) => {
    if (!('items' in r) || r.items.length === 0) return r;
    return { ...r, items: r.items.map((item) => {
      if (!sentAsText(item)) return item;
      values.push(JSON.stringify(item.value));
      const { value: _value, ...fields } = item;
      return fields;
    }) };
  });
  return { json: JSON.stringify(listed), values };
}

/** The records of a worker's answer: each value given as text comes as a ChangeWithText, parsed if it is read. */
export function recordsOf(answer: DecodedAnswer): DecodedRecord[] {
  const records = JSON.parse(answer.json) as DecodedRecord[];
  let next = 0;
  for (const r of records) {
    if (!('items' in r)) continue;
    const items = r.items;
    for (let i = 0; i < items.length; i++) {
      if (!Object.hasOwn(items[i]!, 'value')) items[i] = new ChangeWithText(items[i]!, answer.values[next++]!);
    }
  }
  return records;
}

/**
 * A decoding worker's young generation: a batch parses, normalises and prints thousands of short-lived values, and a
 * larger nursery collects them less often. 96 MB rather than the default took the load's CPU on all threads from 95 to
 * 112 µs a written aspect down to 89 to 97 (bench/bulk-load-cpu.ts 10000, alternated runs, 2026-11-28); peak RSS alike.
 */
const DECODER_YOUNG_GENERATION_MB = 96;

/**
 * Worker threads that decode records (src/services/record-decoder-worker.ts), one batch per message. Answers come back
 * as JSON text, which this thread parses: that costs it about a third of what copying the decoded values back as
 * structured clones would, and a fifth of decoding and checking them itself (a batch of the scale benchmark's
 * generated datasets, 2026-11-28). The values themselves come as the JSON texts the writes store (DecodedAnswer), not
 * parsed here at all unless read: this thread's CPU a written aspect, 51 to 59 µs before, 38 to 45 µs
 * (bench/bulk-load-cpu.ts 10000, 2026-11-28). A batch goes to the worker with the fewest batches waiting.
 */
export class RecordDecoders {
  private next = 1;
  private readonly waiting = new Map<number, { worker: Worker; resolve: (r: DecodedRecord[]) => void; reject: (e: Error) => void }>();
  private readonly load = new Map<Worker, number>();
  private failed: Error | null = null;

  private constructor(private readonly workers: Worker[]) {
    for (const w of workers) {
      this.load.set(w, 0);
      w.on('message', (m: DecodeResult) => {
        const job = this.waiting.get(m.id);
        if (!job) return;
        this.waiting.delete(m.id);
        this.load.set(job.worker, this.load.get(job.worker)! - 1);
        if ('error' in m) job.reject(new Error(`decoding worker: ${m.error}`));
        else job.resolve(recordsOf(m));
      });
      const fail = (e: Error) => {
        this.failed ??= e;
        for (const [id, job] of this.waiting) {
          if (job.worker !== w) continue;
          this.waiting.delete(id);
          job.reject(e);
        }
      };
      w.on('error', fail);
      w.on('exit', (code) => fail(new Error(`decoding worker exited (${code})`)));
    }
  }

  /** As many workers as the machine has cores beside this thread's (at least one, at most four); null if none starts. */
  static async start(count = Math.min(4, Math.max(1, os.availableParallelism() - 1))): Promise<RecordDecoders | null> {
    const started = await Promise.all(Array.from({ length: count }, () => startModuleWorker(import.meta.url, 'record-decoder-worker', null,
      { maxYoungGenerationSizeMb: DECODER_YOUNG_GENERATION_MB })));
    const workers = started.filter((w): w is Worker => w !== null);
    return workers.length ? new RecordDecoders(workers) : null;
  }

  /** decodeRecords in a worker; if the workers have failed, in this thread. */
  decode(records: readonly unknown[], texts: boolean, mayHoldPrototypeKeys: boolean): Promise<DecodedRecord[]> {
    if (this.failed) return Promise.resolve(decodeRecords(records, texts, mayHoldPrototypeKeys));
    const worker = [...this.load].sort((a, b) => a[1] - b[1])[0]![0];
    const id = this.next++;
    const answer = new Promise<DecodedRecord[]>((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      this.load.set(worker, this.load.get(worker)! + 1);
      worker.postMessage({ id, records, texts, mayHoldPrototypeKeys } satisfies DecodeWork);
    });
    // A worker that dies mid-batch leaves the batch to this thread, whole.
    return answer.catch(() => decodeRecords(records, texts, mayHoldPrototypeKeys));
  }

  /** decodeProposalBatch in a worker; if the workers have failed, in this thread. */
  decodeProposalBatch(text: string, maxItems: number): Promise<DecodedRecord> {
    if (this.failed) return Promise.resolve(decodeProposalBatch(text, maxItems));
    const worker = [...this.load].sort((a, b) => a[1] - b[1])[0]![0];
    const id = this.next++;
    const answer = new Promise<DecodedRecord[]>((resolve, reject) => {
      this.waiting.set(id, { worker, resolve, reject });
      this.load.set(worker, this.load.get(worker)! + 1);
      worker.postMessage({ id, records: [], texts: true, mayHoldPrototypeKeys: true, proposalBatch: { text, maxItems } } satisfies DecodeWork);
    });
    return answer.then((records) => records[0]!, () => decodeProposalBatch(text, maxItems));
  }

  /** Ends the workers. */
  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
