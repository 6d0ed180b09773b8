import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { dataHubIngestionSourceInfo } from '../entities/data-hub-ingestion-source.js';
import { dataHubSecretValue } from '../entities/data-hub-secret.js';
import { entityDescriptor, entityHasAspect } from '../entities/index.js';
import { badRequest } from '../errors.js';
import { parseUrn } from '../model/urn.js';
import type { RunAspectRow, RunSummary, Store } from '../storage/types.js';
import type { Actor } from '../model/actor.js';
import { DEFAULT_RUN_ID, type EntityService } from './entities.js';
import type { ChangeItem } from './ingest-format.js';
import { requirePrivilege, type Authorizer } from './authz.js';
import { REQUIRES } from '../model/privileges.js';

/**
 * Managed-ingestion records as DataHub 0.12.1's web app keeps them: ingestion sources (a recipe, a schedule) and the
 * secrets their recipes name, stored as dataHubIngestionSource and dataHubSecret entities, and the execution requests
 * (runs) that an executor reported. Almanac runs no executor: sources are stored and listed, not run (see
 * NOT_AVAILABLE). Secret values are encrypted at rest (AES-256-GCM, with a key derived from the token signing secret)
 * and never returned.
 */

type Obj = Record<string, any>;

export { DEFAULT_RUN_ID } from './entities.js';

export interface RollbackResult {
  /** Aspects set back to their previous version, or deleted when the run wrote their first. */
  aspectsReverted: number;
  /** Entities the run brought, soft-deleted (status removed), as DataHub's default (safe) rollback does. */
  entitiesSoftDeleted: number;
  timeseriesRowsDeleted: number;
}

/** A latest aspect version an ingestion run wrote, as DataHub's AspectRowSummary gives it. */
export interface RunRow {
  runId: string;
  urn: string;
  aspect: string;
  /** Its lastObserved (epoch ms), else when it was written. */
  timestamp: number;
  keyAspect: boolean;
}

/** What a run's rollback changes (or, dry, would change), in DataHub's RollbackResponse terms. */
export interface RunRollback {
  /** The first rows rolled back (at most 100). */
  rows: RunRow[];
  entitiesAffected: number;
  aspectsReverted: number;
  entitiesDeleted: number;
  aspectsAffected: number;
  unsafeEntities: string[];
}

/** How many rows a rollback's answer shows, as DataHub's. */
const ROLLBACK_SUMMARY_ROWS = 100;

function checkRunId(runId: unknown): asserts runId is string {
  if (typeof runId !== 'string' || !runId.trim()) throw badRequest('runId must name an ingestion run', { field: 'runId' });
  if (runId === DEFAULT_RUN_ID) {
    throw badRequest(`${DEFAULT_RUN_ID} is the run id given to metadata sent without one; it cannot be rolled back`, { field: 'runId' });
  }
}

function runRow(runId: string, r: RunAspectRow): RunRow {
  // DataHub's test: every key aspect's name ends in Key (and no other aspect's does).
  return { runId, urn: r.urn, aspect: r.aspect, timestamp: r.timestamp, keyAspect: r.aspect.endsWith('Key') };
}

/** Why execution requests are refused: Almanac has no executor for recipes. */
export const MANAGED_INGESTION_UNAVAILABLE = 'Managed ingestion is not available in Almanac: it stores ingestion sources and '
  + 'secrets but runs no recipes. Run the recipe with the DataHub CLI and its datahub-rest sink pointed at this server '
  + '(`datahub ingest -c recipe.yml`, sink server = this server\'s URL, token = a personal access token), or load '
  + 'metadata files with `almanac ingest <files>`.';

export interface SourceInput {
  name: string;
  type: string;
  description?: string | null;
  schedule?: { interval: string; timezone: string } | null;
  config: { recipe: string; version?: string | null; executorId?: string | null; debugMode?: boolean | null;
    extraArgs?: { key: string; value?: string | null }[] | null };
}

export interface SourceRecord {
  urn: string;
  info: Obj;
}

export interface ExecutionRecord {
  urn: string;
  id: string;
  input: Obj | undefined;
  result: Obj | undefined;
}

