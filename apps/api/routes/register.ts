import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { queueParamSpec } from '../../../libs/domain/register/queue-params';
import { registerQueue } from '../../../libs/domain/register/register-queue';
import { sendTyping, typingParams } from '../../../libs/domain/typing/send-typing';
import { authed } from '../../../libs/http/route';

/** `POST /register` (queue + initial state) and `POST /typing`. */
export function registerRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/register',
    authed(ctx, queueParamSpec, async ({ user, realm, params, req }) =>
      registerQueue(ctx, { user, realm, params, client: req.headers['user-agent'] ?? '' }),
    ),
  );
  router.post(
    '/typing',
    authed(ctx, typingParams, async ({ user, realm, params }) => {
      await sendTyping(ctx, { sender: user, realm, ...params });
    }),
  );
}
