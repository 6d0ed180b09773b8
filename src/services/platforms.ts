import { dataPlatformInfo } from '../entities/data-platform.js';
import { BUILTIN_PLATFORMS } from '../entities/builtin-platforms.js';
import { AlmanacError } from '../errors.js';
import type { Actor } from '../model/actor.js';
import type { EntityService } from './entities.js';
import type { ChangeItem } from './ingest-format.js';

/**
 * The built-in data platforms, written at start as DataHub 0.12.1 writes them (its IngestDataPlatformsStep, which
 * does not overwrite a stored dataPlatformInfo): each one whose dataPlatformInfo is not stored yet becomes a real
 * dataPlatform entity (key, info, search document, change-log entries). A platform a connector or a user described
 * keeps their description, on this start and every later one. Returns the ids seeded (none once all are stored).
 */
export async function seedBuiltinPlatforms(entities: EntityService, actor: Actor): Promise<string[]> {
  const urnOf = (id: string) => `urn:li:dataPlatform:${id}`;
  for (let attempt = 0; ; attempt++) {
    const stored = await entities.latestValues(BUILTIN_PLATFORMS.map(([id]) => urnOf(id)), [dataPlatformInfo]);
    const missing = BUILTIN_PLATFORMS.filter(([id]) => stored.get(urnOf(id))?.get('dataPlatformInfo') === undefined);
    if (missing.length === 0) return [];
    // Written only where still absent (expected version -1): a connector's description written meanwhile stays.
    const items: ChangeItem[] = missing.map(([id, name, displayName, type, delimiter, logoUrl]) => ({
      urn: urnOf(id), entityType: 'dataPlatform', aspect: 'dataPlatformInfo', changeType: 'UPSERT', systemMetadata: null, expectedVersion: -1,
      value: { name, displayName, type, datasetNameDelimiter: delimiter, ...(logoUrl !== null ? { logoUrl } : {}) },
    }));
    try {
      await entities.ingest(items, actor);
      return missing.map(([id]) => id);
    } catch (e) {
      // Another writer got there first (another server starting, a connector): read again and seed what is left.
      if (!(e instanceof AlmanacError && e.code === 'PRECONDITION_FAILED') || attempt >= 3) throw e;
    }
  }
}
