import { badRequest } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { Guarded, type Authorizer } from '../services/authz.js';
import type { WebhookService } from './webhooks.js';

/**
 * Webhooks as /api/webhooks reaches them: registering needs MANAGE_WEBHOOKS and VIEW_CHANGE_LOG (a webhook subscribes
 * as its creator), the rest MANAGE_WEBHOOKS; each operation decides before it runs.
 */
export class AuthorizedWebhooks extends Guarded {
  constructor(private readonly webhooks: WebhookService, authz: Authorizer) {
    super(authz);
  }

  /** The request's body as the webhook to register: a JSON object, read once the caller is admitted. */
  async register(actor: Actor, body: unknown) {
    await this.require(actor, 'webhooks.register');
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('The body must be a JSON object');
    const b = body as Record<string, unknown>;
    return this.webhooks.register({ url: b.url as string, entityTypes: b.entityTypes as string[] | undefined,
      aspects: b.aspects as string[] | undefined, description: b.description as string | undefined }, actor);
  }

  async list(actor: Actor) {
    await this.require(actor, 'webhooks.manage');
    return this.webhooks.list();
  }

  async get(actor: Actor, id: string) {
    await this.require(actor, 'webhooks.manage');
    return this.webhooks.get(id);
  }

  async remove(actor: Actor, id: string): Promise<void> {
    await this.require(actor, 'webhooks.manage');
    await this.webhooks.remove(id);
  }

  /** What a webhook failed to deliver; the page is read from the request once the caller is admitted. */
  async deadLetters(actor: Actor, id: string, page: () => { after: number; limit: number }) {
    await this.require(actor, 'webhooks.manage');
    const { after, limit } = page();
    return { after, letters: await this.webhooks.deadLetters(id, after, limit) };
  }
}
