import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../errors.js';
import type { Actor } from '../model/actor.js';
import type { Store, WebhookDeadLetter, WebhookRow } from '../storage/types.js';
import { changeFilter, matches, metadataChangeLog, type ChangeFeed, type ChangeFilter } from './feed.js';

/**
 * Webhooks: an administrator registers a URL (and the entity types and aspects it wants); each webhook is a durable
 * consumer of the change log (`webhook:<id>`, starting at the head when registered) that POSTs every matching
 * change its creator may read, as MetadataChangeLog JSON signed with HMAC-SHA256. At least once: the consumer's
 * offset moves only after a 2xx, or after the retries are spent, when the event goes to the webhook's dead letters.
 * Events of one webhook go out one at a time, in log order; webhooks do not wait for each other.
 */

export interface WebhookOptions {
  /** Attempts per event before it becomes a dead letter. */
  attempts: number;
  /** Delay before the second attempt; doubled before each next one, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long one POST may take. */
  timeoutMs: number;
  /** How often the dispatcher looks at the log without being woken (another server's writes, missed wakes). */
  pollMs: number;
  /** How long a server that is not the dispatcher waits before trying to become it (see start). */
  standbyMs: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  attempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000, timeoutMs: 10_000, pollMs: 1000, standbyMs: 5000,
};

export interface WebhookInput {
  url: string;
  entityTypes?: string[];
  aspects?: string[];
  description?: string;
}

/** A webhook as the API shows it (never its secret). */
export interface WebhookView {
  id: string;
  url: string;
  entityTypes: string[];
  aspects: string[];
  description: string | null;
  createdBy: string;
  createdOn: number;
  /** The last offset it has delivered (or given up on); null once deleted. */
  offset: number | null;
}

/**
 * Runs a job on one server at a time (the store's runExclusive); false when another server holds it. `lost` aborts
 * when the job's lock goes with its connection (a database restart): the job must stop then.
 */
export type Exclusive = (job: string, fn: (lost: AbortSignal) => Promise<void>) => Promise<boolean>;

const READ_BATCH = 100;
const consumerName = (id: string) => `webhook:${id}`;
const SIGNATURE_HEADER = 'X-Almanac-Signature';
const EVENT_ID_HEADER = 'X-Almanac-Event-Id';

