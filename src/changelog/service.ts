import os from 'node:os';
import type { ChangeRecord, Store } from '../storage/types.js';
import { BULK_STEP, entityPages, IndexSet, pagesIndexedWithoutEntity, type IndexComputer, type IndexConsumer } from './index-consumer.js';
import { IndexWorker } from './index-workers.js';
import { StartedOnce } from '../storage/module-workers.js';

/** What a local listener hears: entries committed by any server, in offset order, without values. */
export type ChangeListener = (entries: readonly ChangeRecord[]) => void;

/** The derived indexes kept from the log. */
export type IndexName = 'search' | 'relationships';

/**
 * Entities per page when a bulk load's catch-up scans the catalog in key order (IndexSet.scan): about the entities of
 * a log-order step (BULK_STEP entries of about 12 aspects each), whose aspects a page holds in memory.
 */
const SCAN_PAGE = 800;
/** Entities from which `rebuildAll` computes in a worker thread (its start, about a second, is worth it). */
const REBUILD_WORKER_FROM = 5_000;
/**
 * Entities the log's steps compute in the main thread before an ongoing index worker starts (ChangeLogService
 * `ongoingWorkerAfter`): sustained writes, not a test's or an occasional edit's (the worker's start costs about a
 * second of CPU to load the catalog's modules).
 */
const ONGOING_WORKER_AFTER = 500;
/** Entries read per step by the local follower. */
const FOLLOW_BATCH = 1000;
/** Announced entries kept while a read of the log runs; beyond, they are read again instead. */
const MAX_HEARD_MEANWHILE = 10_000;
/**
 * How far (in log entries) the indexes may fall behind this process's writes before a write waits for them: the bound
 * on what other readers may miss while indexing runs after the answers.
 */
export const MAX_INDEX_LAG = 5000;

