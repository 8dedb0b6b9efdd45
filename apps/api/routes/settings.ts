import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { updateSettings } from '../../../libs/domain/settings/update-settings';
import { USER_SETTING_NAMES, USER_SETTINGS } from '../../../libs/domain/settings/user-settings';
import { clearAuthAttempts } from '../../../libs/domain/auth/auth-attempts';
import { endUserSessions } from '../../../libs/domain/auth/user-sessions';
import { authed } from '../../../libs/http/route';
import { sessionOf, sessionToken } from '../../../libs/http/session';

const settingsSpec = {
  full_name: P.string(),
  email: P.string(),
  old_password: P.string(),
  new_password: P.string(),
  ...USER_SETTINGS,
};

export function settingsRoutes(router: Router, ctx: AppContext): void {
  const handler = authed(ctx, settingsSpec, async ({ user, realm, params, req }) => {
    await updateSettings(ctx, {
      actor: user,
      realm,
      fullName: params.full_name,
      email: params.email,
      oldPassword: params.old_password,
      newPassword: params.new_password,
      settings: pickDefined(params, USER_SETTING_NAMES),
    });
    if (params.new_password !== undefined) {
      // As Django's session hash in Zulip: the browser that changed the password stays signed
      // in, every other session ends; the API key is unchanged.
      await endUserSessions(ctx, user.id, sessionOf(req) ? sessionToken(req) : null);
      await clearAuthAttempts(ctx, user.deliveryEmail);
    }
  });
  // `/settings/display` and `/settings/notifications` are deprecated aliases (FL 80).
  router.patch('/settings', handler);
  router.patch('/settings/display', handler);
  router.patch('/settings/notifications', handler);
}
