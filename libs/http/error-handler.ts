import type { ErrorRequestHandler, RequestHandler } from 'express';
import { inputRefusedByDatabase } from '../db/errors';
import type { Logger } from '../log';
import { ApiError, badRequest, notFound, requestTooLarge } from './errors';
import type { RequestLocals } from './request-log';

export const unknownRoute: RequestHandler = (_req, _res, next) => next(notFound());

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Every failure leaves as Zulip's error envelope; only a bug gives a 500. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
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
    } else if (refusedByDatabase) {
      apiError = badRequest(refusedByDatabase);
    } else if (
      typeof (err as BodyParserError)?.status === 'number' &&
      (err as BodyParserError).status! < 500
    ) {
      apiError = badRequest('Invalid request');
    } else {
      log.error('http', 'unhandled error', {
        method: req.method,
        path: req.path,
        error: err instanceof Error ? err.stack : String(err),
      });
      apiError = new ApiError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error');
    }
    (res.locals as RequestLocals).apiError = { code: apiError.code, msg: apiError.message };
    for (const [name, value] of Object.entries(apiError.headers)) res.setHeader(name, value);
    res.status(apiError.status).json(apiError.toJSON());
  };
}
