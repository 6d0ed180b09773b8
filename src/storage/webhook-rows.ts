import type { WebhookDeadLetter, WebhookRow } from './types.js';

/** Rows of the webhook tables (migration 10) as both drivers return them (BIGINT as a number, see postgres.ts). */
export function webhookOf(r: Record<string, any>): WebhookRow {
  return {
    id: r.id, url: r.url, entityTypes: JSON.parse(r.entity_types), aspects: JSON.parse(r.aspects), secret: r.secret,
    createdBy: r.created_by, createdOn: Number(r.created_on), description: r.description ?? null,
  };
}

export function deadLetterOf(r: Record<string, any>): WebhookDeadLetter {
  return {
    id: Number(r.id), webhookId: r.webhook_id, seq: Number(r.seq), at: Number(r.at), attempts: Number(r.attempts),
    status: r.status === null || r.status === undefined ? null : Number(r.status), error: r.error, event: r.event,
  };
}
