import type { Realm, User } from '../../../generated/prisma/client';
import { inTransaction } from '../../events/outbox';
import type { AppContext } from '../../core/context';
import { realmUserAudience, requireRealmAdmin } from '../permissions/users';
import { settingColumn, type UserSettingChanges } from '../settings/user-settings';
import { defaultValue, EDITABLE_DEFAULT_NAMES, realmUserDefaultRow } from './user-defaults';
import { realmUserSettingsDefaultsEvent } from '../../protocol/events/realm-user-settings-defaults';

/**
 * `PATCH /realm/user_settings_defaults`: changes the settings new users of the organization start
 * with (existing users keep theirs); each changed default emits a `realm_user_settings_defaults`
 * update event to the organization.
 */
export async function updateRealmUserDefaults(
  ctx: AppContext,
  input: { actor: User; realm: Realm; settings: UserSettingChanges },
): Promise<void> {
  requireRealmAdmin(input.actor);
  await inTransaction(ctx, async (tx, events) => {
    const row = await realmUserDefaultRow(tx, input.realm.id);
    const changed = EDITABLE_DEFAULT_NAMES.filter(
      (name) =>
        input.settings[name] !== undefined && input.settings[name] !== defaultValue(row, name),
    );
    if (changed.length === 0) return;
    await tx.realmUserDefault.update({
      where: { id: row.id },
      data: Object.fromEntries(changed.map((name) => [settingColumn(name), input.settings[name]])),
    });
    const audience = await realmUserAudience(tx, input.realm.id);
    for (const name of changed) {
      const value = input.settings[name];
      if (value === undefined) continue;
      await events.emit(
        input.realm.id,
        realmUserSettingsDefaultsEvent({ op: 'update', property: name, value }),
        audience,
      );
    }
  });
}
