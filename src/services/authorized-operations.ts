import type { Actor } from '../model/actor.js';
import type { AnalyticsService } from './analytics.js';
import { Guarded, type Authorizer } from './authz.js';
import type { TimeseriesService, TruncateRequest } from './timeseries.js';

/**
 * The platform's operations as the transports reach them — the time-series indexes' sizes, truncation and tasks, the
 * analytics page, the metrics — each deciding who may before it runs. Requests read after the check come as functions.
 */
export class AuthorizedOperations extends Guarded {
  constructor(private readonly s: { timeseries: TimeseriesService; analytics: AnalyticsService }, authz: Authorizer) {
    super(authz);
  }

  async indexSizes(actor: Actor, via: 'graphql' | 'rest') {
    await this.require(actor, via === 'rest' ? 'rest.getIndexSizes' : 'graphql.timeseriesIndexSizes');
    return this.s.timeseries.indexSizes();
  }

  async truncateTimeseries(actor: Actor, request: () => TruncateRequest): Promise<string> {
    await this.require(actor, 'rest.truncateTimeseriesAspect');
    return this.s.timeseries.truncate(request());
  }

  async taskStatus(actor: Actor, params: () => Parameters<TimeseriesService['taskStatus']>[0]): Promise<string> {
    await this.require(actor, 'rest.getEsTaskStatus');
    return this.s.timeseries.taskStatus(params());
  }

  async analyticsCharts(actor: Actor) {
    await this.require(actor, 'graphql.viewAnalytics');
    return this.s.analytics.charts();
  }

  async metadataAnalyticsCharts(actor: Actor, input: Parameters<AnalyticsService['metadataCharts']>[0]) {
    await this.require(actor, 'graphql.viewAnalytics');
    return this.s.analytics.metadataCharts(input);
  }

  async analyticsHighlights(actor: Actor) {
    await this.require(actor, 'graphql.viewAnalytics');
    return this.s.analytics.highlights();
  }

  /** GET /metrics without the scrape token: VIEW_METRICS, before the registry is rendered. */
  admitMetricsReader(actor: Actor): Promise<void> {
    return this.require(actor, 'metrics.read');
  }
}
