import type { ChangeRecord, IndexUpdate, Store } from '../storage/types.js';

/** Entries read per step; each step is one transaction of the index and the consumer's offset. */
const BATCH = 500;
/** Rebuild batches recomputed when a write touched them meanwhile, before the batch is left to the log. */
const REBUILD_RETRIES = 10;

/** Computes an index's update for some entities from what the store holds for them now. */
export type IndexComputer = (urns: readonly string[]) => Promise<IndexUpdate>;

/**
 * A derived index (search, relationships) kept as a consumer of the change log. It recomputes the entities that
 * entries name from their current aspects (so applying an entry twice, or late, is harmless) and stores the last
 * offset it applied in the same transaction as the update. Applying is serialised in this process, and between
 * processes by the consumer's offset: an update whose `from` is no longer the stored offset is thrown away and redone.
 */
export class IndexConsumer {
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** The offset last seen stored; re-read when a guard fails. */
  private known: number | null = null;
  /** Called after this process changed the index (answers read from it are stale). */
  private readonly applied: (() => void)[] = [];

  onApplied(listener: () => void): void {
    this.applied.push(listener);
  }

  /** `affects`: whether an entry can change this index (others only move its offset on). */
  constructor(readonly name: string, private readonly store: Store, private readonly compute: IndexComputer,
    private readonly affects: (entry: ChangeRecord) => boolean = () => true) {}

  /**
   * Applies every entry committed so far. Calls made while a run is going share the next run, so that a burst of
   * writes is applied in a few batches rather than one run each.
   */
  catchUp(): Promise<void> {
    if (!this.running) {
      this.running = this.run().finally(() => { this.running = null; });
      return this.running;
    }
    if (!this.queued) {
      const next = () => { this.queued = null; return this.catchUp(); };
      this.queued = this.running.then(next, next);
    }
    return this.queued;
  }

  private async run(): Promise<void> {
    for (;;) {
      const from = this.known ?? (await this.offset());
      const entries = await this.store.changesAfter(from, BATCH);
      if (entries.length === 0) return;
      const to = entries[entries.length - 1]!.seq;
      const urns = [...new Set(entries.flatMap((e) => (e.urn === null || !this.affects(e) ? [] : [e.urn])))];
      const update = await this.compute(urns);
      if (await this.store.applyIndexUpdate(update, { consumer: this.name, from, to })) {
        this.known = to;
        if (urns.length) for (const l of this.applied) l();
        if (entries.length < BATCH) return;
      } else {
        this.known = null;
      }
    }
  }

  private async offset(): Promise<number> {
    const stored = (await this.store.consumerOffsets()).get(this.name);
    return stored ?? (await this.store.registerConsumer(this.name, 0));
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
    await this.catchUp();
  }

  private async rebuildBatch(urns: readonly string[]): Promise<boolean> {
    for (let attempt = 0; attempt <= REBUILD_RETRIES; attempt++) {
      const at = await this.store.lastChangeSeq();
      const update = await this.compute(urns);
      if (await this.store.applyIndexUpdate(update, { consumer: this.name, unchangedAfter: at, urns })) {
        for (const l of this.applied) l();
        return true;
      }
    }
    return false;
  }
}
