import { GraphQLError } from 'graphql';
import { AlmanacError, type ErrorCode } from '../errors.js';

/**
 * The one place errors become GraphQL errors. DataHub's shape: `message`, `locations`, `path`,
 * `extensions: {code, type, classification}`, with codes 400 BAD_REQUEST, 403 UNAUTHORIZED, 404 NOT_FOUND,
 * 409 CONFLICT, 500 SERVER_ERROR. A user's mistake keeps its own code; the database out of reach is ours, 503
 * SERVICE_UNAVAILABLE (the answer's HTTP status is 503 then, with Retry-After: see unavailableIn); anything unexpected
 * is a 500 whose message says nothing about internals.
 */
const GRAPHQL_CODE: Record<ErrorCode, [number, string]> = {
  BAD_REQUEST: [400, 'BAD_REQUEST'],
  UNPROCESSABLE: [400, 'BAD_REQUEST'],
  PAYLOAD_TOO_LARGE: [400, 'BAD_REQUEST'],
  METHOD_NOT_ALLOWED: [400, 'BAD_REQUEST'],
  UNAUTHENTICATED: [403, 'UNAUTHORIZED'],
  FORBIDDEN: [403, 'UNAUTHORIZED'],
  NOT_FOUND: [404, 'NOT_FOUND'],
  CONFLICT: [409, 'CONFLICT'],
  PRECONDITION_FAILED: [412, 'PRECONDITION_FAILED'],
  INTERNAL: [500, 'SERVER_ERROR'],
  UNAVAILABLE: [503, 'SERVICE_UNAVAILABLE'],
};

export interface FormattedError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: { code: number; type: string; classification: string };
}

/** An error raised while executing resolvers. */
export function formatExecutionError(err: GraphQLError, log: (e: unknown) => void): FormattedError {
  const original = err.originalError;
  let code = 500;
  let type = 'SERVER_ERROR';
  let message = 'An unknown error occurred.';
  if (original instanceof AlmanacError) {
    [code, type] = GRAPHQL_CODE[original.code];
    message = original.message;
  } else if (original instanceof GraphQLError && original.originalError === undefined && /^(Long|Int|Float|String|Boolean)\b/.test(original.message)) {
    // A scalar refusing a literal or value the caller sent.
    [code, type] = [400, 'BAD_REQUEST'];
    message = original.message;
  } else {
    // Variables and literals were checked before execution; what fails here is ours (a resolver, a null
    // where the schema promised a value): log it, say nothing of internals.
    log(original ?? err);
  }
  return {
    message,
    ...(err.locations ? { locations: err.locations } : {}),
    ...(err.path ? { path: err.path } : {}),
    extensions: { code, type, classification: 'DataFetchingException' },
  };
}

/**
 * The Retry-After (seconds) of an answer some of whose errors say the database is out of reach, else undefined: such an
 * answer goes out as HTTP 503, so that clients retry it as they retry REST's.
 */
export function unavailableIn(errors: readonly GraphQLError[] | undefined): number | undefined {
  for (const e of errors ?? []) {
    const original = e.originalError;
    if (original instanceof AlmanacError && original.code === 'UNAVAILABLE') return Number(original.details?.retryAfter) || 1;
  }
  return undefined;
}

/** A syntax, validation or depth error found before execution: nothing ran. */
export function formatRequestError(err: GraphQLError | Error): FormattedError {
  const gqlErr = err as GraphQLError;
  const syntax = /^Syntax Error/.test(err.message);
  return {
    message: err.message,
    ...(gqlErr.locations ? { locations: gqlErr.locations } : {}),
    extensions: { code: 400, type: 'BAD_REQUEST', classification: syntax ? 'InvalidSyntax' : 'ValidationError' },
  };
}
