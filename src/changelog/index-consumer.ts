import type { ChangeRecord, IndexGuard, IndexUpdate, LatestAspects, Store } from '../storage/types.js';
import type { IndexWorker } from './index-workers.js';

/**
 * Entries read per step; each step is one transaction of the indexes and their consumers' offsets. As many as a large
 * ingest batch writes, so that it is indexed in one step: 1,000-record batches indexed in steps of 500 took about 30 %
 * longer to ingest than in one step.
 */
const BATCH = 2000;
/**
 * Entries per step when a bulk load catches up at its end: fewer, larger transactions (each commit writes the pages it
 * changed once; the full-text index writes one segment per step), each holding the aspects of the entities it names
 * in memory (20,000 took the benchmark's loader to a peak RSS of about 700 MB).
 */
export const BULK_STEP = 10_000;
/** Rebuild batches recomputed when a write touched them meanwhile, before the batch is left to the log. */
const REBUILD_RETRIES = 10;

/** Each entity urn in the store, a page at a time in key order (the input of a rebuild or a scan). */
export async function* entityPages(store: Store, pageSize = 500): AsyncGenerator<string[]> {
  let after: string | undefined;
  for (;;) {
    const rows = await store.listEntities({ after, count: pageSize });
    if (rows.length === 0) return;
    yield rows.map((r) => r.urn);
    after = rows[rows.length - 1]!.urn;
  }
}

/**
 * The urns an index holds entries for while no entity is stored under them, a page at a time, until there are none; a
 * page that comes back unchanged (its entries could not be removed) ends it.
 */
export async function* pagesIndexedWithoutEntity(store: Store, index: 'search' | 'relationships'): AsyncGenerator<string[]> {
  let last = '';
  for (;;) {
    const gone = await store.indexedWithoutEntity(index, 500);
    if (gone.length === 0 || gone.join('\n') === last) return;
    last = gone.join('\n');
    yield gone;
  }
}

/**
 * Computes an index's update for some entities from what the store holds for them now. `latest`, when given, holds
 * every aspect of each of these entities as read at the start of the step (one read shared by the indexes).
 */
export type IndexComputer = (urns: readonly string[], latest?: LatestAspects) => Promise<IndexUpdate>;

/**
 * A derived index (search, relationships) kept as a consumer of the change log. It recomputes the entities that
 * entries name from their current aspects (so applying an entry twice, or late, is harmless) and stores the last
 * offset it applied in the same transaction as the update. Catching up is done for all indexes at once by their
 * `IndexSet`; a consumer rebuilds itself.
 */
export class IndexConsumer {
  /** Called after this process changed the index (answers read from it are stale). */
  private readonly applied: (() => void)[] = [];

  constructor(readonly name: string, private readonly store: Store, readonly compute: IndexComputer,
    /** Whether an entry can change this index (others only move its offset on). */
    readonly affects: (entry: ChangeRecord) => boolean, private readonly set: IndexSet) {}

  onApplied(listener: () => void): void {
    this.applied.push(listener);
  }

  notifyApplied(): void {
    for (const l of this.applied) l();
  }

  /**
   * The offset stored for this consumer (in `stored`, the offsets already read, when given), registering it at 0
   * (everything to apply) when new.
   */
  async offset(stored?: ReadonlyMap<string, number>): Promise<number> {
    const at = (stored ?? (await this.store.consumerOffsets())).get(this.name);
    return at ?? (await this.store.registerConsumer(this.name, 0));
  }

  /** How many entries are committed but not applied yet (0 when caught up). */
  async lag(): Promise<number> {
    const [head, at] = await Promise.all([this.store.lastChangeSeq(), this.offset()]);
    return Math.max(0, head - at);
  }

  /**
   * Recomputes the index for every entity in the store, page by page, while the server keeps serving and writing.
   * Each batch is computed from the store as it was at some offset and written only if no later entry names one of
   * its entities (otherwise it is recomputed): a rebuild never puts back an older state than the log's. Entries of the
   * index for entities that no longer exist go too. `progress(done, total)` is called after each batch.
   */
  async rebuild(urnPages: AsyncIterable<string[]>, progress?: (done: number) => void): Promise<void> {
    await this.offset(); // registered, so that its row can be locked
    let done = 0;
    for await (const urns of urnPages) {
      if (urns.length === 0) continue;
      if (!(await this.rebuildBatch(urns))) {
        // Written to all the time: one entity at a time, each left to the log's own consumer if it keeps changing.
        for (const urn of urns) await this.rebuildBatch([urn]);
      }
      done += urns.length;
      progress?.(done);
    }
    await this.set.catchUp();
  }

