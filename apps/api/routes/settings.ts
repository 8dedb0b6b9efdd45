import type { Router } from 'express';
import Joi from 'joi';
import type { AppContext } from '../../../libs/core/context';
import { updateSettings } from '../../../libs/domain/settings/update-settings';
import {
  USER_SETTINGS,
  type UserSettingChanges,
  type UserSettingName,
} from '../../../libs/domain/settings/user-settings';
import { P, type ParamDef, type ParamSpec } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

interface SettingsParams extends UserSettingChanges {
  full_name?: string;
  email?: string;
  old_password?: string;
  new_password?: string;
}

const settingsSpec: ParamSpec = {
  full_name: P.string(Joi.string().allow('')),
  email: P.string(Joi.string().allow('')),
  old_password: P.string(Joi.string().allow('')),
  new_password: P.string(Joi.string().allow('')),
};
for (const [name, schema] of Object.entries(USER_SETTINGS)) {
  settingsSpec[name] = { schema, encoding: 'text' } satisfies ParamDef;
}

export function settingsRoutes(router: Router, ctx: AppContext): void {
  const handler = authed<SettingsParams>(ctx, settingsSpec, async ({ user, realm, params }) => {
    const settings: UserSettingChanges = {};
    for (const name of Object.keys(USER_SETTINGS) as UserSettingName[]) {
      if (params[name] !== undefined) settings[name] = params[name];
    }
    await updateSettings(ctx, {
      actor: user,
      realm,
      fullName: params.full_name,
      email: params.email,
      oldPassword: params.old_password,
      newPassword: params.new_password,
      settings,
    });
  });
  // `/settings/display` and `/settings/notifications` are deprecated aliases (FL 80).
  router.patch('/settings', handler);
  router.patch('/settings/display', handler);
  router.patch('/settings/notifications', handler);
}
