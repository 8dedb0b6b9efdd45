import type { ErrorRequestHandler, RequestHandler } from 'express';
import {
  connectionWaitTimedOut,
  databaseUnreachable,
  inputRefusedByDatabase,
  transactionConflict,
} from '../db/errors';
import { CONFLICT_RETRY_AFTER_SECONDS } from '../db/retry';
import { redisUnreachable } from '../redis/errors';
import type { Logger } from '../core/log';
import {
  ApiError,
  badRequest,
  internalError,
  notFound,
  requestTooLarge,
  serverNotReady,
  serverOverloaded,
  writeConflict,
  type FailureKind,
} from '../core/errors';
import { malformedMultipart } from './malformed-multipart';
import type { RequestLocals } from './request-log';
import { countRefusal, RETRY_AFTER_SECONDS } from './refusals';

/** The one place a failure becomes an HTTP status. */
const STATUS: Record<FailureKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

export const httpStatus = (err: ApiError): number => STATUS[err.kind];

/**
 * The challenge on a missing credential (Basic for the API, Zulip's `Session` for the web client's
 * `/json/`, where a Basic challenge would make the browser ask for a password), and when a
 * rate-limited client may retry.
 */
function httpHeaders(err: ApiError, path: string): Record<string, string> {
  if (err.code === 'UNAUTHORIZED') {
    const scheme = path.startsWith('/json/') ? 'Session' : 'Basic';
    return { 'WWW-Authenticate': `${scheme} realm="zulip"` };
  }
  if (err.kind === 'rate_limited' || err.code === 'SERVER_OVERLOADED') {
    return { 'Retry-After': String(Math.ceil(Number(err.extra['retry-after']))) };
  }
  return {};
}

export const unknownRoute: RequestHandler = (_req, _res, next) => next(notFound());

interface BodyParserError {
  type?: string;
  status?: number;
}

/** A failure's answer: status, headers and Zulip's error envelope. */
export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  error: ApiError;
}

/**
 * Every failure leaves as Zulip's error envelope; only a bug gives a 500, and PostgreSQL or Redis
 * out of reach a 503 at once (clients retry a 5xx), logged as the outage it is, not as a bug.
 */
export function errorResponse(
  err: unknown,
  log: Logger,
  request: { method?: string; path: string },
): ErrorResponse {
  let apiError: ApiError;
  const refusedByDatabase = inputRefusedByDatabase(err);
  if (err instanceof ApiError) {
    apiError = err;
  } else if ((err as BodyParserError)?.type === 'entity.parse.failed') {
    apiError = badRequest('Malformed JSON');
  } else if (
    (err as BodyParserError)?.type === 'entity.too.large' ||
    (err as BodyParserError)?.type === 'parameters.too.many'
  ) {
    apiError = requestTooLarge();
  } else if (malformedMultipart(err)) {
    apiError = badRequest('Malformed multipart body');
  } else if (refusedByDatabase) {
    apiError = badRequest(refusedByDatabase);
  } else if (
    typeof (err as BodyParserError)?.status === 'number' &&
    (err as BodyParserError).status! < 500
  ) {
    apiError = badRequest('Invalid request');
  } else if (connectionWaitTimedOut(err)) {
    // The last line of the overload guard (overload.ts): a transaction waited its whole time for
    // a pooled connection. Nothing of the request was done.
    countRefusal('db_wait_timeout');
    apiError = serverOverloaded(RETRY_AFTER_SECONDS);
  } else if (transactionConflict(err)) {
    // A deadlock or serialization failure outside the transaction helpers, which run again.
    apiError = writeConflict(CONFLICT_RETRY_AFTER_SECONDS);
  } else if (databaseUnreachable(err) || redisUnreachable(err)) {
    // At debug: the process's store watch logs the outage once, and each request's 503 is in
    // the request log.
    log.debug('http', 'database or Redis unreachable', {
      method: request.method,
      path: request.path,
      error: err instanceof Error ? err.message : String(err),
    });
    apiError = serverNotReady();
  } else {
    log.error('http', 'unhandled error', {
      method: request.method,
      path: request.path,
      error: err instanceof Error ? err.stack : String(err),
    });
    apiError = internalError();
  }
  return {
    status: httpStatus(apiError),
    headers: httpHeaders(apiError, request.path),
    error: apiError,
  };
}

/** The express error handler: `errorResponse`, noted for the request log. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const { status, headers, error } = errorResponse(err, log, req);
    (res.locals as RequestLocals).apiError = { code: error.code, msg: error.message };
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(error.toJSON());
  };
}