export interface SecretRecord {
  urn: string;
  name: string;
  description: string | null;
}

const page = <T>(all: T[], start: number, count: number) => all.slice(start, start + count);
const matches = (q: string | undefined, ...texts: (string | undefined | null)[]) => {
  const query = q?.trim().toLowerCase();
  return !query || query === '*' || texts.some((t) => (t ?? '').toLowerCase().includes(query));
};

export class IngestionService {
  constructor(private readonly entities: EntityService, private readonly store: Store, private readonly key: Buffer,
    private readonly authz: Authorizer) {}

  // ---------------------------------------------------------------------------------------------------------------
  // Sources

  private static sourceInfo(input: SourceInput): Obj {
    if (!input.name?.trim()) throw badRequest('An ingestion source needs a name');
    if (!input.type?.trim()) throw badRequest('An ingestion source needs a type');
    if (typeof input.config?.recipe !== 'string') throw badRequest('config.recipe must be the recipe text');
    const c = input.config;
    const extraArgs = c.extraArgs ? Object.fromEntries(c.extraArgs.map((e) => [e.key, e.value ?? ''])) : undefined;
    return {
      name: input.name, type: input.type,
      ...(input.schedule ? { schedule: { interval: input.schedule.interval, timezone: input.schedule.timezone } } : {}),
      config: { recipe: c.recipe, ...(c.version != null ? { version: c.version } : {}), ...(c.executorId != null ? { executorId: c.executorId } : {}),
        ...(c.debugMode != null ? { debugMode: c.debugMode } : {}), ...(extraArgs ? { extraArgs } : {}) },
    };
  }

  private static urnOf(urn: string, entityType: string, what: string): string {
    const u = parseUrn(urn);
    if (u.entityType !== entityType) throw badRequest(`'${urn}' is not ${what} urn (urn:li:${entityType}:<id>)`, { urn });
    return u.raw;
  }

  async createSource(input: SourceInput, actor: Actor): Promise<string> {
    const info = IngestionService.sourceInfo(input);
    const urn = `urn:li:dataHubIngestionSource:${randomUUID()}`;
    await this.entities.createOnce(urn, [dataHubIngestionSourceInfo], { dataHubIngestionSourceInfo: info as never }, actor, 'Ingestion Source');
    return urn;
  }

  async updateSource(urn: string, input: SourceInput, actor: Actor): Promise<string> {
    const u = IngestionService.urnOf(urn, 'dataHubIngestionSource', 'an ingestion source');
    const info = IngestionService.sourceInfo(input);
    await this.entities.writeToExisting(u, [dataHubIngestionSourceInfo], { dataHubIngestionSourceInfo: info as never }, actor);
    return u;
  }

  async deleteSource(urn: string): Promise<string> {
    const u = IngestionService.urnOf(urn, 'dataHubIngestionSource', 'an ingestion source');
    await this.entities.requireExists(u);
    await this.entities.deleteEntity(u);
    return u;
  }

  async getSource(urn: string): Promise<SourceRecord | null> {
    const u = IngestionService.urnOf(urn, 'dataHubIngestionSource', 'an ingestion source');
    const info = (await this.entities.getLatest(u, ['dataHubIngestionSourceInfo'])).get('dataHubIngestionSourceInfo')?.value as Obj | undefined;
    return info ? { urn: u, info } : null;
  }

