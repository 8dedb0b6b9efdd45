import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { P } from '../../../libs/core/schema';
import { updateRealmUserDefaults } from '../../../libs/domain/realm-user-defaults/update-user-defaults';
import { EDITABLE_DEFAULT_NAMES } from '../../../libs/domain/realm-user-defaults/user-defaults';
import { USER_SETTINGS } from '../../../libs/domain/settings/user-settings';
import { authed } from '../../../libs/http/route';

// Each default is validated exactly as the user's own setting is by `PATCH /settings`.
const defaultsSpec = P.pick(USER_SETTINGS, EDITABLE_DEFAULT_NAMES);

export function realmUserDefaultsRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/realm/user_settings_defaults',
    authed(ctx, defaultsSpec, async ({ user, realm, params }) => {
      await updateRealmUserDefaults(ctx, { actor: user, realm, settings: params });
    }),
  );
}