/** `sha256=<hex>`: the HMAC-SHA256 of the body under the webhook's secret (what a receiver recomputes). */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => { clearTimeout(t); signal.removeEventListener('abort', done); resolve(); };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export class WebhookService {
  options: WebhookOptions = { ...DEFAULT_WEBHOOK_OPTIONS };
  /** Where the dispatcher's failures go (the server's log). */
  onError: (e: unknown, webhookId?: string) => void = (e) => process.stderr.write(`almanac: webhook dispatcher: ${(e as Error).message}\n`);
  private running?: Promise<void>;
  private stopper?: AbortController;
  private readonly draining = new Map<string, Promise<void>>();
  /** A webhook was registered or deleted through this server: the dispatcher lists them again at its next turn. */
  private relist = false;

  /** `key`: 32 bytes the signing secrets are encrypted under at rest (AES-256-GCM). */
  constructor(private readonly store: Store, private readonly feed: ChangeFeed, private readonly key: Buffer) {}

  // Administration

  /** Registers a webhook from the head of the log; the secret is returned here only. */
  async register(input: WebhookInput, actor: Actor): Promise<{ webhook: WebhookView; secret: string }> {
    const url = typeof input.url === 'string' ? input.url.trim() : '';
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw badRequest(`A webhook needs an absolute http or https URL, got '${url}'`, { field: 'url' });
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw badRequest(`A webhook's URL must be http or https, got '${parsed.protocol}'`, { field: 'url' });
    }
    const list = (v: unknown, field: string): string[] => {
      if (v === undefined || v === null) return [];
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw badRequest(`${field} must be a list of names`, { field });
      return [...new Set(v as string[])];
    };
    const entityTypes = list(input.entityTypes, 'entityTypes');
    const aspects = list(input.aspects, 'aspects');
    changeFilter(entityTypes, aspects); // names checked against the registry
    if (input.description !== undefined && input.description !== null && typeof input.description !== 'string') {
      throw badRequest('description must be a string', { field: 'description' });
    }
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const row: WebhookRow = {
      id: randomUUID(), url: parsed.toString(), entityTypes, aspects, secret: this.encrypt(secret),
      createdBy: JSON.stringify({ urn: actor.urn, kind: actor.kind }), createdOn: Date.now(), description: input.description ?? null,
    };
    const head = await this.store.lastChangeSeq();
    await this.store.createWebhook(row, head);
    this.relist = true;
    this.feed.wake();
    return { webhook: { ...view(row), offset: head }, secret };
  }

  async list(): Promise<WebhookView[]> {
    const [rows, offsets] = await Promise.all([this.store.listWebhooks(), this.store.consumerOffsets()]);
    return rows.map((r) => ({ ...view(r), offset: offsets.get(consumerName(r.id)) ?? null }));
  }

  async get(id: string): Promise<WebhookView> {
    const found = (await this.list()).find((w) => w.id === id);
    if (!found) throw notFound(`No webhook ${id}`, { id });
    return found;
  }

  async remove(id: string): Promise<void> {
    if (!(await this.store.deleteWebhook(id))) throw notFound(`No webhook ${id}`, { id });
    this.relist = true;
  }

  async deadLetters(id: string, after: number, limit: number): Promise<WebhookDeadLetter[]> {
    await this.get(id);
    return this.store.webhookDeadLetters(id, after, limit);
  }

  // The dispatcher

  /**
   * Starts delivering, until `stop`. With `exclusive` (the store's runExclusive), only the server holding the job
   * delivers; the others stand by and take over when it goes.
   */
  start(exclusive?: Exclusive): void {
    if (this.running) return;
    const stopper = new AbortController();
    this.stopper = stopper;
    const { signal } = stopper;
    this.running = (async () => {
      let failures = 0;
      while (!signal.aborted) {
        try {
          // Delivering stops when the job's lock is lost (the database restarted): it goes on only once taken again.
          const ran = exclusive ? await exclusive('webhooks', (lost) => this.run(AbortSignal.any([signal, lost]))) : (await this.run(signal), true);
          failures = 0;
          if (!ran) await sleep(this.options.standbyMs, signal);
        } catch (e) {
          // The database out of reach, most often: tried again after pollMs, doubling while it lasts (up to standbyMs).
          this.onError(e);
          failures++;
          await sleep(Math.min(this.options.pollMs * 2 ** (failures - 1), Math.max(this.options.pollMs, this.options.standbyMs)), signal);
        }
      }
    })();
  }

  /** Stops the dispatcher: deliveries in flight are abandoned (their events are sent again on the next start). */
  async stop(): Promise<void> {
    this.stopper?.abort();
    await this.running;
    this.running = undefined;
  }

  /**
   * The dispatcher's loop: each webhook drains what it has pending, each on its own; woken by new entries, and
   * every pollMs regardless. Returns when the signal aborts.
   */
  private async run(signal: AbortSignal): Promise<void> {
    let hooks: WebhookRow[] = [];
    let listedAt = -Infinity;
    while (!signal.aborted) {
      const seen = this.feed.seen;
      // The webhooks are listed again every pollMs, or at once after a change through this server: not on every wake,
      // which comes with every commit of every server (a read per commit, webhooks or not). One registered through
      // another server starts from the head at its registration, so it misses nothing for being found up to pollMs
      // later; one deleted there finds its offset gone when it next drains.
      if (this.relist || Date.now() - listedAt >= this.options.pollMs) {
        this.relist = false;
        listedAt = Date.now();
        hooks = await this.store.listWebhooks();
      }
      for (const w of hooks) {
        if (this.draining.has(w.id)) continue;
        const p = this.drain(w, signal).catch((e) => this.onError(e, w.id)).finally(() => this.draining.delete(w.id));
        this.draining.set(w.id, p);
      }
      await this.feed.waitForChange(this.options.pollMs, seen, signal);
    }
    await Promise.all(this.draining.values());
  }

  /** Delivers a webhook's pending events, in order, until none is left (or the webhook is deleted or moved elsewhere). */
  private async drain(w: WebhookRow, signal: AbortSignal): Promise<void> {
    const name = consumerName(w.id);
    let at = (await this.store.consumerOffsets()).get(name);
    if (at === undefined) return; // deleted meanwhile
    const actor = JSON.parse(w.createdBy) as Actor;
    const gate = this.feed.gate(actor);
    const filter: ChangeFilter = { entityTypes: new Set(w.entityTypes), aspects: new Set(w.aspects) };
    const secret = this.decrypt(w.secret);
    // Moves the offset over entries not delivered (not matching, not readable); false when someone else moved it.
    const skipTo = async (seq: number) => {
      if (seq === at) return true;
      if (!(await this.store.moveConsumer(name, at!, seq))) return false;
      at = seq;
      return true;
    };
    while (!signal.aborted) {
      const entries = await this.store.changesAfter(at, READ_BATCH, true);
      if (entries.length === 0) return;
      let skipped = at;
      for (const e of entries) {
        if (signal.aborted) return;
        // The creator's reads decide, checked now (a creator who lost the privilege gets nothing more).
        if (!matches(filter, e) || !(await gate.subscribed()) || !(await gate.visible(e))) {
          skipped = e.seq;
          continue;
        }
        if (!(await skipTo(skipped))) return;
        const body = JSON.stringify(metadataChangeLog(e));
        const outcome = await this.deliver(w, secret, e.seq, body, signal);
        if (outcome === 'aborted') return;
        if (outcome.ok) {
          if (!(await skipTo(e.seq))) return;
        } else {
          const moved = await this.store.addWebhookDeadLetter({ webhookId: w.id, seq: e.seq, at: Date.now(), attempts: outcome.attempts,
            status: outcome.status, error: outcome.error, event: body }, at, e.seq);
          if (!moved) return;
          at = e.seq;
        }
        skipped = e.seq;
      }
      if (!(await skipTo(skipped))) return;
    }
  }

  /** POSTs one event, retrying with exponential backoff; 'aborted' when the dispatcher stops meanwhile. */
  private async deliver(w: WebhookRow, secret: string, seq: number, body: string, signal: AbortSignal):
    Promise<'aborted' | { ok: true } | { ok: false; attempts: number; status: number | null; error: string }> {
    const o = this.options;
    for (let attempt = 1; ; attempt++) {
      let status: number | null = null;
      let error: string;
      try {
        const res = await fetch(w.url, {
          method: 'POST', body, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(o.timeoutMs)]),
          headers: { 'content-type': 'application/json', 'user-agent': 'Almanac-Webhook', [SIGNATURE_HEADER]: signature(secret, body),
            [EVENT_ID_HEADER]: String(seq), 'X-Almanac-Webhook-Id': w.id },
        });
        status = res.status;
        await res.body?.cancel().catch(() => {});
        if (status >= 200 && status < 300) return { ok: true };
        error = `The receiver answered HTTP ${status}`;
      } catch (e) {
        if (signal.aborted) return 'aborted';
        const cause = (e as { cause?: { message?: string } }).cause?.message;
        error = `No answer: ${(e as Error).message}${cause ? ` (${cause})` : ''}`;
      }
      if (attempt >= o.attempts) return { ok: false, attempts: attempt, status, error };
      await sleep(Math.min(o.baseDelayMs * 2 ** (attempt - 1), o.maxDelayMs), signal);
      if (signal.aborted) return 'aborted';
    }
  }

  /** `iv.tag.ciphertext`, each base64url. */
  private encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
  }

  private decrypt(stored: string): string {
    const [iv, tag, ct] = stored.split('.').map((p) => Buffer.from(p, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(ct!), decipher.final()]).toString('utf8');
  }
}

function view(r: WebhookRow): Omit<WebhookView, 'offset'> {
  return {
    id: r.id, url: r.url, entityTypes: r.entityTypes, aspects: r.aspects, description: r.description,
    createdBy: (JSON.parse(r.createdBy) as Actor).urn, createdOn: r.createdOn,
  };
}
