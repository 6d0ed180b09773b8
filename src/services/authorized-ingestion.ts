import { badRequest } from '../errors.js';
import type { Actor } from '../model/actor.js';
import { REQUIRES } from '../model/privileges.js';
import { aspectSpec } from '../registry/registry.js';
import { Guarded, visibleAspects, type Authorizer } from './authz.js';
import type { EntityService } from './entities.js';
import { MANAGED_INGESTION_UNAVAILABLE, type IngestionService, type RunRow, type SourceInput } from './ingestion.js';

/**
 * Managed ingestion as the transports reach it: sources, runs and execution requests need MANAGE_INGESTION, secrets
 * MANAGE_SECRETS, as in DataHub; each operation decides before it runs.
 */
export class AuthorizedIngestion extends Guarded {
  constructor(private readonly ingestion: IngestionService, private readonly entities: Pick<EntityService, 'getLatestOf'>, authz: Authorizer) {
    super(authz);
  }

  async listSources(actor: Actor, q: Parameters<IngestionService['listSources']>[0]) {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.listSources(q);
  }

  async getSource(actor: Actor, urn: string) {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.getSource(urn);
  }

  async getExecution(actor: Actor, urn: string) {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.getExecution(urn);
  }

  async createSource(actor: Actor, input: SourceInput): Promise<string> {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.createSource(input, actor);
  }

  async updateSource(actor: Actor, urn: string, input: SourceInput): Promise<string> {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.updateSource(urn, input, actor);
  }

  async deleteSource(actor: Actor, urn: string): Promise<string> {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.deleteSource(urn);
  }

  /** Execution requests and test connections: refused (nothing runs recipes here), after the privilege check. */
  async requestExecution(actor: Actor): Promise<never> {
    await this.require(actor, 'read.ingestion');
    throw badRequest(MANAGED_INGESTION_UNAVAILABLE);
  }

  async rollback(actor: Actor, runId: string) {
    await this.require(actor, 'read.ingestion');
    return this.ingestion.rollback(runId, actor);
  }

  async listSecrets(actor: Actor, q: Parameters<IngestionService['listSecrets']>[0]) {
    await this.require(actor, 'read.dataHubSecret');
    return this.ingestion.listSecrets(q);
  }

  async createSecret(actor: Actor, input: Parameters<IngestionService['createSecret']>[0]): Promise<string> {
    await this.require(actor, 'read.dataHubSecret');
    return this.ingestion.createSecret(input, actor);
  }

  async deleteSecret(actor: Actor, urn: string): Promise<string> {
    await this.require(actor, 'read.dataHubSecret');
    return this.ingestion.deleteSecret(urn);
  }

  /**
   * A page of a run's rows (REST /runs describe; DataHub checks no privilege for the rows themselves). With
   * `includeAspect` (read from the request after the rows), each row's latest aspect value, only where the caller may
   * read it (as GET /aspects would answer).
   */
  async describeRun(actor: Actor, runId: string, q: Parameters<IngestionService['describeRun']>[1], includeAspect: () => boolean):
    Promise<{ row: RunRow; aspect?: unknown }[]> {
    const rows = await this.ingestion.describeRun(runId, q);
    if (!includeAspect()) return rows.map((row) => ({ row }));
    const latest = await this.entities.getLatestOf([...new Set(rows.map((r) => r.urn))]);
    const visible = await visibleAspects(this.authz, actor, [...new Set(rows.map((r) => r.aspect))]);
    const readable = new Map<string, boolean>();
    for (const urn of new Set(rows.map((r) => r.urn))) readable.set(urn, await this.authz.allowed(actor, REQUIRES['rest.getAspect'], urn));
    return rows.map((row) => {
      const rec = latest.get(row.urn)?.get(row.aspect);
      return { row, aspect: rec && readable.get(row.urn) && visible.has(row.aspect) && aspectSpec(row.aspect) ? rec.value : undefined };
    });
  }
}