  private async rebuildBatch(urns: readonly string[]): Promise<boolean> {
    for (let attempt = 0; attempt <= REBUILD_RETRIES; attempt++) {
      const at = await this.store.lastChangeSeq();
      const update = await this.compute(urns);
      if (await this.store.applyIndexUpdate(update, [{ consumer: this.name, unchangedAfter: at, urns }])) {
        this.notifyApplied();
        return true;
      }
    }
    return false;
  }
}

/**
 * The derived indexes, caught up together: each step reads the log once, reads the aspects of the entities its entries
 * name once, computes every index's update from that one read and applies them all in one transaction, moving each
 * consumer's offset with a compare-and-set (an update whose offsets are no longer the stored ones is thrown away and
 * redone). Steps are serialised in this process; calls made while a step runs share the next one, so that a burst of
 * writes is applied in a few steps rather than one each.
 */
export class IndexSet {
  readonly consumers = new Map<string, IndexConsumer>();
  /** The step under way, and the one that callers join until it starts. */
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** The offsets last seen stored; re-read when a guard fails. */
  private known: Map<string, number> | null = null;
  /** Entries read per step by the next run: the largest asked for by the calls it serves. */
  private nextStep = 0;
  /** The worker the next run computes its updates in (a bulk load's catch-up, ongoing steps under load), if any. */
  private nextWorker: IndexWorker | undefined;
  /** Entities whose updates this thread computed in the log's steps (not those a worker computed, nor a scan's). */
  computedHere = 0;

  constructor(private readonly store: Store) {}

  add(name: string, compute: IndexComputer, affects: (entry: ChangeRecord) => boolean = () => true): IndexConsumer {
    const consumer = new IndexConsumer(name, this.store, compute, affects, this);
    this.consumers.set(name, consumer);
    this.known = null;
    return consumer;
  }

