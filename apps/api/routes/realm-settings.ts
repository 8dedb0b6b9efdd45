import type { Router } from 'express';
import type { AppContext } from '../../../libs/core/context';
import { groupSettingUpdateSchema } from '../../../libs/domain/groups/group-setting-value';
import {
  REALM_GROUP_SETTING_NAMES,
  type RealmGroupSettingChanges,
} from '../../../libs/domain/realms/realm-group-settings';
import {
  REALM_SETTINGS,
  updateRealm,
  type RealmSettingChanges,
} from '../../../libs/domain/realms/update-realm';
import { P, type ParamSpec } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const realmSpec: ParamSpec = {};
for (const [name, schema] of Object.entries(REALM_SETTINGS)) {
  realmSpec[name] = { schema, encoding: 'text' };
}
for (const name of REALM_GROUP_SETTING_NAMES) realmSpec[name] = P.json(groupSettingUpdateSchema);

type RealmParams = RealmSettingChanges & RealmGroupSettingChanges;

export function realmSettingsRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/realm',
    authed<RealmParams>(ctx, realmSpec, async ({ user, realm, params }) => {
      const groupChanges: RealmGroupSettingChanges = {};
      for (const name of REALM_GROUP_SETTING_NAMES) {
        if (params[name] !== undefined) groupChanges[name] = params[name];
      }
      await updateRealm(ctx, { actor: user, realm, changes: params, groupChanges });
    }),
  );
}
