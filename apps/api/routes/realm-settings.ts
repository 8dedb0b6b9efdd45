import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { pickDefined } from '../../../libs/core/pick';
import { P } from '../../../libs/core/schema';
import { groupSettingUpdate } from '../../../libs/domain/groups/group-setting-value';
import { REALM_GROUP_SETTING_NAMES } from '../../../libs/domain/realms/realm-group-settings';
import { REALM_SETTINGS, updateRealm } from '../../../libs/domain/realms/update-realm';
import { authed } from '../../../libs/http/route';

const realmSpec = {
  ...REALM_SETTINGS,
  ...P.each(REALM_GROUP_SETTING_NAMES, groupSettingUpdate),
};

export function realmSettingsRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/realm',
    authed(ctx, realmSpec, async ({ user, realm, params }) => {
      await updateRealm(ctx, {
        actor: user,
        realm,
        changes: params,
        groupChanges: pickDefined(params, REALM_GROUP_SETTING_NAMES),
      });
    }),
  );
}
