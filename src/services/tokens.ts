import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { badRequest, notFound, unauthenticated } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { ChangeRecord, Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { lookupTable, ownValue } from '../model/safe-keys.js';

/** Where a verified token's remembered claims keep its hash (a symbol: never a claim of the token). */
const TOKEN_ID = Symbol('tokenId');

/**
 * Personal access tokens, as DataHub issues them: HS256 JWTs with claims actorType, actorId, type PERSONAL,
 * version "2", jti, exp. Only a hash is stored (as a dataHubAccessToken entity), so a token can be revoked.
 * Lookups are cached for `cacheMs`; revoking on this node clears the cache entry at once, on other nodes as soon as
 * their change-log follower reads the revocation (within a second; `heard`).
 *
 * A user's removal revokes their tokens (personal ones and web app sessions), whichever way the user went: the
 * entity deleted (REST delete, removeUser), its corpUserInfo aspect deleted, or its `status` set to removed (a
 * rollback of the run that brought it). The change log drives it, so every path and every server is covered: each
 * server that hears the removal refuses the user's tokens from then on, and deletes them (the writing server before
 * its request answers; the others too, which matters only when the writer died in between — deleting twice is
 * harmless). Only tokens issued up to the removal go: a user made again under the same name keeps their new ones.
 */
export const ISSUER = 'datahub-metadata-service';
const SECRET_SETTING = 'token_signing_key';

export const DURATIONS: Readonly<Record<string, number | null>> = lookupTable<number | null>({
  ONE_HOUR: 3_600_000,
  ONE_DAY: 86_400_000,
  ONE_WEEK: 7 * 86_400_000,
  ONE_MONTH: 30 * 86_400_000,
  THREE_MONTHS: 90 * 86_400_000,
  SIX_MONTHS: 180 * 86_400_000,
  ONE_YEAR: 365 * 86_400_000,
  NO_EXPIRY: null,
});

export interface TokenMetadata {
  urn: string;
  id: string;
  name: string;
  description?: string;
  actorUrn: string;
  ownerUrn: string;
  createdAt: number;
  expiresAt?: number;
}

const REVOKED = 'Failed to validate DataHub token: Token has been revoked.';

type Lookup = { info: TokenMetadata; refused?: undefined } | { refused: string };

export interface CreateTokenInput {
  actorUrn: string;
  ownerUrn: string;
  name: string;
  description?: string;
  /** Lifetime in ms; null for no expiry (only when configuration allows it). */
  durationMs: number | null;
  /** PERSONAL (the default) or SESSION (a web app sign-in, issued through src/services/native-users.ts). */
  type?: 'PERSONAL' | 'SESSION';
}

/** Aspects of a corpuser whose deletion removes the user (the key aspect's is logged when the entity is deleted). */
const USER_DEFINING_ASPECTS: ReadonlySet<string> = new Set(['corpUserKey', 'corpUserInfo']);

export class TokenService {
  /** Lookups by token id, from when each was started: concurrent requests with the token share one. */
  private readonly cache = new Map<string, { at: number; found: Promise<Lookup> }>();
  /** Users whose removal the change log told of, with its time: their tokens issued up to then are refused and deleted. */
  private readonly removals = new Map<string, number>();
  /** Users whose `status` was written, with the time: removed ones join `removals` once their status is read. */
  private readonly statusWrites = new Map<string, number>();
  /** The revocation under way (or the last one), each run after the one before. */
  private revoking: Promise<void> = Promise.resolve();
  /** Set while a revocation runs: its own token deletions must not wait for it (settled). */
  private readonly inRevocation = new AsyncLocalStorage<true>();

  private constructor(
    private readonly key: Uint8Array,
    private readonly entities: EntityService,
    private readonly cacheMs: number,
    readonly allowNoExpiry: boolean,
  ) {
    // A user's status changing on this server applies to their tokens at once.
    entities.onWrite((types) => { if (types.has('corpuser')) this.cache.clear(); });
  }

  static async create(store: Store, entities: EntityService, opts: { secret?: string; cacheMs: number; allowNoExpiry: boolean }) {
    const secret = opts.secret ?? (await store.getOrSetSetting(SECRET_SETTING, randomBytes(48).toString('base64url')));
    return new TokenService(new TextEncoder().encode(secret), entities, opts.cacheMs, opts.allowNoExpiry);
  }

  /** An HMAC of `data` under a key derived from the signing key for one purpose (e.g. the web app's session cookie). */
  mac(purpose: string, data: string): string {
    const key = createHmac('sha256', this.key).update(`almanac:${purpose}`).digest();
    return createHmac('sha256', key).update(data).digest('base64url');
  }

  /** A 256-bit key for another purpose (e.g. encrypting secrets at rest), derived from the signing secret (HKDF-SHA256). */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, 'almanac', purpose, 32));
  }

  static hash(token: string): string {
    return createHash('sha256').update(token).digest('base64url');
  }

  async create(input: CreateTokenInput, actor: Actor): Promise<{ accessToken: string; metadata: TokenMetadata }> {
    const actorUrn = parseUrn(input.actorUrn);
    if (actorUrn.entityType !== 'corpuser') throw badRequest(`actorUrn must be a corpuser urn, got '${input.actorUrn}'`);
    if (!input.name?.trim()) throw badRequest('A token needs a name');
    if (input.durationMs === null && !this.allowNoExpiry) {
      throw badRequest('Tokens that never expire are disabled (set ALMANAC_ALLOW_NO_EXPIRY_TOKENS=true to allow them)');
    }
    const now = Date.now();
    const expiresAt = input.durationMs === null ? undefined : now + input.durationMs;
    const jwt = new SignJWT({ actorType: 'USER', actorId: actorUrn.key, type: input.type ?? 'PERSONAL', version: '2' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(actorUrn.key)
      .setIssuer(ISSUER)
      .setJti(randomUUID())
      .setIssuedAt(Math.floor(now / 1000));
    if (expiresAt !== undefined) jwt.setExpirationTime(Math.floor(expiresAt / 1000));
    const accessToken = await jwt.sign(this.key);
    const id = TokenService.hash(accessToken);
    const urn = `urn:li:dataHubAccessToken:${id}`;
    const info: Record<string, unknown> = { name: input.name, actorUrn: actorUrn.raw, ownerUrn: input.ownerUrn, createdAt: now };
    if (input.description) info.description = input.description;
    if (expiresAt !== undefined) info.expiresAt = expiresAt;
    await this.entities.ingest([{ urn, entityType: 'dataHubAccessToken', aspect: 'dataHubAccessTokenInfo', changeType: 'UPSERT',
      value: info, systemMetadata: null }], actor);
    return { accessToken, metadata: { urn, id, ...(info as Omit<TokenMetadata, 'urn' | 'id'>) } };
  }

  /**
   * Verifies a bearer token and returns its actor; any failure is a 401 saying why. A token stops working when it
   * is revoked, and when its user is suspended or removed: at once on this server, within a second on others (their
   * follower reads the change log), and within `cacheMs` at the latest.
   */
  async authenticate(token: string): Promise<Actor> {
    const payload = await this.verifySignature(token);
    if (typeof payload.actorId !== 'string' || !payload.actorId || payload.actorType !== 'USER' || typeof payload.type !== 'string') {
      throw unauthenticated("Found malformed or missing 'actor' claim.");
    }
    if (typeof payload.exp === 'number' && payload.exp * 1000 <= Date.now()) {
      throw unauthenticated('Failed to validate DataHub token. Token has expired.');
    }
    if (payload.version !== '2') throw unauthenticated('Only personal access tokens (version 2) are accepted.');
    const id = (payload[TOKEN_ID] as string | undefined) ?? TokenService.hash(token);
    const found = await this.lookup(id);
    if (found.refused !== undefined) throw unauthenticated(found.refused);
    if (found.info.expiresAt !== undefined && found.info.expiresAt <= Date.now()) {
      throw unauthenticated('Failed to validate DataHub token. Token has expired.');
    }
    return { urn: found.info.actorUrn, kind: 'user', tokenId: id };
  }

  /**
   * Checks the signature once per token: a verified token's claims are remembered (bounded), since an HMAC per
   * request is most of the cost of authentication. Expiry and revocation are still checked on every request.
   */
  private async verifySignature(token: string): Promise<Record<string | symbol, unknown>> {
    const known = this.verified.get(token);
    if (known) return known;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw unauthenticated('Failed to validate DataHub token. Token has expired.');
      throw unauthenticated();
    }
    if (this.verified.size >= 10_000) this.verified.clear();
    // The token's hash (its id) is remembered with its claims: one SHA-256 per token, not per request.
    const remembered = { ...payload, [TOKEN_ID]: TokenService.hash(token) };
    this.verified.set(token, remembered);
    return remembered;
  }

  private readonly verified = new Map<string, Record<string | symbol, unknown>>();
  /** Token lookups answered from the cache and not (read by the metrics at scrape time). */
  readonly stats = { hits: 0, misses: 0 };

  /** The stored token and whether its user may still use it (cached for `cacheMs`, dropped on local user writes). */
  private lookup(id: string): Promise<Lookup> {
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < this.cacheMs) {
      this.stats.hits++;
      return hit.found;
    }
    this.stats.misses++;
    // Cached from its start, so that the requests arriving while it runs wait for it rather than each reading the
    // token again: when the entry expires under load, every connection's next request would otherwise miss at once
    // (a burst of reads every cacheMs on every server). Dropped while it runs, it is not put back: a request after
    // the drop reads anew.
    if (this.cache.size > 10_000) this.cache.clear();
    const entry = { at: Date.now(), found: this.check(id) };
    this.cache.set(id, entry);
    entry.found.catch(() => { if (this.cache.get(id) === entry) this.cache.delete(id); });
    return entry.found;
  }

  private async check(id: string): Promise<Lookup> {
    const info = await this.stored(id);
    if (!info) return { refused: REVOKED };
    // Removed on some server, and not yet deleted here (or by then).
    const removedAt = this.removals.get(info.actorUrn);
    if (removedAt !== undefined && info.createdAt <= removedAt) return { refused: REVOKED };
    const user = await this.entities.getLatest(info.actorUrn, ['corpUserStatus', 'status']);
    if (ownValue(user.get('corpUserStatus')?.value, 'status') === 'SUSPENDED') {
      return { refused: `The token's user ${info.actorUrn} is suspended.` };
    }
    if (ownValue(user.get('status')?.value, 'removed') === true) return { refused: `The token's user ${info.actorUrn} has been removed.` };
    return { info };
  }

  /** The stored token with this id, or null when there is none (never issued, or revoked). */
  private async stored(id: string): Promise<TokenMetadata | null> {
    const urn = `urn:li:dataHubAccessToken:${id}`;
    const rec = (await this.entities.getLatest(urn, ['dataHubAccessTokenInfo'])).get('dataHubAccessTokenInfo');
    return rec ? { urn, id, ...(rec.value as object) } as TokenMetadata : null;
  }

  async metadata(id: string): Promise<TokenMetadata> {
    const info = await this.stored(id);
    if (!info) throw notFound(`Access token ${id} does not exist`);
    return info;
  }

  /** Lists stored tokens, newest expiry first (DataHub's order), optionally those of one owner. */
  async list(opts: { ownerUrn?: string; actorUrn?: string; start: number; count: number }): Promise<{ total: number; tokens: TokenMetadata[] }> {
    const rows = await this.entities.list({ entityType: 'dataHubAccessToken' });
    const latest = await this.entities.getLatestOf(rows.map((r) => r.urn), ['dataHubAccessTokenInfo']);
    let tokens = [...latest.entries()].flatMap(([urn, m]) => {
      const v = m.get('dataHubAccessTokenInfo')?.value as Omit<TokenMetadata, 'urn' | 'id'> | undefined;
      return v ? [{ urn, id: urn.slice('urn:li:dataHubAccessToken:'.length), ...v }] : [];
    });
    if (opts.ownerUrn) tokens = tokens.filter((t) => t.ownerUrn === opts.ownerUrn);
    if (opts.actorUrn) tokens = tokens.filter((t) => t.actorUrn === opts.actorUrn);
    tokens.sort((a, b) => (b.expiresAt ?? Infinity) - (a.expiresAt ?? Infinity) || b.createdAt - a.createdAt);
    return { total: tokens.length, tokens: tokens.slice(opts.start, opts.start + opts.count) };
  }

  /**
   * What the change log says changed, on any server (this one's writes included; others' within a second, read by
   * the follower): cached lookups of tokens that changed are dropped, and a user's removal starts the revocation of
   * their tokens (refused here from now on).
   */
  heard(entries: readonly ChangeRecord[]): void {
    let users = false;
    for (const e of entries) {
      if (!e.urn) continue;
      if (e.entityType === 'dataHubAccessToken') {
        this.cache.delete(e.urn.slice('urn:li:dataHubAccessToken:'.length));
      } else if (e.entityType === 'corpuser') {
        if (e.changeType === 'DELETE' && (e.aspect === null || USER_DEFINING_ASPECTS.has(e.aspect))) {
          this.removals.set(e.urn, Math.max(e.time, this.removals.get(e.urn) ?? 0));
          users = true;
        } else if (e.aspect === 'status' && e.changeType === 'UPSERT') {
          this.statusWrites.set(e.urn, Math.max(e.time, this.statusWrites.get(e.urn) ?? 0));
          users = true;
        }
      }
    }
    if (!users) return;
    this.cache.clear();
    // Another server's removal: nobody awaits it here; a failure leaves it pending (refused, and tried again later).
    void this.scheduleRevocation().catch(() => {});
  }

  /**
   * Waits until the removals heard so far have had their tokens deleted (a write's after-commit step: the request
   * that removed a user answers once the user's tokens are gone). A failure is the caller's.
   */
  async settled(): Promise<void> {
    if (this.inRevocation.getStore() || (this.removals.size === 0 && this.statusWrites.size === 0)) return;
    await this.scheduleRevocation();
  }

  private scheduleRevocation(): Promise<void> {
    const run = this.revoking.catch(() => {}).then(() => this.inRevocation.run(true, () => this.revokeRemoved()));
    this.revoking = run;
    return run;
  }

  /** Deletes the tokens of the users heard removed (those issued up to the removal); what fails stays pending. */
  private async revokeRemoved(): Promise<void> {
    if (this.statusWrites.size) {
      const written = [...this.statusWrites];
      const latest = await this.entities.getLatestOf(written.map(([u]) => u), ['status']);
      for (const [u, at] of written) {
        if (this.statusWrites.get(u) === at) this.statusWrites.delete(u);
        if (ownValue(latest.get(u)?.get('status')?.value, 'removed') === true) this.removals.set(u, Math.max(at, this.removals.get(u) ?? 0));
      }
    }
    if (this.removals.size === 0) return;
    const removals = new Map(this.removals);
    const { tokens } = await this.list({ start: 0, count: Number.MAX_SAFE_INTEGER });
    for (const t of tokens) {
      const at = removals.get(t.actorUrn);
      // Another server may have deleted it meanwhile: deleting what is gone changes nothing.
      if (at !== undefined && t.createdAt <= at) {
        await this.entities.deleteEntity(t.urn);
        this.cache.delete(t.id);
      }
    }
    for (const [u, at] of removals) if (this.removals.get(u) === at) this.removals.delete(u);
  }

  async revoke(id: string): Promise<void> {
    const urn = `urn:li:dataHubAccessToken:${id}`;
    if (!(await this.entities.exists(urn))) throw notFound(`Access token ${id} does not exist`);
    await this.entities.deleteEntity(urn);
    this.cache.delete(id);
  }

}
