import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { entityDescriptor, ENTITY_DESCRIPTORS } from '../entities/index.js';
import { badRequest } from '../errors.js';
import { TIMESERIES_INDICES, type TimeseriesIndex } from '../registry/registry.js';
import type { AspectRecord, Store, SystemMetadata, TimeseriesRow } from '../storage/types.js';
import { IF_VERSION_MATCH } from './ingest-format.js';

/**
 * The catalog as a file of DataHub MetadataChangeProposals (the JSON list DataHub's file sink writes and its file
 * source, and `almanac ingest`, read): each entity's latest versioned aspects and every time-series row, UPSERTs
 * with their system metadata. Ingesting the file into an empty catalog gives back those aspects and rows, and so the
 * relationships derived from them.
 *
 * Not carried: older versions of versioned aspects (DataHub's own file export carries only the latest too), each
 * version's created-on time and actor (the restore's write stamps them anew), and what is not metadata (access
 * tokens' signing key and other settings, usage events of the web app, recent views, webhooks, the change log).
 *
 * The order is fixed, so that exporting equal catalogs gives equal files byte for byte, whichever engine holds them:
 * entities by urn (compared byte by byte); within one, its key aspect first (a restore takes the new entity's key
 * aspect's system metadata from the entity's first record), then the other aspects by name, a time-series aspect's
 * rows by timestamp (then partition, granularity, message id). Objects are written with sorted keys. Streaming:
 * entities are read ENTITY_PAGE at a time by a urn cursor, time-series rows TIMESERIES_PAGE at a time.
 */
export interface ExportOptions {
  /** Only versioned aspects written (their latest version created) at or after this time, and time-series rows timestamped so (ms). */
  since?: number;
  /** Only entities of these types (names as DataHub spells them; any case). */
  entityTypes?: readonly string[];
  /** Entities done so far and how many there are to do. */
  onProgress?: (done: number, total: number) => void;
}

export interface ExportSummary {
  /** Entities with at least one record in the file. */
  entities: number;
  aspects: number;
  timeseriesRows: number;
  bytes: number;
}

const ENTITY_PAGE = 200;
const TIMESERIES_PAGE = 1000;
/** Written to the file in pieces of about this size. */
const WRITE_CHUNK = 1 << 20;

/** Entity type names as the store keeps them, checked: an unknown one is a BAD_REQUEST naming it. */
export function entityTypeNames(names: readonly string[]): string[] {
  return [...new Set(names.map((n) => {
    const d = entityDescriptor(n.trim());
    if (!d) throw badRequest(`Unknown entity type '${n}' (known: ${ENTITY_DESCRIPTORS.map((e) => e.name).sort().join(', ')})`, { entityType: n });
    return d.name;
  }))];
}

/**
 * JSON with every object's keys sorted (arrays keep their order), written directly: values come parsed from JSON, so
 * they hold only plain objects, arrays, strings, finite numbers, booleans and null. (A JSON.stringify replacer that
 * rebuilds each object sorted took a third of an export's time.)
 */
function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const o = value as Record<string, unknown>;
  let out = '';
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined) continue;
    out += `${out ? ',' : ''}${JSON.stringify(k)}:${sortedJson(o[k])}`;
  }
  return `{${out}}`;
}

/**
 * The system metadata as exported: without an If-Version-Match property (a condition on the write that stored it, not
 * metadata), which would make the restore's write of the aspect conditional on a version the new catalog never had.
 */
function exportedSystemMetadata(sys: SystemMetadata | null): SystemMetadata | null {
  const props = sys?.properties;
  if (!props || typeof props !== 'object') return sys;
  const kept = Object.entries(props).filter(([k]) => k.toLowerCase() !== IF_VERSION_MATCH.toLowerCase());
  if (kept.length === Object.keys(props).length) return sys;
  const { properties: _dropped, ...rest } = sys!;
  return kept.length ? { ...rest, properties: Object.fromEntries(kept) } : rest;
}

function record(entityType: string, urn: string, aspectName: string, value: unknown, sys: SystemMetadata | null): string {
  const systemMetadata = exportedSystemMetadata(sys);
  // The record's own fields in the order DataHub's file sink writes them; the aspect and system metadata sorted.
  const head = `{"entityType":${JSON.stringify(entityType)},"entityUrn":${JSON.stringify(urn)},"changeType":"UPSERT",`
    + `"aspectName":${JSON.stringify(aspectName)},"aspect":{"json":${sortedJson(value)}}`;
  return systemMetadata ? `${head},"systemMetadata":${sortedJson(systemMetadata)}}` : `${head}}`;
}

/**
 * The time-series rows of one aspect for one page of entities, read TIMESERIES_PAGE at a time: `rowsOf(urn)` gives
 * that entity's rows, for the page's urns in order.
 */
class RowCursor {
  private buffer: TimeseriesRow[] = [];
  private exhausted = false;
  private last: TimeseriesRow | undefined;

