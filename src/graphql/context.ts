import type { DescriptionLayer } from '../entities/descriptor.js';
import type { Actor } from '../model/actor.js';
import type { Catalog } from '../catalog.js';
import type { AspectRecord } from '../storage/types.js';

/** What one entity looks like to resolvers: whether it exists and its latest versioned aspects. */
export interface LoadedEntity {
  exists: boolean;
  aspects: Map<string, AspectRecord>;
}

/**
 * Per-request batching: every urn asked for in the same tick is read with one `existing` and one `getLatest`
 * call, however many fields and nested entities ask. Results are cached for the request; mutations clear them.
 */
export class EntityLoader {
  private readonly cache = new Map<string, Promise<LoadedEntity>>();
  private pending: { urn: string; resolve: (e: LoadedEntity) => void; reject: (e: unknown) => void }[] = [];

  constructor(private readonly catalog: Catalog) {}

  load(urn: string): Promise<LoadedEntity> {
    let p = this.cache.get(urn);
    if (!p) {
      p = new Promise<LoadedEntity>((resolve, reject) => {
        if (this.pending.length === 0) queueMicrotask(() => void this.flush());
        this.pending.push({ urn, resolve, reject });
      });
      this.cache.set(urn, p);
    }
    return p;
  }

  async aspect<T = any>(urn: string, aspect: string): Promise<T | undefined> {
    return (await this.load(urn)).aspects.get(aspect)?.value as T | undefined;
  }

  clear(urn?: string) {
    if (urn) this.cache.delete(urn);
    else this.cache.clear();
  }

  private async flush() {
    const batch = this.pending;
    this.pending = [];
    const urns = [...new Set(batch.map((b) => b.urn))];
    try {
      const [existing, latest] = await Promise.all([
        this.catalog.entities.existing(urns),
        this.catalog.entities.getLatestOf(urns),
      ]);
      for (const b of batch) b.resolve({ exists: existing.has(b.urn), aspects: latest.get(b.urn) ?? new Map() });
    } catch (e) {
      for (const b of batch) {
        this.cache.delete(b.urn);
        b.reject(e);
      }
    }
  }
}

export interface GraphQLContext {
  catalog: Catalog;
  actor: Actor;
  loader: EntityLoader;
  /** Which description (the text users see or DataHub's layers) answers on the endpoint the request came to. */
  descriptionLayer: DescriptionLayer;
}

/** Every entity travels between resolvers as its urn; fields load what they need through the loader. */
export interface EntityRef {
  urn: string;
}
