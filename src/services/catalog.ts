import type { Config } from '../config.js';
import { openStore } from '../storage/index.js';
import type { Store } from '../storage/types.js';
import { systemActor } from './actor.js';
import type { Authorizer } from './authz.js';
import { EditService } from './edits.js';
import { EntityService } from './entities.js';
import { IdentityService } from './identities.js';
import { LineageService } from './lineage.js';
import { MetadataTestService } from './metadata-tests/runner.js';
import { NativeUserService } from './native-users.js';
import { OwnershipTypeService } from './ownership-types.js';
import { PolicyService } from './policies.js';
import { RecommendationService } from './recommendations.js';
import { RelationshipService } from './relationships.js';
import { SearchService } from './search.js';
import { TimeseriesService } from './timeseries.js';
import { TokenService } from './tokens.js';
import { AnalyticsService } from './analytics.js';
import { IngestionService } from './ingestion.js';
import { UsageEventService } from './usage-events.js';

/** Everything the HTTP surface and the CLI use: the services, built once over one store. */
export interface Catalog {
  config: Config;
  store: Store;
  entities: EntityService;
  tokens: TokenService;
  relationships: RelationshipService;
  /** Lineage walks over the relationship index. */
  lineage: LineageService;
  edits: EditService;
  /** Decides every privilege check; the policy service, behind the Authorizer interface. */
  authz: Authorizer;
  policies: PolicyService;
  search: SearchService;
  timeseries: TimeseriesService;
  metadataTests: MetadataTestService;
  identities: IdentityService;
  /** Native users' passwords, sign-up with invite tokens, password resets and web app sessions. */
  nativeUsers: NativeUserService;
  ownershipTypes: OwnershipTypeService;
  /** listRecommendations' modules, and the views and searches they remember per user. */
  recommendations: RecommendationService;
  /** Managed-ingestion records: ingestion sources, secrets (encrypted), execution requests. */
  ingestion: IngestionService;
  /** The web app's usage events (/track). */
  usageEvents: UsageEventService;
  /** The analytics page's charts and highlights. */
  analytics: AnalyticsService;
  close(): Promise<void>;
}

export async function openCatalog(config: Config, store?: Store): Promise<Catalog> {
  const s = store ?? (await openStore(config.databaseUrl));
  const entities = new EntityService(s, config.historyCap);
  const tokens = await TokenService.create(s, entities, {
    secret: config.tokenSecret, cacheMs: config.tokenCacheMs, allowNoExpiry: config.allowNoExpiryTokens,
  });
  const policies = new PolicyService(entities, s, config.policyCacheMs);
  const search = new SearchService(s, entities);
  await search.rebuildIfEmpty();
  const relationships = new RelationshipService(s, entities);
  await relationships.rebuildIfEmpty();
  await policies.bootstrap(systemActor());
  const ownershipTypes = new OwnershipTypeService(entities, s);
  await ownershipTypes.bootstrap(systemActor());
  const recommendations = new RecommendationService(s, search);
  return {
    ingestion: new IngestionService(entities, s, tokens.deriveKey('dataHubSecret')),
    usageEvents: new UsageEventService(s, recommendations), analytics: new AnalyticsService(s, search),
    config, store: s, entities, tokens, relationships, lineage: new LineageService(s), edits: new EditService(entities),
    authz: policies, policies, search, timeseries: new TimeseriesService(s),
    identities: new IdentityService(entities, s, tokens), ownershipTypes,
    nativeUsers: new NativeUserService(entities, s, tokens, config.systemClientId), recommendations,
    metadataTests: new MetadataTestService(entities, s, (m) => process.stderr.write(`almanac: warning: ${m}\n`)), close: () => s.close(),
  };
}
