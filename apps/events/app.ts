import bodyParser from 'body-parser';
import { Router } from 'express';
import type { RequestListener } from 'node:http';
import type { AppContext } from '../../libs/core/context';
import type { EventsTier } from '../../libs/events/events-tier';
import { errorHandler, unknownRoute } from '../../libs/http/error-handler';
import { multipartFields } from '../../libs/http/multipart-fields';
import { sessionAuth } from '../../libs/http/session';
import { tierApp } from '../../libs/http/tier-app';
import { eventRoutes } from './routes';
import { servePollsFirst } from './well-formed-poll';

/** `GET /events` and `DELETE /events`, for this tier's app or for the one-process server. */
export function eventsRouter(ctx: AppContext, tier: EventsTier): Router {
  const router = Router();
  eventRoutes(router, ctx, tier);
  return router;
}

/**
 * The event queue's handlers for the one-process server: the same poll handler as the events
 * tier's, ahead of express, and the routes for everything else (registering through `GET /events`,
 * a malformed poll, `DELETE /events`).
 */
export function eventsHandlers(
  ctx: AppContext,
  tier: EventsTier,
): { events: Router; pollsFirst: ReturnType<typeof servePollsFirst> } {
  return { events: eventsRouter(ctx, tier), pollsFirst: servePollsFirst(ctx, tier) };
}

/**
 * The event-queue tier's HTTP side: `GET /api/v1/events` (long-poll) and `DELETE /api/v1/events`;
 * well-formed polls of a queue are answered before express (`servePollsFirst`).
 */
export function createEventsApp(ctx: AppContext, tier: EventsTier): RequestListener {
  const app = tierApp(ctx);
  app.use(bodyParser.urlencoded({ extended: false, limit: '1mb', parameterLimit: 1000 }));
  app.use(multipartFields({ fieldSize: 1024 * 1024, fields: 1000 }));
  const router = eventsRouter(ctx, tier);
  app.use('/api/v1', router);
  app.use('/json', sessionAuth(ctx), router);
  app.get('/health', (_req, res) => {
    res.json({
      result: 'success',
      msg: '',
      polls: tier.waker.pollCount,
      partitions: tier.dispatcher.partitions,
    });
  });
  app.use(unknownRoute);
  app.use(errorHandler(ctx.log));
  const pollsFirst = servePollsFirst(ctx, tier);
  return (req, res) => {
    if (!pollsFirst(req, res)) void app(req, res);
  };
}
