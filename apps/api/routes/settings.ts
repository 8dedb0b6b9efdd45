import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { updateSettings } from '../../../libs/domain/settings/update-settings';
import { USER_SETTING_NAMES, USER_SETTINGS } from '../../../libs/domain/settings/user-settings';
import { authed } from '../../../libs/http/route';

const settingsSpec = {
  full_name: P.string(),
  email: P.string(),
  old_password: P.string(),
  new_password: P.string(),
  ...USER_SETTINGS,
};

export function settingsRoutes(router: Router, ctx: AppContext): void {
  const handler = authed(ctx, settingsSpec, async ({ user, realm, params }) => {
    await updateSettings(ctx, {
      actor: user,
      realm,
      fullName: params.full_name,
      email: params.email,
      oldPassword: params.old_password,
      newPassword: params.new_password,
      settings: pickDefined(params, USER_SETTING_NAMES),
    });
  });
  // `/settings/display` and `/settings/notifications` are deprecated aliases (FL 80).
  router.patch('/settings', handler);
  router.patch('/settings/display', handler);
  router.patch('/settings/notifications', handler);
}
