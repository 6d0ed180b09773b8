import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AlmanacError, STATUS_OF, type ErrorCode } from '../errors.js';

/**
 * The one place REST errors become HTTP responses. Body: `{status, code, message}` plus safe details — the
 * Python emitter reads `message`. A user's mistake keeps its own status; the database out of reach is a 503 with
 * Retry-After (DataHub's clients retry it); anything unexpected is a 500 whose body says nothing about internals (the
 * log has the stack).
 */
export interface RestErrorBody {
  status: number;
  code: string;
  message: string;
  [k: string]: unknown;
}

const CODE_OF_STATUS: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(STATUS_OF).map(([code, status]) => [status, code as ErrorCode]),
) as Record<number, ErrorCode>;

export function restError(err: unknown): RestErrorBody {
  if (err instanceof AlmanacError) {
    return { status: err.status, code: err.code, message: err.message, ...(err.details ?? {}) };
  }
  const fe = err as FastifyError;
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = CODE_OF_STATUS[fe.statusCode] ?? 'BAD_REQUEST';
    let message = fe.message;
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') message = 'Request body is larger than the configured limit';
    return { status: fe.statusCode, code, message };
  }
  return { status: 500, code: 'INTERNAL', message: 'An internal error occurred.' };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown) {
  const body = restError(err);
  if (body.status === 503) request.log.warn({ err: (err as Error)?.message }, 'request refused: the database is unavailable');
  else if (body.status >= 500) request.log.error({ err }, 'request failed');
  else request.log.debug({ err: (err as Error)?.message }, 'request refused');
  if (body.status === 405 && (err as AlmanacError).details?.allow) reply.header('Allow', String((err as AlmanacError).details!.allow));
  if (body.status === 503 && (err as AlmanacError).details?.retryAfter) reply.header('Retry-After', String((err as AlmanacError).details!.retryAfter));
  return reply.code(body.status).type('application/json; charset=utf-8').send(body);
}
