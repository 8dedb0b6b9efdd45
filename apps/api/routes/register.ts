import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { queueParamSpec, type QueueParams } from '../../../libs/domain/register/queue-params';
import { registerQueue } from '../../../libs/domain/register/register-queue';
import { sendTyping, type TypingInput } from '../../../libs/domain/typing/send-typing';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface TypingParams {
  op: 'start' | 'stop';
  type: 'direct' | 'stream' | 'channel';
  to?: number[];
  stream_id?: number;
  topic?: string;
}

/** `POST /register` (queue + initial state) and `POST /typing`. */
export function registerRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/register',
    authed<QueueParams>(ctx, queueParamSpec, async ({ user, realm, params, req }) =>
      registerQueue(ctx, { user, realm, params, client: req.headers['user-agent'] ?? '' }),
    ),
  );
  router.post(
    '/typing',
    authed<TypingParams>(
      ctx,
      {
        op: P.string(Joi.string().valid('start', 'stop').required()),
        type: P.string(Joi.string().valid('direct', 'stream', 'channel').default('direct')),
        to: P.json(Joi.array().items(Joi.number().integer())),
        stream_id: P.int(),
        topic: P.string(),
      },
      async ({ user, realm, params }) => {
        const input: TypingInput = { sender: user, realm, ...params };
        await sendTyping(ctx, input);
      },
    ),
  );
}
