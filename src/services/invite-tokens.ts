import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { inviteToken as inviteTokenAspect } from '../entities/invite-token.js';
import { badRequest } from '../errors.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import type { TokenService } from './tokens.js';

/**
 * Invitations to sign up (and to take a role), as DataHub keeps them: an `inviteToken` entity named by a hash of the
 * token (so a token presented is found without being stored in clear), whose aspect holds the token encrypted
 * (AES-256-GCM under a key derived from the token signing key), so that an administrator can show the current link
 * again. At most one invitation per role (or without a role) is current.
 */
const PREFIX = 'v1:';

/** The urn a token string names: its SHA-256, URL-safe base64 (no `/` or `+` in a urn). */
export const inviteTokenUrn = (token: string) => `urn:li:inviteToken:${createHash('sha256').update(token).digest('base64url')}`;

export class InviteTokenService {
  constructor(private readonly entities: EntityService, private readonly tokens: TokenService) {}

  private key() {
    return this.tokens.deriveKey('invite-token');
  }

  private encrypt(token: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key(), iv);
    const body = Buffer.concat([c.update(token, 'utf8'), c.final()]);
    return PREFIX + Buffer.concat([iv, body, c.getAuthTag()]).toString('base64url');
  }

  /** The token, or undefined when it cannot be read back (stored under another key). */
  private decrypt(stored: string): string | undefined {
    if (!stored.startsWith(PREFIX)) return undefined;
    try {
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
      const d = createDecipheriv('aes-256-gcm', this.key(), raw.subarray(0, 12));
      d.setAuthTag(raw.subarray(raw.length - 16));
      return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }

  /** The invitations for this role (or, with null, those without a role). */
  private async forRole(roleUrn: string | null): Promise<{ urn: string; token: string }[]> {
    const rows = await this.entities.list({ entityType: 'inviteToken' });
    const values = await this.entities.latestValues(rows.map((r) => r.urn), [inviteTokenAspect]);
    return [...values].flatMap(([urn, v]) => {
      const t = v.get('inviteToken');
      return t && (t.role ?? null) === roleUrn ? [{ urn, token: t.token }] : [];
    });
  }

  private async create(roleUrn: string | null, actor: Actor): Promise<string> {
    const token = randomBytes(24).toString('base64url');
    await this.entities.createOnce(inviteTokenUrn(token), [inviteTokenAspect],
      { inviteToken: { token: this.encrypt(token), ...(roleUrn ? { role: roleUrn } : {}) } }, actor, 'invite token');
    return token;
  }

  /**
   * The current invitation for the role: the one stored, or a new one when there is none, when `regenerate` asks
   * for a new link (the old ones stop working), or when the stored one cannot be read back.
   */
  async get(roleUrn: string | null, regenerate: boolean, actor: Actor): Promise<string> {
    const existing = await this.forRole(roleUrn);
    if (!regenerate && existing.length === 1) {
      const token = this.decrypt(existing[0]!.token);
      if (token !== undefined) return token;
    }
    for (const e of existing) await this.entities.deleteEntity(e.urn);
    return this.create(roleUrn, actor);
  }

  /** The role an invitation gives (null: none); a token that names no invitation is a 400, as in DataHub. */
  async roleOf(token: string): Promise<string | null> {
    const urn = inviteTokenUrn(token);
    const v = (await this.entities.latestValues([urn], [inviteTokenAspect])).get(urn)?.get('inviteToken');
    if (!v) throw badRequest('Invalid invite token.', { field: 'inviteToken' });
    return v.role ?? null;
  }
}
