import type { Store } from '../storage/types.js';

/**
 * Lineage edges from `upstreamLineage` aspects. Upstreams are read from the entity itself; downstreams are
 * found by scanning datasets' upstreamLineage, page by page (fine for catalogs of tens of thousands of
 * datasets; a relationship index is the next step when that stops being fast enough).
 */
export class LineageService {
  constructor(private readonly store: Store) {}

  async downstreamOf(urn: string): Promise<{ urn: string; time?: number }[]> {
    const out: { urn: string; time?: number }[] = [];
    const PAGE = 1000;
    let after: string | undefined;
    for (;;) {
      const rows = await this.store.listEntities({ entityType: 'dataset', after, count: PAGE });
      if (rows.length === 0) break;
      const latest = await this.store.getLatest(rows.map((r) => r.urn), ['upstreamLineage']);
      for (const [u, m] of latest) {
        const ups = (m.get('upstreamLineage')?.value as { upstreams?: { dataset: string; auditStamp?: { time?: number } }[] })?.upstreams;
        const hit = ups?.find((x) => x.dataset === urn);
        if (hit) out.push({ urn: u, time: hit.auditStamp?.time });
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]!.urn;
    }
    return out.sort((a, b) => a.urn.localeCompare(b.urn));
  }

  /** Entities whose `container` aspect names this container, in urn order. */
  async containerChildren(containerUrn: string): Promise<string[]> {
    const out: string[] = [];
    const PAGE = 1000;
    let after: string | undefined;
    for (;;) {
      const rows = await this.store.listEntities({ after, count: PAGE });
      if (rows.length === 0) break;
      const latest = await this.store.getLatest(rows.map((r) => r.urn), ['container']);
      for (const [u, m] of latest) if ((m.get('container')?.value as { container?: string })?.container === containerUrn) out.push(u);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]!.urn;
    }
    return out.sort();
  }
}
