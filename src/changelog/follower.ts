import type { ChangeRecord, Store } from '../storage/types.js';
import type { ChangeLogService } from './service.js';

/**
 * How a server hears what other servers (and other processes on the same SQLite file, such as the CLI) wrote.
 *
 * Each serving process follows the change log so that a write through any of them is seen through every other within
 * a second: the log is read from this process's offset (exact: nothing is missed or applied twice), the local
 * listeners (token, policy and response caches) hear the new entries, and the durable indexes are checked a little
 * later, catching up only when the writer has not applied its own entries and they have stopped moving (it does so
 * within ALMANAC_INDEX_DELAY_MS of answering, so normally there is nothing left to do; a writer that died in between
 * leaves them to the others). On PostgreSQL the announcement carries the entries when they fit, and nothing is read.
 *
 * Three things wake it:
 * - PostgreSQL's NOTIFY, which every writer sends in its transaction (delivered on commit), heard through LISTEN on a
 *   connection of its own (Store.watchChanges, reconnected with backoff);
 * - a poll of the log, the fallback when that connection is down (and a safety net when it is up);
 * - on SQLite, which has no such signal, the poll alone.
 */
export interface FollowerOptions {
  /** Poll period while no LISTEN connection is up (and always on SQLite). */
  pollMs?: number;
  /** Poll period while LISTEN is up (announcements are lost only when that connection is). */
  listeningPollMs?: number;
  /** How long after hearing entries the indexes are checked (the writer applies them itself meanwhile). */
  indexDelayMs?: number;
  /** The least time between two reads of the indexes' offsets. */
  indexLookMs?: number;
  /** A failure to read the log (the database unreachable): reported once until reading works again. */
  onError?: (e: unknown) => void;
  /** Reading the log works again after a failure. */
  onRecovered?: () => void;
  /** The LISTEN connection went up (true) or down (false, with why). */
  onListening?: (listening: boolean, error?: Error) => void;
}

export const FOLLOW_POLL_MS = 250;
/**
 * While LISTEN is up every commit is announced on it (a NOTIFY that cannot be queued fails its transaction), and a
 * connection lost is read after at once on reconnection: the poll only guards against a connection that died without a
 * word (TCP keep-alive finds it within seconds too). Each server polled once a second: with N servers, N reads of the
 * log a second for nothing.
 */
export const FOLLOW_LISTENING_POLL_MS = 5000;
export const FOLLOW_INDEX_DELAY_MS = 250;
/**
 * The least time between two reads of the indexes' offsets by a follower. While another server writes steadily, its
 * entries keep coming and every follower would otherwise read the offsets every FOLLOW_INDEX_DELAY_MS — work on every
 * server for every writer, so per write it grew with the number of servers. Finding a dead writer's backlog takes up
 * to twice this long.
 */
export const FOLLOW_INDEX_LOOK_MS = 1000;
/**
 * How often the indexes are checked even when no new entry was heard (at the first poll after this long): every ten
 * polls without LISTEN, every ten seconds with it.
 */
const INDEX_CHECK_EVERY = 10;
const LISTENING_INDEX_CHECK_MS = 10_000;

export class ChangeFollower {
  private stopped = false;
  private listening = false;
  private failing = false;
  /** The newest offset any listener heard (this process's writes included). */
  private heard = 0;
  /** The newest offset the indexes were checked against. */
  private checked = 0;
  /**
   * The indexes' lowest stored offset when the last check found them behind (null: they were not): a check that
   * finds them behind and no further on than that takes their writer to have stopped, and catches up itself.
   */
  private behindAt: number | null = null;
  /** When the last check that no entry asked for was scheduled. */
  private periodicAt = Date.now();
  /** When the indexes' offsets were last read here. */
  private lookedAt = -Infinity;
  private pollTimer: NodeJS.Timeout | undefined;
  private indexTimer: NodeJS.Timeout | undefined;
  private unwatch: (() => Promise<void>) | null = null;
  private running: Promise<void> = Promise.resolve();

  private readonly pollMs: number;
  private readonly listeningPollMs: number;
  private readonly indexDelayMs: number;
  private readonly indexLookMs: number;

