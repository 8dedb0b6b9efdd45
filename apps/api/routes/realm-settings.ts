import type { Router } from 'express';
import type { AppContext } from '../../../libs/domain/context';
import {
  REALM_SETTINGS,
  updateRealm,
  type RealmSettingChanges,
} from '../../../libs/domain/realms/update-realm';
import type { ParamSpec } from '../../../libs/http/params';
import { authed } from '../../../libs/http/route';

const realmSpec: ParamSpec = {};
for (const [name, schema] of Object.entries(REALM_SETTINGS)) {
  realmSpec[name] = { schema, encoding: 'text' };
}

export function realmSettingsRoutes(router: Router, ctx: AppContext): void {
  router.patch(
    '/realm',
    authed<RealmSettingChanges>(ctx, realmSpec, async ({ user, realm, params }) => {
      await updateRealm(ctx, { actor: user, realm, changes: params });
    }),
  );
}
