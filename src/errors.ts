/**
 * The one catalogue of Almanac's coded errors. Services throw these; the HTTP surface maps them to a
 * status (REST) or a GraphQL error code in one place (src/http/errors.ts, src/graphql/errors.ts).
 */
export type ErrorCode =
  | 'BAD_REQUEST'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE'
  | 'INTERNAL'
  | 'UNAVAILABLE';

export const STATUS_OF: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE: 422,
  INTERNAL: 500,
  UNAVAILABLE: 503,
};

export class AlmanacError extends Error {
  readonly code: ErrorCode;
  /** Extra, safe-to-show facts (the field that failed, the urn that is missing). */
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'AlmanacError';
    this.code = code;
    this.details = details;
  }
  get status(): number {
    return STATUS_OF[this.code];
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new AlmanacError('BAD_REQUEST', message, details);
export const notFound = (message: string, details?: Record<string, unknown>) =>
  new AlmanacError('NOT_FOUND', message, details);
export const conflict = (message: string, details?: Record<string, unknown>) =>
  new AlmanacError('CONFLICT', message, details);
/** A conditional write whose expected version is not the stored one (If-Version-Match). */
export const preconditionFailed = (message: string, details?: Record<string, unknown>) =>
  new AlmanacError('PRECONDITION_FAILED', message, details);
export const unprocessable = (message: string, details?: Record<string, unknown>) =>
  new AlmanacError('UNPROCESSABLE', message, details);
export const unauthenticated = (message = 'Unauthorized to perform this action.') =>
  new AlmanacError('UNAUTHENTICATED', message);
/** DataHub's refusal sentence, kept word for word because clients match on it. */
export const UNAUTHORIZED_MESSAGE = 'Unauthorized to perform this action. Please contact your DataHub administrator.';
export const forbidden = (message = UNAUTHORIZED_MESSAGE) => new AlmanacError('FORBIDDEN', message);

/** Seconds a caller is asked to wait (Retry-After) before trying again a request the database could not serve. */
export const RETRY_AFTER_SECONDS = 2;
/**
 * The database cannot be reached now (restarting, failing over, not answering in time). The caller may send the same
 * request again after `retryAfter` seconds: 503 with Retry-After on REST, which DataHub's clients retry; a GraphQL
 * error with code 503 (and the answer's status 503). A write refused so may still have been committed just before the
 * connection went; sending it again is harmless (writes are upserts).
 */
export const databaseUnavailable = (message = 'The database is unavailable; try again shortly') =>
  new AlmanacError('UNAVAILABLE', message, { retryAfter: RETRY_AFTER_SECONDS });

export function isAlmanacError(e: unknown): e is AlmanacError {
  return e instanceof AlmanacError;
}
