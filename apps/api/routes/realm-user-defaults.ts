import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { updateRealmUserDefaults } from '../../../libs/domain/realm-user-defaults/update-user-defaults';
import { EDITABLE_DEFAULT_NAMES } from '../../../libs/domain/realm-user-defaults/user-defaults';
import {
  USER_SETTINGS,
  type UserSettingChanges,
} from '../../../libs/domain/settings/user-settings';
import type { ParamSpec } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

// Each default is validated exactly as the user's own setting is by `PATCH /settings`.
const defaultsSpec: ParamSpec = Object.fromEntries(
  EDITABLE_DEFAULT_NAMES.map((name) => [name, { schema: USER_SETTINGS[name], encoding: 'text' }]),
);

export function realmUserDefaultsRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/realm/user_settings_defaults',
    authed<UserSettingChanges>(ctx, defaultsSpec, async ({ user, realm, params }) => {
      await updateRealmUserDefaults(ctx, { actor: user, realm, settings: params });
    }),
  );
}
