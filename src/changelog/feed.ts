import { badRequest, conflict } from '../errors.js';
import { entityDescriptor } from '../entities/index.js';
import { aspectSpec } from '../registry/registry.js';
import type { Actor } from '../model/actor.js';
import { requirePrivilege, type Authorizer } from '../services/authz.js';
import { READ_REQUIRES_BY_ASPECT, REQUIRES } from '../model/privileges.js';
import type { ChangeRecord, Store } from '../storage/types.js';
import type { ChangeLogService } from './service.js';

/**
 * The change log as its subscribers see it (GET /api/changes, webhooks): entries as DataHub's MetadataChangeLog
 * JSON, filtered by what the subscriber asked for and by what the subscriber may read.
 */

/** One entry in DataHub's MetadataChangeLog JSON shape; absent fields are left out. */
export interface MetadataChangeLog {
  entityType: string;
  /** Absent for a time-series deletion spanning every entity of a type (retention, truncation). */
  entityUrn?: string;
  changeType: 'UPSERT' | 'DELETE';
  aspectName?: string;
  aspect?: { value: string; contentType: 'application/json' };
  previousAspectValue?: { value: string; contentType: 'application/json' };
  systemMetadata?: Record<string, unknown>;
  previousSystemMetadata?: Record<string, unknown>;
  created: { time: number; actor: string };
}

/** A MetadataChangeLog with its offset in the log (what `since`, `Last-Event-ID` and `X-Almanac-Event-Id` name). */
export type ChangeEvent = { offset: number } & MetadataChangeLog;

export function metadataChangeLog(e: ChangeRecord): MetadataChangeLog {
  const json = (value: string) => ({ value, contentType: 'application/json' as const });
  return {
    entityType: e.entityType,
    ...(e.urn !== null ? { entityUrn: e.urn } : {}),
    changeType: e.changeType,
    ...(e.aspect !== null ? { aspectName: e.aspect } : {}),
    ...(e.valueJson !== null ? { aspect: json(e.valueJson) } : {}),
    ...(e.previousValueJson !== null ? { previousAspectValue: json(e.previousValueJson) } : {}),
    ...(e.systemMetadata ? { systemMetadata: e.systemMetadata as Record<string, unknown> } : {}),
    ...(e.previousSystemMetadata ? { previousSystemMetadata: e.previousSystemMetadata as Record<string, unknown> } : {}),
    created: { time: e.time, actor: e.actor },
  };
}

/** What a subscriber asked for: entity types and aspect names (empty: all). */
export interface ChangeFilter {
  entityTypes: ReadonlySet<string>;
  aspects: ReadonlySet<string>;
}

/** A filter from lists of names, each checked against the registry (an unknown name is a mistake: 400). */
export function changeFilter(entityTypes: readonly string[], aspects: readonly string[]): ChangeFilter {
  for (const t of entityTypes) {
    if (!entityDescriptor(t)) throw badRequest(`Unknown entity type '${t}'`, { field: 'entityType' });
  }
  for (const a of aspects) {
    if (!aspectSpec(a)) throw badRequest(`Unknown aspect '${a}'`, { field: 'aspect' });
  }
  return { entityTypes: new Set(entityTypes), aspects: new Set(aspects) };
}

export function matches(f: ChangeFilter, e: ChangeRecord): boolean {
  return (f.entityTypes.size === 0 || f.entityTypes.has(e.entityType))
    && (f.aspects.size === 0 || (e.aspect !== null && f.aspects.has(e.aspect)));
}

/**
 * Aspects no subscriber ever receives, whatever their privileges: credentials and secrets. The API shows them
 * hashed or encrypted at most (a password's hash and salt, a secret's ciphertext, an invitation's token); a stream
 * that copies every change to other systems is no place for them, and a subscriber loses nothing it needs (the
 * entity's other aspects still tell that a user, a secret or an invitation changed).
 */
export const WITHHELD_ASPECTS: ReadonlySet<string> = new Set(['corpUserCredentials', 'dataHubSecretValue', 'inviteToken']);

/** How long a subscriber's decisions are trusted before they are asked again (a policy change reaches open streams). */
const DECISION_TTL_MS = 30_000;
const MAX_CACHED = 10_000;

/**
 * What one subscriber (a connection, a webhook's creator) may receive: the change log privilege, then per entry
 * the REST aspect read's checks (rest.getAspect on the entity, the entity type's administrative privilege, the
 * aspect's own privilege), decisions cached per urn for a while.
 */
export class ReadGate {
  private readonly byUrn = new Map<string, Promise<boolean>>();
  private readonly byAspect = new Map<string, Promise<boolean>>();
  private subscribe?: Promise<boolean>;
  private since = Date.now();

  constructor(private readonly authz: Authorizer, readonly actor: Actor) {}

  private fresh(): void {
    if (Date.now() - this.since < DECISION_TTL_MS && this.byUrn.size < MAX_CACHED) return;
    this.byUrn.clear();
    this.byAspect.clear();
    this.subscribe = undefined;
    this.since = Date.now();
  }