  /**
   * Applies every entry committed so far to every index. The step starts on the event loop's next turn (after the
   * current run, if one is going), and every call made before it starts shares it: the writes that concurrent requests
   * commit meanwhile are applied in one step (one read of the log and of their entities, one transaction), which is
   * what lets writes under load cost less than one index step each.
   */
  catchUp(step = BATCH, worker?: IndexWorker): Promise<void> {
    this.nextStep = Math.max(this.nextStep, step);
    if (worker) this.nextWorker = worker;
    if (this.next) return this.next;
    const next = (this.running ?? Promise.resolve())
      .catch(() => {})
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => {
        this.next = null;
        const step = this.nextStep;
        const worker = this.nextWorker;
        this.nextStep = 0;
        this.nextWorker = undefined;
        const running: Promise<void> = (worker ? this.runPipelined(step, worker) : this.run(step)).finally(() => { if (this.running === running) this.running = null; });
        this.running = running;
        return running;
      });
    this.next = next;
    return next;
  }

  /**
   * A bulk load's catch-up when its backlog is most of the catalog (the caller decides): every index computed afresh
   * from each stored entity's latest aspects, a page of entities at a time in key order, then every offset moved to
   * `to` (the log's head when the load's catch-up began). Replaying the log instead visits the entities in write order,
   * which is random in every table keyed by urn (the aspects' index, documents by urn, edges by source): once those
   * outgrow the page cache each step reads most of their pages again, and the rate falls as the catalog grows. In key
   * order each of them is read or written front to back, once, and new documents are numbered in that order too.
   *
   * A document is a function of its entity's latest aspects, so the result is what the log's replay leaves. Each page is
   * written only if no entry after the offset read before it names one of its entities (else it is computed again, as a
   * rebuild does); the offsets move only at the end, with a compare-and-set, so a crash midway leaves them where they
   * were and the next start replays the log from there. False (the caller replays the log) when a page keeps being
   * written to or another process moved an offset meanwhile. Entries after `to` are left to the log's replay.
   */
  async scan(to: number, pageSize: number, worker?: IndexWorker): Promise<boolean> {
    return this.alone(() => this.runScan(to, pageSize, worker));
  }

  /**
   * `almanac reindex` of every index at once: each computed afresh from every stored entity as scan() does (one read of
   * a page's aspects for all of them, the worker computing the next page), online — each page guarded against writes
   * made meanwhile — without moving any offset (the log's consumers are where they were; what they hold is what the
   * aspects say). False when a page kept being written to (the caller rebuilds one index at a time instead).
   * `progress(done)`: entities done so far.
   */
  async rebuildAll(pageSize: number, worker?: IndexWorker, progress?: (done: number) => void): Promise<boolean> {
    return this.alone(async () => {
      const consumers = [...this.consumers.values()];
      for (const c of consumers) await c.offset(); // registered, so that its row can be locked
      if (!(await this.scanPages(consumers, pageSize, worker, progress))) return false;
      for (const c of consumers) c.notifyApplied();
      return true;
    });
  }

  /** Runs `work` with no step of this process under way (one scheduled after it starts waits for it). */
  private async alone(work: () => Promise<boolean>): Promise<boolean> {
    while (this.next ?? this.running) await this.idle();
    const done = work();
    const running: Promise<void> = done.then(() => {}, () => {}).finally(() => { if (this.running === running) this.running = null; });
    this.running = running;
    return done;
  }

  private async runScan(to: number, pageSize: number, worker?: IndexWorker): Promise<boolean> {
    if (this.consumers.size === 0) return true;
    const offsets = await this.offsets();
    const consumers = [...this.consumers.values()].filter((c) => offsets.get(c.name)! < to);
    if (consumers.length === 0) return true;
    if (!(await this.scanPages(consumers, pageSize, worker))) return false;
    const guards: IndexGuard[] = consumers.map((c) => ({ consumer: c.name, from: offsets.get(c.name)!, to }));
    if (!(await this.store.applyIndexUpdate({}, guards))) {
      this.known = null;
      return false;
    }
    this.known = new Map(offsets);
    for (const c of consumers) {
      this.known.set(c.name, to);
      c.notifyApplied();
    }
    return true;
  }

  /**
   * These consumers' indexes computed afresh for every stored entity, a page at a time in key order, each page written
   * only if no entry after the offset read before it names one of its entities (else computed again), then what they
   * hold for entities no longer stored removed. False when a page keeps being written to.
   */
  private async scanPages(consumers: readonly IndexConsumer[], pageSize: number, worker?: IndexWorker, progress?: (done: number) => void):
    Promise<boolean> {
    // A page's update, computed from what the store holds after the offset `at` read before it.
    const compute = async (urns: string[]) => {
      const at = await this.store.lastChangeSeq();
      const here = async () => {
        const latest = await this.store.getLatest(urns);
        return Object.assign({}, ...(await Promise.all(consumers.map((c) => c.compute(urns, latest))))) as IndexUpdate;
      };
      // (A worker that failed or died leaves the page to this thread.)
      const update = worker ? worker.compute(consumers.map((c) => ({ consumer: c.name, urns }))).catch(here) : here();
      update.catch(() => {}); // awaited below
      return { urns, at, update };
    };
    const apply = async (page: Awaited<ReturnType<typeof compute>>) => {
      for (let attempt = 0; ; attempt++) {
        const guards: IndexGuard[] = consumers.map((c) => ({ consumer: c.name, unchangedAfter: page.at, urns: page.urns }));
        if (await this.store.applyIndexUpdate(await page.update, guards)) return true;
        if (attempt === REBUILD_RETRIES) return false;
        page = await compute(page.urns); // written to meanwhile
      }
    };
    const pages = entityPages(this.store, pageSize);
    const nextPage = async () => {
      const next = await pages.next();
      return next.done ? null : compute(next.value);
    };
    // The worker computes page k + 1 while this thread writes page k.
    let done = 0;
    for (let page = await nextPage(); page;) {
      const next = await nextPage();
      if (!(await apply(page))) {
        next?.update.catch(() => {});
        return false;
      }
      done += page.urns.length;
      progress?.(done);
      page = next;
    }
    // Entities no longer stored: what each index still holds for them goes.
    for (const c of consumers) {
      if (c.name !== 'search' && c.name !== 'relationships') continue;
      for await (const gone of pagesIndexedWithoutEntity(this.store, c.name)) if (!(await apply(await compute(gone)))) return false;
    }
    return true;
  }

  private async offsets(given?: ReadonlyMap<string, number>): Promise<Map<string, number>> {
    const stored = given ?? (await this.store.consumerOffsets());
    const out = new Map<string, number>();
    for (const c of this.consumers.values()) out.set(c.name, await c.offset(stored));
    return out;
  }

  /** Takes the offsets just read from the store as the ones it knows (another process may have moved them on). */
  noteStoredOffsets(stored: ReadonlyMap<string, number>): void {
    this.known = new Map([...this.consumers.keys()].map((name) => [name, stored.get(name) ?? 0]));
  }

  /** Resolves once no step is under way or scheduled (whatever their outcome). */
  async idle(): Promise<void> {
    while (this.next ?? this.running) await (this.next ?? this.running)!.catch(() => {});
  }

  /**
   * The offset up to which every index has applied the log, as far as this process knows (from its own steps and the
   * offsets it last read; another process may have gone further). Infinity with no index.
   */
  appliedTo(): number {
    if (this.consumers.size === 0) return Infinity;
    return this.known ? Math.min(...this.known.values()) : 0;
  }

  /** Each consumer's part of a step: the entities named by the entries after its offset that can change it. */
  private stepsOf(entries: readonly ChangeRecord[], offsets: ReadonlyMap<string, number>, to: number) {
    return [...this.consumers.values()].filter((c) => offsets.get(c.name)! < to).map((c) => {
      const from = offsets.get(c.name)!;
      const urns = new Set<string>();
      for (const e of entries) if (e.seq > from && e.urn !== null && c.affects(e)) urns.add(e.urn);
      return { consumer: c, from, urns: [...urns] };
    });
  }

  /** Moves the offsets known after a step applied `steps` up to `to`, and tells their listeners. */
  private applied(offsets: ReadonlyMap<string, number>, steps: ReturnType<IndexSet['stepsOf']>, to: number): void {
    this.known = new Map(offsets);
    for (const s of steps) {
      this.known.set(s.consumer.name, to);
      if (s.urns.length) s.consumer.notifyApplied();
    }
  }

  /**
   * run, with the updates computed by a worker thread (which reads the entities itself) one step ahead: while this
   * thread applies step k, the worker reads and computes step k + 1. Each step's guards are the offsets step k leaves,
   * so a step is applied only where the one before it was; when one is refused (another process applied a step
   * meanwhile) the rest is left to run.
   */
  private async runPipelined(step: number, worker: IndexWorker): Promise<void> {
    if (this.consumers.size === 0) return;
    const offsets = this.known ?? (this.known = await this.offsets());
    // The offsets each step starts from, assuming the steps before it are applied.
    let assumed: Map<string, number> = new Map(offsets);
    const plan = async () => {
      const entries = await this.store.changesAfter(Math.min(...assumed.values()), step);
      if (entries.length === 0) return null;
      const to = entries[entries.length - 1]!.seq;
      const from = assumed;
      const steps = this.stepsOf(entries, from, to);
      const update = worker.compute(steps.filter((s) => s.urns.length).map((s) => ({ consumer: s.consumer.name, urns: s.urns })));
      update.catch(() => {}); // awaited below, or dropped with the steps after a refusal
      assumed = new Map(from);
      for (const s of steps) assumed.set(s.consumer.name, to);
      return { from, to, steps, update, last: entries.length < step };
    };
    for (let current = await plan(); current;) {
      const next = current.last ? null : await plan();
      let update: IndexUpdate;
      try {
        update = await current.update;
      } catch {
        // The worker failed (or died): this thread computes the rest, from the offsets the applied steps left.
        next?.update.catch(() => {});
        return this.run(step);
      }
      const guards: IndexGuard[] = current.steps.map((s) => ({ consumer: s.consumer.name, from: s.from, to: current!.to }));
      if (!(await this.store.applyIndexUpdate(update, guards))) {
        this.known = null;
        return this.run(step);
      }
      this.applied(current.from, current.steps, current.to);
      current = next;
    }
  }

  private run(step: number): Promise<void> {
    if (this.consumers.size === 0) return Promise.resolve();
    if (!this.store.serialIndexStep) return this.runSteps(step);
    // From the offsets as stored once no other process's step runs: what another server applied meanwhile is not
    // computed again here.
    return this.store.serialIndexStep(async (stored) => {
      this.known = await this.offsets(stored);
      return this.runSteps(step);
    });
  }

  private async runSteps(step: number): Promise<void> {
    for (;;) {
      const offsets = this.known ?? (this.known = await this.offsets());
      const entries = await this.store.changesAfter(Math.min(...offsets.values()), step);
      if (entries.length === 0) return;
      const to = entries[entries.length - 1]!.seq;
      const steps = this.stepsOf(entries, offsets, to);
      const named = [...new Set(steps.flatMap((s) => s.urns))];
      this.computedHere += named.length;
      const latest = named.length ? await this.store.getLatest(named) : new Map();
      const updates = await Promise.all(steps.map((s) => (s.urns.length ? s.consumer.compute(s.urns, latest) : {})));
      const guards: IndexGuard[] = steps.map((s) => ({ consumer: s.consumer.name, from: s.from, to }));
      if (await this.store.applyIndexUpdate(Object.assign({}, ...updates) as IndexUpdate, guards)) {
        this.applied(offsets, steps, to);
        if (entries.length < step) return;
      } else {
        this.known = null;
      }
    }
  }
}
