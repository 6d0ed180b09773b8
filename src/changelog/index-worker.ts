import { parentPort, workerData } from 'node:worker_threads';
import { RelationshipService } from '../services/relationships.js';
import { SearchService } from '../services/search.js';
import { openIndexReads } from '../storage/index-reads.js';
import type { IndexUpdate, Store } from '../storage/types.js';
import type { IndexWork, IndexWorkResult } from './index-workers.js';

/**
 * A worker thread computing a bulk load's index updates (src/changelog/index-workers.ts): it reads the named
 * entities' aspects through a connection of its own and computes their search documents and edges exactly as the
 * indexes' computers in the main thread do (the same services), leaving the main thread to apply them.
 */
const reads = await openIndexReads((workerData as { databaseUrl: string }).databaseUrl);
// The services read only which entities exist and their latest aspects (src/storage/index-reads.ts).
const store = reads as unknown as Store;
const search = new SearchService(store);
const relationships = new RelationshipService(store);
const computers: Record<string, (urns: readonly string[], latest: Awaited<ReturnType<Store['getLatest']>>) => Promise<IndexUpdate>> = {
  search: (urns, latest) => search.documents(urns, latest),
  relationships: (urns, latest) => relationships.edges(urns, latest),
};

parentPort!.on('message', (work: IndexWork | 'close') => {
  if (work === 'close') {
    void reads.close().finally(() => parentPort!.close());
    return;
  }
  void (async (): Promise<IndexWorkResult> => {
    try {
      const named = [...new Set(work.steps.flatMap((s) => s.urns))];
      const latest = named.length ? await reads.getLatest(named) : new Map();
      const updates = await Promise.all(work.steps.map((s) => (s.urns.length ? computers[s.consumer]!(s.urns, latest) : {})));
      return { id: work.id, update: Object.assign({}, ...updates) as IndexUpdate };
    } catch (e) {
      return { id: work.id, error: e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e) };
    }
  })().then((r) => parentPort!.postMessage(r));
});
parentPort!.postMessage({ ready: true });
