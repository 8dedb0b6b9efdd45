import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import type { ProfileDataUpdate } from '../../../libs/domain/profile-fields/set-values';
import { deactivateUser, reactivateUser } from '../../../libs/domain/users/deactivate-user';
import { updateUser, userForAdmin } from '../../../libs/domain/users/update-user';
import { P } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface UpdateUserParams {
  user_id: number;
  full_name?: string;
  role?: number;
  profile_data?: ProfileDataUpdate[];
  new_email?: string;
}

interface DeactivateParams {
  user_id: number;
  deactivation_notification_comment?: string;
}

const userId = P.int(Joi.number().integer().required());

const profileDataSchema = Joi.array().items(
  Joi.object({
    id: Joi.number().integer().required(),
    value: Joi.alternatives()
      .try(Joi.string().allow(''), Joi.array().items(Joi.number().integer()))
      .allow(null)
      .required(),
  }),
);

/** Administrators managing users (`PATCH`/`DELETE /users/{id}`, reactivation) and self-deactivation. */
export function userAdminRoutes(router: Router, ctx: AppContext): void {
  router.delete(
    '/users/me',
    authed(ctx, {}, async ({ user, realm }) => {
      await deactivateUser(ctx, { actor: user, realm, target: user, notificationComment: null });
    }),
  );
  router.patch(
    '/users/:user_id',
    authed<UpdateUserParams>(
      ctx,
      {
        user_id: userId,
        full_name: P.string(Joi.string().allow('')),
        role: P.jsonOrText(Joi.number().integer()),
        profile_data: P.json(profileDataSchema),
        new_email: P.string(Joi.string()),
      },
      async ({ user, realm, params }) => {
        await updateUser(ctx, {
          actor: user,
          realm,
          targetId: params.user_id,
          fullName: params.full_name,
          role: params.role,
          profileData: params.profile_data,
          newEmail: params.new_email,
        });
      },
    ),
  );
  router.delete(
    '/users/:user_id',
    authed<DeactivateParams>(
      ctx,
      {
        user_id: userId,
        deactivation_notification_comment: P.jsonOrText(
          Joi.string().allow('').max(2000).allow(null),
        ),
      },
      async ({ user, realm, params }) => {
        const target = await userForAdmin(ctx, realm, params.user_id, { allowBots: false });
        await deactivateUser(ctx, {
          actor: user,
          realm,
          target,
          notificationComment: params.deactivation_notification_comment ?? null,
        });
      },
    ),
  );
  router.post(
    '/users/:user_id/reactivate',
    authed<{ user_id: number }>(ctx, { user_id: userId }, async ({ user, realm, params }) => {
      const target = await userForAdmin(ctx, realm, params.user_id, { allowBots: true });
      await reactivateUser(ctx, { actor: user, realm, target });
    }),
  );
}