  /** Sources whose name, type or urn contain the query, newest first (as DataHub orders them, by creation time). */
  async listSources(q: { start: number; count: number; query?: string | null }): Promise<{ total: number; sources: SourceRecord[] }> {
    const all = (await this.latestOfType('dataHubIngestionSource', 'dataHubIngestionSourceInfo'))
      .filter((r) => matches(q.query ?? undefined, r.value.name, r.value.type, r.urn));
    return { total: all.length, sources: page(all, q.start, q.count).map((r) => ({ urn: r.urn, info: r.value })) };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Execution requests (written by an executor through the ingestion API; Almanac makes none)

  async executions(sourceUrn: string, start: number, count: number): Promise<{ total: number; requests: ExecutionRecord[] }> {
    const rows = await this.store.listEntities({ entityType: 'dataHubExecutionRequest' });
    const latest = await this.store.getLatest(rows.map((r) => r.urn), ['dataHubExecutionRequestInput', 'dataHubExecutionRequestResult']);
    const all = rows.flatMap(({ urn }) => {
      const input = latest.get(urn)?.get('dataHubExecutionRequestInput')?.value as Obj | undefined;
      if (input?.source?.ingestionSource !== sourceUrn) return [];
      return [{ urn, id: parseUrn(urn).parts[0] ?? urn, input, result: latest.get(urn)?.get('dataHubExecutionRequestResult')?.value as Obj | undefined }];
    }).sort((a, b) => Number(b.input.requestedAt ?? 0) - Number(a.input.requestedAt ?? 0) || (a.urn < b.urn ? -1 : 1));
    return { total: all.length, requests: page(all, start, count) };
  }

  async getExecution(urn: string): Promise<ExecutionRecord | null> {
    const u = IngestionService.urnOf(urn, 'dataHubExecutionRequest', 'an execution request');
    const latest = await this.entities.getLatest(u, ['dataHubExecutionRequestInput', 'dataHubExecutionRequestResult']);
    const input = latest.get('dataHubExecutionRequestInput')?.value as Obj | undefined;
    if (!input) return null;
    return { urn: u, id: parseUrn(u).parts[0] ?? u, input, result: latest.get('dataHubExecutionRequestResult')?.value as Obj | undefined };
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Rollback

  /**
   * Undoes an ingestion run, as DataHub's (safe) rollback does: each aspect whose latest version the run wrote goes
   * back to its previous version (or is deleted when the run wrote its first); an entity the run brought (its key
   * aspect from the run, or nothing but its key left) is soft-deleted; the run's time-series rows are deleted; an
   * execution request of that id is marked ROLLED_BACK. Aspects a later write has changed since are left alone.
   * A previous version older than the kept history (ALMANAC_HISTORY_CAP) cannot come back: that aspect is deleted.
   */
  async rollback(runId: string, actor: Actor): Promise<RollbackResult> {
    checkRunId(runId);
    return this.revert(runId, await this.store.latestAspectsOfRun(runId), actor);
  }

  /** Reverts these latest versions written by the run (see rollback). */
  private async revert(runId: string, rows: readonly { urn: string; aspect: string }[], actor: Actor): Promise<RollbackResult> {
    const items: ChangeItem[] = [];
    const broughtByKey = new Set<string>();
    const touched = new Set<string>();
    for (const { urn, aspect } of rows) {
      const type = parseUrn(urn).entityType;
      const d = entityDescriptor(type);
      if (!d) continue;
      touched.add(urn);
      if (aspect === d.key.name) {
        broughtByKey.add(urn);
        continue;
      }
      // Latest first, then the newest of the history: the second is what the run replaced.
      const previous = (await this.store.listVersions(urn, aspect))[1];
      items.push(previous
        ? { urn, entityType: d.name, aspect, changeType: 'UPSERT', value: previous.value, systemMetadata: previous.systemMetadata }
        : { urn, entityType: d.name, aspect, changeType: 'DELETE', value: null, systemMetadata: null });
    }
    if (items.length) await this.entities.ingest(items, actor);
    const removals: ChangeItem[] = [];
    for (const urn of touched) {
      const d = entityDescriptor(parseUrn(urn).entityType)!;
      if (!entityHasAspect(d, 'status')) continue;
      const left = [...(await this.entities.getLatest(urn)).keys()].filter((a) => a !== d.key.name && a !== 'status');
      if (broughtByKey.has(urn) || left.length === 0) {
        removals.push({ urn, entityType: d.name, aspect: 'status', changeType: 'UPSERT', value: { removed: true }, systemMetadata: null });
      }
    }
    if (removals.length) await this.entities.ingest(removals, actor);
    const timeseriesRowsDeleted = await this.store.deleteTimeseriesOfRun(runId, actor.urn);
    await this.entities.committed();
    const request = `urn:li:dataHubExecutionRequest:${runId}`;
    if (!/[\s,()]/.test(runId)) {
      const result = (await this.entities.getLatest(request, ['dataHubExecutionRequestResult'])).get('dataHubExecutionRequestResult')?.value as Obj | undefined;
      if (result) {
        await this.entities.ingest([{ urn: request, entityType: 'dataHubExecutionRequest', aspect: 'dataHubExecutionRequestResult', changeType: 'UPSERT',
          value: { ...result, status: 'ROLLED_BACK' }, systemMetadata: null }], actor);
      }
    }
    return { aspectsReverted: items.length, entitiesSoftDeleted: removals.length, timeseriesRowsDeleted };
  }

  /**
   * Ingestion runs, newest first, as DataHub's `/runs?action=list` lists them from its system-metadata index: each
   * runId the latest aspect versions name, how many name it, and the newest lastObserved among them.
   */
  listRuns(q: { start: number; count: number; includeSoft: boolean }): Promise<RunSummary[]> {
    return this.store.listRuns(q);
  }

  /** The latest aspect versions a run wrote, by urn and aspect (DataHub's `/runs?action=describe`). */
  async describeRun(runId: string, q: { start: number; count: number; includeSoft: boolean }): Promise<RunRow[]> {
    if (typeof runId !== 'string' || !runId) throw badRequest('runId must name an ingestion run', { field: 'runId' });
    return (await this.store.aspectsOfRun(runId, q)).map((r) => runRow(runId, r));
  }

  /**
   * DataHub's `/runs?action=rollback`: what rolling back a run changes (dryRun) or changed. The run's latest versions
   * (those of soft-deleted entities too when hardDelete) are reverted as `rollback` does; an entity whose key aspect
   * the run wrote is soft-deleted, or with hardDelete deleted. DELETE_ENTITY on every entity the run touched first.
   * Unsafe entities: those the run brought that hold aspects other runs wrote (a rollback hides or deletes them).
   */
  async rollbackRun(runId: string, opts: { dryRun: boolean; hardDelete: boolean }, actor: Actor): Promise<RunRollback> {
    checkRunId(runId);
    const rows = (await this.store.aspectsOfRun(runId, { start: 0, count: Number.MAX_SAFE_INTEGER, includeSoft: opts.hardDelete }))
      .map((r) => runRow(runId, r));
    const urns = [...new Set(rows.map((r) => r.urn))];
    for (const urn of urns) await requirePrivilege(this.authz, actor, REQUIRES['rest.rollbackRun'], urn);
    const keyUrns = [...new Set(rows.filter((r) => r.keyAspect).map((r) => r.urn))];
    const entitiesDeleted = rows.filter((r) => r.keyAspect).length;
    if (opts.dryRun) {
      const unsafe = await this.unsafeAspects(runId, keyUrns);
      const reverted = opts.hardDelete ? rows : rows.filter((r) => !r.keyAspect);
      return { rows: reverted.slice(0, ROLLBACK_SUMMARY_ROWS), entitiesAffected: urns.length, aspectsReverted: reverted.length, entitiesDeleted,
        aspectsAffected: unsafe.length, unsafeEntities: [...new Set(unsafe.map((r) => r.urn))] };
    }
    const result = await this.revert(runId, rows, actor);
    let deletedWithEntities = 0;
    if (opts.hardDelete) {
      for (const urn of keyUrns) {
        if (!(await this.entities.exists(urn))) continue;
        const { rows: n, timeseriesRows } = await this.entities.deleteEntity(urn, actor);
        deletedWithEntities += n + timeseriesRows;
      }
    }
    const unsafe = await this.unsafeAspects(runId, keyUrns);
    return { rows: rows.slice(0, ROLLBACK_SUMMARY_ROWS), entitiesAffected: urns.length,
      aspectsReverted: rows.length + deletedWithEntities + result.timeseriesRowsDeleted, entitiesDeleted,
      aspectsAffected: unsafe.length, unsafeEntities: [...new Set(unsafe.map((r) => r.urn))] };
  }

  /**
   * The latest versions other runs wrote on these entities (neither their key nor status), as DataHub's rollback
   * counts them: left out when the entity is soft-deleted, and those without system metadata (DataHub indexes none).
   */
  private async unsafeAspects(runId: string, urns: readonly string[]): Promise<{ urn: string; aspect: string }[]> {
    if (urns.length === 0) return [];
    const latest = await this.store.getLatest(urns);
    const out: { urn: string; aspect: string }[] = [];
    for (const urn of urns) {
      const aspects = latest.get(urn);
      if (!aspects || (aspects.get('status')?.value as { removed?: boolean } | undefined)?.removed === true) continue;
      const key = entityDescriptor(parseUrn(urn).entityType)?.key.name;
      for (const [aspect, r] of aspects) {
        const other = r.systemMetadata?.runId;
        if (typeof other === 'string' && other !== runId && aspect !== key && aspect !== 'status') out.push({ urn, aspect });
      }
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // Secrets

  async createSecret(input: { name: string; value: string; description?: string | null }, actor: Actor): Promise<string> {
    if (typeof input.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(input.name)) {
      throw badRequest(`A secret's name must be letters, digits and underscores, not starting with a digit: '${input.name}'`);
    }
    if (typeof input.value !== 'string') throw badRequest('A secret needs a value');
    const urn = `urn:li:dataHubSecret:${input.name}`;
    await this.entities.createOnce(urn, [dataHubSecretValue], { dataHubSecretValue: {
      name: input.name, value: this.encrypt(input.value), ...(input.description != null ? { description: input.description } : {}),
      created: { actor: actor.urn, time: Date.now() },
    } as never }, actor, 'Secret');
    return urn;
  }

  async deleteSecret(urn: string): Promise<string> {
    const u = IngestionService.urnOf(urn, 'dataHubSecret', 'a secret');
    await this.entities.requireExists(u);
    await this.entities.deleteEntity(u);
    return u;
  }

  /** Secrets whose name, description or urn contain the query, newest first; never their values. */
  async listSecrets(q: { start: number; count: number; query?: string | null }): Promise<{ total: number; secrets: SecretRecord[] }> {
    const all = (await this.latestOfType('dataHubSecret', 'dataHubSecretValue'))
      .filter((r) => matches(q.query ?? undefined, r.value.name, r.value.description, r.urn))
      .sort((a, b) => Number(b.value.created?.time ?? 0) - Number(a.value.created?.time ?? 0));
    return { total: all.length, secrets: page(all, q.start, q.count)
      .map((r) => ({ urn: r.urn, name: r.value.name, description: r.value.description ?? null })) };
  }

  /** `iv.tag.ciphertext`, each base64url: AES-256-GCM under the derived key. */
  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [iv, cipher.getAuthTag(), ct].map((b) => b.toString('base64url')).join('.');
  }

  /** The plain value of an encrypted one (for an executor; no API returns it). */
  decrypt(stored: string): string {
    const [iv, tag, ct] = stored.split('.').map((p) => Buffer.from(p, 'base64url'));
    if (!iv || !tag || !ct) throw badRequest('Not an encrypted secret value');
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ct), decipher.final()]).toString('utf8');
  }

  /**
   * Every entity of a type that has the aspect, newest first by when the aspect was first written (its creation),
   * ties by urn.
   */
  private async latestOfType(entityType: string, aspect: string): Promise<{ urn: string; value: Obj; created: number }[]> {
    const rows = await this.store.listEntities({ entityType });
    const latest = await this.store.getLatest(rows.map((r) => r.urn), [aspect]);
    const out = rows.flatMap(({ urn }) => {
      const rec = latest.get(urn)?.get(aspect);
      return rec ? [{ urn, value: rec.value as Obj, created: 0 }] : [];
    });
    await Promise.all(out.map(async (r) => {
      const versions = await this.store.listVersions(r.urn, aspect);
      r.created = Math.min(...versions.map((v) => Number(v.createdOn)));
    }));
    return out.sort((a, b) => b.created - a.created || (a.urn < b.urn ? -1 : 1));
  }
}
