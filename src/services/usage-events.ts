import { badRequest } from '../errors.js';
import { tryParseUrn } from '../model/urn.js';
import type { Store, UsageEventRow } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import type { RecommendationService } from './recommendations.js';

/**
 * The web app's usage events, as DataHub 0.12.1's web app posts them to `/track` (and its frontend forwards them to
 * the server's `/auth/track`): `{type: 'EntityViewEvent', entityType, entityUrn, actorUrn, timestamp, browserId, …}`.
 * Each is stored as a usage event (the analytics charts count them); entity views and searches with results also
 * go to the recommendation service's recent activity ("Recently Viewed", "Recent searches").
 */

type Obj = Record<string, unknown>;

/** Events older than this are deleted (the analytics charts look back twelve months at most). */
export const USAGE_EVENT_RETENTION_MS = 400 * 86_400_000;
/** Largest event accepted, as JSON. */
const MAX_EVENT_CHARS = 16_384;
/** Longest value kept in a grouped column (queries, sections); longer values are cut. */
const MAX_COLUMN_CHARS = 1_000;
/** A client's clock may run this far ahead of the server's; a later timestamp is replaced by the server's time. */
const CLOCK_SKEW_MS = 5 * 60_000;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, MAX_COLUMN_CHARS) : null);

export class UsageEventService {
  private lastPrune = 0;

  constructor(private readonly store: Store, private readonly recommendations: RecommendationService,
    private readonly opts: { now?: () => number } = {}) {}

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  /**
   * Stores one event posted by `caller`. A user's event is theirs whatever `actorUrn` it names; the system client
   * (DataHub's frontend forwarding an event) speaks for the user the event names.
   */
  async track(caller: Actor, body: unknown): Promise<void> {
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('A usage event must be a JSON object');
    const e = body as Obj;
    if (typeof e.type !== 'string' || !/^[A-Za-z][A-Za-z0-9_]{0,99}$/.test(e.type)) {
      throw badRequest('A usage event needs a type (the event name, e.g. EntityViewEvent)', { field: 'type' });
    }
    const event = JSON.stringify(e);
    if (event.length > MAX_EVENT_CHARS) throw badRequest(`A usage event may be at most ${MAX_EVENT_CHARS} characters of JSON`);
    const named = typeof e.actorUrn === 'string' ? tryParseUrn(e.actorUrn) : undefined;
    const user = caller.kind === 'user' ? caller.urn
      : named && typeof named !== 'string' && named.entityType === 'corpuser' ? named.raw : null;
    const now = this.now();
    const ts = typeof e.timestamp === 'number' && Number.isSafeInteger(e.timestamp) && e.timestamp > 0 && e.timestamp <= now + CLOCK_SKEW_MS
      ? e.timestamp : now;
    const row: UsageEventRow = {
      at: ts, type: e.type, actor: user, browser_id: str(e.browserId), entity_urn: str(e.entityUrn), entity_type: str(e.entityType),
      query: typeof e.query === 'string' ? e.query.slice(0, MAX_COLUMN_CHARS) : null, section: str(e.section), action_type: str(e.actionType),
      event,
    };
    await this.store.recordUsageEvents([row]);
    if (user) {
      const actor: Actor = { urn: user, kind: 'user' };
      if (e.type === 'EntityViewEvent' && row.entity_urn && typeof tryParseUrn(row.entity_urn) !== 'string') {
        await this.recommendations.viewed(actor, row.entity_urn);
      } else if (e.type === 'SearchResultsViewEvent' && typeof e.total === 'number') {
        // The results page's event carries the query and how many results it showed.
        await this.recommendations.searched(actor, e.query, { total: e.total });
      }
    }
    if (now - this.lastPrune > 86_400_000) {
      this.lastPrune = now;
      await this.store.deleteUsageEventsBefore(now - USAGE_EVENT_RETENTION_MS);
    }
  }
}
