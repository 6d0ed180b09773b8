import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { corpUserCredentials, corpUserInfo, corpUserStatus } from '../entities/corp-user.js';
import { status } from '../entities/shared-aspects.js';
import { AlmanacError, badRequest, notFound, unauthenticated } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { Store } from '../storage/types.js';
import { ROOT_USER_URN, SYSTEM_ACTOR_URN, systemActor, type Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import { inviteTokenUrn } from './invite-tokens.js';
import type { TokenService } from './tokens.js';

/**
 * Native users: people who sign in to DataHub's web app with a password kept by the catalog, as DataHub's
 * NativeUserService and InviteTokenService do. The password is hashed with scrypt under a random salt per user;
 * both are kept in the user's `corpUserCredentials` aspect (`salt`, `hashedPassword`), which generic reads show
 * only to holders of MANAGE_USER_CREDENTIALS. A reset token is kept as a hash only, valid for one day and for one
 * use. A web app sign-in is a SESSION access token (src/services/tokens.ts): stored like personal tokens, so it is
 * revoked with its user and at log-out.
 */

/**
 * The shortest password `setPassword` (the CLI's `password set`) accepts, in characters. Sign-up and reset through
 * the web app keep DataHub's rule (not empty), as its pages enforce their own.
 */
export const MIN_PASSWORD_LENGTH = 12;

/** DataHub's session token lifetime (its SESSION_TOKEN_DURATION_MS default), which is also its session cookie's. */
export const SESSION_DURATION_MS = 86_400_000;
const RESET_TOKEN_DURATION_MS = 86_400_000;
/** The owner recorded on session tokens: they are issued by the system on the user's behalf, not by the user. */
const SESSION_OWNER = SYSTEM_ACTOR_URN;
const SESSION_TOKEN_NAME = 'Web app session';

/** scrypt's cost parameters, recorded in each hash so they can be raised later without breaking stored ones. */
const SCRYPT = { N: 16_384, r: 8, p: 1, keyLength: 32 };

function scrypt(password: string, salt: Buffer, n: number, r: number, p: number, keyLength: number): Promise<Buffer> {
  const options: ScryptOptions = { N: n, r, p, maxmem: 128 * n * r * 2 };
  return new Promise((resolve, reject) => scryptCb(password.normalize('NFC'), salt, keyLength, options, (e, key) => (e ? reject(e) : resolve(key))));
}

/** `scrypt$N$r$p$<base64 key>` for this password and salt. */
async function hashPassword(password: string, salt: Buffer): Promise<string> {
  const key = await scrypt(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keyLength);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${key.toString('base64')}`;
}

/** Whether the password matches a stored hash; a hash in another format (e.g. copied from DataHub) never matches. */
async function passwordMatches(password: string, salt: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+=*)$/.exec(stored);
  if (!m) return false;
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const expected = Buffer.from(m[4]!, 'base64');
  // Parameters from the database are bounded, so a tampered row cannot make a login allocate gigabytes.
  if (n > 1 << 20 || r > 32 || p > 16 || expected.length < 16 || expected.length > 128) return false;
  const key = await scrypt(password, Buffer.from(salt, 'base64'), n, r, p, expected.length);
  return timingSafeEqual(key, expected);
}

const sha256 = (s: string, encoding: 'base64' | 'base64url') => createHash('sha256').update(s, 'utf8').digest(encoding);

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Urns no one may sign up as: the system client, the root user and DataHub's unknown actor (as DataHub refuses them). */
function reserved(userUrn: string, systemClientId: string): boolean {
  return [ROOT_USER_URN, SYSTEM_ACTOR_URN, `urn:li:corpuser:${systemClientId}`, 'urn:li:corpuser:UNKNOWN'].includes(userUrn);
}

const text = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || v.trim() === '') throw badRequest(`${name} must not be empty.`, { field: name });
  return v;
};

export interface NewNativeUser {
  userUrn: string;
  fullName: string;
  email: string;
  title: string;
  password: string;
}

export class NativeUserService {
  /** A hash computed (once, when first needed) for unknown users, so a login takes as long whether or not the user exists. */
  private decoyHash?: Promise<{ salt: string; hashedPassword: string }>;

  constructor(
    private readonly entities: EntityService,
    private readonly store: Store,
    private readonly tokens: TokenService,
    private readonly systemClientId: string,
  ) {}

  private decoy() {
    const salt = randomBytes(16);
    this.decoyHash ??= hashPassword(randomBytes(16).toString('base64'), salt).then((hashedPassword) => ({ salt: salt.toString('base64'), hashedPassword }));
    return this.decoyHash;
  }

  private userUrn(raw: unknown): string {
    const u = parseUrn(text(raw, 'userUrn'));
    if (u.entityType !== 'corpuser') throw badRequest(`'${u.raw}' is not a corpuser urn`);
    return u.raw;
  }

  private async credentialsOf(userUrn: string) {
    return (await this.entities.latestValues([userUrn], [corpUserCredentials])).get(userUrn)?.get('corpUserCredentials');
  }

  /** New `corpUserCredentials` for a password: a fresh salt, the scrypt hash; no reset token. */
  async credentialsFor(password: string): Promise<{ salt: string; hashedPassword: string }> {
    if (password === '') throw badRequest('Password must not be empty.', { field: 'password' });
    const salt = randomBytes(16);
    return { salt: salt.toString('base64'), hashedPassword: await hashPassword(password, salt) };
  }

  /**
   * Whether this is a native user and the password is theirs. False for unknown, removed and non-native users alike,
   * after the same amount of work.
   */
  async verifyPassword(userUrnRaw: unknown, password: unknown): Promise<boolean> {
    const userUrn = this.userUrn(userUrnRaw);
    if (typeof password !== 'string') throw badRequest('password must be a string', { field: 'password' });
    const creds = await this.credentialsOf(userUrn);
    if (!creds?.salt || !creds.hashedPassword) {
      const d = await this.decoy();
      await passwordMatches(password, d.salt, d.hashedPassword);
      return false;
    }
    return passwordMatches(password, creds.salt, creds.hashedPassword);
  }

  /** Creates a native user (info, ACTIVE status, credentials); 409 when the user exists, 400 for reserved urns. */
  async create(input: NewNativeUser, actor: Actor): Promise<string> {
    const userUrn = this.userUrn(input.userUrn);
    if (reserved(userUrn, this.systemClientId)) throw badRequest(`Cannot create a native user as ${userUrn}`);
    const fullName = text(input.fullName, 'fullName');
    const email = text(input.email, 'email');
    const title = text(input.title, 'title');
    const credentials = await this.credentialsFor(text(input.password, 'password'));
    await this.entities.createOnce(userUrn, [corpUserInfo, corpUserStatus, corpUserCredentials], {
      corpUserInfo: { active: true, fullName, displayName: fullName, email, title },
      corpUserStatus: { status: 'ACTIVE', lastModified: { time: Date.now(), actor: SYSTEM_ACTOR_URN } },
      corpUserCredentials: credentials,
    }, actor, 'user');
    return userUrn;
  }

  /**
   * The invite token entity this token string names, if it exists: named by the token's SHA-256, in URL-safe base64
   * as src/services/invite-tokens.ts creates them, or in standard base64 as DataHub does (tokens brought over from it).
   */
  async inviteTokenUrn(token: string): Promise<string | null> {
    const candidates = [inviteTokenUrn(token), `urn:li:inviteToken:${sha256(token, 'base64')}`];
    const existing = await this.store.existing(candidates);
    return candidates.find((u) => existing.has(u)) ?? null;
  }

  /** Sign-up with an invite token (400 when the token names no invite, as DataHub answers). */
  async signUp(input: NewNativeUser & { inviteToken: string }, actor: Actor): Promise<string> {
    const token = text(input.inviteToken, 'inviteToken');
    this.userUrn(input.userUrn);
    if (!(await this.inviteTokenUrn(token))) throw badRequest('Invalid invite token.', { field: 'inviteToken' });
    return this.create(input, actor);
  }

  /** A one-day, one-use password reset token for a native user (createNativeUserResetToken). */
  async createResetToken(userUrnRaw: unknown, actor: Actor): Promise<string> {
    const userUrn = this.userUrn(userUrnRaw);
    await this.entities.requireExists(userUrn);
    const token = randomBytes(24).toString('base64url');
    await this.entities.editExisting(userUrn, [corpUserCredentials], (current) => {
      const creds = current.get('corpUserCredentials');
      if (!creds?.salt || !creds.hashedPassword) throw badRequest(`${userUrn} is not a native user (it has no password to reset)`);
      return { corpUserCredentials: { ...creds, passwordResetToken: sha256(token, 'base64url'),
        passwordResetTokenExpirationTimeMillis: Date.now() + RESET_TOKEN_DURATION_MS } };
    }, actor);
    return token;
  }

  /**
   * Sets a new password with a reset token. Any failure (unknown or non-native user, no token, wrong or expired
   * token) is the same 401, so the answer says nothing about which users exist. The token is used up.
   */
  async resetPassword(userUrnRaw: unknown, password: unknown, resetToken: unknown, actor: Actor): Promise<void> {
    const userUrn = this.userUrn(userUrnRaw);
    const token = text(resetToken, 'resetToken');
    const credentials = await this.credentialsFor(text(password, 'password'));
    const refused = () => unauthenticated('Invalid or expired reset token. Please ask your administrator for a new link.');
    if (!(await this.entities.exists(userUrn))) throw refused();
    await this.entities.editExisting(userUrn, [corpUserCredentials], (current) => {
      const creds = current.get('corpUserCredentials');
      const expires = creds?.passwordResetTokenExpirationTimeMillis;
      if (!creds?.passwordResetToken || typeof expires !== 'number' || !safeEqual(creds.passwordResetToken, sha256(token, 'base64url'))
        || Date.now() > expires) {
        throw refused();
      }
      return { corpUserCredentials: credentials };
    }, actor);
  }

  /**
   * Whether a user exists to act as: the root user always does (it is not stored on a fresh database, yet signs in
   * and gets tokens); anyone else when stored and not removed.
   */
  async userExists(userUrnRaw: unknown): Promise<boolean> {
    const userUrn = this.userUrn(userUrnRaw);
    if (userUrn === ROOT_USER_URN) return true;
    if (!(await this.entities.exists(userUrn))) return false;
    return (await this.entities.latestValues([userUrn], [status])).get(userUrn)?.get('status')?.removed !== true;
  }

  /**
   * Makes a user without a password (the CLI's `token create --create-user`): the info and ACTIVE status a native
   * user gets (src/services/native-users.ts create), named by their id; reserved urns are refused, 409 if it exists.
   */
  async createUser(userUrnRaw: unknown, actor: Actor): Promise<string> {
    const userUrn = this.userUrn(userUrnRaw);
    if (reserved(userUrn, this.systemClientId)) throw badRequest(`Cannot create a user as ${userUrn}`);
    const name = parseUrn(userUrn).key;
    await this.entities.createOnce(userUrn, [corpUserInfo, corpUserStatus], {
      corpUserInfo: { active: true, fullName: name, displayName: name },
      corpUserStatus: { status: 'ACTIVE', lastModified: { time: Date.now(), actor: actor.urn } },
    }, actor, 'user');
    return userUrn;
  }

  /**
   * Sets (or replaces) a user's password directly, creating the user if needed (the CLI's `password set`, which is
   * how the root user gets one): at least MIN_PASSWORD_LENGTH characters.
   */
  async setPassword(userUrnRaw: unknown, password: string, actor: Actor): Promise<string> {
    const userUrn = this.userUrn(userUrnRaw);
    if ([...password].length < MIN_PASSWORD_LENGTH) {
      throw badRequest(`the password must be at least ${MIN_PASSWORD_LENGTH} characters long`, { field: 'password' });
    }
    const credentials = await this.credentialsFor(password);
    await this.entities.ingest([{ urn: userUrn, entityType: 'corpuser', aspect: 'corpUserCredentials', changeType: 'UPSERT',
      value: credentials, systemMetadata: null }], actor);
    return userUrn;
  }

  /**
   * A SESSION token for a user, as generateSessionTokenForUser issues it: the user must exist (the root user
   * always may sign in), not be removed or suspended. Expired session tokens of that user are cleared meanwhile.
   */
  async sessionToken(userId: unknown, durationMs = SESSION_DURATION_MS): Promise<{ accessToken: string; actorUrn: string }> {
    const id = text(userId, 'userId');
    const actorUrn = this.userUrn(id.startsWith('urn:') ? id : `urn:li:corpuser:${id}`);
    if (actorUrn !== ROOT_USER_URN) {
      const aspects = (await this.entities.latestValues([actorUrn], [corpUserStatus, status])).get(actorUrn);
      if (!(await this.entities.exists(actorUrn)) || aspects?.get('status')?.removed) throw notFound(`User ${actorUrn} does not exist`, { urn: actorUrn });
      if (aspects?.get('corpUserStatus')?.status === 'SUSPENDED') throw new AlmanacError('FORBIDDEN', `User ${actorUrn} is suspended.`);
    }
    await this.clearExpiredSessions(actorUrn);
    const { accessToken } = await this.tokens.create({ actorUrn, ownerUrn: SESSION_OWNER, name: SESSION_TOKEN_NAME, durationMs, type: 'SESSION' },
      systemActor());
    return { accessToken, actorUrn };
  }

  private async clearExpiredSessions(actorUrn: string): Promise<void> {
    const { tokens } = await this.tokens.list({ actorUrn, ownerUrn: SESSION_OWNER, start: 0, count: Number.MAX_SAFE_INTEGER });
    const now = Date.now();
    for (const t of tokens) {
      if (t.name === SESSION_TOKEN_NAME && t.expiresAt !== undefined && t.expiresAt <= now) {
        await this.tokens.revoke(t.id).catch((e) => { if (!(e instanceof AlmanacError && e.code === 'NOT_FOUND')) throw e; });
      }
    }
  }

  /** Ends a session: its token stops working at once (log-out). */
  async endSession(tokenId: string): Promise<void> {
    await this.tokens.revoke(tokenId).catch((e) => { if (!(e instanceof AlmanacError && e.code === 'NOT_FOUND')) throw e; });
  }
}

