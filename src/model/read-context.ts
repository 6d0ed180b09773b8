import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Which database a request's reads may be served by (src/storage/postgres-replicas.ts). Set per request by the HTTP
 * layer: GET requests and GraphQL queries may read from a streaming replica, everything else (writes, and reads that
 * a write depends on) reads the primary. Work started outside a request (the change-log follower, timed jobs, the
 * indexes catching up) has no context and always uses the primary.
 */
export interface ReadContext {
  /** False once the request turned out to write (a GraphQL mutation): its reads go to the primary. */
  replicaOk: boolean;
  /** The commit position (a PostgreSQL LSN, as `X/Y`) the caller presented: a replica serves it only once past it. */
  minLsn?: string;
  /** The position of this request's last committed write, returned to the caller to present on its next reads. */
  commitLsn?: string;
}

const current = new AsyncLocalStorage<ReadContext>();

/** Runs `fn` (and everything it starts) in `ctx`. */
export function runWithReadContext<T>(ctx: ReadContext, fn: () => T): T {
  return current.run(ctx, fn);
}

/** The context of the request running now, if any. */
export const readContext = (): ReadContext | undefined => current.getStore();

/** An LSN as PostgreSQL writes it (`16/B374D848`): two hexadecimal halves of a 64-bit position. */
export const LSN_PATTERN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/** `X/Y` as a number that orders positions (bigint: positions pass 2^53). */
export function lsnValue(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}