/**
 * The catalog's change log, as the services see it. Every write appends its entries in its own transaction
 * (src/storage); this service feeds them on:
 * - to the derived indexes (search, relationships), durable consumers that store the offset they applied with each
 *   update: the writing process applies its entries right after its requests answer, many writes in one step, and
 *   every read of an index in this process first waits until the index holds every write this process has committed
 *   (`indexesCurrent`: read-your-writes). Every process catches up from the stored offsets when it starts, so a crash
 *   between a commit and its index update leaves the index behind, never wrong;
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
  /** The newest log offset this process has committed (or heard of) that its index readers must see applied. */
  private wanted = 0;
  /** Where a failure of indexing after the answers goes (the next read or write of the index tries again). */
  warn: (message: string, fields: Record<string, unknown>) => void = (m) => process.stderr.write(`almanac: warning: ${m}\n`);

  /**
   * `indexDelayMs`: how long after a write the indexes start applying it, unless a read of them asks first; the writes
   * committed meanwhile share the step (one read of the log and of their entities, one transaction; an entity written
   * several times is indexed once).
   */
  constructor(readonly store: Store, private readonly indexDelayMs: number) {
    this.indexes = new IndexSet(store);
    this.bulk = { step: BULK_STEP, workerFrom: store.engine === 'postgres' ? Infinity : 2 * BULK_STEP, workerSteps: 0,
      keyOrder: 'when-deferred', scanPage: SCAN_PAGE };
    store.onOwnEntries?.((entries) => this.heardOwn(entries));
  }

  /**
   * This process's own entries, handed on by the store as their transaction commits: the listeners hear them at once,
   * without a read of the log, whether or not they follow on from what this process has read. Entries of other servers
   * committed just before (offsets below these) may not have been announced here yet: these are then kept as heard
   * ahead (`ahead`), the offset moves past them once the gap is heard (announced or read), and they are not handed on
   * again. Handing them on only when they followed on made the writer read its own entries back from the log whenever
   * another server had committed just before — the more servers, the more often.
   */
  private heardOwn(entries: readonly ChangeRecord[]): void {
    const followed = this.followed;
    if (followed === null) return;
    const fresh = entries.filter((e) => e.seq > followed && !this.ahead.has(e.seq));
    if (!fresh.length) return;
    for (const e of fresh) {
      this.ahead.set(e.seq, e);
      if (e.seq > this.ownHanded) this.ownHanded = e.seq;
    }
    for (const l of this.listeners) l(fresh);
    // While a read of the log runs, it moves the offset (and skips these) itself.
    if (!this.following) this.moveThroughAhead();
  }

  /** Own entries handed on beyond the offset (heardOwn), by offset: skipped when the log's read or announcement reaches them. */
  private readonly ahead = new Map<number, ChangeRecord>();
  /** The newest of this process's own entries handed on to the listeners. */
  private ownHanded = 0;

  /** Moves the offset through the entries heard ahead that now follow on from it. */
  private moveThroughAhead(): void {
    if (this.followed === null || this.ahead.size === 0) return;
    while (this.ahead.delete(this.followed + 1)) this.followed++;
    if (this.ahead.size) for (const seq of this.ahead.keys()) if (seq <= this.followed) this.ahead.delete(seq);
  }

  /** The offset up to which the listeners have heard every entry (entries heard ahead of a gap not counted). */
  followedTo(): number | null {
    return this.followed;
  }

  /** The offset up to which this process knows every index applied the log (its own steps, the offsets it last read). */
  indexesKnownAt(): number {
    return this.indexes.appliedTo();
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
   * After a write of this process commits: local listeners hear it before the caller answers (caches drop what it
   * changed), and the indexes apply it right after, together with the other writes committed meanwhile — one step for
   * many writes, which is what lets a busy server index a write for much less than a step of its own. Readers of the
   * indexes in this process wait for that step (`indexesCurrent`). A write waits for it too when the indexes are more
   * than MAX_INDEX_LAG entries behind, so that they never fall far behind for other processes' readers.
   */
  async afterCommit(opts: { bulk?: boolean } = {}): Promise<void> {
    if (this.fault === 'kill-after-commit') process.kill(process.pid, 'SIGKILL');
    // The log is read unless the listeners heard every entry this process appended as it committed (heardOwn).
    const own = this.store.newestOwnEntry?.();
    if (own === undefined || this.followed === null || (this.followed < own && this.ownHanded < own)) await this.follow();
    const known = Math.max(this.followed ?? 0, this.ownHanded);
    if (known > this.wanted) this.wanted = known;
    if (opts.bulk) {
      await this.bulkCatchUp();
      return;
    }
    if (this.stopped || this.wanted - this.indexes.appliedTo() > MAX_INDEX_LAG) {
      await this.catchUpIndexes();
      return;
    }
    this.indexingTimer ??= setTimeout(() => {
      this.indexingTimer = undefined;
      this.catchUpIndexes().catch((e: unknown) => this.warn(`the indexes could not apply the change log (retried at the next read or write): ${String(e)}`,
        { err: e }));
    }, this.indexDelayMs);
  }

  /**
   * A bulk load's end: the indexes catch up with its whole backlog before the loader's call returns, in large steps,
   * with the derived tables' secondary indexes dropped first and built once after when that is cheaper (deferIndexes),
   * and a larger page cache meanwhile where the store has one (bulkPageCache).
   */
  private async bulkCatchUp(): Promise<void> {
    const head = await this.noteStoredPositions();
    const backlog = head - Math.min(head, this.indexes.appliedTo());
    await this.withBulkResources(backlog >= this.bulk.workerFrom, async (worker) => {
      const restore = await this.store.deferIndexes?.(backlog);
      try {
        // Most of the catalog to index: in key order rather than in the log's order (IndexSet.scan); what the log holds
        // beyond `head`, or all of it if the scan gave up, is replayed next.
        const keyOrder = this.bulk.keyOrder === 'always' || (this.bulk.keyOrder === 'when-deferred' && restore !== null);
        if (keyOrder && backlog > 0) await this.indexes.scan(head, this.bulk.scanPage, worker);
        await this.indexes.catchUp(this.bulk.step, worker);
      } finally {
        await restore?.();
      }
    });
  }

  /**
   * Runs a bulk index job (a load's catch-up, a reindex) with the store's bulk page cache, and with a worker thread
   * computing index updates when `useWorker` and the store can hand one a reader (SQLite; `indexWorkers`).
   */
  private async withBulkResources<T>(useWorker: boolean, work: (worker: IndexWorker | undefined) => Promise<T>): Promise<T> {
    const restoreCache = this.store.bulkPageCache?.();
    try {
      const url = this.indexWorkers && useWorker ? this.store.readerUrl?.() : null;
      const worker = url ? await IndexWorker.start(url) : null;
      try {
        return await work(worker ?? undefined);
      } finally {
        await worker?.close();
        this.bulk.workerSteps += worker?.computed ?? 0;
      }
    } finally {
      restoreCache?.();
    }
  }

  /**
   * A bulk load's catch-up: entries per step; the backlog from which a worker computes the updates (two steps: worth
   * the worker's start, about a second to load the catalog's modules); how many steps workers computed so far (tests
   * set the first two small, and read the third). Not on PostgreSQL by default: there the database's own processes
   * share the cores, and a load of 4,000 generated datasets took 15 % more CPU with the worker (its start and its own
   * reads) for no measurable gain in time (2026-11-28, 2 cores), where SQLite's load of 5,000 took 18 % less CPU.
   * `keyOrder`: whether the backlog is indexed in key order (IndexSet.scan) — when it is worth deferring the indexes
   * for (most of the catalog), always (tests), or never — with `scanPage` entities a page. On PostgreSQL too: at 5,000
   * generated datasets its catch-up took 7.3–7.9 s of CPU (this process and PostgreSQL's) in key order against 8.1–8.3 in
   * the log's (2026-11-28, bench/pg-load.ts), the next page computed while the database writes one.
   */
  readonly bulk: { step: number; workerFrom: number; workerSteps: number; keyOrder: 'when-deferred' | 'always' | 'never'; scanPage: number };

  /**
   * Whether a bulk load's index updates may be computed in a worker thread (src/changelog/index-workers.ts), which
   * computes the catalog's 'search' and 'relationships' indexes as src/catalog.ts registers them: off when the
   * deployment's registry has types of its own (the worker knows only the built-in ones).
   */
  indexWorkers = true;

  private indexingTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  /** Applies what is pending to the indexes now and stops scheduling (the catalog closes). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.indexingTimer);
    this.indexingTimer = undefined;
    await this.ownCurrent();
    // A step the timer started before is let finish: the store closes next.
    await this.indexes.idle();
    await this.ongoing.close();
  }

  /**
   * Resolves once the indexes have applied every entry this process committed before the call (its own writes, and
   * what it heard of others'): what a read of the search or relationship index awaits, so that a search right after
   * a write sees it. At once when nothing is pending; otherwise it joins the step under way or the next one.
   */
  indexesCurrent(): Promise<void> | undefined {
    if (this.store.engine === 'postgres' && this.indexes.consumers.size > 0) return this.othersCurrent();
    return this.ownCurrent();
  }

  /** Resolves once the indexes hold every write this process answered (at once when they do). */
  private ownCurrent(): Promise<void> | undefined {
    return this.indexes.appliedTo() < this.wanted ? this.awaitIndexes(this.wanted) : undefined;
  }

  /**
   * On a database other servers share, a client may write through one and search through another (a proxy's round
   * robin): the write's server applies it to the indexes after answering, so a reader here first reads the log's head
   * and the stored offsets (two small queries) and, when the indexes are behind, applies what is missing itself — the
   * steps are guarded, so whichever server gets there first does it. A backlog beyond what a writer ever leaves
   * (MAX_INDEX_LAG: a bulk load, whose loader indexes it at its end) is not taken on by a reader: it answers from the
   * index as it stands.
   */
  private async othersCurrent(): Promise<void> {
    const head = await this.noteStoredPositions();
    const applied = this.indexes.appliedTo();
    if (applied >= head || head - applied > MAX_INDEX_LAG) return;
    await this.awaitIndexes(head);
  }

  /** Reads the log's head and the indexes' stored offsets (which the indexes then take as known); returns the head. */
  private async noteStoredPositions(): Promise<number> {
    const { head, consumers } = await this.positions();
    this.indexes.noteStoredOffsets(consumers);
    return head;
  }

  private async awaitIndexes(target: number): Promise<void> {
    for (let stalled = 0; this.indexes.appliedTo() < target;) {
      const before = this.indexes.appliedTo();
      await this.catchUpIndexes();
      // A step always reads the log up to its head; no progress twice over would be a bug, not a wait.
      if (this.indexes.appliedTo() <= before && ++stalled > 2) throw new Error(`the indexes stay at offset ${before}, behind ${target}`);
    }
  }

  /** Reads the entries committed since the last call (any server's) and hands them to the listeners. */
  /**
   * Reads the entries other processes wrote, when the store says there may be some it was not told of (another
   * process on the same SQLite file): what a cache must have heard before it answers from memory.
   */
  async heardOtherWriters(): Promise<void> {
    if (this.store.externalWrites()) await this.follow();
  }

  /**
   * Entries another process announced (PostgreSQL's NOTIFY carries them): the listeners hear them without a read of
   * the log when they follow on from what this process has read. Otherwise — an offset never committed (a rolled back
   * writer's), an announcement missed, a read under way — the log is read, from this process's offset as always.
   */
  announced(entries: readonly ChangeRecord[]): Promise<void> {
    if (this.followed === null) return this.follow();
    if (this.following) {
      // A read of the log is under way (this server's own commit, most often, whose announcement then arrives while
      // it reads): what it does not read is handed on after it, rather than read again.
      if (this.heardMeanwhile.length < MAX_HEARD_MEANWHILE) this.heardMeanwhile.push(...entries);
      else this.followAgain = true;
      return this.following;
    }
    return this.handOn(entries) ? Promise.resolve() : this.follow();
  }

  /**
   * Hands the announced entries that follow on from this process's offset to the listeners, in order, and moves the
   * offset; false when some are left after a gap (an announcement not yet heard, an offset never committed), which
   * a read of the log then covers. Only while no read runs: a read hands on what it read itself.
   */
  private handOn(entries: readonly ChangeRecord[]): boolean {
    const followed = this.followed!;
    const fresh = new Map<number, ChangeRecord>();
    for (const e of entries) if (e.seq > followed) fresh.set(e.seq, e);
    const run: ChangeRecord[] = [];
    let next = followed + 1;
    // Through what was announced and what this process heard ahead of it (its own entries, handed on already).
    for (; fresh.has(next) || this.ahead.has(next); next++) {
      if (!this.ahead.delete(next)) run.push(fresh.get(next)!);
    }
    this.followed = next - 1;
    if (run.length) for (const l of this.listeners) l(run);
    this.moveThroughAhead();
    for (const seq of fresh.keys()) if (seq > this.followed) return false;
    return true;
  }

  /** Entries announced while a read of the log ran. */
  private heardMeanwhile: ChangeRecord[] = [];

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
          const heard = this.heardMeanwhile;
          this.heardMeanwhile = [];
          if (heard.length && !this.handOn(heard)) this.followAgain = true;
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
      if (entries.length === 0) {
        this.moveThroughAhead();
        return;
      }
      this.followed = entries[entries.length - 1]!.seq;
      // This process's own entries among them were handed on as they committed (heardOwn).
      const unheard = this.ahead.size ? entries.filter((e) => !this.ahead.has(e.seq)) : entries;
      this.moveThroughAhead();
      if (unheard.length) for (const l of this.listeners) l(unheard);
      if (entries.length < FOLLOW_BATCH) return;
    }
  }

  /**
   * Every durable index applies what it has not yet (another server's writes, or a crash's leftovers). Under sustained
   * writes (SQLite) the updates are computed in the ongoing index worker (ongoingWorker) and applied here.
   */
  catchUpIndexes(step?: number): Promise<void> {
    return this.indexes.catchUp(step, this.ongoingWorker());
  }

  /**
   * Entities the log's steps compute in this thread before the ongoing index worker starts: once this process has
   * indexed that many, the steps' updates — reading the named entities' aspects, parsing them, building their
   * documents and edges, a fifth to a third of the main thread's CPU under ingestion — are computed in a worker thread
   * (src/changelog/index-workers.ts) on the other core, and only applied in this one (each guarded by the offsets,
   * as a bulk load's are; a worker that fails leaves the step to this thread). SQLite only, as for a bulk load's
   * catch-up (bulk.workerFrom); Infinity: never. Only with more than two cores: it moves work off this thread but
   * adds to the process's CPU (in process, 2026-11-29: main thread −16 %, process +3–19 % per aspect), and on two
   * cores shared with the clients single-proposal ingest over HTTP lost about a tenth of its rate with it (3,275–3,566
   * aspects/s, without it 3,654–3,986, alternated runs; 1,000-proposal batches gained about 5 %). Not measured on more
   * cores.
   */
  ongoingWorkerAfter = os.availableParallelism() > 2 ? ONGOING_WORKER_AFTER : Infinity;
  /** The ongoing index worker (none where this process cannot start one, or once it stops). */
  private readonly ongoing = new StartedOnce<IndexWorker>(async () => {
    const url = !this.stopped && this.indexWorkers && this.bulk.workerFrom !== Infinity ? this.store.readerUrl?.() : null;
    return url ? IndexWorker.start(url) : null;
  });

  /** Steps the ongoing index worker computed (tests). */
  get ongoingWorkerSteps(): number {
    return this.ongoing.current?.computed ?? 0;
  }

  /** The ongoing worker if it runs; starts it (in the background) once this process has indexed enough itself. */
  private ongoingWorker(): IndexWorker | undefined {
    const worker = this.ongoing.current;
    if (worker) {
      if (worker.alive) return worker;
      this.ongoing.drop();
      return undefined;
    }
    if (!this.ongoing.asked && this.indexes.computedHere >= this.ongoingWorkerAfter) this.startOngoingWorker().catch(() => {});
    return undefined;
  }

  /** Starts the ongoing index worker (once); resolves to whether it runs. */
  async startOngoingWorker(): Promise<boolean> {
    return (await this.ongoing.started())?.alive === true;
  }

  /**
   * Rebuilds one index from every entity in the store (online: writes go on meanwhile), then removes what it holds
   * for entities that no longer exist. `progress(done, total)` after each batch.
   */
  async rebuild(name: IndexName, progress?: (done: number, total: number) => void): Promise<void> {
    const consumer = this.consumers.get(name);
    if (!consumer) throw new Error(`no index named ${name}`);
    const total = await this.store.countEntities();
    await consumer.rebuild(entityPages(this.store), (done) => progress?.(done, total));
    // Entries of entities no longer stored.
    await consumer.rebuild(pagesIndexedWithoutEntity(this.store, name));
  }

  /**
   * Rebuilds every index in one pass over the entities (`almanac reindex` of both), online: each page of entities read
   * once for all of them, in key order, computed in a worker thread where the store has one to hand (SQLite) while
   * this thread writes the page before, with the bulk page cache. At 100,000 generated datasets the two rebuilds one
   * after the other took 59 + 37 s. False when a page kept being written to: the caller rebuilds one index at a time.
   */
  async rebuildAll(progress?: (done: number, total: number) => void): Promise<boolean> {
    const total = await this.store.countEntities();
    const rebuilt = await this.withBulkResources(this.bulk.workerFrom !== Infinity && total >= REBUILD_WORKER_FROM,
      (worker) => this.indexes.rebuildAll(this.bulk.scanPage, worker, (done) => progress?.(done, total)));
    if (!rebuilt) return false;
    await this.indexes.catchUp();
    return true;
  }

  /** Rebuilds an index that is empty while the store is not (the first start after a migration that emptied it). */
  async rebuildIfEmpty(name: IndexName, indexed: () => Promise<number>): Promise<void> {
    if ((await indexed()) > 0 || (await this.store.countEntities()) === 0) return;
    await this.rebuild(name);
  }
}
