import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Realm } from '../../generated/prisma/client';
import type { AppContext } from '../core/context';
import { noteWrite } from '../db/read-replicas';
import type { Poller, Principal } from './auth';
import { parseParams, type ParamSpec, type ParamsOf } from './params';
import { identifyCaller, principalCacheOf, realmOfRequest } from './principal-cache';
import { consumeApiRequest } from './rate-limit';
import type { RequestLocals } from './request-log';

export type SuccessBody = Record<string, unknown>;

interface Call<P> {
  ctx: AppContext;
  params: P;
  req: Request;
}

/** `realm` is null when the host names no organization (the root of a multi-organization server). */
export interface PublicCall<P> extends Call<P> {
  realm: Realm | null;
}

/** `Who`: what the route's `identify` says of the caller (the whole rows by default). */
export type AuthedCall<P, Who = Principal> = Call<P> & Who;

function input(req: Request): Record<string, unknown> {
  const body =
    req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body, ...req.params };
}

function send(res: Response, body: SuccessBody | void, ignored: string[]): void {
  const envelope: SuccessBody = { result: 'success', msg: '', ...(body ?? {}) };
  if (ignored.length) envelope.ignored_parameters_unsupported = ignored;
  res.status(200).json(envelope);
}

/**
 * An authenticated route: Basic auth, then parameters validated against `spec`, then the handler,
 * whose return value becomes the success envelope.
 */
export function authed<S extends ParamSpec>(
  ctx: AppContext,
  spec: S,
  handler: (call: AuthedCall<ParamsOf<S>>) => Promise<SuccessBody | void>,
): RequestHandler;
/** The same with its own `identify`, which may tell less of the caller (`Poller`). */
export function authed<S extends ParamSpec, Who extends Poller>(
  ctx: AppContext,
  spec: S,
  handler: (call: AuthedCall<ParamsOf<S>, Who>) => Promise<SuccessBody | void>,
  identify: (ctx: AppContext, req: Request) => Promise<Who>,
): RequestHandler;
export function authed(
  ctx: AppContext,
  spec: ParamSpec,
  // The overloads pair each handler with what its `identify` returns.
  handler: (call: never) => Promise<SuccessBody | void>,
  identify: (ctx: AppContext, req: Request) => Promise<Poller> = identifyCaller,
): RequestHandler {
  return authedRoute(ctx, spec, handler, identify, true);
}

/**
 * `authed` for a route whose writes never change a `users` or `realms` row (sending a message):
 * it answers without first hearing its own changes back through the principal cache's feed, a
 * PostgreSQL round trip whose notification every listening process receives.
 */
export function authedLeavingPrincipals<S extends ParamSpec>(
  ctx: AppContext,
  spec: S,
  handler: (call: AuthedCall<ParamsOf<S>>) => Promise<SuccessBody | void>,
): RequestHandler {
  return authedRoute(ctx, spec, handler, identifyCaller, false);
}

function authedRoute(
  ctx: AppContext,
  spec: ParamSpec,
  handler: (call: never) => Promise<SuccessBody | void>,
  identify: (ctx: AppContext, req: Request) => Promise<Poller>,
  settles: boolean,
): RequestHandler {
  const handle = handler as (
    call: AuthedCall<ParamsOf<ParamSpec>, Poller>,
  ) => ReturnType<typeof handler>;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = await identify(ctx, req);
      (res.locals as RequestLocals).userId = principal.user.id;
      await consumeApiRequest(ctx, principal.user.id, res);
      const { values, ignored } = parseParams(spec, input(req));
      const body = await handle({ ctx, params: values, req, ...principal });
      // A request that may have changed users or organizations answers once the cache has
      // heard of it, so the client's next request is judged on the new rows.
      if (req.method !== 'GET') {
        if (settles) await principalCacheOf(ctx)?.settle();
        // The user's next reads on a replica wait until it has replayed this request's writes.
        await noteWrite(ctx, principal.user.id);
      }
      send(res, body, ignored);
    } catch (err) {
      next(err);
    }
  };
}

/** A route that needs no credentials (e.g. `GET /server_settings`); the organization comes from the host. */
export function open<S extends ParamSpec>(
  ctx: AppContext,
  spec: S,
  handler: (call: PublicCall<ParamsOf<S>>) => Promise<SuccessBody | void>,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { values, ignored } = parseParams(spec, input(req));
      const realm = await realmOfRequest(ctx, req);
      send(res, await handler({ ctx, params: values, realm, req }), ignored);
    } catch (err) {
      next(err);
    }
  };
}
