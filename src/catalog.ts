import { ChangeFeed } from './changelog/feed.js';
import { ChangeFollower, type FollowerOptions } from './changelog/follower.js';
import { awaitingIndexes } from './changelog/index-reads.js';
import { ChangeLogService } from './changelog/service.js';
import { WebhookService } from './changelog/webhooks.js';
import type { Config } from './config.js';
import { applyRegistryExtension, aspectDef } from './entities/index.js';
import { aspectSpec } from './registry/registry.js';
import { ResponseCache } from './services/response-cache.js';
import { trackingReads } from './services/read-tracking.js';
import { openStore, type FacetStart } from './storage/index.js';
import type { ChangeRecord, PoolUse, ReadReplicas, Store } from './storage/types.js';
import { systemActor } from './model/actor.js';
import type { Authorizer } from './services/authz.js';
import { DomainsGlossaryService } from './services/domains-glossary.js';
import { AuthorizedEditService } from './services/authorized-edits.js';
import { AuthorizedEntityWrites } from './services/authorized-writes.js';
import { AuthorizedIdentities, AuthorizedPolicies, AuthorizedTokens } from './services/authorized-admin.js';
import { AuthorizedIngestion } from './services/authorized-ingestion.js';
import { AuthorizedOperations } from './services/authorized-operations.js';
import { AuthorizedReads } from './services/authorized-reads.js';
import { AuthorizedMetadataTests } from './services/authorized-tests.js';
import { AuthorizedWebhooks } from './changelog/authorized-webhooks.js';
import { EditService } from './services/edits.js';
import { EntityService } from './services/entities.js';
import { IdentityService } from './services/identities.js';
import { LineageService } from './services/lineage.js';
import { MetadataTestService } from './services/metadata-tests/runner.js';
import { NativeUserService } from './services/native-users.js';
import { OwnershipTypeService } from './services/ownership-types.js';
import { seedBuiltinPlatforms } from './services/platforms.js';
import { PolicyService } from './services/policies.js';
import { QueryService } from './services/queries.js';
import { RenameService } from './services/renames.js';
import { RecommendationService } from './services/recommendations.js';
import { ReferenceService } from './services/references.js';
import { RelationshipService } from './services/relationships.js';
import { SchemaHistoryService } from './services/schema-history.js';
import { SearchService } from './services/search.js';
import { SettingsService } from './services/settings.js';
import { TimeseriesService } from './services/timeseries.js';
import { TokenService } from './services/tokens.js';
import { AnalyticsService } from './services/analytics.js';
import { IngestionService } from './services/ingestion.js';
import { InviteTokenService } from './services/invite-tokens.js';
import { UsageEventService } from './services/usage-events.js';

/**
 * What the transports (src/http, src/graphql) use: the services, built once over one store. The store itself is not
 * part of it: requests reach storage through the services only.
 */
export interface Catalog {
  config: Config;
  /** Which database engine the store runs on (GET /config reports it). */
  engine: Store['engine'];
  /** Entities' reads; writes go through the services that decide who may (writes, edits, settings…). */
  entities: EntityReads;
  /** The entity writes the transports make (ingestion, deletion…), each deciding who may. */
  writes: AuthorizedEntityWrites;
  tokens: TokenService;
  relationships: RelationshipService;
  /** Whole GraphQL answers kept while what they read is unchanged (invalidated from the change log). */
  responses: ResponseCache;
  /** The change log: its index consumers, local listeners, rebuilds. */
  changeLog: ChangeLogService;
  /** The change log as subscribers read it (GET /api/changes); `wake()` when new entries may be there. */
  changeFeed: ChangeFeed;
  /** Webhooks and their dispatcher (started by `serve`: `webhooks.start(exclusive)`). */
  webhooks: WebhookService;
  /** Lineage walks over the relationship index. */
  lineage: LineageService;
  /** The edit mutations, each deciding who may (the edit rules underneath: EditService). */
  edits: AuthorizedEditService;
  /** The operations the transports offer that these services perform, each deciding who may before it runs. */
  authorized: AuthorizedServices;
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
  /** Managed-ingestion records: ingestion sources, secrets (encrypted), execution requests; ingestion runs. */
  ingestion: IngestionService;
  /** Removing the references other entities hold to one (DataHub's deleteReferences). */
  references: ReferenceService;
  /** The web app's usage events (/track). */
  usageEvents: UsageEventService;
  /** Invitations to sign up (and take a role): one current per role, shown again to administrators. */
  inviteTokens: InviteTokenService;
  /** A dataset's schema history: versions, blame, the aspects a version stamp names. */
  schemaHistory: SchemaHistoryService;
  /** Query entities: the dataset page's list, and their edits (who may edit them decided there). */
  queries: QueryService;
  /** updateName: glossary terms and nodes, domains, groups and data products, each under its own privilege. */
  renames: RenameService;
  /** Domains, the business glossary and data products: creation, moves, deletion, related terms, products' assets. */
  domainsGlossary: DomainsGlossaryService;
  /** The web app's settings, views, posts, roles and invitations as they are changed, each deciding who may. */
  settings: SettingsService;
  /** The analytics page's charts and highlights. */
  analytics: AnalyticsService;
  /** The built-in data platforms this opening wrote (none once every one is stored): `serve` logs them. */
  seededPlatforms: readonly string[];
  /** The database's connection pool as it is now (PostgreSQL; none on SQLite): for /metrics. */
  databasePool?: () => PoolUse;
  /** The read replicas as they are now (PostgreSQL with DATABASE_READ_URL): for /health and /metrics. */
  readReplicas?: () => ReadReplicas | undefined;
  /**
   * Follows the change log for other servers' (and other processes') writes, until close: what a serving process
   * does, so that its caches and answers follow every write within a second (src/changelog/follower.ts).
   */
  follow(opts?: FollowerOptions): Promise<void>;
  close(): Promise<void>;
}

