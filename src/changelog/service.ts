import type { ChangeRecord, Store } from '../storage/types.js';
import { IndexSet, type IndexComputer, type IndexConsumer } from './index-consumer.js';

/** What a local listener hears: entries committed by any server, in offset order, without values. */
export type ChangeListener = (entries: readonly ChangeRecord[]) => void;

/** The derived indexes kept from the log. */
export type IndexName = 'search' | 'relationships';

/** Entries read per step by the local follower. */
const FOLLOW_BATCH = 1000;

/**
 * The catalog's change log, as the services see it. Every write appends its entries in its own transaction
 * (src/storage); this service feeds them on:
 * - to the derived indexes (search, relationships), durable consumers that store the offset they applied with each
 *   update: the writing process applies its own entries before its request returns (read-your-writes), and every
 *   process catches up from the stored offsets when it starts, so a crash between a commit and its index update
 *   leaves the index behind, never wrong;
 * - to this process's listeners (caches: tokens, policies), with an offset kept in memory from the head at start;
 *   they hear the entries of every server once the follower (`follow`) reads them.
 */
export class ChangeLogService {
  private readonly indexes: IndexSet;
  private readonly listeners: ChangeListener[] = [];
  private followed: number | null = null;
  private following: Promise<void> | null = null;
  private followAgain = false;

  /** A fault the crash-recovery tests inject (ALMANAC_TEST_FAULT), armed once the server serves. */
  private fault: string | undefined;

  constructor(readonly store: Store) {
    this.indexes = new IndexSet(store);
  }

  /** The derived indexes by name. */
  get consumers(): ReadonlyMap<string, IndexConsumer> {
    return this.indexes.consumers;
  }

  /**
   * Test-only: `kill-after-commit` kills the process (SIGKILL) right after its next write commits, before any index
   * applies it — the crash the log must survive. Armed by `serve` once listening, so start-up writes are spared.
   */
  armTestFault(fault: string | undefined): void {
    this.fault = fault;
  }

  /**
   * The log's head and every durable consumer's stored offset (indexes, webhooks `webhook:<id>`): what the metrics
   * read at scrape time to show each consumer's lag.
   */
  async positions(): Promise<{ head: number; consumers: Map<string, number> }> {
    const [head, consumers] = await Promise.all([this.store.lastChangeSeq(), this.store.consumerOffsets()]);
    return { head, consumers };
  }

  /** Registers a derived index kept from the log. */
  addIndex(name: IndexName, compute: IndexComputer, affects?: (entry: ChangeRecord) => boolean): IndexConsumer {
    return this.indexes.add(name, compute, affects);
  }

  /** Listens to every entry from now on (this server's and other servers'); listeners must not throw or block. */
  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  /** Where the local follower starts: the log's head when the catalog opens. */
  async start(): Promise<void> {
    this.followed = await this.store.lastChangeSeq();
    await this.catchUpIndexes();
  }

  /**
   * After a write of this process commits: the indexes apply it (and whatever else is pending) before the caller
   * answers, and local listeners hear it.
   */
  async afterCommit(): Promise<void> {
    if (this.fault === 'kill-after-commit') process.kill(process.pid, 'SIGKILL');
    await this.follow();
    await this.catchUpIndexes();
  }

  /** Reads the entries committed since the last call (any server's) and hands them to the listeners. */
  /**
   * Reads the entries other processes wrote, when the store says there may be some it was not told of (another
   * process on the same SQLite file): what a cache must have heard before it answers from memory.
   */
  async heardOtherWriters(): Promise<void> {
    if (this.store.externalWrites()) await this.follow();
  }

  follow(): Promise<void> {
    if (this.following) {
      this.followAgain = true;
      return this.following;
    }
    this.following = (async () => {
      try {
        do {
          this.followAgain = false;
          await this.readNew();
        } while (this.followAgain);
      } finally {
        this.following = null;
      }
    })();
    return this.following;
  }

  private async readNew(): Promise<void> {
    if (this.followed === null) this.followed = await this.store.lastChangeSeq();
    for (;;) {
      const entries = await this.store.changesAfter(this.followed, FOLLOW_BATCH);
      if (entries.length === 0) return;
      this.followed = entries[entries.length - 1]!.seq;
      for (const l of this.listeners) l(entries);
      if (entries.length < FOLLOW_BATCH) return;
    }
  }

  /** Every durable index applies what it has not yet (another server's writes, or a crash's leftovers). */
  catchUpIndexes(): Promise<void> {
    return this.indexes.catchUp();
  }

  /** Each entity urn in the store, a page at a time (the input of a rebuild). */
  async *entityPages(pageSize = 500): AsyncIterable<string[]> {
    let after: string | undefined;
    for (;;) {
      const rows = await this.store.listEntities({ after, count: pageSize });
      if (rows.length === 0) return;
      yield rows.map((r) => r.urn);
      after = rows[rows.length - 1]!.urn;
    }
  }

  /**
   * Rebuilds one index from every entity in the store (online: writes go on meanwhile), then removes what it holds
   * for entities that no longer exist. `progress(done, total)` after each batch.
   */
  async rebuild(name: IndexName, progress?: (done: number, total: number) => void): Promise<void> {
    const consumer = this.consumers.get(name);
    if (!consumer) throw new Error(`no index named ${name}`);
    const total = await this.store.countEntities();
    await consumer.rebuild(this.entityPages(), (done) => progress?.(done, total));
    const store = this.store;
    await consumer.rebuild((async function* () {
      // Entries of entities no longer stored, a page at a time; a page that comes back unchanged cannot be removed.
      let last = '';
      for (;;) {
        const gone = await store.indexedWithoutEntity(name, 500);
        if (gone.length === 0 || gone.join('\n') === last) return;
        last = gone.join('\n');
        yield gone;
      }
    })());
  }

  /** Rebuilds an index that is empty while the store is not (the first start after a migration that emptied it). */
  async rebuildIfEmpty(name: IndexName, indexed: () => Promise<number>): Promise<void> {
    if ((await indexed()) > 0 || (await this.store.countEntities()) === 0) return;
    await this.rebuild(name);
  }
}