  constructor(private readonly store: Store, private readonly index: TimeseriesIndex, private readonly urns: readonly string[],
    private readonly since: number | undefined) {}

  async *rowsOf(urn: string): AsyncGenerator<TimeseriesRow> {
    for (;;) {
      if (this.buffer.length === 0) {
        if (this.exhausted) return;
        await this.fill();
        if (this.buffer.length === 0) return;
      }
      const row = this.buffer[0]!;
      if (row.urn !== urn) return; // the next entity's (rows come in the page's urn order)
      this.buffer.shift();
      yield row;
    }
  }

  private async fill(): Promise<void> {
    const rows = await this.store.timeseriesRowsAfter({ entityType: this.index.entityType, aspect: this.index.aspect, urns: this.urns,
      after: this.last, sinceMillis: this.since, limit: TIMESERIES_PAGE });
    if (rows.length < TIMESERIES_PAGE) this.exhausted = true;
    this.last = rows.at(-1) ?? this.last;
    this.buffer = rows;
  }
}

/** Every record of the export, in order, as JSON text (one MCP each), with what each one is. */
export async function* exportRecords(store: Store, opts: ExportOptions = {}): AsyncGenerator<{ json: string; urn: string; timeseries: boolean }> {
  const types = opts.entityTypes ? entityTypeNames(opts.entityTypes) : undefined;
  const total = types ? (await Promise.all(types.map((t) => store.countEntities(t)))).reduce((a, b) => a + b, 0) : await store.countEntities();
  const since = opts.since;
  let done = 0;
  let after: string | undefined;
  opts.onProgress?.(0, total);
  for (;;) {
    const page = await store.entitiesAfter({ after, entityTypes: types, limit: ENTITY_PAGE });
    if (page.length === 0) break;
    after = page.at(-1)!.urn;
    const urns = page.map((e) => e.urn);
    const latest = await store.getLatest(urns);
    // One cursor per time-series aspect of the types on this page.
    const cursors = new Map<string, RowCursor>();
    for (const index of TIMESERIES_INDICES) {
      if (page.some((e) => e.entityType === index.entityType)) {
        cursors.set(`${index.entityType}\n${index.aspect}`, new RowCursor(store, index, urns.filter((_, i) => page[i]!.entityType === index.entityType), since));
      }
    }
    for (const { urn, entityType } of page) {
      const aspects = latest.get(urn) ?? new Map<string, AspectRecord>();
      const key = entityDescriptor(entityType)?.key.name;
      const timeseries = TIMESERIES_INDICES.filter((i) => i.entityType === entityType).map((i) => i.aspect);
      const names = [...new Set([...aspects.keys(), ...timeseries])].filter((a) => a !== key).sort();
      if (key !== undefined && aspects.has(key)) names.unshift(key);
      for (const name of names) {
        const cursor = cursors.get(`${entityType}\n${name}`);
        if (cursor) {
          for await (const row of cursor.rowsOf(urn)) {
            yield { json: record(entityType, urn, name, row.value, row.systemMetadata), urn, timeseries: true };
          }
          continue;
        }
        const r = aspects.get(name)!;
        if (since !== undefined && r.createdOn < since) continue;
        yield { json: record(entityType, urn, name, r.value, r.systemMetadata), urn, timeseries: false };
      }
      opts.onProgress?.(++done, total);
    }
  }
}

/**
 * Writes the export to `file` (a JSON list, one record a line): first to a file beside it, renamed into place once
 * complete, so that a failed export never leaves a truncated file under the name asked for.
 */
export async function exportToFile(store: Store, file: string, opts: ExportOptions = {}): Promise<ExportSummary> {
  const partial = `${file}.partial-${process.pid}`;
  const out = createWriteStream(partial, { flags: 'wx', mode: 0o600 });
  const summary: ExportSummary = { entities: 0, aspects: 0, timeseriesRows: 0, bytes: 0 };
  let pending = '[\n';
  let first = true;
  let lastUrn: string | undefined;
  const flush = async () => {
    summary.bytes += Buffer.byteLength(pending);
    if (!out.write(pending)) await once(out, 'drain');
    pending = '';
  };
  try {
    await once(out, 'open');
    for await (const r of exportRecords(store, opts)) {
      pending += first ? r.json : `,\n${r.json}`;
      first = false;
      if (r.urn !== lastUrn) { summary.entities++; lastUrn = r.urn; }
      if (r.timeseries) summary.timeseriesRows++; else summary.aspects++;
      if (pending.length >= WRITE_CHUNK) await flush();
    }
    pending += first ? ']\n' : '\n]\n';
    await flush();
    out.end();
    await once(out, 'close');
    await rename(partial, file);
    return summary;
  } catch (e) {
    out.destroy();
    await rm(partial, { force: true });
    const fsError = e as NodeJS.ErrnoException;
    if (typeof fsError.syscall === 'string') throw badRequest(`${file}: cannot be written (${fsError.code ?? fsError.message})`);
    throw e;
  }
}