/** The services' operations as the transports reach them, each deciding who may (as Backstage wraps its catalog). */
export interface AuthorizedServices {
  tokens: AuthorizedTokens;
  policies: AuthorizedPolicies;
  /** Users and groups, and native users' credentials. */
  identities: AuthorizedIdentities;
  ingestion: AuthorizedIngestion;
  metadataTests: AuthorizedMetadataTests;
  webhooks: AuthorizedWebhooks;
  /** Entity reads, searches, time series and usage, and what the caller may do: what each caller may see. */
  reads: AuthorizedReads;
  /** The time-series indexes' administration, the analytics page, the metrics. */
  operations: AuthorizedOperations;
}

/**
 * What the transports may do with EntityService directly: read. Its writes check no privilege, so they are reached
 * through a service that decides who may (Catalog.writes, edits, settings, domainsGlossary…).
 */
export type EntityReads = Pick<EntityService, 'exists' | 'requireExists' | 'existing' | 'latestValues' | 'getLatest' | 'getLatestOf'
  | 'storedVersion' | 'versions' | 'list' | 'getAspect' | 'warn' | 'decodesBatchInWorker' | 'decodeProposalBatch'>;

/**
 * The catalog as opened: its services and the store under them, for what runs beside the requests (the CLI's jobs,
 * which write as the system actor).
 */
export interface OpenedCatalog extends Catalog {
  store: Store;
  entities: EntityService;
}

