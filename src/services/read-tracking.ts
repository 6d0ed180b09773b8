import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store } from '../storage/types.js';

/**
 * What one request read from the store, so that its answer can be reused while what it read is unchanged. Reads of
 * named entities' aspects and time series are tracked precisely (the urns are the answer's dependencies); reads of
 * the relationship index are noted as such (its edges into an entity come from other entities). Any other store
 * call (search, listings, counts, writes) makes the answer not reusable: the change log cannot say when it changes.
 */
export interface ReadRecord {
  /** Entities whose aspects (or existence) or time series the request read. */
  readonly urns: Set<string>;
  /** False once the request did anything whose result cannot be tied to urns. */
  reusable: boolean;
  /** Read the relationship index (edges into an entity come from other entities' aspects). */
  relationships: boolean;
  /** Read time series (windows relative to now drift as time passes). */
  timeseries: boolean;
  /** Entities the request counted as viewed (recently viewed), replayed when its answer is reused. */
  readonly views: string[];
}

const current = new AsyncLocalStorage<ReadRecord>();

/** Runs `fn` recording what it reads. */
export function recordingReads<T>(fn: () => Promise<T>): { record: ReadRecord; result: Promise<T> } {
  const record: ReadRecord = { urns: new Set(), reusable: true, relationships: false, timeseries: false, views: [] };
  return { record, result: current.run(record, fn) };
}

/** The record of the request running now, if it is being recorded. */
export const currentReads = (): ReadRecord | undefined => current.getStore();

/** Store reads whose result depends only on the named entities' stored aspects: urn list first, or one urn. */
const BY_URN_LIST = new Set<string | symbol>(['getLatest', 'existing']);
const BY_URN = new Set<string | symbol>(['getVersion', 'listVersions']);
/** Reads of the relationship index: one entity's edges, either way; several entities' edges. */
const RELATIONSHIPS = new Set<string | symbol>(['relationships', 'relationshipsOf']);

/** The store, with every call made during a recorded request noted in its record. */
export function trackingReads(store: Store): Store {
  const wrapped = new Map<string | symbol, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const method = value as (...args: unknown[]) => unknown;
        fn = function (...args: unknown[]) {
          const record = current.getStore();
          if (record) {
            if (BY_URN_LIST.has(prop)) for (const u of args[0] as readonly string[]) record.urns.add(u);
            else if (BY_URN.has(prop)) record.urns.add(args[0] as string);
            else if (RELATIONSHIPS.has(prop)) record.relationships = true;
            else if (prop === 'queryTimeseries' && typeof (args[0] as { urn?: unknown }).urn === 'string') {
              // One entity's time series: its writes are logged under its urn.
              record.urns.add((args[0] as { urn: string }).urn);
              record.timeseries = true;
            } else {
              record.reusable = false;
            }
          }
          return method.apply(target, args);
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}
