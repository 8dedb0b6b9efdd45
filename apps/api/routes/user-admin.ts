import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { profileDataUpdate } from '../../../libs/domain/profile-fields/set-values';
import { deactivateUser } from '../../../libs/domain/users/deactivate-user';
import { reactivateUser } from '../../../libs/domain/users/reactivate-user';
import { updateUser, userForAdmin } from '../../../libs/domain/users/update-user';
import { authed } from '../../../libs/http/route';

const userId = P.int().required();

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
    authed(
      ctx,
      {
        user_id: userId,
        full_name: P.string(),
        role: P.jsonOrText(P.int()),
        profile_data: P.array(profileDataUpdate),
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
    authed(
      ctx,
      {
        user_id: userId,
        deactivation_notification_comment: P.jsonOrText(
          P.string(Joi.string().allow('').max(2000)).nullable(),
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
    authed(ctx, { user_id: userId }, async ({ user, realm, params }) => {
      const target = await userForAdmin(ctx, realm, params.user_id, { allowBots: true });
      await reactivateUser(ctx, { actor: user, realm, target });
    }),
  );
}
