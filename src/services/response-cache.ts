import type { ChangeRecord } from '../storage/types.js';
import type { ReadRecord } from './read-tracking.js';

/**
 * Reuse of whole GraphQL answers: the serialized response of a query is kept, keyed on who asked and exactly what
 * was asked, while every entity it read is unchanged. The change log says what changed — this server's writes before
 * they return, other servers' as soon as the follower reads them — and drops every answer that read it. Answers are
 * never shared between actors (each sees what its privileges allow); a change to policies, roles, groups or users
 * (what privileges are made of) drops them all.
 */

/**
 * How long an answer that read the relationship index is kept at most: this server drops such answers when its own
 * writes update the index, but another server's index updates are not announced (their log entries are, earlier).
 */
const RELATIONSHIP_ANSWER_MS = 1_000;
/** How long an answer that read time series is kept at most (windows such as "the last month" move with the clock). */
const TIMESERIES_ANSWER_MS = 60_000;

/** Entity types whose changes can change anyone's privileges. */
const PRIVILEGE_TYPES = new Set(['dataHubPolicy', 'dataHubRole', 'corpGroup', 'corpuser']);

interface Entry {
  key: string;
  /** The answer's bytes, encoded once (sent as they are). */
  body: Buffer;
  urns: readonly string[];
  views: readonly string[];
  bytes: number;
  /** Used since the eviction sweep last passed it (a second chance before it goes). */
  used: boolean;
  /** When it stops being served (ms; Infinity when only changes end it). */
  expires: number;
  relationships: boolean;
  timeseries: boolean;
}

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  /** urn → keys of the answers that read it. */
  private readonly readers = new Map<string, Set<string>>();
  private bytes = 0;
  /** Counts invalidations: an answer computed across one is not kept (it may have read the old value). */
  private generation = 0;
  /** Lookups answered from the cache and not (read by the metrics at scrape time). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  key(actor: string, query: string, operationName: unknown, variables: unknown): string {
    return `${actor}\u0000${typeof operationName === 'string' ? operationName : ''}\u0000${query}\u0000${variables == null ? '' : JSON.stringify(variables)}`;
  }

  /** The kept answer, if any (marked used: a hit costs one lookup). */
  get(key: string): { body: Buffer; views: readonly string[] } | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.stats.misses++;
      return undefined;
    }
    if (e.expires !== Infinity && Date.now() >= e.expires) {
      this.remove(key);
      this.stats.misses++;
      return undefined;
    }
    e.used = true;
    this.stats.hits++;
    return e;
  }

  /** Where to compare against when the answer is ready (see `keep`). */
  mark(): number {
    return this.generation;
  }

  /** Keeps an answer if nothing was invalidated since `mark` and what produced it can be tracked. */
  keep(key: string, body: Buffer, record: ReadRecord, mark: number): void {
    if (!this.enabled || !record.reusable || mark !== this.generation) return;
    const bytes = key.length * 2 + body.length + 64;
    if (bytes > this.maxBytes / 8) return;
    this.remove(key);
    const now = Date.now();
    const expires = Math.min(record.relationships ? now + RELATIONSHIP_ANSWER_MS : Infinity, record.timeseries ? now + TIMESERIES_ANSWER_MS : Infinity);
    const entry: Entry = { key, body, urns: [...record.urns], views: [...record.views], bytes, used: false, expires,
      relationships: record.relationships, timeseries: record.timeseries };
    this.entries.set(key, entry);
    this.bytes += bytes;
    for (const u of entry.urns) {
      let keys = this.readers.get(u);
      if (!keys) this.readers.set(u, (keys = new Set()));
      keys.add(key);
    }
    // Oldest first; one used since the sweep last passed gets a second chance (moved to the end, unmarked).
    while (this.bytes > this.maxBytes) {
      const [k, oldest] = this.entries.entries().next().value as [string, Entry];
      if (oldest.used && oldest !== entry) {
        oldest.used = false;
        this.entries.delete(k);
        this.entries.set(k, oldest);
      } else {
        this.remove(k);
      }
    }
  }

  /** Drops the answers the change log's entries may have made wrong. */
  invalidate(entries: readonly ChangeRecord[]): void {
    if (entries.length === 0) return;
    this.generation++;
    if (entries.some((e) => PRIVILEGE_TYPES.has(e.entityType))) {
      this.clear();
      return;
    }
    for (const e of entries) {
      if (e.urn === null) { // a time-series deletion across entities
        this.dropWhere((x) => x.timeseries);
        continue;
      }
      const keys = this.readers.get(e.urn);
      if (keys) for (const k of [...keys]) this.remove(k);
    }
  }

  /** Drops the answers that read the relationship index: called once this server has updated it. */
  relationshipsChanged(): void {
    this.generation++;
    this.dropWhere((x) => x.relationships);
  }

  private dropWhere(test: (e: Entry) => boolean): void {
    for (const [k, e] of [...this.entries]) if (test(e)) this.remove(k);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.readers.clear();
    this.bytes = 0;
  }

  /** How much is kept (tests, metrics). */
  get size(): { answers: number; bytes: number } {
    return { answers: this.entries.size, bytes: this.bytes };
  }

  private remove(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
    for (const u of e.urns) {
      const keys = this.readers.get(u);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.readers.delete(u);
    }
  }
}
