import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import {
  DEFAULT_HISTORY_LIMIT_DAYS,
  realmPresence,
  userPresence,
} from '../../../libs/domain/presence/get-presence';
import { updatePresence, type PresenceStatus } from '../../../libs/domain/presence/update-presence';
import { userIdFromPathSegment } from '../../../libs/domain/users/lookup-user';
import { badRequest } from '../../../libs/core/errors';
import { authed } from '../../../libs/http/route';
import { noteWrite, readWith } from '../../../libs/db/read-replicas';

export function presenceRoutes(router: Router, ctx: AppContext): void {
  router.post(
    '/users/me/presence',
    authed(
      ctx,
      {
        status: P.string().required(),
        ping_only: P.bool().default(false),
        new_user_input: P.bool().default(false),
        last_update_id: P.int(),
        history_limit_days: P.int(Joi.number().integer().min(0)),
        slim_presence: P.bool().default(false),
      },
      async ({ user, params }) => {
        if (params.status !== 'active' && params.status !== 'idle') {
          throw badRequest(`Invalid status: ${params.status}`);
        }
        const now = new Date();
        await updatePresence(ctx, { user, status: params.status as PresenceStatus, now });
        const lastUpdateId = params.last_update_id ?? null;
        if (params.ping_only) return { presence_last_update_id: lastUpdateId ?? -1 };
        // The list may come from a replica, once it holds the update just made.
        await noteWrite(ctx, user.id);
        const response = await readWith(ctx, user.id, (db) =>
          realmPresence(db, {
            viewer: user,
            lastUpdateId,
            historyLimitDays: params.history_limit_days ?? DEFAULT_HISTORY_LIMIT_DAYS,
            now,
            modern: params.slim_presence || lastUpdateId !== null,
          }),
        );
        return { ...response, zephyr_mirror_active: false };
      },
    ),
  );
  router.get(
    '/realm/presence',
    authed(ctx, {}, async ({ user }) => {
      const { presences, server_timestamp } = await readWith(ctx, user.id, (db) =>
        realmPresence(db, {
          viewer: user,
          lastUpdateId: null,
          historyLimitDays: DEFAULT_HISTORY_LIMIT_DAYS,
          now: new Date(),
          modern: false,
        }),
      );
      return { presences, server_timestamp };
    }),
  );
  router.get(
    '/users/:user_id_or_email/presence',
    authed(
      ctx,
      { user_id_or_email: P.string(Joi.string()).required() },
      async ({ user, params }) => {
        const userId = await userIdFromPathSegment(ctx.db, user.realmId, params.user_id_or_email);
        return {
          presence: await userPresence(ctx.db, {
            viewer: user,
            userId,
            label: params.user_id_or_email,
            now: new Date(),
          }),
        };
      },
    ),
  );
}
