import type { Request, RequestHandler } from 'express';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../core/log';
import { observeHttpRequest, watchHttp } from '../metrics';

/** What a handler leaves in `res.locals` for the request log. */
export interface RequestLocals {
  userId?: number;
  apiError?: { code: string; msg: string };
}

const PROBES = new Set(['/healthz', '/readyz', '/health']);

/** The route pattern (`/api/v1/messages/:message_id`), so metrics have few label values. */
function routeOf(req: Request): string {
  const pattern = req.route?.path as unknown;
  if (typeof pattern !== 'string') return 'unmatched';
  const mount = ['/api/v1', '/json'].find((m) => req.originalUrl.startsWith(`${m}/`)) ?? '';
  return `${mount}${pattern}`;
}

/**
 * One JSON line per request at info level (method, full path, status, ms, user id, request id,
 * and on 4xx/5xx Zulip's error code and message), plus the latency histogram. Probes log at
 * debug, or they would drown the rest. `route` names the route pattern, or gives it once the request
 * is done.
 * The caller sends `requestIdOf` the result back as X-Request-Id: with every header given to
 * writeHead at once, node writes the head without its per-header bookkeeping.
 */
export function trackRequest(
  log: Logger,
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  locals: RequestLocals,
  route: string | (() => string),
): TrackedRequest {
  const request: TrackedRequest = {
    log,
    req,
    res,
    locals,
    route,
    requestId: undefined,
    started: process.hrtime.bigint(),
  };
  // A function of the module's, bound: a closure made per request lost its optimized code at
  // every full collection (see `BatchCommand` in libs/redis/by-node.ts).
  res.on('finish', logFinished.bind(null, request));
  return request;
}

export interface TrackedRequest {
  log: Logger;
  req: IncomingMessage & { originalUrl?: string };
  res: ServerResponse;
  locals: RequestLocals;
  route: string | (() => string);
  /** Made when first asked for: a waiting poll would otherwise hold it (see `requestIdOf`). */
  requestId: string | undefined;
  started: bigint;
}

/**
 * The request's id: the client's X-Request-Id, or a new UUID. Made at the first call, which for
 * a long poll is its answer: node builds a UUID as a string of some twenty pieces, which
 * thousands of waiting polls would each keep, and each young-generation collection copy.
 */
export function requestIdOf(request: TrackedRequest): string {
  request.requestId ??= (request.req.headers['x-request-id'] as string | undefined) ?? randomUUID();
  return request.requestId;
}

function logFinished(request: TrackedRequest): void {
  const { log, req, res, locals, route, started } = request;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [path = ''] = (req.originalUrl ?? req.url ?? '').split('?');
  observeHttpRequest(
    req.method ?? '',
    typeof route === 'string' ? route : route(),
    res.statusCode,
    seconds,
  );
  const fields = {
    requestId: requestIdOf(request),
    method: req.method,
    path,
    status: res.statusCode,
    ms: Math.round(seconds * 1e4) / 10,
    userId: locals.userId ?? null,
    ...(res.statusCode >= 400 && locals.apiError
      ? { code: locals.apiError.code, error: locals.apiError.msg }
      : {}),
  };
  if (PROBES.has(path)) log.debug('http', 'request', fields);
  else log.info('http', 'request', fields);
}

/** The request log and latency histogram of an express app (see `trackRequest`). */
export function requestLog(log: Logger): RequestHandler {
  watchHttp();
  return (req, res, next) => {
    const locals = res.locals as RequestLocals;
    res.setHeader(
      'X-Request-Id',
      requestIdOf(trackRequest(log, req, res, locals, () => routeOf(req))),
    );
    next();
  };
}