  /** Whether the actor still holds the change log privilege. */
  subscribed(): Promise<boolean> {
    this.fresh();
    return (this.subscribe ??= this.authz.allowed(this.actor, REQUIRES['changes.subscribe']));
  }

  async visible(e: ChangeRecord): Promise<boolean> {
    this.fresh();
    if (e.aspect !== null) {
      if (WITHHELD_ASPECTS.has(e.aspect)) return false;
      const extra = READ_REQUIRES_BY_ASPECT[e.aspect];
      if (extra && !(await cached(this.byAspect, e.aspect, () => this.authz.allowed(this.actor, extra)))) return false;
    }
    return cached(this.byUrn, e.urn ?? `type:${e.entityType}`, async () => {
      const typeOp = entityDescriptor(e.entityType)?.privileges?.read;
      if (typeOp && !(await this.authz.allowed(this.actor, REQUIRES[typeOp]))) return false;
      // An entry with no urn (a type-wide deletion) only for those who may read every entity (no resource named).
      return this.authz.allowed(this.actor, REQUIRES['rest.getAspect'], e.urn ?? undefined);
    });
  }
}

function cached(map: Map<string, Promise<boolean>>, key: string, decide: () => Promise<boolean>): Promise<boolean> {
  let p = map.get(key);
  if (!p) {
    p = decide();
    map.set(key, p);
    p.catch(() => map.delete(key));
  }
  return p;
}

/** Entries read from the store per step, and the most one page scans (so a narrow filter cannot scan the whole log). */
const READ_BATCH = 500;
const SCAN_BUDGET = 10_000;

export interface ChangePage {
  events: ChangeEvent[];
  /** The offset to pass as `since` for the next page (past entries filtered out, so they are not scanned again). */
  next: number;
}

/** The subscribers' view of the log, and the wake-up signal their loops wait on. */
export class ChangeFeed {
  private readonly waiters = new Set<() => void>();
  /** Bumped by every wake: a loop that read the log at version v and sees a higher one reads again at once. */
  private version = 0;

  constructor(readonly store: Store, changeLog: ChangeLogService, private readonly authz: Authorizer) {
    // This process's own commits, and other servers' once the follower reads them.
    changeLog.onChange(() => this.wake());
  }

  /** New entries may be in the log: waiting subscribers read now. Anything that learns of a commit may call it. */
  wake(): void {
    this.version++;
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  /** The current wake-up version, to pass to `waitForChange` after reading. */
  get seen(): number {
    return this.version;
  }

  /** Resolves on the next wake after `seen` (at once if one came already), after `ms`, or when the signal aborts. */
  waitForChange(ms: number, seen: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted || this.version !== seen) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  gate(actor: Actor): ReadGate {
    return new ReadGate(this.authz, actor);
  }

  /** A subscriber's gate, once the actor is found to hold the change log privilege (403 otherwise). */
  async admit(actor: Actor): Promise<ReadGate> {
    await requirePrivilege(this.authz, actor, REQUIRES['changes.subscribe']);
    return this.gate(actor);
  }

  head(): Promise<number> {
    return this.store.lastChangeSeq();
  }

  /**
   * Where a subscription asking for the entries after `since` starts: the head when not given, the oldest kept
   * when 0. An offset whose successors were trimmed is refused (409: the log no longer holds what the subscriber
   * missed, so it must start again from a fresh read), as is one past the head (400).
   */
  async startAfter(since: number | undefined): Promise<number> {
    const head = await this.store.lastChangeSeq();
    if (since === undefined) return head;
    if (since === 0) return 0;
    if (since > head) throw badRequest(`Offset ${since} is past the newest change (${head})`, { field: 'since', head });
    const first = await this.store.firstChangeSeq();
    const oldest = first ?? head + 1;
    if (since < oldest - 1) {
      throw conflict(`The changes after offset ${since} are no longer kept: the oldest kept is ${oldest}. Read the catalog again, `
        + `then follow the changes from the head (no since) or from 0 (everything kept)`, { field: 'since', oldest, head });
    }
    return since;
  }

  /** Up to `limit` events after an offset that match the filter and that the gate lets through, oldest first. */
  async page(gate: ReadGate, q: { after: number; limit: number; filter: ChangeFilter }): Promise<ChangePage> {
    const events: ChangeEvent[] = [];
    let next = q.after;
    let scanned = 0;
    if (!(await gate.subscribed())) return { events, next };
    while (events.length < q.limit && scanned < SCAN_BUDGET) {
      const entries = await this.store.changesAfter(next, READ_BATCH, true);
      for (const e of entries) {
        scanned++;
        next = e.seq;
        if (matches(q.filter, e) && (await gate.visible(e))) {
          events.push({ offset: e.seq, ...metadataChangeLog(e) });
          if (events.length === q.limit) break;
        }
      }
      if (entries.length < READ_BATCH) break;
    }
    return { events, next };
  }
}