/** `opts.facetStart`: when the store's facet structure starts loading (at open unless told; src/storage/facet-index.ts). */
export async function openCatalog(config: Config, store?: Store, opts: { facetStart?: FacetStart } = {}): Promise<OpenedCatalog> {
  // The deployment's own aspects and entity types (none unless ALMANAC_REGISTRY names a file): one registry per process.
  applyRegistryExtension(config.registry ?? { aspects: new Map(), entities: [] });
  // Every store call of a GraphQL request is noted, so that its answer can be reused while what it read is unchanged.
  const tracked = trackingReads(store ?? (await openStore(config.databaseUrl, { connectTimeoutMs: config.databaseConnectTimeoutMs, queryTimeoutMs: config.databaseQueryTimeoutMs,
    poolSize: config.databasePoolSize, statementTimeoutMs: config.databaseStatementTimeoutMs, readUrls: config.databaseReadUrls,
    readWaitMs: config.databaseReadWaitMs,
    sqliteCacheMb: config.sqliteCacheMb, sqliteBulkCacheMb: config.sqliteBulkCacheMb, facetStart: opts.facetStart })));
  // The indexes apply this process's writes after the writes answer; every read of them waits until they hold those.
  const changeLog = new ChangeLogService(tracked, config.indexDelayMs);
  changeLog.indexWorkers = !config.registry || (config.registry.aspects.size === 0 && config.registry.entities.length === 0);
  const s = awaitingIndexes(tracked, () => changeLog.indexesCurrent());
  const entities = new EntityService(s, config.historyCap);
  // Not on PostgreSQL, as for the index worker (src/changelog/service.ts): there the database's own processes share the
  // cores, and \`almanac ingest\` of 2,500 generated datasets took 28 % more CPU with a decoding worker and no less of the
  // main thread's, where on SQLite the main thread's CPU fell 17 % for 3 % more in all (2026-11-28, 2 cores).
  entities.decodeInWorkers = changeLog.indexWorkers && s.engine !== 'postgres';
  entities.batchDecoderStarter = async () => (await import('./services/record-decoding.js')).RecordDecoders.start(1);
  const tokens = await TokenService.create(s, entities, {
    secret: config.tokenSecret, cacheMs: config.tokenCacheMs, allowNoExpiry: config.allowNoExpiryTokens,
  });
  const policies = new PolicyService(entities, s, config.policyCacheMs);
  const search = new SearchService(s);
  const relationships = new RelationshipService(s);
  // Time series are not searched: their entries leave the search index as it is.
  changeLog.addIndex('search', (urns, latest) => search.documents(urns, latest), (e) => e.aspect === null || !aspectSpec(e.aspect)?.timeseries);
  // Only aspects that declare edges change the relationship index.
  const changesEdges = (e: ChangeRecord) => e.aspect !== null && aspectDef(e.aspect)?.edges !== undefined;
  const relationshipIndex = changeLog.addIndex('relationships', (urns, latest) => relationships.edges(urns, latest), changesEdges);
  entities.afterCommit((opts) => changeLog.afterCommit(opts));
  // A write that removed a user answers once the user's tokens are revoked (tokens.heard starts it, below).
  entities.afterCommit(() => tokens.settled());
  // Caches hear other servers' changes too (this server's own writes call the listeners directly as well).
  changeLog.onChange((entries) => entities.notifyWritten(entries.map((e) => e.entityType)));
  changeLog.onChange((entries) => tokens.heard(entries));
  let follower: Promise<ChangeFollower> | undefined;
  const responses = new ResponseCache(config.responseCacheBytes);
  changeLog.onChange((entries) => responses.invalidate(entries));
  // Answers that read the relationship index go as soon as a write may change it (its index step comes after the
  // answer), and again once the index is updated (an answer computed meanwhile is not kept).
  changeLog.onChange((entries) => { if (entries.some(changesEdges)) responses.relationshipsChanged(); });
  relationshipIndex.onApplied(() => responses.relationshipsChanged());
  // Indexes catch up from their stored offsets (a crash between a commit and its index update), then are rebuilt
  // whole if a migration emptied them.
  await changeLog.start();
  // (Whether they hold anything: counting a million edges read the whole table at each start.)
  await changeLog.rebuildIfEmpty('search', () => s.countSearchDocs(1));
  await changeLog.rebuildIfEmpty('relationships', () => s.countRelationships(1));
  await policies.bootstrap(systemActor());
  const ownershipTypes = new OwnershipTypeService(entities, s, policies);
  await ownershipTypes.bootstrap(systemActor());
  // DataHub's built-in data platforms, where none is stored yet (`serve` logs what this start seeded).
  const seededPlatforms = await seedBuiltinPlatforms(entities, systemActor());
  const recommendations = new RecommendationService(s, search);
  const changeFeed = new ChangeFeed(s, changeLog, policies);
  const domainsGlossary = new DomainsGlossaryService({ authz: policies, entities, search, store: s });
  const inviteTokens = new InviteTokenService(entities, tokens);
  const webhooks = new WebhookService(s, changeFeed, tokens.deriveKey('webhookSecret'));
  const ingestion = new IngestionService(entities, s, tokens.deriveKey('dataHubSecret'), policies);
  const identities = new IdentityService(entities, s);
  const nativeUsers = new NativeUserService(entities, s, tokens, config.systemClientId);
  const timeseries = new TimeseriesService(s, () => changeLog.afterCommit());
  const analytics = new AnalyticsService(s, search);
  const metadataTests = new MetadataTestService(entities, s, (m) => process.stderr.write(`almanac: warning: ${m}\n`));
  const authorized: AuthorizedServices = {
    tokens: new AuthorizedTokens(tokens, entities, policies), policies: new AuthorizedPolicies(policies, policies),
    identities: new AuthorizedIdentities(identities, nativeUsers, policies), ingestion: new AuthorizedIngestion(ingestion, entities, policies),
    metadataTests: new AuthorizedMetadataTests(metadataTests, policies), webhooks: new AuthorizedWebhooks(webhooks, policies),
    reads: new AuthorizedReads({ entities, relationships, timeseries, domainsGlossary }, policies),
    operations: new AuthorizedOperations({ timeseries, analytics }, policies),
  };
  return {
    changeFeed, webhooks, authorized,
    ingestion, references: new ReferenceService(s, entities, policies),
    usageEvents: new UsageEventService(s, recommendations), analytics,
    inviteTokens, settings: new SettingsService(entities, inviteTokens, policies),
    schemaHistory: new SchemaHistoryService(entities),
    queries: new QueryService(entities, relationships, policies),
    domainsGlossary, renames: new RenameService(entities, domainsGlossary, policies),
    seededPlatforms, ...(s.connections ? { databasePool: () => s.connections!() } : {}),
    ...(s.readReplicas?.() ? { readReplicas: () => s.readReplicas!() } : {}), config, engine: s.engine, store: s, entities, tokens, changeLog, responses, relationships, lineage: new LineageService(s), edits: new AuthorizedEditService(new EditService(entities), policies),
    writes: new AuthorizedEntityWrites(entities, policies),
    authz: policies, policies, search, timeseries,
    identities, ownershipTypes, nativeUsers, recommendations, metadataTests,
    async follow(opts?: FollowerOptions) {
      follower ??= ChangeFollower.start(changeLog, s, opts);
      await follower;
    },
    close: async () => {
      await webhooks.stop();
      await (await follower)?.stop().catch(() => {});
      // What this process wrote is indexed before it stops (else the next start, or another server, would do it), and
      // no index step outlives the store.
      await changeLog.stop().catch((e: unknown) => changeLog.warn(`the indexes could not apply the change log before closing: ${String(e)}`, { err: e }));
      await entities.close();
      await s.close();
    },
  };
}
