import type { Request, Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../libs/core/context';
import { P } from '../../libs/core/schema';
import { queueParamSpec } from '../../libs/domain/register/queue-params';
import type { EventsTier } from '../../libs/events/events-tier';
import { getEvents, ownedQueue } from '../../libs/events/get-events';
import { identifyCaller } from '../../libs/http/principal-cache';
import { authed } from '../../libs/http/route';
import { afterPoll } from './after-poll';
import { eventsPrincipals } from './principals';

/**
 * Loaded on first use: registering pulls in most of the domain (the initial state's modules,
 * Markdown), which a process that only serves polls never needs in memory.
 */
function registerQueueModule(): typeof import('../../libs/domain/register/register-queue') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load in CommonJS
  return require('../../libs/domain/register/register-queue');
}

/** `GET /events` (long-poll, spec 4.5) and `DELETE /events`. */
export function eventRoutes(router: Router, ctx: AppContext, tier: EventsTier): void {
  const principals = eventsPrincipals(ctx);
  const identify = (c: AppContext, req: Request) => principals.authenticate(c, req);
  router.get(
    '/events',
    authed(
      ctx,
      {
        ...queueParamSpec,
        queue_id: P.string(Joi.string()),
        last_event_id: P.int(),
        dont_block: P.bool().default(false),
      },
      async ({ user, params, req }) => {
        let queueId = params.queue_id;
        if (queueId === undefined) {
          // Registering needs the whole rows, which a poll never does.
          const whole = await identifyCaller(ctx, req);
          const client = req.headers['user-agent'] ?? '';
          const { queueFromRequest } = registerQueueModule();
          const queue = await queueFromRequest(ctx, { ...whole, params, client });
          queueId = (await tier.store.create(queue)).id;
        }
        let polled;
        try {
          polled = await getEvents(tier.store, tier.waker, {
            user,
            queueId,
            lastEventId: params.last_event_id,
            dontBlock: params.dont_block,
            heartbeatSeconds: ctx.config.heartbeatSeconds,
            client: req.res!,
          });
        } finally {
          afterPoll(tier, req.res!);
        }
        if (polled === null) return;
        return { events: polled.events, queue_id: queueId };
      },
      identify,
    ),
  );
  router.delete(
    '/events',
    authed(
      ctx,
      { queue_id: P.string(Joi.string()).required() },
      async ({ user, params }) => {
        const queue = await ownedQueue(tier.store, user, params.queue_id);
        await tier.store.delete(queue);
      },
      identify,
    ),
  );
}