  private constructor(private readonly changeLog: ChangeLogService, private readonly store: Store, private readonly opts: FollowerOptions) {
    this.pollMs = opts.pollMs ?? FOLLOW_POLL_MS;
    this.listeningPollMs = opts.listeningPollMs ?? FOLLOW_LISTENING_POLL_MS;
    this.indexDelayMs = opts.indexDelayMs ?? FOLLOW_INDEX_DELAY_MS;
    this.indexLookMs = opts.indexLookMs ?? FOLLOW_INDEX_LOOK_MS;
    changeLog.onChange((entries) => {
      const last = entries[entries.length - 1];
      if (last && last.seq > this.heard) this.heard = last.seq;
    });
  }

  /** Starts following: LISTEN where the store has it, and the poll. */
  static async start(changeLog: ChangeLogService, store: Store, opts: FollowerOptions = {}): Promise<ChangeFollower> {
    const f = new ChangeFollower(changeLog, store, opts);
    f.heard = f.checked = await store.lastChangeSeq();
    f.unwatch = await store.watchChanges((seq, entries) => f.wake(seq, entries), (listening, error) => {
      f.listening = listening;
      opts.onListening?.(listening, error);
    });
    f.schedulePoll();
    return f;
  }

  /** Whether a LISTEN connection is up now. */
  get isListening(): boolean {
    return this.listening;
  }

  /**
   * Reads what is new now (a NOTIFY, a poll). `seq`: the newest offset the announcement names; nothing is read when it
   * was heard already (this server's own writes, which their afterCommit has handed to the listeners). `entries`: the
   * entries the announcement carried, handed on without reading the log when they follow on from what was heard.
   */
  wake(seq?: number, entries?: readonly ChangeRecord[]): void {
    // Against what the listeners heard in order: this server's own entries may have been heard ahead of other servers'
    // entries not announced here yet, whose announcement must not be taken for heard already.
    const followed = this.changeLog.followedTo();
    if (this.stopped || (seq !== undefined && followed !== null && seq <= followed)) return;
    this.running = (entries ? this.changeLog.announced(entries) : this.changeLog.follow()).then(() => {
      if (this.failing) {
        this.failing = false;
        this.opts.onRecovered?.();
      }
      if (this.heard > this.checked) this.scheduleIndexCheck();
    }, (e) => this.failed(e));
  }

  private failed(e: unknown): void {
    if (this.failing || this.stopped) return;
    this.failing = true;
    this.opts.onError?.(e);
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.wake();
      if (Date.now() - this.periodicAt >= (this.listening ? LISTENING_INDEX_CHECK_MS : INDEX_CHECK_EVERY * this.pollMs)) {
        this.periodicAt = Date.now();
        this.scheduleIndexCheck();
      }
      this.schedulePoll();
    }, this.listening ? this.listeningPollMs : this.pollMs);
    this.pollTimer.unref();
  }

  private scheduleIndexCheck(upTo = this.heard): void {
    if (this.stopped || this.indexTimer) return;
    // What was heard by now, not by the time of the check: under a steady stream of writes, the entries heard in the
    // last moment are still being applied by their writers.
    this.indexTimer = setTimeout(() => {
      this.indexTimer = undefined;
      void this.checkIndexes(upTo).catch((e) => this.failed(e));
    }, Math.max(this.indexDelayMs, this.lookedAt + this.indexLookMs - Date.now()));
    this.indexTimer.unref();
  }

  /**
   * Catches up the indexes that are behind `upTo` and have stopped moving (a writer that died before applying its
   * entries). Indexes behind but moving on are being applied by their writers, more slowly than the delay on a busy
   * machine: catching up here too would race each writer's step (the loser computes its step again) on every other
   * server, a cost that grows with the number of servers. They are looked at again one delay later.
   */
  private async checkIndexes(upTo: number): Promise<void> {
    if (this.stopped) return;
    // Known applied already (this server's own index steps, or its searches' look at the offsets): nothing to read.
    if (this.changeLog.indexesKnownAt() >= upTo) {
      this.behindAt = null;
      if (upTo > this.checked) this.checked = upTo;
      return;
    }
    this.lookedAt = Date.now();
    const offsets = await this.store.consumerOffsets();
    const low = Math.min(...[...this.changeLog.consumers.values()].map((c) => offsets.get(c.name) ?? 0));
    if (low < upTo) {
      if (this.behindAt === null || low > this.behindAt) {
        this.behindAt = low;
        this.scheduleIndexCheck(upTo);
        return;
      }
      await this.changeLog.catchUpIndexes();
    }
    this.behindAt = null;
    if (upTo > this.checked) this.checked = upTo;
  }

  /** Stops listening and polling; waits for a read under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.indexTimer);
    await this.unwatch?.();
    await this.running.catch(() => {});
  }
}
